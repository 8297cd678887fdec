// bloomkit/binary_fuse_filter.hpp — static filters for a key set known in advance: binary fuse
// filters (Thomas Mueller Graf & Daniel Lemire, "Binary Fuse Filters: Fast and Smaller Than Xor
// Filters", ACM Journal of Experimental Algorithmics 27, 2022, arXiv:2201.01174).
//
// A binary fuse filter stores one f-bit fingerprint per slot in an array of about 1.125·n
// slots (3-wise) or 1.075·n (4-wise). Each key owns 3 (or 4) slots, one in each of 3 (or 4)
// consecutive segments, and is "in" the filter when the XOR of its slots equals its
// fingerprint. A key never added matches by chance with probability 2^-f, so at 8 bits the
// filter answers with an FPR of 0.39% in ~9.0 bits/key (3-wise) — a Bloom filter needs ~11.5
// for that — and a lookup is 3 (or 4) independent memory reads, with no branch on the data.
//
// The price: the filter is built once from the complete key set and cannot take another key
// (the slots are the solution of one XOR system for exactly those keys), and two filters
// cannot be merged (two solutions XORed together solve neither system; build from the union of
// the keys instead). Use a Bloom filter for sets that grow.
//
// Construction (the paper's algorithm):
//  1. hash every key once with the filter's hasher (xxh3_64_mum by default, seeded with the
//     filter's seed) and keep the low 64 bits of its digest, the key's hash x;
//  2. for a construction seed s, take each x as the attempt's hash, or remix it into one
//     (below, in place) when s is not the filter's seed; sort the keys by the segment of
//     their first slot (a counting sort, so that adding the keys to
//     the slot table walks memory in order), and add each key to its slots: a count and the
//     XOR of the keys on the slot (after which the key array is let go: a failed attempt
//     hashes the input again);
//  3. peel: a slot holding exactly one key fixes that key; remove it and repeat. If every key
//     peels, assign fingerprints in reverse peeling order. If not (a cyclic core is left: a
//     few percent of attempts at most for large sets, more for tiny ones), retry with the
//     next seed, s' = fmix64(s + K). Repeated keys never peel (equal hashes share every slot),
//     so the first failure also removes repeated hashes and, if there were any, retries the
//     same seed: input with no repeats never pays for the search.
//     The first attempt uses the filter's seed, so a given key set and seed always build the
//     same array, whatever the input order and repeats; after 100 failed seeds the
//     constructor throws binary_fuse_construction_error.
//
// Per-attempt hash ("slot hashing" 2, direct64, what filters are built with). The first attempt
// uses the filter's seed, which the keys were hashed with: a seeded hash of bloomkit's own mixes
// every key bit into every bit of x, so x is that attempt's hash as it is. A later attempt
// (seed s) remixes x by MurmurHash3's finaliser (fmix64, a bijection), as slot hashing 1 always
// does:
//      h = x                      at the filter's seed (a lookup: one hash call and no remix)
//      h = fmix64(x ^ s)          at any other construction seed, and always under slot hashing 1
//                                 (remix64, what filters of FNV-1 and Murmur3 digests are built
//                                 with: those bits are foreign, FNV-1's poorly mixed)
//      a = h ^ (h >> 32)                  slot 0 = multiply-high(a, segments·segment length);
//                                         fingerprint = the low f bits of a
//      b = h · K                          the in-segment offsets of slots 1.. (18 bits each)
// Slot i > 0 is slot 0 moved i segments on, with its low bits XORed by the i-th 18-bit field
// of b (the "binary" in binary fuse: segment lengths are powers of two). Slot 0 and the
// offsets need more than 64 bits between them (up to 40 and 3·18), so some bits serve both;
// the multiplication by K makes each offset field a mix of all of h's bits below it, where
// taking h's own bits would make the third offset of a 4-wise filter of 100M keys nearly a copy
// of bits that slot 0 is made of (the multiply-high weighs a's top bits). The fingerprint folds
// h's two halves, as the paper's reference code does. A lookup is one hash call, two more
// operations and a multiplication, and arity reads. Two distinct keys whose 64-bit
// hashes collide are one key to the filter (both are found; among n keys a collision has
// probability about n²/2^65).
//
// Slot hashing 0 (remix128), the first scheme, which files that leave the field 0 were built
// with and still answer by: both halves of the 128-bit digest {low, high}, K being
// 0x9e3779b97f4a7c15 (2^64 / golden ratio):
//      b = fmix64(high ^ s ^ K)           the offsets, as above
//      a = fmix64(low ^ s) ^ b            slot 0 and the fingerprint, as above
// Two fmix64 instead of one, and builds kept 16 bytes a key instead of 8.
//
// Sizes are 64-bit throughout (more than 2^32 keys work). Building needs about 18 bytes per
// key of temporary memory at its peak (the keys' hashes, remixed in place, beside a count and
// the keys' XOR per slot; then the peeling order, 4 bytes a key, 8 past 2^32 slots), and 16
// more for a moment when the input repeats keys; the filter itself keeps only its array. A
// filter may also be a read-only view of a memory-mapped file (file.hpp).
//
// Thread safety: a filter is immutable once built; any number of threads may query it at once.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <ranges>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/bulk_pipeline.hpp"
#include "bloomkit/detail/filter_api.hpp"
#include "bloomkit/detail/word_storage.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/kind_request.hpp"
#include "bloomkit/options.hpp"
#include "bloomkit/os/huge_pages.hpp"
#include "bloomkit/sizing/binary_fuse.hpp"

namespace bloomkit {

/// A binary fuse filter could not be built: peeling failed for every construction seed tried.
/// With a sound hash function this does not happen in practice (each attempt fails with
/// probability well under 1/2); it signals an input the hash cannot tell apart.
class binary_fuse_construction_error : public error {
public:
    using error::error;
};

namespace detail {

/// A key's hash for one construction attempt (see the top of this file). Slot 0 and the
/// fingerprint come from `a`, the other slots' offsets from `b`.
struct fuse_hash {
    std::uint64_t a = 0;
    std::uint64_t b = 0;

    friend constexpr bool operator==(const fuse_hash&, const fuse_hash&) = default;
};

/// K: steps the construction seed, and keeps remix128's b distinct from its a where a digest's
/// halves are equal.
inline constexpr std::uint64_t fuse_offset_salt = 0x9e3779b97f4a7c15ULL;  // 2^64 / golden ratio

/// What a slot of the peeling table holds besides its count: the XOR of an item per key on it —
/// when one key is left, that XOR is its item, and the item must give the key. Positions: a
/// key's index in the key array (`Index`: 32 bits while the array has fewer than 2^32 slots),
/// and the key array is kept to look it up. Keys: the remixed key itself (remix64's 8 bytes),
/// so the key array can go once every key is on its slots.
template <class Index>
struct fuse_positions {
    using item_type = Index;
    static constexpr bool needs_keys = true;
    template <class Key>
    static item_type item(std::span<const Key>, std::size_t k) noexcept {
        return static_cast<Index>(k);
    }
    template <class Key>
    static const Key& key(std::span<const Key> keys, item_type item) noexcept {
        return keys[item];
    }
};
struct fuse_own_keys {
    using item_type = std::uint64_t;
    static constexpr bool needs_keys = false;
    static item_type item(std::span<const std::uint64_t> keys, std::size_t k) noexcept { return keys[k]; }
    static std::uint64_t key(std::span<const std::uint64_t>, item_type item) noexcept { return item; }
};

// The slot hashing schemes (binary_fuse_hashing). Each says what a build keeps of a key (its
// key_type, taken from the digest by key_of), how an attempt remixes that in place with its
// seed (remix, a bijection, undone by unremix when the attempt fails) and what fuse_hash a
// remixed key gives (hash_of). A lookup is hash_of(remix(key_of(digest), seed)).

/// Slot hashing 1: the digest's low 64 bits, one fmix64. Also slot hashing 2's, whose attempts
/// at the filter's seed skip the remix (build_fuse_array's `direct_at_first_seed`).
struct fuse_remix64 {
    using key_type = std::uint64_t;
    static constexpr binary_fuse_hashing hashing = binary_fuse_hashing::remix64;

    [[nodiscard]] static constexpr key_type key_of(const digest& d) noexcept { return d.low; }
    [[nodiscard]] static constexpr key_type remix(key_type x, std::uint64_t seed) noexcept { return mix64(x ^ seed); }
    [[nodiscard]] static constexpr key_type unremix(key_type h, std::uint64_t seed) noexcept {
        return murmur3_fmix64_inverse(h) ^ seed;
    }
    [[nodiscard]] static constexpr fuse_hash hash_of(key_type h) noexcept {
        return {h ^ (h >> 32), h * fuse_offset_salt};
    }
    /// What the peeling table's slots hold (fuse_peeler): the keys themselves.
    template <class Index>
    using peeling_items = fuse_own_keys;
};

/// Slot hashing 0: both halves of the digest, an fmix64 each.
struct fuse_remix128 {
    using key_type = digest;
    static constexpr binary_fuse_hashing hashing = binary_fuse_hashing::remix128;

    [[nodiscard]] static constexpr key_type key_of(const digest& d) noexcept { return d; }
    [[nodiscard]] static constexpr key_type remix(const key_type& d, std::uint64_t seed) noexcept {
        const std::uint64_t b = mix64(d.high ^ seed ^ fuse_offset_salt);
        return {mix64(d.low ^ seed) ^ b, b};
    }
    [[nodiscard]] static constexpr key_type unremix(const key_type& r, std::uint64_t seed) noexcept {
        return {murmur3_fmix64_inverse(r.low ^ r.high) ^ seed,
                murmur3_fmix64_inverse(r.high) ^ seed ^ fuse_offset_salt};
    }
    [[nodiscard]] static constexpr fuse_hash hash_of(const key_type& r) noexcept { return {r.low, r.high}; }
    /// What the peeling table's slots hold (fuse_peeler): the keys' positions.
    template <class Index>
    using peeling_items = fuse_positions<Index>;
};

/// A key's hash under `Scheme` for the construction seed that built the filter.
template <class Scheme>
[[nodiscard]] constexpr fuse_hash fuse_lookup_hash(const digest& d, std::uint64_t seed) noexcept {
    return Scheme::hash_of(Scheme::remix(Scheme::key_of(d), seed));
}

/// The same for a filter whose attempt took the keys as they are (direct64 at the hasher's own
/// seed): no remix.
template <class Scheme>
[[nodiscard]] constexpr fuse_hash fuse_direct_hash(const digest& d) noexcept {
    return Scheme::hash_of(Scheme::key_of(d));
}

/// The slot hashing a filter whose keys are hashed by `algorithm` is built with: direct64 when
/// the hash is one of bloomkit's own, seeded and mixing every input bit into every output bit;
/// remix64 for the foreign ones (FNV-1 is neither seeded nor well mixed).
[[nodiscard]] constexpr binary_fuse_hashing fuse_hashing_for(hash_algorithm algorithm) noexcept {
    return is_foreign(algorithm) ? binary_fuse_hashing::remix64 : binary_fuse_hashing::direct64;
}

/// The seed of the attempt after the one that used `seed`: a fixed bijective step, so a
/// construction is a deterministic function of its first seed.
[[nodiscard]] constexpr std::uint64_t next_construction_seed(std::uint64_t seed) noexcept {
    return mix64(seed + fuse_offset_salt);
}

/// How many seeds construction tries before it gives up.
inline constexpr unsigned fuse_max_attempts = 100;

template <class Fingerprint>
[[nodiscard]] constexpr Fingerprint fuse_fingerprint(const fuse_hash& h) noexcept {
    return static_cast<Fingerprint>(h.a);  // the low bits: multiply-high for slot 0 reads the high ones
}

/// Where a key's slots are: the same for building and for querying.
template <unsigned Arity>
class fuse_addressing {
public:
    using slots = std::array<std::uint64_t, Arity>;
    static constexpr unsigned offset_bits = 18;  // log2(binary_fuse_max_segment_length)
    static_assert(offset_bits * (Arity - 1) <= 64, "the offsets must fit in one 64-bit word");

    fuse_addressing() = default;
    explicit fuse_addressing(const binary_fuse_geometry& g) noexcept
        : segment_length_(g.segment_length),
          segment_mask_(g.segment_length == 0 ? 0 : g.segment_length - 1),
          segment_count_(g.segment_count),
          first_slot_range_(g.segment_count * g.segment_length) {}

    /// Slot 0 anywhere in the first segment_count segments; slot i in the i-th segment after
    /// it, at an offset flipped by 18 bits of b. Segments are powers of two, so the XOR never
    /// leaves the segment: the slots are always distinct.
    [[nodiscard]] slots operator()(const fuse_hash& h) const noexcept {
        slots at;
        const std::uint64_t first = reduce(h.a, first_slot_range_);
        at[0] = first;
        for_each_index<Arity - 1>([&](auto i) {
            at[i + 1] = (first + (i + 1) * segment_length_) ^ ((h.b >> (offset_bits * i)) & segment_mask_);
        });
        return at;
    }

    /// f(slot) for each slot of `h`, unrolled: a loop over the slots array, which GCC at -O2
    /// leaves rolled, keeps the array on the stack, a store and a load per slot. Not for
    /// prefetches: GCC 12 judges a lambda that only prefetches free of effects and drops it.
    template <class F>
    [[gnu::always_inline]] void for_each_slot(const fuse_hash& h, F f) const {
        const slots at = (*this)(h);
        for_each_index<Arity>([&](auto i) { f(at[i]); });
    }

    /// The segment of slot 0: the bucket a key is sorted into.
    [[nodiscard]] std::uint64_t segment_of(const fuse_hash& h) const noexcept { return reduce(h.a, segment_count_); }
    [[nodiscard]] std::uint64_t segment_count() const noexcept { return segment_count_; }

private:
    template <unsigned N, class F>
    [[gnu::always_inline]] static void for_each_index(F f) {
        [&]<unsigned... I>(std::integer_sequence<unsigned, I...>) { (f(std::integral_constant<unsigned, I>{}), ...); }
        (std::make_integer_sequence<unsigned, N>{});
    }

    std::uint64_t segment_length_ = 0;
    std::uint64_t segment_mask_ = 0;
    std::uint64_t segment_count_ = 0;
    std::uint64_t first_slot_range_ = 0;
};

/// What `Scheme` keeps of every key of [first, last), in input order.
template <class Scheme, class It, class Sentinel>
os::huge_page_vector<typename Scheme::key_type> hash_all(It first, Sentinel last, const hasher& h) {
    os::huge_page_vector<typename Scheme::key_type> keys;
    if constexpr (std::sized_sentinel_for<Sentinel, It>) keys.reserve(static_cast<std::size_t>(last - first));
    for (; first != last; ++first) keys.push_back(Scheme::key_of(h(*first)));
    return keys;
}

// A build key's first 64 bits, which are uniform, and its order, for keep_distinct.
[[nodiscard]] constexpr std::uint64_t leading_bits(std::uint64_t x) noexcept { return x; }
[[nodiscard]] constexpr std::uint64_t leading_bits(const digest& d) noexcept { return d.low; }
[[nodiscard]] constexpr bool key_less(std::uint64_t x, std::uint64_t y) noexcept { return x < y; }
[[nodiscard]] constexpr bool key_less(const digest& x, const digest& y) noexcept {
    return std::tie(x.low, x.high) < std::tie(y.low, y.high);
}

/// Removes repeated keys (in O(n): a counting sort on the top bits, which are uniform, then
/// tiny sorts inside each bucket). The order left is not the input's; nothing depends on it.
template <class Key>
void keep_distinct(os::huge_page_vector<Key>& keys) {
    const std::size_t n = keys.size();
    if (n < 2) return;
    // About four keys per bucket, so the bucket sorts are tiny insertion sorts. Equal keys
    // share a bucket.
    const int bits = std::clamp(static_cast<int>(std::bit_width(n)) - 2, 1, 30);
    const auto bucket_of = [bits](const Key& k) { return static_cast<std::size_t>(leading_bits(k) >> (64 - bits)); };
    os::huge_page_vector<std::size_t> begin((std::size_t{1} << bits) + 1, 0);  // bucket b is [begin[b], begin[b + 1])
    for (const Key& k : keys) ++begin[bucket_of(k) + 1];
    for (std::size_t b = 1; b < begin.size(); ++b) begin[b] += begin[b - 1];
    os::huge_page_vector<Key> bucketed(n);
    os::huge_page_vector<std::size_t> next(begin.begin(), begin.end() - 1);
    for (const Key& k : keys) bucketed[next[bucket_of(k)]++] = k;

    const auto by_value = [](const Key& x, const Key& y) { return key_less(x, y); };
    auto kept = keys.begin();
    for (std::size_t b = 0; b + 1 < begin.size(); ++b) {
        const auto first = bucketed.begin() + static_cast<std::ptrdiff_t>(begin[b]);
        const auto last = bucketed.begin() + static_cast<std::ptrdiff_t>(begin[b + 1]);
        std::sort(first, last, by_value);
        kept = std::unique_copy(first, last, kept);
    }
    keys.erase(kept, keys.end());
}

/// The keys of a build hold, during an attempt, their remixed values in their place, so the
/// build keeps one array of keys, not two; a failed attempt turns them back (remixing is a
/// bijection).
template <class Scheme>
void remix_in_place(std::span<typename Scheme::key_type> keys, std::uint64_t seed) noexcept {
    for (auto& k : keys) k = Scheme::remix(k, seed);
}
template <class Scheme>
void unremix_in_place(std::span<typename Scheme::key_type> keys, std::uint64_t seed) noexcept {
    for (auto& k : keys) k = Scheme::unremix(k, seed);
}

/// What one construction attempt came to.
enum class peel_outcome : std::uint8_t {
    peeled,    ///< every key peeled: assign() can fill the array
    stuck,     ///< a core of keys is left that no slot isolates
    overflow,  ///< a slot count reached 128 (pathological input)
};

/// One construction attempt over a slot table: hypergraph peeling. A slot keeps how many keys
/// are on it (a byte) and the XOR of their items (`Items`: fuse_positions or fuse_own_keys);
/// `Index` numbers slots. remix64 builds keep their keys in the slots (8 bytes a key while
/// adding, 1 + 8 a slot, the peeling order 4 a key: ~18 bytes a key at the peak, and no
/// position to follow when a slot is peeled); remix128's 16-byte keys keep positions.
template <class Scheme, unsigned Arity, class Index, class Items>
class fuse_peeler {
    using key_type = typename Scheme::key_type;
    using item_type = typename Items::item_type;

public:
    explicit fuse_peeler(const binary_fuse_geometry& g)
        : addressing_(g), counts_(g.array_length, 0), items_(g.array_length, 0) {}

    /// Sorts the remixed `keys` by the segment of their first slot and adds them to their slots.
    /// False when a count reached 128 (pathological input). `keys` stay in that order.
    bool add(std::span<key_type> keys) {
        sort_by_segment(keys);
        return add_keys(keys);
    }

    /// Peels the keys added (`keys`: those keys, or nothing when the slots hold them); true
    /// when every one of the `count` keys peeled.
    bool peel(std::span<const key_type> keys, std::uint64_t count) { return peel_all(keys, count); }

    /// Writes the fingerprints of a successful peel into `fingerprints` (zeroed, one per slot).
    /// Backwards through the peeling order: when a key is assigned, every other key on its
    /// slots is already final, so its own slot can be set to make the key's XOR come out right.
    template <class Fingerprint>
    void assign(std::span<const key_type> keys, Fingerprint* fingerprints) const noexcept {
        // The peeled slots are read in an order no hardware prefetcher follows: the key of the
        // one 16 places on is asked for early, and the slot naming it 16 places before that
        // (docs/design/performance.md, "Binary fuse filters").
        constexpr std::ptrdiff_t ahead = 16;
        for (auto slot = order_.rbegin(); slot != order_.rend(); ++slot) {
            const std::ptrdiff_t left = order_.rend() - slot;
            if (left > 2 * ahead) prefetch(&items_[slot[2 * ahead]]);
            if constexpr (Items::needs_keys)
                if (left > ahead) prefetch(&keys[items_[slot[ahead]]]);
            const fuse_hash key = Scheme::hash_of(Items::key(keys, items_[*slot]));
            auto value = fuse_fingerprint<Fingerprint>(key);
            addressing_.for_each_slot(
                key, [&](std::uint64_t at) { value = static_cast<Fingerprint>(value ^ fingerprints[at]); });
            fingerprints[*slot] = value;  // it was 0, so XORing it in above changed nothing
        }
    }

private:
    /// Sorts the keys by the segment of their first slot, in place (a counting sort that moves
    /// each key once, along cycles): adding them then walks a window of arity segments that
    /// slides through the table instead of random lines all over it.
    void sort_by_segment(std::span<key_type> keys) const {
        const auto segment = [this](const key_type& k) { return addressing_.segment_of(Scheme::hash_of(k)); };
        // Bucket s is [start[s], start[s + 1]); next[s] is where its next key goes.
        os::huge_page_vector<std::uint64_t> start(addressing_.segment_count() + 1, 0);
        for (const key_type& k : keys) ++start[segment(k) + 1];
        for (std::size_t s = 1; s < start.size(); ++s) start[s] += start[s - 1];
        os::huge_page_vector<std::uint64_t> next(start.begin(), start.end() - 1);
        for (std::uint64_t s = 0; s < next.size(); ++s) {
            while (next[s] < start[s + 1]) {
                key_type moving = keys[next[s]];
                for (std::uint64_t home = segment(moving); home != s; home = segment(moving))
                    std::swap(moving, keys[next[home]++]);
                keys[next[s]++] = moving;
            }
        }
    }

    /// Adds every key to its slots. False when a count reached 128: counts are 8 bits, and no
    /// sane input comes near (the mean is about 2.7).
    bool add_keys(std::span<const key_type> keys) noexcept {
        // The keys' slots lie in a window of arity segments that slides through the table;
        // once that window outgrows L1 (and L2, past a few million keys) each update waits on
        // memory. Prefetching the slots of the key 32 places ahead overlaps those waits
        // (docs/design/performance.md, "Binary fuse filters").
        constexpr std::size_t ahead = 32;
        std::uint8_t seen = 0;
        for (std::size_t k = 0; k < keys.size(); ++k) {
            if (k + ahead < keys.size())
                for (const std::uint64_t at : addressing_(Scheme::hash_of(keys[k + ahead]))) {
                    prefetch(&items_[at]);
                    prefetch(&counts_[at]);
                }
            const item_type item = Items::item(keys, k);
            addressing_.for_each_slot(Scheme::hash_of(keys[k]), [&](std::uint64_t at) {
                items_[at] ^= item;
                seen |= ++counts_[at];
            });
        }
        return seen < 0x80;  // a count must pass 128 before it can wrap
    }

    /// Peels every slot holding one key, sweeping the table in order. A peel that leaves a
    /// slot behind the sweep with one key peels it at once; slots ahead wait for the sweep.
    /// A key's slots span arity consecutive segments, so the work stays within a few segments
    /// of the sweep (in cache), where chasing every new single depth-first would wander the
    /// whole table.
    bool peel_all(std::span<const key_type> keys, std::uint64_t count) {
        // A key found alone at the sweep has slots up to two segments on, in lines the sweep
        // has not reached: for the slot 64 places ahead, when alone, its key's slots are
        // prefetched, and its key 64 places before that (16 and 256 places did no better:
        // docs/design/performance.md, "Binary fuse filters").
        constexpr std::uint64_t ahead = 64;
        const std::uint64_t slot_count = counts_.size();
        order_.clear();
        order_.reserve(count);
        pending_.clear();
        for (std::uint64_t sweep = 0; sweep < slot_count; ++sweep) {
            if constexpr (Items::needs_keys)
                if (sweep + 2 * ahead < slot_count && counts_[sweep + 2 * ahead] == 1)
                    prefetch(&keys[items_[sweep + 2 * ahead]]);
            if (sweep + ahead < slot_count && counts_[sweep + ahead] == 1)
                for (const std::uint64_t at : addressing_(Scheme::hash_of(Items::key(keys, items_[sweep + ahead])))) {
                    prefetch(&items_[at]);
                    prefetch(&counts_[at]);
                }
            if (counts_[sweep] != 1) continue;
            peel_at(keys, sweep, sweep);
            while (!pending_.empty()) {
                const Index slot = pending_.back();
                pending_.pop_back();
                if (counts_[slot] == 1) peel_at(keys, slot, sweep);
            }
        }
        return order_.size() == count;
    }

    /// Removes the only key left at `slot` from all its slots, remembering it at `slot`.
    void peel_at(std::span<const key_type> keys, std::uint64_t slot, std::uint64_t sweep) {
        const item_type item = items_[slot];
        order_.push_back(static_cast<Index>(slot));
        addressing_.for_each_slot(Scheme::hash_of(Items::key(keys, item)), [&](std::uint64_t at) {
            items_[at] ^= item;
            if (--counts_[at] == 1 && at < sweep) pending_.push_back(static_cast<Index>(at));
        });
        items_[slot] = item;  // count 0, and the slot keeps naming its key for assign()
    }

    fuse_addressing<Arity> addressing_;
    // On huge pages (os/huge_pages.hpp), as the keys are.
    os::huge_page_vector<std::uint8_t> counts_;  // keys on each slot
    os::huge_page_vector<item_type> items_;      // XOR of their items
    os::huge_page_vector<Index> order_;          // slots in peeling order, each naming its key
    os::huge_page_vector<Index> pending_;        // slots found holding one key, not yet peeled
};

/// What construction produced.
template <class Fingerprint>
struct fuse_array {
    std::uint64_t keys = 0;  ///< distinct keys (distinct hashes)
    binary_fuse_geometry geometry{};
    std::uint64_t seed = 0;  ///< the construction seed that peeled
    word_storage<Fingerprint> fingerprints;
};

/// One construction attempt with `built.seed` on the keys `keys`, with slots numbered by
/// Index, remixing them unless `direct`; on success fills `built.fingerprints`. When the
/// attempt fails, `keys` come back as they were — or empty, when the slots held the keys and
/// the array was let go (the caller makes them again).
template <class Fingerprint, class Scheme, unsigned Arity, class Index>
peel_outcome try_construction_seed(os::huge_page_vector<typename Scheme::key_type>& keys,
                                   fuse_array<Fingerprint>& built, bool direct) {
    using key_type = typename Scheme::key_type;
    using items = typename Scheme::template peeling_items<Index>;
    fuse_peeler<Scheme, Arity, Index, items> peeler(built.geometry);
    const auto restore = [&] {
        if (!direct) unremix_in_place<Scheme>(keys, built.seed);
    };
    if (!direct) remix_in_place<Scheme>(keys, built.seed);
    if (!peeler.add(keys)) {
        restore();
        return peel_outcome::overflow;
    }
    const std::uint64_t count = keys.size();
    if constexpr (!items::needs_keys) os::huge_page_vector<key_type>().swap(keys);  // the slots hold them
    if (!peeler.peel(keys, count)) {
        restore();
        return peel_outcome::stuck;
    }
    built.fingerprints = word_storage<Fingerprint>(built.geometry.array_length);
    peeler.assign(std::span<const key_type>(keys), built.fingerprints.mutable_data());
    return peel_outcome::peeled;
}

/// Builds the array for the keys `make_keys()` returns (what Scheme keeps of each key:
/// repeats allowed; called again when an attempt let the keys go), trying construction seeds
/// from `seed` on. Repeated keys are removed only when an attempt fails: two equal keys share
/// every slot, so neither is ever alone and a set with repeats never peels — a success proves
/// there were none, and most inputs skip the cost of looking. After removing repeats the same
/// seed is tried again, so the result depends on the set of keys only. Throws
/// binary_fuse_construction_error after `max_attempts` failures on distinct keys.
/// `direct_at_first_seed` (direct64): attempts with `seed` itself take the keys as they are.
template <class Fingerprint, unsigned Arity, class Scheme, class MakeKeys>
fuse_array<Fingerprint> build_fuse_array(MakeKeys make_keys, std::uint64_t seed,
                                         unsigned max_attempts = fuse_max_attempts, bool direct_at_first_seed = false) {
    os::huge_page_vector<typename Scheme::key_type> keys = make_keys();
    fuse_array<Fingerprint> built{keys.size(), binary_fuse_geometry_for(Arity, keys.size()), seed, {}};
    if (keys.empty()) return built;
    bool distinct = false;
    for (unsigned failures = 0; failures < max_attempts;) {
        const bool narrow = built.geometry.array_length <= std::numeric_limits<std::uint32_t>::max();
        const bool direct = direct_at_first_seed && built.seed == seed;
        if ((narrow ? try_construction_seed<Fingerprint, Scheme, Arity, std::uint32_t>(keys, built, direct)
                    : try_construction_seed<Fingerprint, Scheme, Arity, std::uint64_t>(keys, built, direct)) ==
            peel_outcome::peeled)
            return built;
        if (keys.empty()) {
            keys = make_keys();
            if (distinct) keep_distinct(keys);
        }
        if (!distinct) {
            distinct = true;
            keep_distinct(keys);
            if (keys.size() != built.keys) {  // the failure was the repeats: same seed, right size
                built.keys = keys.size();
                built.geometry = binary_fuse_geometry_for(Arity, keys.size());
                continue;
            }
        }
        ++failures;
        built.seed = next_construction_seed(built.seed);
    }
    throw binary_fuse_construction_error("could not build a binary fuse filter from " + std::to_string(keys.size()) +
                                         " distinct keys in " + std::to_string(built.geometry.array_length) +
                                         " slots: " + std::to_string(max_attempts) +
                                         " construction seeds failed (the last was " + std::to_string(built.seed) +
                                         "); distinct keys should never cause this: check the key type's key_bytes");
}

}  // namespace detail

/// A static binary fuse filter with `Fingerprint` (std::uint8_t or std::uint16_t) fingerprints
/// and `Arity` (3 or 4) slots per key. FPR 2^-bits; 3-wise costs ~1.125 × bits per key for
/// large sets, 4-wise ~1.075 × and reads one more slot per lookup.
///
/// Built once from a range of keys; no insert, no union (see the top of this file).
template <class Fingerprint, unsigned Arity>
requires(std::same_as<Fingerprint, std::uint8_t> || std::same_as<Fingerprint, std::uint16_t>) &&
    (Arity == 3 || Arity == 4) class basic_binary_fuse_filter
    : public detail::filter_api<basic_binary_fuse_filter<Fingerprint, Arity>> {
    using api = detail::filter_api<basic_binary_fuse_filter<Fingerprint, Arity>>;
    friend api;

public:
    /// One slot of the array: std::uint8_t or std::uint16_t.
    using fingerprint_type = Fingerprint;
    /// Counts of keys and slots.
    using size_type = std::uint64_t;
    /// The array: owned, or a read-only view of a mapped file.
    using storage_type = detail::word_storage<Fingerprint>;

    /// The empty filter: holds no key, contains() is always false.
    basic_binary_fuse_filter() : api(hasher{}, {}) {}

    /// A filter holding every key of [first, last). Duplicates are allowed (and counted once).
    /// Throws binary_fuse_construction_error if no construction seed works (see the top of
    /// this file), std::bad_alloc when the temporary memory (~18 bytes/key) cannot be had.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel>
    requires hashable_key<std::iter_value_t<It>> basic_binary_fuse_filter(It first, Sentinel last,
                                                                          filter_options options = {})
        : api(hasher(options.hash.value_or(default_hash_algorithm), options.seed), {},
              options.keys != key_format::unrecorded ? options.keys : key_format_of<std::iter_value_t<It>>()) {
        build([&] { return detail::hash_all<build_scheme>(first, last, this->hasher_); }, options.seed);
    }

    /// A filter holding every key of `keys`. A string or a byte vector is one key, not a range
    /// of byte keys, so it is refused here; use the iterator pair for a range of bytes as keys.
    template <std::ranges::forward_range Range>
    requires hashable_key<std::ranges::range_value_t<Range>> &&
        (!byte_sequence_key<Range>)explicit basic_binary_fuse_filter(const Range& keys, filter_options options = {})
        : basic_binary_fuse_filter(std::ranges::begin(keys), std::ranges::end(keys), options) {}

    /// A filter holding the keys listed: binary_fuse8_filter f({"alpha", "beta"}).
    template <hashable_key Key>
    basic_binary_fuse_filter(std::initializer_list<Key> keys, filter_options options = {})
        : basic_binary_fuse_filter(keys.begin(), keys.end(), options) {}

    /// A filter from its stored parts, as a codec (io/) reads them: its parameters and the
    /// array (as fingerprints() returns it). Throws invalid_argument unless the parameters
    /// describe a consistent filter of this type (check_binary_fuse_parameters) and the array
    /// is exactly as long as they say.
    basic_binary_fuse_filter(const binary_fuse_parameters& parameters, const hasher& h, storage_type fingerprints)
        : api(h, {}),
          parameters_(checked(parameters, fingerprints.size())),
          fingerprints_(std::move(fingerprints)),
          addressing_(parameters_.geometry),
          plain_lookup_(is_plain_lookup(parameters_, h)),
          plain_mum_lookup_(is_plain_mum_lookup(parameters_, h)) {}

    // --- Queries -----------------------------------------------------------------------------

    using api::contains;

    /// False: the key was not in the set the filter was built from. True: it was, or it is a
    /// false positive (probability 2^-bits).
    template <hashable_key Key>
    [[nodiscard, gnu::always_inline]] bool contains(const Key& key) const {
        if constexpr (integer_key<Key>) {
            if (plain_mum_lookup_) [[likely]]
                return matches(detail::fuse_direct_hash<build_scheme>(
                    this->hasher_.template integer_digest<hash_algorithm::xxh3_mum>(key)));
        } else if (plain_lookup_) [[likely]] {
            return matches(detail::fuse_direct_hash<build_scheme>(this->hasher_(key)));
        }
        return contains_otherwise<Key>(key);
    }

    /// Same parameters (construction seed included), hashing and fingerprints.
    friend bool operator==(const basic_binary_fuse_filter& x, const basic_binary_fuse_filter& y) noexcept {
        const auto a = x.fingerprints();
        const auto b = y.fingerprints();
        return x.parameters_ == y.parameters_ && x.hash_function() == y.hash_function() &&
               std::equal(a.begin(), a.end(), b.begin(), b.end());
    }

    // --- Observers ---------------------------------------------------------------------------

    /// Slots per key: 3 or 4.
    [[nodiscard]] static constexpr unsigned arity() noexcept { return Arity; }
    /// Bits per fingerprint: 8 or 16.
    [[nodiscard]] static constexpr unsigned fingerprint_bits() noexcept { return 8 * sizeof(Fingerprint); }
    /// The probability that a key not in the set is reported present: 2^-bits.
    [[nodiscard]] static constexpr double expected_fpr() noexcept {
        return 1.0 / static_cast<double>(std::uint64_t{1} << fingerprint_bits());
    }

    /// Distinct keys the filter was built from (distinct 64-bit hashes, strictly speaking).
    [[nodiscard]] size_type size() const noexcept { return parameters_.keys; }
    /// The distinct keys it was built from, as every kind's inserted_count() says (the same as
    /// size()).
    [[nodiscard]] size_type inserted_count() const noexcept { return parameters_.keys; }
    /// Its false-positive rate: fixed once built (expected_fpr()), and 0 when it holds nothing.
    [[nodiscard]] double current_fpr() const noexcept { return empty() ? 0.0 : expected_fpr(); }
    /// Whether it was built from no keys.
    [[nodiscard]] bool empty() const noexcept { return parameters_.keys == 0; }
    /// The array, in bytes.
    [[nodiscard]] size_type size_in_bytes() const noexcept { return array_length() * sizeof(Fingerprint); }
    /// Bits of the array per key (0 for the empty filter).
    [[nodiscard]] double bits_per_key() const noexcept {
        return empty() ? 0.0 : static_cast<double>(array_length()) * fingerprint_bits() / static_cast<double>(size());
    }

    /// Everything that describes it besides its hasher and array, as its file stores it.
    [[nodiscard]] const binary_fuse_parameters& parameters() const noexcept { return parameters_; }
    /// How the array is cut into segments.
    [[nodiscard]] const binary_fuse_geometry& geometry() const noexcept { return parameters_.geometry; }
    /// Slots per segment.
    [[nodiscard]] size_type segment_length() const noexcept { return geometry().segment_length; }
    /// Segments where a key's first slot may fall.
    [[nodiscard]] size_type segment_count() const noexcept { return geometry().segment_count; }
    /// Slots (fingerprints) in all.
    [[nodiscard]] size_type array_length() const noexcept { return geometry().array_length; }
    /// The seed of the construction attempt that succeeded (the filter's seed, unless peeling
    /// needed a retry).
    [[nodiscard]] std::uint64_t construction_seed() const noexcept { return parameters_.construction_seed; }

    /// The array: one fingerprint per slot, in native byte order.
    [[nodiscard]] std::span<const Fingerprint> fingerprints() const noexcept { return fingerprints_.words(); }

    /// True for a filter mapped from a file.
    [[nodiscard]] bool read_only() const noexcept { return fingerprints_.read_only(); }

private:
    // The hook of filter_api's bulk queries: use(answer) for every key, in order; returns use. Pipelined:
    // hashes a batch, prefetches every slot, then reads them.
    template <class It, class Sentinel, class Use>
    Use for_each_answer(It first, Sentinel last, Use use) const {
        if (empty()) {
            for (; first != last; ++first) use(false);
            return use;
        }
        return pipeline(first, last,
                        detail::answer_each{[this](const detail::fuse_hash& h) { return matches(h); }, use})
            .use;
    }

    // What filters are built with (direct64 and remix64 keep the same 8 bytes of a key); files
    // may hold the first scheme, and answer by it.
    using build_scheme = detail::fuse_remix64;

    // make_keys() gives the keys' hashes, again when an attempt has let them go.
    template <class MakeKeys>
    void build(MakeKeys make_keys, std::uint64_t seed) {
        const binary_fuse_hashing hashing = detail::fuse_hashing_for(this->hasher_.algorithm());
        auto built = detail::build_fuse_array<Fingerprint, Arity, build_scheme>(
            make_keys, seed, detail::fuse_max_attempts, hashing == binary_fuse_hashing::direct64);
        parameters_ = {Arity, fingerprint_bits(), built.keys, built.geometry, built.seed, hashing};
        fingerprints_ = std::move(built.fingerprints);
        addressing_ = detail::fuse_addressing<Arity>(parameters_.geometry);
        plain_lookup_ = is_plain_lookup(parameters_, this->hasher_);
        plain_mum_lookup_ = is_plain_mum_lookup(parameters_, this->hasher_);
    }

    // A single lookup tests one flag, then runs the lookup of a filter of direct64 built at its
    // first seed — the hash, the slots and the reads, nothing else; the empty filter (which has
    // no array), a retried seed and the other schemes take the call below, out of line. For an
    // integer key the flag also says that the integer hash is xxh3_mum's mixer (the default's),
    // then taken with no test of the algorithm: that test cost ~0.5 ns of a 4 ns lookup at 10M
    // keys (docs/design/performance.md, "Lookups" of binary fuse filters). (A "not
    // empty, and then" inlined in front of the test also let GCC turn a caller's `found +=
    // contains(k)` into a jump on the answer, mispredicted half the time when half the keys
    // are present.)
    static bool is_plain_lookup(const binary_fuse_parameters& p, const hasher& h) noexcept {
        return p.keys != 0 && p.hashing == binary_fuse_hashing::direct64 && p.construction_seed == h.seed();
    }
    static bool is_plain_mum_lookup(const binary_fuse_parameters& p, const hasher& h) noexcept {
        return is_plain_lookup(p, h) && integer_hashing_of(h.algorithm()) == hash_algorithm::xxh3_mum;
    }
    // An integer key by value: a reference would make every inlined lookup store its key.
    template <class Key>
    using key_argument = std::conditional_t<std::is_scalar_v<Key>, Key, const Key&>;
    // Pure, as hasher::hash_integer_otherwise is: it keeps a loop of contains() from reloading
    // the filter's fields every key.
    template <class Key>
    [[nodiscard, gnu::noinline, gnu::pure]] bool contains_otherwise(key_argument<Key> key) const {
        return !empty() && matches(lookup_hash(this->hasher_(key)));
    }

    // For the bulk pipeline: branches every lookup predicts (a filter has one scheme), the first
    // scheme's remix out of line. Not for the empty filter (there, plain_lookup_ is false).
    [[nodiscard, gnu::always_inline]] detail::fuse_hash lookup_hash(const digest& d) const noexcept {
        if (plain_lookup_) [[likely]]
            return detail::fuse_direct_hash<build_scheme>(d);
        if (parameters_.hashing != binary_fuse_hashing::remix128)
            return detail::fuse_lookup_hash<build_scheme>(d, parameters_.construction_seed);
        return first_scheme_hash(d);
    }
    [[nodiscard, gnu::noinline]] detail::fuse_hash first_scheme_hash(const digest& d) const noexcept {
        return detail::fuse_lookup_hash<detail::fuse_remix128>(d, parameters_.construction_seed);
    }

    // Not for the empty filter, which has no array. Inlined into every lookup: GCC otherwise
    // calls it, the hash passed through the stack.
    [[nodiscard, gnu::always_inline]] bool matches(const detail::fuse_hash& h) const noexcept {
        const Fingerprint* slots = fingerprints_.data();
        auto x = detail::fuse_fingerprint<Fingerprint>(h);
        addressing_.for_each_slot(h, [&](std::uint64_t at) { x = static_cast<Fingerprint>(x ^ slots[at]); });
        return x == 0;
    }

    // The pipeline's probe is the 16-byte remixed hash, not the slots: a 40-byte probe of
    // slots, built on the stack and then copied into the batch, stalls every 4-wise lookup
    // on store forwarding (docs/design/performance.md, "Binary fuse filters"). Working the
    // slots out twice, to prefetch and to test, costs a multiplication.
    // The prefetches are issued while locating, not from the pipeline's prefetch step: GCC 12
    // judged a lambda that only prefetches free of side effects and deleted the call.
    template <class It, class Sentinel, class Visit>
    Visit pipeline(It first, Sentinel last, Visit visit) const {
        return detail::pipelined_by_digest(
                   this->hasher_, first, last,
                   [this](const digest& d) {
                       const detail::fuse_hash h = lookup_hash(d);
                       for (const std::uint64_t at : addressing_(h)) detail::prefetch(fingerprints_.data() + at);
                       return h;
                   },
                   [](const detail::fuse_hash&) {}, detail::each_of_batch{visit})
            .visit;
    }

    static const binary_fuse_parameters& checked(const binary_fuse_parameters& p, std::uint64_t stored) {
        check_binary_fuse_parameters(p);
        if (p.arity != Arity || p.fingerprint_bits != fingerprint_bits())
            throw invalid_argument("a " + std::to_string(p.arity) + "-wise binary fuse filter with " +
                                   std::to_string(p.fingerprint_bits) + "-bit fingerprints is not a " +
                                   std::to_string(Arity) + "-wise one with " + std::to_string(fingerprint_bits()) +
                                   "-bit fingerprints");
        if (stored != p.geometry.array_length)
            throw invalid_argument("inconsistent binary fuse filter: " + std::to_string(stored) +
                                   " fingerprints stored for an array of " + std::to_string(p.geometry.array_length));
        return p;
    }

    binary_fuse_parameters parameters_{Arity, fingerprint_bits(), 0, {}, default_seed, binary_fuse_hashing::direct64};
    storage_type fingerprints_;
    detail::fuse_addressing<Arity> addressing_;
    bool plain_lookup_ = false;      // is_plain_lookup(parameters_, hasher_)
    bool plain_mum_lookup_ = false;  // is_plain_mum_lookup(parameters_, hasher_)
};

/// 3-wise, 8-bit fingerprints: FPR 0.39% in ~9.0 bits/key. The default.
using binary_fuse8_filter = basic_binary_fuse_filter<std::uint8_t, 3>;
/// 3-wise, 16-bit fingerprints: FPR 0.0015% in ~18 bits/key.
using binary_fuse16_filter = basic_binary_fuse_filter<std::uint16_t, 3>;
/// 4-wise, 8-bit: ~8.6 bits/key, one more memory read per lookup.
using binary_fuse8_4wise_filter = basic_binary_fuse_filter<std::uint8_t, 4>;
/// 4-wise, 16-bit: ~17.2 bits/key.
using binary_fuse16_4wise_filter = basic_binary_fuse_filter<std::uint16_t, 4>;

/// The default static filter.
using binary_fuse_filter = binary_fuse8_filter;

// --- The registry's entry (kind_request.hpp) ------------------------------------------------

template <class Fingerprint, unsigned Arity>
/// The registry's entry of the binary fuse filters (kind_traits): kind "fuse", one type per
/// fingerprint width and arity. They are built from their keys, so there is no make().
struct kind_traits<basic_binary_fuse_filter<Fingerprint, Arity>> {
    /// Bits per fingerprint.
    static constexpr std::uint32_t bits = 8 * sizeof(Fingerprint);
    /// The kind's word.
    static constexpr std::string_view word = "fuse";
    /// Why one would choose it.
    static constexpr std::string_view summary = "built once from the complete set, ~1.08-1.13x the floor";
    /// How messages name the type ("4-wise 8-bit binary fuse filter").
    static std::string name() {
        return std::to_string(Arity) + "-wise " + std::to_string(bits) + "-bit binary fuse filter";
    }
    /// Kind "fuse", with the fingerprint bits unless 8 and the arity unless 3.
    static kind_request request() {
        kind_request r{std::string(word), {}, {}, {}};
        if (bits != 8) r.fingerprint_bits = bits;
        if (Arity != 3) r.arity = Arity;
        return r;
    }
    /// Whether `r` asks for kind "fuse" with this arity (3 when unset) and these fingerprint bits
    /// (when unset, the fewest that meet p); throws invalid_request for another option, bits other
    /// than 8 or 16, or an arity other than 3 or 4.
    static bool accepts(const kind_request& r, double p) {
        detail::require_options(r, {.fingerprint_bits = true, .arity = true});
        if (r.kind != word) return false;
        if (r.fingerprint_bits && *r.fingerprint_bits != 8 && *r.fingerprint_bits != 16)
            throw invalid_request(
                invalid_request::part::fingerprint_bits,
                "a binary fuse filter's fingerprints are 8 or 16 bits, not " + std::to_string(*r.fingerprint_bits));
        if (r.arity && *r.arity != 3 && *r.arity != 4)
            throw invalid_request(invalid_request::part::arity,
                                  "a binary fuse filter is 3- or 4-wise, not " + std::to_string(*r.arity) + "-wise");
        const std::uint32_t wanted = r.fingerprint_bits ? *r.fingerprint_bits : binary_fuse_fingerprint_bits_for(p);
        return wanted == bits && r.arity.value_or(3) == Arity;
    }
    /// plan_binary_fuse() for this type, in the registry's terms; throws invalid_argument when its
    /// fingerprints cannot reach p.
    static kind_plan plan(double n, double p, const kind_request& = {}) {
        const binary_fuse_plan plan = plan_binary_fuse(Arity, n, p, bits);
        if (plan.fpr > p)
            throw invalid_argument(std::string("reaches at best p = 1/") + (bits == 8 ? "256" : "65536") + " (" +
                                   std::to_string(bits) + "-bit fingerprints)");
        return {plan.bytes(), plan.fpr, 0, bits};
    }
};

}  // namespace bloomkit
