// bloomkit/detail/bulk_pipeline.hpp — the bulk operations' pipeline: hash a batch of keys and
// prefetch the memory each will touch, while visiting the batch before it.
//
// A lookup in a filter larger than the cache is one DRAM miss, tens of times what hashing the
// key takes. Done one key at a time the misses serialise. Done a batch at a time they overlap
// (memory-level parallelism), and two questions decide the speed:
//
// - How long each prefetch has before its line is needed. Visiting a batch right after
//   prefetching it gives the last keys no time at all, so the pipeline runs one batch ahead:
//   batch i's lines have been on their way for a whole batch of hashing when it is visited.
// - Whether prefetches keep flowing while a visit waits for a line. A visit of 32 keys is a few
//   hundred instructions; while one of its loads stalls, the CPU cannot look far enough ahead
//   to issue the next batch's prefetches, and the memory system idles. So the visit and the
//   hashing of the next batch are interleaved, 8 keys at a time.
//
// docs/design/performance.md, "Bulk lookups", has the measurements behind these choices.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <span>
#include <utility>

namespace bloomkit::detail {

/// Keys hashed and prefetched ahead of the ones being visited.
inline constexpr std::size_t pipeline_batch = 32;
/// Keys visited between two runs of hashing: visit_batch gets spans of at most this many.
inline constexpr std::size_t pipeline_group = 8;

/// For every key of [first, last): probe = locate(key) and prefetch(probe); and, about
/// pipeline_batch keys behind, in key order, visit_batch(std::span<const probe>) over groups of
/// up to pipeline_group keys. `locate` must not depend on what visit_batch did: it runs ahead.
template <std::forward_iterator It, std::sentinel_for<It> Sentinel, class Locate, class Prefetch, class VisitBatch>
void pipelined(It first, Sentinel last, Locate locate, Prefetch prefetch, VisitBatch visit_batch) {
    using probe = decltype(locate(*first));
    struct batch {
        probe probes[pipeline_batch];
        std::size_t size = 0;
    };
    batch batches[2];
    const auto fill_to = [&](batch& b, std::size_t size) {
        for (; b.size < size && first != last; ++first, ++b.size) {
            b.probes[b.size] = locate(*first);
            prefetch(b.probes[b.size]);
        }
    };
    batch* ready = &batches[0];
    batch* next = &batches[1];
    fill_to(*ready, pipeline_batch);
    while (ready->size != 0) {
        next->size = 0;
        for (std::size_t group = 0; group < ready->size; group += pipeline_group) {
            fill_to(*next, group + pipeline_group);
            visit_batch(std::span<const probe>(ready->probes + group, std::min(pipeline_group, ready->size - group)));
        }
        fill_to(*next, pipeline_batch);
        std::swap(ready, next);
    }
}

}  // namespace bloomkit::detail
