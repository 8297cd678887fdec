// bloomkit add FILE [INPUT...|-] — adds lines to an existing filter (jobs/filter/add_lines.hpp: in
// place for a Bloom filter, all or nothing, under the writer lock).
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

#include "bloomkit/file_update.hpp"
#include "commands/commands.hpp"
#include "jobs/filter/add_lines.hpp"
#include "support/common_options.hpp"
#include "support/file_locking.hpp"
#include "support/keys.hpp"
#include "support/messages.hpp"
#include "support/overfull.hpp"
#include "support/summary.hpp"

namespace bloomkit::cli {
namespace {

struct add_options {
    std::string filter;
    filter_reading reading;
    std::vector<std::string> inputs;
    std::string threads = "0";
    bool no_wait = false;
    bool json = false;
};

int run_add_or_leave_unchanged(const add_options& options) {
    jobs::line_reader lines(options.inputs);
    const jobs::add_report added = jobs::add_lines(options.filter, lines,
                                                   {.reading = options.reading.parsed(),
                                                    .keys = asked_key_format(options.reading.key),
                                                    .threads = parse_threads(options.threads),
                                                    .lock = lock_policy_of(options.filter, options.no_wait)});
    if (added.recovered)
        fmt::print(
            stderr,
            "bloomkit: '{}' held an update that did not finish: every chunk it was not writing matched its checksum, "
            "and the file is sealed again\n",
            options.filter);
    warn_if_overfull(added.header);
    if (job_summary::wanted(options.json))
        summarize_filter("add", options.filter, added.format, added.header, lines).print(options.json, false);
    return success;
}

/// Adds, and says so when an error leaves the filter as it was (every error before the commit).
int run_add(const add_options& options) {
    try {
        return run_add_or_leave_unchanged(options);
    } catch (const file_format_error&) {
        throw;  // a damaged filter: its message says what became of it
    } catch (const unfinished_update&) {
        throw;  // its message says what became of the file
    } catch (const error& e) {
        throw error(fmt::format("{}; '{}' was not changed", command_message(e), options.filter));
    }
}

}  // namespace

action add_command(CLI::App& command) {
    auto options = std::make_shared<add_options>();
    command
        .add_option("filter", options->filter,
                    "Filter file (a Bloom filter is updated in place, others replaced atomically)")
        ->required()
        ->type_name("FILE");
    command.add_option("inputs", options->inputs, "Input files; '-' or none reads stdin")->type_name("FILE");
    add_filter_reading_options(command, options->reading);
    add_thread_option(command, options->threads);
    add_no_wait_option(command, options->no_wait);
    command.add_flag("--json", options->json, "Print the summary as JSON (on stdout)");
    command.footer(
        "A Guava stream or DCSO bloom file is read whole and rewritten as it was.\n"
        "Every line is read before the filter changes: a bad line, a damaged input or Ctrl-C leaves it as it was.\n"
        "Examples:\n"
        "  echo https://example.org/ | bloomkit add seen.bkf     # milliseconds, however large seen.bkf is\n"
        "  bloomkit add -t 8 seen.bkf today.txt.gz               # many lines: eight threads (kinds other than Bloom)");
    return [options] { return run_add(*options); };
}

}  // namespace bloomkit::cli
