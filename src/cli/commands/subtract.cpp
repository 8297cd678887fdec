// bloomkit subtract A B [-p P | --memory SIZE] [--all] — prints the lines of A that are certainly
// not in B, in A's order, each once unless --all. A filter of B is held (sized from B's count of
// lines, or by -n, -p, --memory), and A streams through it. Every line printed is certainly not
// in B; a line of A not in B is held back with the filter's false-positive rate, and the
// summary estimates how many were.
#include <memory>

#include "commands/commands.hpp"
#include "support/membership_job.hpp"

namespace bloomkit::cli {

action subtract_command(CLI::App& command) {
    auto options = std::make_shared<membership_options>();
    command.add_option("A", options->streamed, "The input whose lines are printed ('-': stdin)")
        ->required()
        ->type_name("FILE");
    command.add_option("B", options->held, "The input made into a filter ('-': stdin)")->required()->type_name("FILE");
    add_membership_options(command, *options, "B (the second input)");
    command.footer(
        "Examples:\n"
        "  bloomkit subtract today.txt yesterday.txt > new.txt         # the lines that are new today\n"
        "  bloomkit subtract urls.txt blocklist.txt.gz -p 0.01%          # drop blocked URLs (1 in 10^4 others too)\n"
        "  cat crawl.log | bloomkit subtract - done.txt --memory 512M\n" +
        exit_status_footer(command.get_name()));
    return [options] { return run_membership_job("subtract", *options, false) ? found : nothing_found; };
}

}  // namespace bloomkit::cli
