// src/jobs/filter/add_lines.cpp — see add_lines.hpp.
#include "jobs/filter/add_lines.hpp"

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "bloomkit/file_update.hpp"
#include "jobs/digest_spool.hpp"
#include "jobs/filter/build_lines.hpp"
#include "jobs/filter/line_filters.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/progress.hpp"
#include "jobs/signals.hpp"

namespace bloomkit::jobs {
namespace {

/// Keys an in-place add keeps in memory (16 bytes each) before it spools them to disk.
constexpr std::uint64_t staged_keys = std::uint64_t{1} << 22;

/// Reads every line into `update`, or once there are too many to keep in memory, into a spool
/// of digests; returns the spool when one was needed.
template <class F>
std::unique_ptr<digest_spool> stage_lines(in_place_update<F>& update, line_reader& lines, key_format keys) {
    progress shown("reading", lines.total_bytes(), data_output::none);
    std::unique_ptr<digest_spool> spool;
    std::vector<digest> digests;
    lines.read([&](std::span<const std::string_view> batch, const line_origin& origin) {
        with_keys(batch, keys, origin, [&](auto keyed) {
            if (!spool) {
                update.insert(keyed.begin(), keyed.end());
                if (update.pending() < staged_keys) return;
                spool = std::make_unique<digest_spool>();
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
/// wait in memory.
template <class F>
add_report add_to_bloom_file(const std::string& path, line_reader& lines, key_format keys, const file_header& h) {
    set_mapped_file(path);  // a SIGBUS while the map is written names the file
    in_place_update<F> update(path);
    add_report report{.recovered = update.recovered(), .recorded = h.keys};
    if (h.keys == key_format::unrecorded) update.record_key_format(keys);
    const std::unique_ptr<digest_spool> spool = stage_lines(update, lines, keys);
    if (!spool) {
        const termination_signals_blocked whole;  // a signal waits for the commit's few milliseconds
        update.commit();
        set_termination_note({});
        report.header = update.header();
        return report;
    }
    std::optional<termination_signals_blocked> replacing;
    update_copy<F>(
        path,
        [&](in_place_update<F>& copy) {
            if (h.keys == key_format::unrecorded) copy.record_key_format(keys);
            progress shown("adding", spool->size(), data_output::none);
            std::uint64_t done = 0;
            spool->read(std::size_t{1} << 16, [&](std::span<const digest> digests) {
                copy.insert_digests(digests);
                if (copy.pending() >= staged_keys) copy.commit();
                shown.update(done += digests.size());
            });
            copy.commit();
            report.header = copy.header();
        },
        [&](int) { replacing.emplace(), set_termination_note({}); });  // the copy is complete: it replaces the file
    return report;
}

/// Loads the filter, adds the lines and replaces the file (kinds that are not updated in place).
add_report add_by_rewriting(const std::string& path, line_reader& lines, key_format keys,
                            const add_settings& settings) {
    any_filter filter = load<any_filter>(path);
    set_time(filter, settings.reading.now);
    const key_format recorded = recorded_key_format(filter);
    if (recorded == key_format::unrecorded) record_key_format(filter, keys);
    insert_lines(filter, lines, keys, settings.threads);
    std::optional<termination_signals_blocked> replacing;
    save(filter, path, [&](int) { replacing.emplace(), set_termination_note({}); });
    return {.header = header_of(filter), .recorded = recorded};
}

/// Reads a Guava or DCSO file whole, adds the lines and rewrites it as it was (its format,
/// gzip, a DCSO file's attached data), atomically.
add_report add_to_foreign_file(const std::string& path, line_reader& lines, const add_settings& settings) {
    filter_read read = read_filter_contents(path, settings.reading);
    any_filter& filter = read.contents.filter;
    const key_format recorded = recorded_key_format(filter);
    const key_format keys = key_format_to_write(recorded, settings.keys, holds_keys(filter), path);
    if (recorded == key_format::unrecorded) record_key_format(filter, keys);
    insert_lines(filter, lines, keys, settings.threads);
    const termination_signals_blocked replacing;
    set_termination_note({});
    write_filter(filter, path, read.as_stored());
    return {.header = header_of(filter), .format = read.contents.format, .recorded = key_format::unrecorded};
}

}  // namespace

add_report add_lines(const std::string& path, line_reader& lines, const add_settings& settings) {
    refuse_input_as_output(lines, path);
    const os::writer_lock lock = lock_filter_file(path, settings.lock);
    set_termination_note("stopped by a signal before anything was written: '" + path + "' was not changed");
    if (!stored_as_bkf(path, settings.reading)) return add_to_foreign_file(path, lines, settings);
    const file_header h = read_header(path);
    const key_format keys =
        key_format_to_write(h.keys, settings.keys, h.inserted_count > 0 || approximate_count(h) > 0, path);
    if (h.version >= 2)
        if (std::optional<add_report> done = visit_kind(h, [&](auto type) -> std::optional<add_report> {
                using F = typename decltype(type)::type;
                if constexpr (capabilities_of<F>().updates_in_place) return add_to_bloom_file<F>(path, lines, keys, h);
                else return std::nullopt;
            }))
            return *done;
    add_report report = add_by_rewriting(path, lines, keys, settings);
    report.recorded = h.keys;
    return report;
}

}  // namespace bloomkit::jobs
