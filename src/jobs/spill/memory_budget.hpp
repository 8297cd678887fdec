// src/jobs/spill/memory_budget.hpp — how an exact job divides the memory it is given (--memory),
// every share in one place, so that the peak a test asserts is the sum of what is written here:
//
//   M, the job's memory
//   ├── the pruning filter of an intersect or subtract (when the first input may not fit): M/8
//   └── the rest, R (M, or 7/8 M beside a filter), for distinct_lines:
//       ├── the line table: 3/4 R (T solvers folding parts back: 1/T of it each)
//       ├── the partitions' write buffers: R/8 (1/T each when solving)
//       └── the read buffer of a part: R/16 (1/T each), within [4 KiB, 1 MiB]
//   then, the table released, the ordered output (ordered_runs): its merge in R/2, a run's
//   writer R/16.
//   The approximate top: one counter per 512 bytes of M (heavy_hitters.hpp).
//
// Every buffer is at least a page (4 KiB, else a write per record) and at most 1 MiB (beyond it
// a larger buffer saves no system call worth its memory).
#pragma once

#include <algorithm>
#include <cstdint>

#include "jobs/spill/line_table.hpp"

namespace bloomkit::jobs::spill {

/// The smallest and largest buffer of a spill file.
inline constexpr std::uint64_t smallest_buffer = 4096, largest_buffer = std::uint64_t{1} << 20;

/// A buffer of about `bytes`, within [smallest_buffer, largest_buffer].
[[nodiscard]] constexpr std::uint64_t buffer_of(std::uint64_t bytes) noexcept {
    return std::clamp(bytes, smallest_buffer, largest_buffer);
}

/// The memory of an exact job, or of a share of it, and the parts it is divided into.
class memory_budget {
public:
    explicit constexpr memory_budget(std::uint64_t bytes) noexcept : bytes_(bytes) {}

    [[nodiscard]] constexpr std::uint64_t bytes() const noexcept { return bytes_; }

    /// A pruning filter's bytes: an eighth.
    [[nodiscard]] constexpr std::uint64_t pruning_filter() const noexcept { return bytes_ / 8; }
    /// What is left for the lines beside `used` bytes (a pruning filter).
    [[nodiscard]] constexpr memory_budget without(std::uint64_t used) const noexcept {
        return memory_budget(bytes_ - std::min(used, bytes_));
    }
    /// One of `parts` equal shares (a solver's).
    [[nodiscard]] constexpr memory_budget share(unsigned parts) const noexcept {
        return memory_budget(bytes_ / std::max(1u, parts));
    }

    /// The line table's bytes: three quarters.
    [[nodiscard]] constexpr std::uint64_t table() const noexcept { return bytes_ / 4 * 3; }
    /// The partitions' write buffers, together: an eighth.
    [[nodiscard]] constexpr std::uint64_t partition_buffers() const noexcept { return bytes_ / 8; }
    /// The buffer a part is read back through, or a run written through: a sixteenth.
    [[nodiscard]] constexpr std::uint64_t stream_buffer() const noexcept { return buffer_of(bytes_ / 16); }
    /// The merge of the ordered output, its buffers together: half (the table is released by then).
    [[nodiscard]] constexpr std::uint64_t merge() const noexcept { return bytes_ / 2; }
    /// The approximate top's counters, at ~512 bytes each: a line of ~100 bytes twice (the
    /// counter's and the map's key), the map's node and the heap's places.
    [[nodiscard]] constexpr std::uint64_t counters() const noexcept { return bytes_ / 512; }

    /// The budget whose table holds a line of `size` bytes, with a page of buffers beside.
    [[nodiscard]] static constexpr std::uint64_t to_hold(std::uint64_t size) noexcept {
        return line_table::budget_to_hold(size) / 3 * 4 + 8192;
    }
    /// The same beside a pruning filter: the rest being 7/8 of the whole.
    [[nodiscard]] static constexpr std::uint64_t to_hold_beside_filter(std::uint64_t size) noexcept {
        return to_hold(size) / 7 * 8 + 8;
    }

private:
    std::uint64_t bytes_;
};

}  // namespace bloomkit::jobs::spill
