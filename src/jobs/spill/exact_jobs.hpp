// src/jobs/spill/exact_jobs.hpp — the exact answers over inputs of any size, in bounded memory:
// each distinct line once, the lines seen once (or repeated), the most frequent lines, and the
// lines two inputs share or do not. All stand on distinct_lines (hash partitioning onto disk);
// the ones whose output follows the input's order put it back with ordered_runs.
//
// Lines are keys as the command reads them (line_reader.hpp: a trailing '\r' is not part of a
// line) in a key_format: text, or integers (u64, i64, u32) printed back as canonical decimal
// numbers ("007" is the key 7, printed "7"). Every line is hashed once, on any of `threads`
// threads: the digest routes it to its partition and is what a pruning filter is asked with (by
// the same threads). The partitions are folded back by `threads` threads at once.
//
// Memory: `limits.memory` bounds the table, the partition buffers, the merge buffers and the
// pruning filter together; the line reader's blocks (two per thread, ~4 MiB each) and the
// output's buffer (1 MiB) come on top, as the README states.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "jobs/line_reader.hpp"
#include "jobs/spill/distinct_lines.hpp"

namespace bloomkit::jobs::spill {

struct exact_settings {
    spill_limits limits;  ///< the scratch directory, the memory and the threads, each given once
    key_format keys = key_format::text;
    bool prune =
        true;  // intersect and subtract: a filter of the first input keeps the second's other lines off the disk
};

/// What a job did, for its summary.
struct exact_report {
    std::uint64_t lines_read = 0;
    std::uint64_t lines_written = 0;
    std::uint64_t distinct = 0;      // distinct lines (keys), where the job counted them
    std::uint64_t pruned = 0;        // lines of the second input dropped before the disk
    std::uint64_t filter_bytes = 0;  // of the pruning filter (0: none)
    std::uint64_t bitmap_bytes = 0;  // of the bitmaps an integer job used instead of the table (0: none)
    spill_statistics spill;
};

/// Thrown before a job starts when its temporary directory lacks the room it will need.
class not_enough_space : public error {
public:
    not_enough_space(const std::string& directory, std::uint64_t need, std::uint64_t have);
    [[nodiscard]] std::uint64_t need() const noexcept { return need_; }
    [[nodiscard]] std::uint64_t have() const noexcept { return have_; }

private:
    std::uint64_t need_, have_;
};

/// Where the lines a job prints go: print(line) for a key's text (a number's decimal digits for
/// integer keys).
using line_printer = std::function<void(std::string_view line)>;

/// Each distinct line once, in order of first appearance (as awk '!seen[$0]++').
exact_report distinct_in_order(line_reader& input, const exact_settings& settings, const line_printer& print);

/// The lines that appear exactly once (`repeated`: the lines that appear more than once, each
/// once), in order of first appearance.
exact_report lines_seen_once(line_reader& input, const exact_settings& settings, bool repeated,
                             const line_printer& print);

/// The k most frequent lines and their counts, most frequent first, ties by the line's bytes
/// (the printed number's, for integers), as `sort | uniq -c | sort -k1,1nr -k2` with LC_ALL=C.
exact_report most_frequent(line_reader& input, const exact_settings& settings, std::uint64_t k,
                           const std::function<void(std::uint64_t count, std::string_view line)>& print);

/// What approximately_most_frequent() adds to its report: Space-Saving's counters and how far
/// a count may be too high.
struct approximate_report {
    exact_report lines;
    std::uint64_t counters = 0;
    std::uint64_t largest_overcount = 0;  // among the counts printed
    std::uint64_t overcount_bound = 0;    // for any count: lines read / counters
};

/// The k most frequent lines in one pass and fixed memory (heavy_hitters.hpp: as many counters
/// as `settings.limits.memory` holds at ~512 bytes each, and at least k): counts may be too high,
/// by at most the report's bound; every line more frequent than the bound is found.
approximate_report approximately_most_frequent(
    line_reader& input, const exact_settings& settings, std::uint64_t k,
    const std::function<void(std::uint64_t count, std::string_view line)>& print);

/// The distinct lines of `second` that are in `first` (`present`), in order of first appearance
/// in `second`; or (`!present`) the distinct lines of `first` not in `second`, in order of first
/// appearance in `first`.
exact_report shared_lines(line_reader& first, line_reader& second, const exact_settings& settings, bool present,
                          const line_printer& print);

}  // namespace bloomkit::jobs::spill
