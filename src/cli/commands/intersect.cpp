// bloomkit intersect A B [-p P | --memory SIZE] [--all] — prints the lines of B that are
// probably in A, in B's order, each once unless --all. A filter of A is held (sized from A's
// count of lines, or by -n, -p, --memory), and B streams through it: memory is the filter's,
// whatever B's size. Every line of B that is in A is printed; a line that is not is printed with
// the filter's false-positive rate, and the summary estimates how many were.
#include <memory>

#include "commands/commands.hpp"
#include "support/membership_job.hpp"

namespace bloomkit::cli {

action intersect_command(CLI::App& command) {
    auto options = std::make_shared<membership_options>();
    command.add_option("A", options->held, "The input made into a filter ('-': stdin)")->required()->type_name("FILE");
    command.add_option("B", options->streamed, "The input whose lines are printed ('-': stdin)")
        ->required()
        ->type_name("FILE");
    add_membership_options(command, *options, "A (the first input)");
    command.footer(
        "Examples:\n"
        "  bloomkit intersect yesterday.txt today.txt > both.txt        # the lines of today that were there "
        "yesterday\n"
        "  zcat big.gz | bloomkit intersect --memory 1G small.txt -     # a 1 GB filter of small.txt, big streamed\n"
        "  bloomkit intersect --kind fuse -p 0.4% a.txt b.txt            # the smallest filter, a little less exact\n" +
        exit_status_footer(command.get_name()));
    return [options] { return run_membership_job("intersect", *options, true) ? found : nothing_found; };
}

}  // namespace bloomkit::cli
