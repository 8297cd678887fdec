// bloomkit/detail/bulk_pipeline.hpp — the bulk operations' pipeline: hash keys and prefetch
// the memory each will touch, a fixed distance ahead of the keys being visited.
//
// A lookup in a filter larger than the cache is one DRAM miss, tens of times what hashing the
// key takes. Done one key at a time the misses serialise. Done with prefetches issued ahead
// they overlap (memory-level parallelism), and two questions decide the speed:
//
// - How long each prefetch has before its line is needed. By Little's law the misses in
//   flight are the latency times the rate of lookups: a core that hashes and tests a key in
//   ~2 ns, against ~100 ns for DRAM, needs ~50 lines on their way to never wait, and more to
//   ride out a slow one. The pipeline keeps pipeline_distance keys between a key's prefetch
//   and its visit; a shorter distance left a fast core (Zen 5) waiting on memory at 100M keys,
//   while the longer one costs a slow core nothing but the ring's stack space.
// - Whether prefetches keep flowing while a visit waits for a line. While one of a visit's
//   loads stalls, the CPU cannot look far enough ahead to issue many more prefetches, so
//   visits and hashing alternate, pipeline_group keys at a time: a visit never holds up the
//   next keys' prefetches for long.
// - Whether hashing waits on memory itself. A string key's bytes lie wherever its allocation
//   put them, and hashing reads them: the pipeline asks for them key_bytes_distance keys before
//   it hashes them.
//
// docs/design/performance.md, "Bulk lookups", has the measurements behind these choices.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <span>
#include <type_traits>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit::detail {

/// Keys located and prefetched ahead of the one being visited, for structures that touch one
/// to three cache lines a key: the prefetch distance. One whose key touches k lines anywhere
/// (the scattered layouts) asks for fewer keys ahead: 128 keys of 7 lines each would be more
/// lines than the CPU tracks, or than L1 holds until they are read.
inline constexpr std::size_t pipeline_distance = 128;
/// Keys visited between two runs of hashing, unless a kind chooses its own: visit_batch gets
/// spans of at most this many. Four measured faster than eight once a group cost no choice of
/// its own (blocked_layout's with_batch_test); a cuckoo lookup, two buckets' lines a key, visits
/// eight (cuckoo_filter.hpp).
inline constexpr std::size_t pipeline_group = 4;
/// For keys that are bytes held elsewhere (strings): keys ahead of the one being located whose
/// bytes are asked for. Strings scattered in memory (a vector of std::string) make each hash a
/// miss of its own, which the filter's prefetches come too late to hide.
inline constexpr std::size_t key_bytes_distance = 32;

/// Asks for the first and the last cache line of a byte-sequence key's bytes; nothing for other
/// keys, which are their own value.
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

/// For every key of [first, last): probe = locate(key) and prefetch(probe); and, Distance keys
/// behind, in key order, visit_batch(std::span<const probe>) over groups of up to Group keys.
/// `locate` must not depend on what visit_batch did: it runs ahead.
/// Returns visit_batch, as std::for_each returns its function: a visitor that carries state
/// (answers written through a pointer, a count) keeps it in itself, a local of this function,
/// where a reference to the caller's variable would make every byte written through a char
/// pointer a possible write to that variable, stored and reloaded each group.
///
/// The probes wait in a ring: the oldest group is visited, then its slots take the next keys,
/// so every visit comes a whole ring of hashing after its prefetch.
template <std::size_t Distance = pipeline_distance, std::size_t Group = pipeline_group, std::forward_iterator It,
          std::sentinel_for<It> Sentinel, class Locate, class Prefetch, class VisitBatch>
VisitBatch pipelined(It first, Sentinel last, Locate locate, Prefetch prefetch, VisitBatch visit_batch) {
    static_assert(Group != 0 && Distance % Group == 0, "the ring is a whole number of groups");
    using probe = decltype(locate(*first));
    probe ring[Distance];
    // The key whose bytes are asked for next, key_bytes_distance ahead of `first`: for keys
    // held in the range (or views, cheap to make), not ones an iterator builds on each `*`.
    using key_type = std::iter_value_t<It>;
    constexpr bool bytes_elsewhere = byte_sequence_key<key_type> && (std::is_reference_v<std::iter_reference_t<It>> ||
                                                                     std::is_trivially_copyable_v<key_type>);
    [[maybe_unused]] It ahead = first;
    if constexpr (bytes_elsewhere)
        for (std::size_t i = 0; i < key_bytes_distance && ahead != last; ++i, ++ahead) prefetch_key_bytes(*ahead);
    // Locates the key at `key` into `slot` by `locate_by` and asks for its memory by
    // `prefetch_by`, then moves on; asks for the bytes of the key at `bytes_ahead`, and moves that
    // on too.
    const auto locate_from = [=](It& key, [[maybe_unused]] It& bytes_ahead, probe& slot, const Locate& locate_by,
                                 const Prefetch& prefetch_by) {
        if constexpr (bytes_elsewhere)
            if (bytes_ahead != last) prefetch_key_bytes(*bytes_ahead++);
        slot = locate_by(*key);
        prefetch_by(slot);
        ++key;
    };
    const auto locate_next = [&](std::size_t at) { locate_from(first, ahead, ring[at], locate, prefetch); };
    // Locates up to `count` keys into the ring from slot `at` on; returns how many there were.
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
        // A range that knows its size: while a whole group of keys is left, a group is visited
        // and its slots take the next group, a count known here, so the keys' hashing unrolls
        // with no test of the end between them. The ring's first fill and the last, partial
        // group run once a call, out of line: a third inlined copy of a key's hashing made GCC
        // stop inlining elsewhere in a large program (docs/design/performance.md).
        const auto fill_once = [&](std::size_t at, std::size_t count) __attribute__((noinline)) {
            return fill(at, count);
        };
        held = fill_once(0, Distance);
        if (held == Distance) {
            // The steady state runs on copies of its own of the cursors and the functions that
            // locate and prefetch: the originals are reached through closures passed to a call
            // out of line (fill_once), so the compiler keeps them in memory, and a call in the
            // loop (a string key's hash) then had them stored and reloaded every key.
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
    // The last `held` probes, from the oldest on around the ring; a group never wraps, as the
    // ring is a whole number of groups.
    while (held != 0) {
        const std::size_t count = std::min(Group, held);
        visit_batch(std::span<const probe>(ring + oldest, count));
        held -= count;
        oldest = (oldest + count) % Distance;
    }
    return visit_batch;
}

/// A visit_batch for pipelined() that calls visit(probe) for each probe of a batch, in order.
/// It holds `visit` by value, and pipelined() returns it: so a visitor's state stays a local of
/// the pipeline (see pipelined) and comes back to the caller afterwards (`.visit`).
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

/// The visitor of a kind's bulk query, one key at a time: use(answer(probe)). Holds `use` (a
/// filter_api consumer: answers written through an iterator, or counted) by value, for the
/// pipeline to keep and give back (`.use`).
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

/// pipelined() over keys that `hash` digests: probe = locate(digest of key); returns
/// visit_batch. The hash algorithm is chosen once for the whole range (hasher::with_digest_of),
/// not once per key.
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
