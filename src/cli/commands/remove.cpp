// bloomkit remove FILE [INPUT...|-] — removes lines from a counting Bloom or cuckoo filter,
// replacing it atomically under the writer lock.
//
// Removing a key that was never added takes away part of other keys: a counting filter
// decrements counters that other keys rely on, a cuckoo filter deletes another key's matching
// fingerprint, and those keys become false negatives. So a line the filter certainly does not
// hold is refused: not removed, counted, and reported; the command then exits 1. (A line never
// added that tests present by chance cannot be told from one that was added: remove only what
// you added.) Exit codes: 0 every line removed, 1 some line refused (or no line at all), 2 error.
#include <fmt/core.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "commands/commands.hpp"
#include "support/common_options.hpp"
#include "support/keys.hpp"
#include "support/filter_files.hpp"
#include "support/filter_work.hpp"
#include "support/writer_lock.hpp"

namespace bloomkit::cli {
namespace {

struct remove_options {
    std::string filter;
    std::vector<std::string> inputs;
    std::string key = "text";
    bool no_wait = false;
};

int run_remove(const remove_options& options) {
    const key_format keys = parse_key_format(options.key);
    line_reader lines(options.inputs);
    const writer_lock lock(options.filter, options.no_wait);
    any_filter filter = load<any_filter>(options.filter);
    std::uint64_t removed = 0, refused = 0;
    std::visit(
        [&](auto& f) {
            using F = std::decay_t<decltype(f)>;
            if constexpr (!removable<F>) {
                throw error(fmt::format("'{}' holds a {}, which cannot remove keys: only counting Bloom and cuckoo "
                                        "filters can (bloomkit build --kind counting|cuckoo)",
                                        options.filter, kind_name<F>()));
            } else {
                lines.read([&](std::span<const std::string_view> batch, const line_origin& origin) {
                    with_keys(batch, keys, origin, [&](auto keyed) {
                        for (const auto& key : keyed) (f.remove(key) ? removed : refused) += 1;
                    });
                });
            }
        },
        filter);
    if (removed > 0) write_filter(filter, options.filter);
    fmt::print(stderr, "bloomkit: removed {} line{}", removed, removed == 1 ? "" : "s");
    if (refused > 0)
        fmt::print(stderr,
                   "; refused {} line{} the filter certainly does not hold (removing a key that was never added "
                   "would take away part of other keys and make them false negatives)",
                   refused, refused == 1 ? "" : "s");
    fmt::print(stderr, "\n");
    return removed > 0 && refused == 0 ? success : nothing_found;
}

}  // namespace

action remove_command(CLI::App& command) {
    auto options = std::make_shared<remove_options>();
    command.footer(
        "Only lines that were added may be removed. Removing a key that was never added takes away part of other "
        "keys (counters they rely on, or their fingerprint), which then test absent: false negatives. Lines the "
        "filter certainly does not hold are therefore refused and counted, and the command exits 1; a line never "
        "added that tests present by chance cannot be told apart, so remove only what you added.\n"
        "Exit status: 0 every line removed, 1 some line refused (or no line given), 2 error.");
    command.add_option("filter", options->filter, "Filter file (replaced atomically)")->required()->type_name("FILE");
    command.add_option("inputs", options->inputs, "Input files; '-' or none reads stdin")->type_name("FILE");
    add_key_option(command, options->key);
    add_no_wait_option(command, options->no_wait);
    return [options] { return run_remove(*options); };
}

}  // namespace bloomkit::cli
