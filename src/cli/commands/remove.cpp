// bloomkit remove FILE [INPUT...|-] — removes lines from a counting Bloom or cuckoo filter,
// replacing it atomically under the writer lock.
//
// Removing a key that was never added takes away part of other keys: a counting filter
// decrements counters that other keys rely on, a cuckoo filter deletes another key's matching
// fingerprint, and those keys become false negatives. A line never added that tests present by
// chance cannot be told from one that was added; but a line the filter certainly does not hold
// can, and it is evidence that the input is not what was added — so that some of its other
// lines, which test present, may be such false positives too. So remove is all or nothing: if
// any line is certainly absent when its turn comes, nothing is removed, those lines are named,
// and the command exits 1. --partial removes the lines that test present anyway and refuses
// only the others. Exit codes: 0 every line removed, 1 some line refused (or no line at all),
// 2 error.
#include <fmt/core.h>
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "jobs/filter/remove_lines.hpp"
#include "support/common_options.hpp"
#include "support/file_locking.hpp"
#include "support/keys.hpp"

namespace bloomkit::cli {
namespace {

struct remove_options {
    std::string filter;
    std::vector<std::string> inputs;
    std::string key;  // empty: as the filter records
    bool partial = false;
    bool no_wait = false;
};

void report(const jobs::remove_report& done, bool partial, const std::string& filter) {
    if (done.refused == 0) {
        fmt::print(stderr, "bloomkit: removed {} line{}\n", done.removed, done.removed == 1 ? "" : "s");
        return;
    }
    std::string named;
    for (const std::string& line : done.first_refused) named += "\n  " + line;
    if (done.refused > done.first_refused.size())
        named += fmt::format("\n  and {} more", done.refused - done.first_refused.size());
    fmt::print(stderr,
               "bloomkit: {} line{} certainly not in the filter:{}\n"
               "bloomkit: {}: removing a key that was never added takes away part of other keys, and makes them false "
               "negatives\n",
               done.refused, done.refused == 1 ? " is" : "s are", named,
               partial
                   ? fmt::format("removed the {} other line{} (--partial)", done.removed, done.removed == 1 ? "" : "s")
                   : fmt::format("nothing was removed from '{}': lines never added suggest the input is not what was "
                                 "added (--partial removes the lines that test present anyway)",
                                 filter));
}

int run_remove(const remove_options& options) {
    jobs::line_reader lines(options.inputs);
    const jobs::remove_report done = jobs::remove_lines(options.filter, lines,
                                                        {.keys = asked_key_format(options.key),
                                                         .partial = options.partial,
                                                         .lock = lock_policy_of(options.filter, options.no_wait)});
    report(done, options.partial, options.filter);
    return done.removed > 0 && done.refused == 0 ? success : nothing_found;
}

}  // namespace

action remove_command(CLI::App& command) {
    auto options = std::make_shared<remove_options>();
    command.footer(
        "Only lines that were added may be removed. Removing a key that was never added takes away part of other "
        "keys (counters they rely on, or their fingerprint), which then test absent: false negatives. A line the "
        "filter "
        "certainly does not hold shows the input is not what was added, so by default nothing is removed then: the "
        "lines are named and the command exits 1. A line never added that tests present by chance cannot be told "
        "apart: remove only what you added.\n"
        "Exit status: 0 every line removed, 1 some line refused (or no line given), 2 error.");
    command.add_option("filter", options->filter, "Filter file (replaced atomically)")->required()->type_name("FILE");
    command.add_option("inputs", options->inputs, "Input files; '-' or none reads stdin")->type_name("FILE");
    add_key_option(command, options->key);
    command.add_flag("--partial", options->partial,
                     "Remove the lines that test present even if others are certainly absent (refusing only those)");
    add_no_wait_option(command, options->no_wait);
    return [options] { return run_remove(*options); };
}

}  // namespace bloomkit::cli
