// bloomkit/detail/bulk_pipeline.hpp — the bulk operations' pipeline: hash a batch of keys,
// prefetch the memory each will touch, then visit them in order.
//
// A lookup in a filter larger than the cache is one DRAM miss (~80–100 ns); hashing a key is a
// few ns. Done one key at a time the misses serialise. Done a batch at a time, the first
// pass issues every prefetch before the second pass touches any line, so the misses overlap
// (memory-level parallelism) and the batch costs about one miss, not one per key. 32 keys of
// hashing outlast a DRAM round trip, and 32 probes stay well inside the CPU's fill buffers'
// reach without evicting each other.
#pragma once

#include <cstddef>
#include <iterator>
#include <span>

namespace bloomkit::detail {

inline constexpr std::size_t pipeline_batch = 32;

/// For every key of [first, last): probe = locate(key) and prefetch(probe); then, a batch at
/// a time and in key order, visit_batch(std::span<const probe>).
template <std::forward_iterator It, std::sentinel_for<It> Sentinel, class Locate, class Prefetch, class VisitBatch>
void pipelined(It first, Sentinel last, Locate locate, Prefetch prefetch, VisitBatch visit_batch) {
    using probe = decltype(locate(*first));
    probe batch[pipeline_batch];
    while (first != last) {
        std::size_t size = 0;
        for (; size < pipeline_batch && first != last; ++first, ++size) {
            batch[size] = locate(*first);
            prefetch(batch[size]);
        }
        visit_batch(std::span<const probe>(batch, size));
    }
}

}  // namespace bloomkit::detail
