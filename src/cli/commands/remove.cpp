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
#include <type_traits>
#include <vector>

#include "commands/commands.hpp"
#include "jobs/filter/filter_files.hpp"
#include "jobs/filter/line_filters.hpp"
#include "jobs/line_keys.hpp"
#include "support/common_options.hpp"
#include "support/file_locking.hpp"
#include "support/keys.hpp"
#include "support/overfull.hpp"

namespace bloomkit::cli {
namespace {

/// Refused lines named in the message, at most.
constexpr std::size_t named_lines = 5;

struct remove_options {
    std::string filter;
    std::vector<std::string> inputs;
    std::string key;  // empty: as the filter records
    bool partial = false;
    bool no_wait = false;
};

/// What a remove did, and the first lines it refused ("line 3 of 'x': 'foo'").
struct removal {
    std::uint64_t removed = 0, refused = 0;
    std::vector<std::string> first_refused;

    void refuse(std::string_view line, const jobs::line_origin& origin, std::size_t index) {
        ++refused;
        if (first_refused.size() < named_lines)
            first_refused.push_back(
                fmt::format("line {} of '{}': '{}'", origin.first_line + index,
                            origin.input != nullptr ? *origin.input : std::string("input"),
                            line.size() > 40 ? std::string(line.substr(0, 40)) + "..." : std::string(line)));
    }
};

/// Removes the batch's keys from `filter` (all or nothing per batch, unless partial), recording
/// what was refused. Once a line was refused without --partial, nothing will be saved: the
/// remaining lines are only checked, to name the refused ones.
template <class Key>
void remove_batch(any_filter& filter, std::span<const Key> keys, std::span<const std::string_view> lines,
                  const jobs::line_origin& origin, bool partial, removal& done) {
    thread_local jobs::answer_buffer answers;
    const bool checking = !partial && done.refused > 0;  // nothing will be saved: only name what is refused
    if (partial || checking) {                           // key by key
        const std::span<bool> held = answers.resize(keys.size());
        if (checking) bloomkit::contains(filter, keys, held);
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const bool gone = checking ? held[i] : bloomkit::remove(filter, keys.subspan(i, 1)) == 1;
            if (gone && !checking) ++done.removed;
            if (!gone) done.refuse(lines[i], origin, i);
        }
        return;
    }
    const std::size_t at = bloomkit::remove(filter, keys);  // all of the batch, or none of it
    if (at == keys.size()) {
        done.removed += at;
        return;
    }
    done.refuse(lines[at], origin, at);
    remove_batch(filter, keys.subspan(at + 1), lines.subspan(at + 1), {origin.input, origin.first_line + at + 1},
                 partial, done);
}

void report(const removal& done, bool partial, const std::string& filter) {
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
    const jobs::writer_lock lock = lock_for_writing(options.filter, options.no_wait);
    any_filter filter = load<any_filter>(options.filter);
    const key_format keys = key_format_for(recorded_key_format(filter), options.key, options.filter);
    removal done;
    if (!capabilities(filter).removes)
        throw error(
            fmt::format("'{}' holds a {}, which cannot remove keys: build one that can (bloomkit build --kind {})",
                        options.filter, kind_name(filter), fmt::join(kinds_that(&kind_capabilities::removes), "|")));
    lines.read([&](std::span<const std::string_view> batch, const jobs::line_origin& origin) {
        jobs::with_keys(batch, keys, origin,
                        [&](auto keyed) { remove_batch(filter, keyed, batch, origin, options.partial, done); });
    });
    if (done.removed > 0 && (done.refused == 0 || options.partial)) jobs::write_filter(filter, options.filter);
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
