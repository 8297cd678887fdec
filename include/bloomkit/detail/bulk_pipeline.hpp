// bloomkit/detail/bulk_pipeline.hpp — the bulk operations' pipeline: hash keys and prefetch
// the memory each will touch, a fixed distance ahead of the keys being visited.
//
// A lookup in a filter larger than the cache is a DRAM miss, tens of times the cost of hashing the
// key; prefetches issued ahead make the misses overlap. By Little's law the misses in flight are
// the memory latency times the lookup rate, so a core that hashes and tests a key in a fiftieth of
// a DRAM round trip needs ~50 lines in flight, and more to ride out a slow one: pipeline_distance
// keys lie between a key's prefetch and its visit. Visits and hashing alternate pipeline_group
// keys at a time, since a visit stalled on a line keeps the CPU from issuing further prefetches.
// A string key's bytes are fetched key_bytes_distance keys before it is hashed
// (docs/design/performance.md, "Bulk lookups").
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <span>
#include <type_traits>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit::detail {

/// For one to three cache lines a key; layouts touching k lines a key ask for fewer keys ahead,
/// or the lines would outnumber what the CPU tracks and L1 holds.
inline constexpr std::size_t pipeline_distance = 128;
/// Keys visited between two runs of hashing: smaller groups let the next keys' hashing start
/// sooner once a group makes no choice of its own (docs/design/performance.md, "... and groups
/// of 4"); a kind whose probes cost more may pass a larger group.
inline constexpr std::size_t pipeline_group = 4;
/// Strings scattered in memory make each hash a miss the filter's prefetches come too late to hide.
inline constexpr std::size_t key_bytes_distance = 32;

/// The first and last line of a byte-sequence key; nothing for keys that are their own value.
template <class Key>
void prefetch_key_bytes(const Key& key) noexcept {
    if constexpr (byte_sequence_key<Key>) {
        const std::span<const std::byte> bytes = as_bytes(key);
        if (!bytes.empty()) {
            prefetch(bytes.data());
            prefetch(bytes.data() + (bytes.size() - 1));
        }
    }
}

/// For every key: probe = locate(key), prefetch(probe); Distance keys behind, in order,
/// visit_batch over groups of up to Group probes (`locate` runs ahead, so must not depend on the
/// visits). The probes wait in a ring. Returns visit_batch, as std::for_each does: state kept in
/// the visitor is a local here, which no char write can alias.
template <std::size_t Distance = pipeline_distance, std::size_t Group = pipeline_group, std::forward_iterator It,
          std::sentinel_for<It> Sentinel, class Locate, class Prefetch, class VisitBatch>
VisitBatch pipelined(It first, Sentinel last, Locate locate, Prefetch prefetch, VisitBatch visit_batch) {
    static_assert(Group != 0 && Distance % Group == 0, "the ring is a whole number of groups");
    using probe = decltype(locate(*first));
    probe ring[Distance];
    // Only for keys held in the range (or cheap views), not ones an iterator builds on each `*`.
    using key_type = std::iter_value_t<It>;
    constexpr bool bytes_elsewhere = byte_sequence_key<key_type> && (std::is_reference_v<std::iter_reference_t<It>> ||
                                                                     std::is_trivially_copyable_v<key_type>);
    [[maybe_unused]] It ahead = first;
    if constexpr (bytes_elsewhere)
        for (std::size_t i = 0; i < key_bytes_distance && ahead != last; ++i, ++ahead) prefetch_key_bytes(*ahead);
    const auto locate_from = [=](It& key, [[maybe_unused]] It& bytes_ahead, probe& slot, const Locate& locate_by,
                                 const Prefetch& prefetch_by) {
        if constexpr (bytes_elsewhere)
            if (bytes_ahead != last) prefetch_key_bytes(*bytes_ahead++);
        slot = locate_by(*key);
        prefetch_by(slot);
        ++key;
    };
    const auto locate_next = [&](std::size_t at) { locate_from(first, ahead, ring[at], locate, prefetch); };
    const auto fill = [&](std::size_t at, std::size_t count) {
        std::size_t filled = 0;
        if constexpr (std::sized_sentinel_for<Sentinel, It>) {  // then one test, not one per key
            count = std::min(count, static_cast<std::size_t>(last - first));
            for (; filled < count; ++filled) locate_next(at + filled);
        } else {
            for (; filled < count && first != last; ++filled) locate_next(at + filled);
        }
        return filled;
    };
    std::size_t oldest = 0;  // always a multiple of Group
    std::size_t held = 0;
    if constexpr (std::sized_sentinel_for<Sentinel, It>) {
        // A sized range refills whole groups, so the hashing unrolls with no test of the end.
        // The first fill and the last group run out of line: a third inlined copy of the hashing
        // makes GCC stop inlining elsewhere in a large program.
        const auto fill_once = [&](std::size_t at, std::size_t count) __attribute__((noinline)) {
            return fill(at, count);
        };
        held = fill_once(0, Distance);
        if (held == Distance) {
            // Local copies: the originals escape to fill_once, so a call in the loop (a string
            // hash) would store and reload them every key.
            It key = first;
            It bytes_ahead = ahead;
            const Locate locate_here = locate;
            const Prefetch prefetch_here = prefetch;
            for (; static_cast<std::size_t>(last - key) >= Group; oldest = (oldest + Group) % Distance) {
                visit_batch(std::span<const probe>(ring + oldest, Group));
                for (std::size_t i = 0; i < Group; ++i)
                    locate_from(key, bytes_ahead, ring[oldest + i], locate_here, prefetch_here);
            }
            first = key;
            ahead = bytes_ahead;
            if (first != last) {
                visit_batch(std::span<const probe>(ring + oldest, Group));
                held = held - Group + fill_once(oldest, Group);
                oldest = (oldest + Group) % Distance;
            }
        }
    } else {
        held = fill(0, Distance);
        while (held == Distance) {
            visit_batch(std::span<const probe>(ring + oldest, Group));
            held = held - Group + fill(oldest, Group);
            oldest = (oldest + Group) % Distance;
        }
    }
    // A group never wraps: the ring is a whole number of groups.
    while (held != 0) {
        const std::size_t count = std::min(Group, held);
        visit_batch(std::span<const probe>(ring + oldest, count));
        held -= count;
        oldest = (oldest + count) % Distance;
    }
    return visit_batch;
}

/// visit(probe) for each probe, in order; `visit` held by value and returned (`.visit`).
template <class Visit>
struct each_of_batch {
    Visit visit;
    template <class Probe>
    void operator()(std::span<const Probe> batch) {
        for (const Probe& p : batch) visit(p);
    }
};
template <class Visit>
each_of_batch(Visit) -> each_of_batch<Visit>;

/// use(answer(probe)); `use` held by value and returned (`.use`).
template <class Answer, class Use>
struct answer_each {
    Answer answer;
    Use use;
    template <class Probe>
    void operator()(const Probe& p) {
        use(answer(p));
    }
};
template <class Answer, class Use>
answer_each(Answer, Use) -> answer_each<Answer, Use>;

/// pipelined() with probe = locate(hash(key)), the algorithm chosen once for the range.
template <std::size_t Distance = pipeline_distance, std::size_t Group = pipeline_group, std::forward_iterator It,
          std::sentinel_for<It> Sentinel, class Locate, class Prefetch, class VisitBatch>
VisitBatch pipelined_by_digest(const hasher& hash, It first, Sentinel last, Locate locate, Prefetch prefetch,
                               VisitBatch visit_batch) {
    return hash.with_digest_of<std::iter_value_t<It>>([&](const auto& digest_of) {
        return pipelined<Distance, Group>(
            first, last, [&](const auto& key) { return locate(digest_of(key)); }, prefetch, visit_batch);
    });
}

}  // namespace bloomkit::detail
