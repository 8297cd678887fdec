// bloomkit check FILE|- [INPUT...|-] [--absent] [--count] — which lines may be in the filter.
//
// Prints the lines that may be present (or, with --absent, those certainly absent), or with
// --count only the totals. Exits 0 when at least one line was selected, 1 when none, 2 on error.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "commands/commands.hpp"
#include "jobs/filter/filter_files.hpp"
#include "jobs/filter/line_filters.hpp"
#include "jobs/output.hpp"
#include "support/arguments.hpp"
#include "support/check_report.hpp"
#include "support/common_options.hpp"
#include "support/json_object.hpp"
#include "support/keys.hpp"
#include "support/overfull.hpp"

namespace bloomkit::cli {
namespace {

struct check_options {
    std::string filter;
    filter_reading reading;
    std::vector<std::string> inputs;
    check_report report;
    bool no_verify = false;
    std::string threads = "0";
};

int run_check(const check_options& options) {
    if (jobs::is_standard_stream(options.filter) &&
        (options.inputs.empty() || std::ranges::count(options.inputs, "-") > 0))
        throw invalid_argument(
            "the filter and the lines cannot both come from standard input: name a file for one of them");
    jobs::line_reader lines(options.inputs);
    const jobs::filter_input opened(options.filter, options.reading.parsed());
    if (!options.no_verify) opened.verify();
    const key_format keys = key_format_for(opened.header().keys, options.reading.key, opened.name());
    // A file that cannot record its keys, read as text because nobody said otherwise, is watched
    // as an unrecorded one is (a Guava stream read through an integer funnel reads numbers).
    const bool guessed_text = !opened.records_keys() && !is_integer(opened.header().keys);
    unrecorded_format_warning numeric_lines(guessed_text ? key_format::unrecorded : opened.header().keys,
                                            options.reading.key, opened.name());
    // Answers from a file that changed while it was read are not given.
    const bool selected = report_check(opened.filter(), lines,
                                       {.keys = keys,
                                        .threads = parse_threads(options.threads),
                                        .how = options.report,
                                        .totals = json_object("check").text("file", options.filter),
                                        .before_totals = [&] { opened.require_unchanged(); },
                                        .numeric_lines = &numeric_lines});
    return selected ? found : nothing_found;
}

}  // namespace

action check_command(CLI::App& command) {
    auto options = std::make_shared<check_options>();
    command.add_option("filter", options->filter, "Filter file; '-' reads it from stdin")
        ->required()
        ->type_name("FILE");
    command.add_option("inputs", options->inputs, "Input files; '-' or none reads stdin")->type_name("FILE");
    add_check_report_options(command, options->report);
    add_filter_reading_options(command, options->reading);
    add_thread_option(command, options->threads);
    command.footer(
        "Examples:\n"
        "  bloomkit check weak.bkf passwords.txt                 # the lines that may be weak passwords\n"
        "  bloomkit check --absent seen.bkf urls.txt > new.txt   # the lines certainly not seen\n"
        "  bloomkit check --count --json seen.bkf urls.txt.gz    # how many of each, as JSON\n"
        "  bloomkit check users.guava ids.txt                    # a Java service's Guava filter (--funnel: its "
        "funnel)\n"
        "  bloomkit check iocs.bloom domains.txt                 # a DCSO bloom file, gzipped or not\n" +
        exit_status_footer(command.get_name()));
    command.add_flag("--no-verify", options->no_verify,
                     "Skip the payload checksum (instant start on a huge filter; corruption goes unnoticed)");
    return [options] { return run_check(*options); };
}

}  // namespace bloomkit::cli
