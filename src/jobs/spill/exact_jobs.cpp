// src/jobs/spill/exact_jobs.cpp — see exact_jobs.hpp.
#include "jobs/spill/exact_jobs.hpp"

#include <fmt/core.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "jobs/heavy_hitters.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/ordered_pipeline.hpp"
#include "jobs/progress.hpp"
#include "jobs/spill/integer_bitmap.hpp"
#include "jobs/spill/ordered_runs.hpp"

namespace bloomkit::jobs::spill {
namespace {

// ---------------------------------------------------------------------------------------------
// Lines as keyed records

/// A block of lines hashed by a worker: each line's digest, for integer keys its value (whose 8
/// bytes are the record's text), and which lines a screen let through. (The records themselves
/// are made as they are taken: blocks in flight hold ~17 bytes a line beyond the lines.)
struct keyed_block {
    std::vector<digest> digests;
    std::vector<std::uint64_t> numbers;
    std::vector<char> passed;
};

/// What the workers do with a block's digests beyond hashing, in parallel: nothing, or put them
/// in a filter (at once from every worker), or ask a filter which to let through.
struct screen {
    enum { none, insert, ask } action = none;
    bloom_filter* filter = nullptr;

    void operator()(keyed_block& block) const {
        if (action == insert) filter->insert(block.digests.begin(), block.digests.end(), concurrent);
        if (action != ask) return;
        block.passed.resize(block.digests.size());
        filter->contains(block.digests.begin(), block.digests.end(), block.passed.begin());
    }
};

/// How read_records makes an input's records.
struct record_reading {
    std::uint8_t tag = 1;                        ///< which input the records are of
    std::uint64_t first_position = no_position;  ///< positions from this one on; no_position: none
    const line_table* table = nullptr;           ///< told a few records ahead which hashes are looked up
    screen screened{};                           ///< what the workers do with the digests
    std::uint64_t* screened_out = nullptr;       ///< counts the lines the screen held back
};

/// Reads every line of `input` as a record made as `how` says, and hands each the screen lets
/// through to take(record, digest), in input order. Returns the number of lines.
template <class Take>
std::uint64_t read_records(line_reader& input, const exact_settings& settings, const record_reading& how, Take take) {
    constexpr std::size_t prefetch_distance = 8;
    const line_table* const table = how.table;
    const screen screened = how.screened;
    const bool positioned = how.first_position != no_position;
    std::uint64_t position = positioned ? how.first_position : 0;
    const hasher hash;  // the default: a pruning filter's too, so its digests are these
    const bool integers = is_integer(settings.keys);
    std::uint64_t lines = 0;
    progress shown("reading", input.total_bytes());
    for_each_block_in_order<keyed_block>(
        input, settings.limits.threads,
        [&](std::span<const std::string_view> batch, const line_origin& origin, keyed_block& block) {
            block.digests.resize(batch.size());
            if (!integers) {
                for (std::size_t i = 0; i < batch.size(); ++i) block.digests[i] = hash(batch[i]);
            } else {
                block.numbers.resize(batch.size());
                for (std::size_t i = 0; i < batch.size(); ++i) {
                    block.numbers[i] = parse_key_number(batch[i], settings.keys, origin, i);
                    block.digests[i] = hash(block.numbers[i]);
                }
            }
            screened(block);
        },
        [&](std::span<const std::string_view> batch, const line_origin&, keyed_block& block) {
            const bool asked = screened.action == screen::ask;
            for (std::size_t i = 0; i < batch.size(); ++i) {
                if (table != nullptr && i + prefetch_distance < batch.size())
                    table->prefetch(block.digests[i + prefetch_distance].low);
                const std::uint64_t at = positioned ? position++ : no_position;
                if (asked && block.passed[i] == 0) {
                    ++*how.screened_out;
                    continue;
                }
                const std::string_view text =
                    integers ? std::string_view(reinterpret_cast<const char*>(&block.numbers[i]), 8) : batch[i];
                take(line_record{block.digests[i].low, at, 1, how.tag, text}, block.digests[i]);
            }
            lines += batch.size();
            shown.update(input.bytes_read());
        });
    return lines;
}

/// The text a job prints for a key: the line itself, or an integer's decimal digits.
class key_text {
public:
    explicit key_text(key_format keys) : keys_(keys) {}

    std::string_view operator()(std::string_view key) {
        if (!is_integer(keys_)) return key;
        std::uint64_t value = 0;
        std::memcpy(&value, key.data(), sizeof value);
        const auto [end, failed] = keys_ == key_format::i64 ? std::to_chars(digits_, digits_ + sizeof digits_,
                                                                            static_cast<std::int64_t>(value))
                                                            : std::to_chars(digits_, digits_ + sizeof digits_, value);
        return {digits_, static_cast<std::size_t>(end - digits_)};
    }

private:
    key_format keys_;
    char digits_[24] = {};
};

// ---------------------------------------------------------------------------------------------
// Disk space

/// Refuses to start a job that will spill more than its directory can hold: an input of known
/// size larger than the table is spilled once as records (a little more than its bytes), and the
/// lines an ordered job keeps are written once more as runs while partitions are freed.
void check_space(const exact_settings& settings, std::uint64_t input_bytes) {
    if (input_bytes == 0 || input_bytes <= memory_budget(settings.limits.memory).table()) return;
    struct statvfs disk {};
    if (::statvfs(settings.limits.directory.c_str(), &disk) != 0) return;  // an error comes with the first spill
    const std::uint64_t have = static_cast<std::uint64_t>(disk.f_bavail) * disk.f_frsize;
    const auto need = static_cast<std::uint64_t>(static_cast<double>(input_bytes) * 1.3);
    if (need > have) throw not_enough_space(settings.limits.directory, need, have);
}

// ---------------------------------------------------------------------------------------------
// The jobs on distinct_lines

/// Folds every line of `input` into `lines`.
std::uint64_t fold_all(line_reader& input, const exact_settings& settings, distinct_lines& lines) {
    return read_records(input, settings, {.first_position = 0, .table = &lines.table()},
                        [&](const line_record& record, const digest&) { lines.add(record); });
}

/// Prints, in order of first position, the distinct lines keep(entry) selects.
template <class Keep>
void print_in_order(distinct_lines& lines, const exact_settings& settings, const line_printer& print, Keep keep,
                    exact_report& report) {
    key_text text(settings.keys);
    ordered_runs runs(settings.limits.directory, memory_budget(settings.limits.memory),
                      [&](std::string_view key) { print(text(key)); });
    lines.for_each_part([&](line_table& part) {
        report.distinct += part.size();
        runs.add(part.sorted_by_position(keep), !lines.spilled());
    });
    lines.table().release();  // the merge's buffers take its place
    runs.finish();
    report.lines_written = runs.size();
    report.spill = lines.statistics();
}

template <class Keep>
exact_report print_kept(line_reader& input, const exact_settings& settings, const line_printer& print, Keep keep) {
    check_space(settings, input.total_bytes());
    exact_report report;
    distinct_lines lines(settings.limits, input.total_bytes());
    report.lines_read = fold_all(input, settings, lines);
    print_in_order(lines, settings, print, keep, report);
    return report;
}

/// A line that ranks before another among the most frequent: more often, or as often and
/// smaller bytes.
struct ranked {
    std::uint64_t count;
    std::string text;
    friend bool operator<(const ranked& a, const ranked& b) {  // a ranks before b
        return a.count != b.count ? a.count > b.count : a.text < b.text;
    }
};

/// The pruning filter of an intersect or subtract: a Bloom filter of the first input in its
/// share of the memory, made when the first input may not fit in the table (unknown or larger
/// size), and sized for the lines it is expected to hold (~32 bytes each when unknown).
std::optional<bloom_filter> pruning_filter(const exact_settings& settings, std::uint64_t first_bytes) {
    const memory_budget memory(settings.limits.memory);
    if (!settings.prune || (first_bytes != 0 && first_bytes < memory.table())) return {};
    const std::uint64_t bits = memory.pruning_filter() * 8;
    const double keys = first_bytes != 0 ? static_cast<double>(first_bytes) / 32 : static_cast<double>(bits) / 10;
    const auto hashes =
        static_cast<std::uint32_t>(std::clamp(std::round(static_cast<double>(bits) / keys * std::log(2.0)), 1.0, 8.0));
    return bloom_filter(bloom_geometry{.bits = bits, .hashes = hashes});
}

// ---------------------------------------------------------------------------------------------
// u32 keys in bitmaps

/// Whether a job over the keys can keep `count` bitmaps of every u32 in its memory.
bool bitmaps_fit(const exact_settings& settings, std::uint64_t count) {
    return settings.keys == key_format::u32 && settings.limits.memory >= count * integer_bitmap::bytes;
}

std::uint32_t u32_of(const line_record& record) {
    std::uint64_t value = 0;
    std::memcpy(&value, record.text.data(), sizeof value);
    return static_cast<std::uint32_t>(value);
}

/// Reads `input` twice: first its keys into `seen` and, for those seen before, `twice`; then
/// again in order, printing each key once if it appeared once (or, `repeated`, more than once).
/// An input that cannot be read twice (stdin, a pipe) is kept in a temporary file as it is read.
exact_report once_in_bitmaps(line_reader& input, const exact_settings& settings, bool repeated,
                             const line_printer& print) {
    exact_report report;
    report.bitmap_bytes = 2 * integer_bitmap::bytes;
    integer_bitmap seen, twice;
    std::vector<std::string_view> lines;
    input.read_and_keep(
        [&](line_block&& block) {
            lines.clear();
            split_lines(block.text(), lines);
            with_keys(std::span<const std::string_view>(lines), settings.keys, block.origin, [&](auto keys) {
                if constexpr (!std::is_same_v<decltype(keys), std::span<const std::string_view>>)
                    for (const std::uint64_t key : keys) {
                        if (seen.insert(static_cast<std::uint32_t>(key))) ++report.distinct;
                        else twice.set(static_cast<std::uint32_t>(key));
                    }
            });
            report.lines_read += lines.size();
        },
        settings.limits.directory);
    input.rewind();
    key_text text(settings.keys);
    read_records(input, settings, {}, [&](const line_record& record, const digest&) {
        const std::uint32_t key = u32_of(record);
        integer_bitmap& printed_once = repeated ? twice : seen;  // cleared as the key is printed
        if (!printed_once.test(key) || (!repeated && twice.test(key))) return;
        printed_once.reset(key);
        print(text(record.text));
        ++report.lines_written;
    });
    return report;
}

/// intersect: the keys of `second` set in a bitmap of `first`, each printed once (its bit
/// cleared); subtract: the keys of `first` not in a bitmap of `second`, each printed once (its
/// bit set).
exact_report shared_in_bitmap(line_reader& first, line_reader& second, const exact_settings& settings, bool present,
                              const line_printer& print) {
    exact_report report;
    report.bitmap_bytes = integer_bitmap::bytes;
    integer_bitmap held;
    line_reader& kept = present ? first : second;
    line_reader& streamed = present ? second : first;
    report.lines_read =
        read_records(kept, settings, {}, [&](const line_record& record, const digest&) { held.set(u32_of(record)); });
    key_text text(settings.keys);
    report.lines_read += read_records(streamed, settings, {.tag = 2}, [&](const line_record& record, const digest&) {
        const std::uint32_t key = u32_of(record);
        if (present ? !held.test(key) : !held.insert(key)) return;
        if (present) held.reset(key);
        print(text(record.text));
        ++report.lines_written;
    });
    return report;
}

/// shared_lines() with `filter` (or none) beside the lines.
exact_report shared_lines_pruned(line_reader& first, line_reader& second, const exact_settings& settings, bool present,
                                 const line_printer& print, std::optional<bloom_filter>& filter) {
    exact_report report;
    report.filter_bytes = filter ? filter->size_in_bytes() : 0;
    exact_settings within = settings;
    within.limits.memory = memory_budget(settings.limits.memory).without(report.filter_bytes).bytes();
    distinct_lines lines(within.limits, first.total_bytes() + second.total_bytes());

    // The first input: every line, and its digest into the filter (by the workers, at once).
    // Positions count for subtract, whose output follows the first input.
    report.lines_read =
        read_records(first, within,
                     {.first_position = present ? no_position : 0,
                      .table = &lines.table(),
                      .screened = {filter ? screen::insert : screen::none, filter ? &*filter : nullptr}},
                     [&](const line_record& record, const digest&) { lines.add(record); });
    // The second: a line can matter only if it is in the first. While the first is all in the
    // table, the table says so exactly; once it spilled, the filter (asked by the workers) says
    // "certainly not" for most of those that are not, and they never reach the disk.
    const bool first_in_memory = !lines.spilled();
    const record_reading second_reading{
        .tag = 2,
        .first_position = present ? report.lines_read : no_position,
        .table = &lines.table(),
        .screened = {filter && !first_in_memory ? screen::ask : screen::none, filter ? &*filter : nullptr},
        .screened_out = &report.pruned};
    report.lines_read += read_records(second, within, second_reading, [&](const line_record& record, const digest&) {
        if (!first_in_memory) {
            lines.add(record);
            return;
        }
        table_entry* line = lines.table().find(record.hash, record.text);
        if (line == nullptr) {
            ++report.pruned;
            return;
        }
        line->tags |= 2;
        line->position = std::min(line->position, record.position);
    });
    const std::uint8_t kept = present ? 3 : 1;
    print_in_order(
        lines, within, print, [kept](const table_entry& line) { return line.tags == kept; }, report);
    report.distinct = 0;  // of both inputs, partly: not a count anyone asked for
    return report;
}

}  // namespace

not_enough_space::not_enough_space(const std::string& directory, std::uint64_t need, std::uint64_t have)
    : error(fmt::format("not enough space in the temporary directory '{}': the job needs about {:.1f} MB there, "
                        "and {:.1f} MB are free",
                        directory, static_cast<double>(need) / 1e6, static_cast<double>(have) / 1e6)),
      need_(need),
      have_(have) {}

approximate_report approximately_most_frequent(
    line_reader& input, const exact_settings& settings, std::uint64_t k,
    const std::function<void(std::uint64_t count, std::string_view line)>& print) {
    approximate_report report;
    report.counters = std::max<std::uint64_t>(memory_budget(settings.limits.memory).counters(), k);
    heavy_hitters hitters(static_cast<std::size_t>(report.counters));
    const bool integers = is_integer(settings.keys);
    key_text text(settings.keys);  // integers counted as printed: ties go by the printed digits
    progress shown("counting", input.total_bytes());
    input.read([&](std::span<const std::string_view> batch, const line_origin& origin) {
        for (std::size_t i = 0; i < batch.size(); ++i) {
            if (!integers) {
                hitters.add(batch[i]);
                continue;
            }
            const std::uint64_t value = parse_key_number(batch[i], settings.keys, origin, i);
            hitters.add(text({reinterpret_cast<const char*>(&value), sizeof value}));
        }
        shown.update(input.bytes_read());
    });
    for (const auto& best : hitters.top(static_cast<std::size_t>(k))) {
        print(best.count, best.line);
        report.largest_overcount = std::max(report.largest_overcount, best.error);
        ++report.lines.lines_written;
    }
    report.lines.lines_read = hitters.lines();
    report.overcount_bound = hitters.error_bound();
    return report;
}

exact_report shared_lines(line_reader& first, line_reader& second, const exact_settings& settings, bool present,
                          const line_printer& print) {
    if (bitmaps_fit(settings, 1)) return shared_in_bitmap(first, second, settings, present, print);
    check_space(settings, first.total_bytes() + second.total_bytes());
    std::optional<bloom_filter> filter = pruning_filter(settings, first.total_bytes());
    try {
        return shared_lines_pruned(first, second, settings, present, print, filter);
    } catch (const line_exceeds_memory& e) {
        if (!filter) throw;  // the memory it needs beside the filter
        throw line_exceeds_memory(e.line_bytes(), settings.limits.memory,
                                  memory_budget::to_hold_beside_filter(e.line_bytes()));
    }
}

exact_report distinct_in_order(line_reader& input, const exact_settings& settings, const line_printer& print) {
    if (bitmaps_fit(settings, 1)) {  // in input order as it comes: a key is new when its bit was clear
        exact_report report;
        report.bitmap_bytes = integer_bitmap::bytes;
        integer_bitmap seen;
        key_text text(settings.keys);
        report.lines_read = read_records(input, settings, {}, [&](const line_record& record, const digest&) {
            if (!seen.insert(u32_of(record))) return;
            print(text(record.text));
            ++report.lines_written;
        });
        report.distinct = report.lines_written;
        return report;
    }
    return print_kept(input, settings, print, [](const table_entry&) { return true; });
}

exact_report lines_seen_once(line_reader& input, const exact_settings& settings, bool repeated,
                             const line_printer& print) {
    if (bitmaps_fit(settings, 2)) return once_in_bitmaps(input, settings, repeated, print);
    return print_kept(input, settings, print,
                      [repeated](const table_entry& line) { return (line.count > 1) == repeated; });
}

exact_report most_frequent(line_reader& input, const exact_settings& settings, std::uint64_t k,
                           const std::function<void(std::uint64_t count, std::string_view line)>& print) {
    check_space(settings, input.total_bytes());
    exact_report report;
    distinct_lines lines(settings.limits, input.total_bytes());
    report.lines_read = fold_all(input, settings, lines);
    key_text text(settings.keys);
    std::priority_queue<ranked> best;  // the k best so far, the last of them on top
    if (k == 0) return report;
    lines.for_each_part([&](line_table& part) {
        report.distinct += part.size();
        part.for_each([&](const table_entry& line) {
            if (best.size() == k && line.count < best.top().count) return;  // cannot rank among them
            ranked candidate{line.count, std::string(text(line.text()))};
            if (best.size() < k) {
                best.push(std::move(candidate));
            } else if (candidate < best.top()) {
                best.pop();
                best.push(std::move(candidate));
            }
        });
    });
    report.spill = lines.statistics();
    std::vector<ranked> order;
    for (; !best.empty(); best.pop()) order.push_back(best.top());
    for (auto it = order.rbegin(); it != order.rend(); ++it) print(it->count, it->text);
    report.lines_written = order.size();
    return report;
}

}  // namespace bloomkit::jobs::spill
