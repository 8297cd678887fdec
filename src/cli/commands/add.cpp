// bloomkit add FILE [INPUT...|-] — adds lines to an existing filter, under the writer lock
// (jobs/writer_lock.hpp): two adds at once both land.
//
// All or nothing, as a reader sees it: every line is read, parsed and hashed before the file
// changes at all, so a bad line, a damaged input or a signal while reading leaves the file as it
// was ("not changed" is then true), and readers see the file before the add or after it.
//
// A Bloom filter file (format version 2 and later) is updated in place (file_update.hpp): the
// digests wait in memory until the input ends, then one short commit ORs their bits in and
// re-checksums only the chunks they touch — adding a line to a filter of gigabytes takes
// milliseconds, and a crash leaves every key it held before. An input too large to wait in
// memory is spooled to a temporary file of digests and applied to a copy of the filter that
// then replaces it. Other kinds, and version 1 files, are loaded, added to and replaced
// atomically.
#include <fmt/core.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "bloomkit/file_update.hpp"
#include "commands/commands.hpp"
#include "jobs/digest_spool.hpp"
#include "jobs/filter/filter_files.hpp"
#include "jobs/filter/line_filters.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/progress.hpp"
#include "jobs/signals.hpp"
#include "support/common_options.hpp"
#include "support/file_locking.hpp"
#include "support/keys.hpp"
#include "support/messages.hpp"
#include "support/overfull.hpp"
#include "support/summary.hpp"

namespace bloomkit::cli {
namespace {

/// Keys an in-place add keeps in memory (16 bytes each) before it spools them to disk.
constexpr std::uint64_t staged_keys = std::uint64_t{1} << 22;

struct add_options {
    std::string filter;
    filter_reading reading;
    std::vector<std::string> inputs;
    std::string threads = "0";
    bool no_wait = false;
    bool json = false;
};

/// Reads every line into `update`, or once there are too many to keep in memory, into a spool
/// of digests; returns the spool when one was needed.
template <class F>
std::unique_ptr<jobs::digest_spool> stage_lines(in_place_update<F>& update, jobs::line_reader& lines, key_format keys,
                                                unrecorded_format_warning& numeric_lines) {
    jobs::progress shown("reading", lines.total_bytes(), jobs::data_output::none);
    std::unique_ptr<jobs::digest_spool> spool;
    std::vector<digest> digests;
    lines.read([&](std::span<const std::string_view> batch, const jobs::line_origin& origin) {
        numeric_lines.look(batch);
        jobs::with_keys(batch, keys, origin, [&](auto keyed) {
            if (!spool) {
                update.insert(keyed.begin(), keyed.end());
                if (update.pending() < staged_keys) return;
                spool = std::make_unique<jobs::digest_spool>();
                spool->write(update.take_pending());
                return;
            }
            digests.resize(keyed.size());
            for (std::size_t i = 0; i < keyed.size(); ++i) digests[i] = update.filter().hash_function()(keyed[i]);
            spool->write(digests);
        });
        shown.update(lines.bytes_read());
    });
    return spool;
}

/// Adds the lines to a Bloom filter file in place, or through a copy when they are too many to
/// wait in memory. Returns the file's header as it now is, for the summary.
template <class F>
file_header add_to_bloom_file(const add_options& options, jobs::line_reader& lines, key_format keys,
                              const file_header& h) {
    jobs::set_mapped_file(options.filter);  // a SIGBUS while the map is written names the file
    in_place_update<F> update(options.filter);
    if (update.recovered())
        fmt::print(
            stderr,
            "bloomkit: '{}' held an update that did not finish: every chunk it was not writing matched its checksum, "
            "and the file is sealed again\n",
            options.filter);
    if (h.keys == key_format::unrecorded) update.record_key_format(keys);
    unrecorded_format_warning numeric_lines(h.keys, options.reading.key, options.filter);
    const std::unique_ptr<jobs::digest_spool> spool = stage_lines(update, lines, keys, numeric_lines);
    if (!spool) {
        const jobs::termination_signals_blocked whole;  // a signal waits for the commit's few milliseconds
        update.commit();
        jobs::set_termination_note({});
        return update.header();
    }
    file_header result;
    std::optional<jobs::termination_signals_blocked> replacing;
    update_copy<F>(
        options.filter,
        [&](in_place_update<F>& copy) {
            if (h.keys == key_format::unrecorded) copy.record_key_format(keys);
            jobs::progress shown("adding", spool->size(), jobs::data_output::none);
            std::uint64_t done = 0;
            spool->read(std::size_t{1} << 16, [&](std::span<const digest> digests) {
                copy.insert_digests(digests);
                if (copy.pending() >= staged_keys) copy.commit();
                shown.update(done += digests.size());
            });
            copy.commit();
            result = copy.header();
        },
        [&](int) {
            replacing.emplace(), jobs::set_termination_note({});
        });  // the copy is complete: let it replace the file
    return result;
}

/// Loads the filter, adds the lines and replaces the file (kinds that are not updated in place).
file_header add_by_rewriting(const add_options& options, jobs::line_reader& lines, key_format keys, unsigned threads) {
    any_filter filter = load<any_filter>(options.filter);
    if (recorded_key_format(filter) == key_format::unrecorded) record_key_format(filter, keys);
    jobs::insert_lines(filter, lines, keys, threads);
    std::optional<jobs::termination_signals_blocked> replacing;
    save(filter, options.filter, [&](int) { replacing.emplace(), jobs::set_termination_note({}); });
    return header_of(filter);
}

/// A Guava or DCSO file as an add left it: the filter's header, and the format it is in.
struct foreign_file {
    file_header header;
    std::string format;
};

/// Reads a Guava or DCSO file whole, adds the lines and rewrites it as it was (its format,
/// gzip, a DCSO file's attached data), atomically.
foreign_file add_to_foreign_file(const add_options& options, jobs::line_reader& lines, unsigned threads) {
    jobs::filter_read read = jobs::read_filter_contents(options.filter, options.reading.parsed());
    any_filter& filter = read.contents.filter;
    const key_format keys = key_format_for(recorded_key_format(filter), options.reading.key, options.filter);
    jobs::insert_lines(filter, lines, keys, threads);
    const jobs::termination_signals_blocked replacing;
    jobs::set_termination_note({});
    jobs::write_filter(filter, options.filter, read.as_stored());
    return {header_of(filter), std::string(read.contents.format)};
}

int run_add_or_leave_unchanged(const add_options& options);

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

int run_add_or_leave_unchanged(const add_options& options) {
    const unsigned threads = parse_threads(options.threads);
    jobs::line_reader lines(options.inputs);
    jobs::refuse_input_as_output(lines, options.filter);
    const jobs::writer_lock lock = lock_for_writing(options.filter, options.no_wait);
    jobs::set_termination_note(fmt::format(
        "bloomkit: stopped by a signal before anything was written: '{}' was not changed\n", options.filter));
    const auto report = [&](const file_header& now, std::string_view format) {
        warn_if_overfull(now);
        if (job_summary::wanted(options.json))
            summarize_filter("add", options.filter, format, now, lines).print(options.json, false);
        return success;
    };
    if (!jobs::stored_as_bkf(options.filter, options.reading.parsed())) {
        const foreign_file added = add_to_foreign_file(options, lines, threads);
        return report(added.header, added.format);
    }
    const file_header h = read_header(options.filter);
    const key_format keys =
        key_format_to_add(h.keys, options.reading.key, options.filter, h.inserted_count > 0 || h.set_bits > 0);
    if (h.version >= 2)
        if (const std::optional<int> done = visit_kind(h, [&](auto type) -> std::optional<int> {
                using F = typename decltype(type)::type;
                if constexpr (capabilities_of<F>().updates_in_place)
                    return report(add_to_bloom_file<F>(options, lines, keys, h), io::bkf_format::word);
                else return std::nullopt;
            }))
            return *done;
    return report(add_by_rewriting(options, lines, keys, threads), io::bkf_format::word);
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
