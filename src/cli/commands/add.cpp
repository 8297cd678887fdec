// bloomkit add FILE [INPUT...|-] — adds lines to an existing filter, under the writer lock
// (support/writer_lock.hpp): two adds at once both land.
//
// A Bloom filter file (format version 2) is updated in place: only the chunks the new keys
// touch are written and re-checksummed (file_update.hpp), so adding a line to a filter of
// gigabytes takes milliseconds, and a crash leaves every key it held before. Other kinds, and
// version 1 files, are loaded, added to and replaced atomically.
#include <fmt/core.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "bloomkit/file_update.hpp"
#include "commands/commands.hpp"
#include "support/common_options.hpp"
#include "support/filter_files.hpp"
#include "support/filter_work.hpp"
#include "support/keys.hpp"
#include "support/summary.hpp"
#include "support/writer_lock.hpp"

namespace bloomkit::cli {
namespace {

struct add_options {
    std::string filter;
    std::vector<std::string> inputs;
    std::string threads = "0";
    std::string key = "text";
    bool no_wait = false;
    bool json = false;
};

template <class F>
inline constexpr bool updates_in_place = false;
template <class Layout>
inline constexpr bool updates_in_place<basic_bloom_filter<Layout>> = true;

/// Adds the lines to a Bloom filter file in place; false for a file that cannot be.
bool add_in_place(const add_options& options, line_reader& lines, key_format keys) {
    const file_header h = read_header(options.filter);
    if (h.version < 2) return false;
    return detail::by_kind(h, [&](auto type) {
        using F = typename decltype(type)::type;
        if constexpr (updates_in_place<F>) {
            in_place_update<F> update(options.filter);
            lines.read([&](std::span<const std::string_view> batch, const line_origin& origin) {
                with_keys(batch, keys, origin, [&](auto keyed) { update.insert(keyed.begin(), keyed.end()); });
            });
            update.commit();
            warn_if_overfull(update.filter());
            if (job_summary::wanted(options.json))
                summarize_filter(job_summary("add (in place)"), update.filter(), lines).print(options.json, false);
            return true;
        } else {
            return false;
        }
    });
}

int run_add(const add_options& options) {
    const key_format keys = parse_key_format(options.key);
    const unsigned threads = parse_threads(options.threads);
    line_reader lines(options.inputs);
    const writer_lock lock(options.filter, options.no_wait);
    if (add_in_place(options, lines, keys)) return success;
    any_filter filter = load<any_filter>(options.filter);
    insert_lines(filter, lines, keys, threads);
    write_filter(filter, options.filter);
    warn_if_overfull(filter);
    if (job_summary::wanted(options.json)) summarize_filter(job_summary("add"), filter, lines).print(options.json, false);
    return success;
}

}  // namespace

action add_command(CLI::App& command) {
    auto options = std::make_shared<add_options>();
    command.add_option("filter", options->filter, "Filter file (a Bloom filter is updated in place, others replaced atomically)")
        ->required()
        ->type_name("FILE");
    command.add_option("inputs", options->inputs, "Input files; '-' or none reads stdin")->type_name("FILE");
    add_key_option(command, options->key);
    add_thread_option(command, options->threads);
    add_no_wait_option(command, options->no_wait);
    command.add_flag("--json", options->json, "Print the summary as JSON");
    command.footer(
        "Examples:\n"
        "  echo https://example.org/ | bloomkit add seen.bkf     # milliseconds, however large seen.bkf is\n"
        "  bloomkit add -t 8 seen.bkf today.txt.gz               # many lines: eight threads (kinds other than Bloom)");
    return [options] { return run_add(*options); };
}

}  // namespace bloomkit::cli
