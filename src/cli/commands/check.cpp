// bloomkit check FILE|- [INPUT...|-] [--absent] [--count] — which lines may be in the filter.
//
// Prints the lines that may be present (or, with --absent, those certainly absent), or with
// --count only the totals. Exits 0 when at least one line was selected, 1 when none, 2 on error.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "bloomkit/error.hpp"
#include "commands/commands.hpp"
#include "support/filter_files.hpp"
#include "support/filter_work.hpp"
#include "support/arguments.hpp"
#include "support/common_options.hpp"
#include "support/keys.hpp"
#include "support/output.hpp"

namespace bloomkit::cli {
namespace {

struct check_options {
    std::string filter;
    std::vector<std::string> inputs;
    bool absent = false;
    bool count = false;
    bool no_verify = false;
    bool json = false;
    std::string key = "text";
    std::string threads = "0";
};

int run_check(const check_options& options) {
    if (is_standard_stream(options.filter) && (options.inputs.empty() || std::ranges::count(options.inputs, "-") > 0))
        throw invalid_argument("the filter and the lines cannot both come from standard input: name a file for one of them");
    if (options.json && !options.count)
        throw invalid_argument("--json prints the totals of --count: without --count, check prints lines");
    const key_format keys = parse_key_format(options.key);
    line_reader lines(options.inputs);
    const filter_input opened(options.filter);
    if (!options.no_verify) opened.verify();

    std::uint64_t present = 0, absent = 0;
    output out;
    progress shown("checking", lines.total_bytes());
    std::visit(
        [&](const auto& filter) {
            query_lines(filter, lines, keys, parse_threads(options.threads), [&](auto batch, std::span<const char> answers) {
                for (std::size_t i = 0; i < batch.size(); ++i) {
                    const bool maybe = answers[i] != 0;
                    (maybe ? present : absent) += 1;
                    if (!options.count && maybe != options.absent) out.line(batch[i]);
                }
                shown.update(lines.bytes_read());
            });
        },
        opened.filter());
    opened.require_unchanged();  // before the totals: answers from a changed file are not given
    if (options.count && options.json)
        out.line(fmt::format("{{\"present\": {}, \"absent\": {}, \"filter\": {}}}", present, absent, json_string(opened.name())));
    else if (options.count)
        out.line(fmt::format("present\t{}\nabsent\t{}", present, absent));
    out.flush();
    return (options.absent ? absent : present) > 0 ? found : nothing_found;
}

}  // namespace

action check_command(CLI::App& command) {
    auto options = std::make_shared<check_options>();
    command.add_option("filter", options->filter, "Filter file; '-' reads it from stdin")->required()->type_name("FILE");
    command.add_option("inputs", options->inputs, "Input files; '-' or none reads stdin")->type_name("FILE");
    command.add_flag("--absent", options->absent, "Print the lines certainly NOT in the filter instead");
    command.add_flag("--count", options->count, "Print only the totals: present and absent lines");
    command.add_flag("--json", options->json, "With --count: print the totals as JSON");
    add_key_option(command, options->key);
    add_thread_option(command, options->threads);
    command.footer(
        "Examples:\n"
        "  bloomkit check weak.bkf passwords.txt                 # the lines that may be weak passwords\n"
        "  bloomkit check --absent seen.bkf urls.txt > new.txt   # the lines certainly not seen\n"
        "  bloomkit check --count --json seen.bkf urls.txt.gz    # how many of each, as JSON");
    command.add_flag("--no-verify", options->no_verify,
                    "Skip the payload checksum (instant start on a huge filter; corruption goes unnoticed)");
    return [options] { return run_check(*options); };
}

}  // namespace bloomkit::cli
