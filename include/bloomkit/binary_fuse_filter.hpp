// bloomkit/binary_fuse_filter.hpp — static filters for a key set known in advance: binary fuse
// filters (Thomas Mueller Graf & Daniel Lemire, "Binary Fuse Filters: Fast and Smaller Than Xor
// Filters", ACM Journal of Experimental Algorithmics 27, 2022, arXiv:2201.01174).
//
// One f-bit fingerprint per slot, about 1.125·n slots (3-wise) or 1.075·n (4-wise). A key owns one
// slot in each of 3 (or 4) consecutive segments and is present when the XOR of its slots equals its
// fingerprint, so a key never added matches with probability 2^-f (8 bits: FPR 0.39% in ~9.0
// bits/key, where a Bloom filter needs ~11.5). The slots solve one XOR system for exactly the keys
// given: no key can be added later, and two filters cannot be merged (build from the union).
//
// Construction (the paper's): hash each key to 64 bits x; for an attempt with seed s, sort the keys
// by the segment of their first slot, add each to its slots (a count and an XOR per slot), peel (a
// slot holding one key fixes it) and assign fingerprints in reverse peeling order. A cyclic core
// (a few percent of attempts) retries with s' = fmix64(s + K). Repeated keys never peel, so the
// first failure removes repeats and retries the same seed: a key set and a seed always build the
// same array. After 100 failed seeds the constructor throws binary_fuse_construction_error.
//
// Slot hashing (binary_fuse_hashing, stored in files); K = 0x9e3779b97f4a7c15 (2^64 / golden ratio):
//      2 direct64    h = x at the filter's seed (bloomkit's seeded hashes mix every key bit into x),
//                    h = fmix64(x ^ s) at any other seed
//      1 remix64     h = fmix64(x ^ s) always (foreign digests: FNV-1, Murmur3)
//        then        a = h ^ (h >> 32): slot 0 = multiply-high(a, segments · segment length),
//                    fingerprint = the low f bits of a; b = h · K: the offsets of slots 1..
//      0 remix128    files whose field is 0 (answered, never built): b = fmix64(high ^ s ^ K),
//                    a = fmix64(low ^ s) ^ b
// Slot i > 0 is slot 0 moved i segments on, its low bits XORed with the i-th 18-bit field of b
// (segment lengths are powers of two). The multiplication by K makes each field a mix of all of h's
// lower bits instead of the bits slot 0 is made of. Keys whose 64-bit hashes collide are one key to
// the filter (among n keys, probability about n²/2^65).
//
// Building peaks at about 18 bytes of temporary memory per key (16 more for a moment when the input
// repeats keys); the filter keeps only its array, owned or mapped read-only from a file (file.hpp).
// Thread safety: immutable once built; any number of threads may query it at once.
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

/// Peeling failed for every construction seed tried: with a sound hash (each attempt fails with
/// probability well under 1/2) this signals keys the hash cannot tell apart.
class binary_fuse_construction_error : public error {
public:
    using error::error;
};

namespace detail {

/// A key's hash for one attempt: slot 0 and the fingerprint from `a`, the other offsets from `b`.
struct fuse_hash {
    std::uint64_t a = 0;
    std::uint64_t b = 0;

    friend constexpr bool operator==(const fuse_hash&, const fuse_hash&) = default;
};

/// K: steps the construction seed; keeps remix128's b distinct from a when a digest's halves match.
inline constexpr std::uint64_t fuse_offset_salt = 0x9e3779b97f4a7c15ULL;  // 2^64 / golden ratio

/// A peeling slot's XOR of one item per key on it; when one key is left, the XOR is its item and
/// must give the key. Positions index the key array, which is kept; own keys (remix64's 8 bytes)
/// are the keys themselves, so the key array can go once every key is on its slots.
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

// Slot hashing schemes: key_of (what a build keeps of a digest), remix (a bijection, undone by
// unremix when an attempt fails), hash_of. A lookup is hash_of(remix(key_of(digest), seed)).

/// Slot hashing 1, and 2 (which skips the remix at the filter's seed): low 64 bits, one fmix64.
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
    template <class Index>
    using peeling_items = fuse_positions<Index>;
};

/// A key's hash under `Scheme` for the construction seed that built the filter.
template <class Scheme>
[[nodiscard]] constexpr fuse_hash fuse_lookup_hash(const digest& d, std::uint64_t seed) noexcept {
    return Scheme::hash_of(Scheme::remix(Scheme::key_of(d), seed));
}

/// The same for direct64 at the hasher's own seed: no remix.
template <class Scheme>
[[nodiscard]] constexpr fuse_hash fuse_direct_hash(const digest& d) noexcept {
    return Scheme::hash_of(Scheme::key_of(d));
}

/// direct64 for bloomkit's own seeded, fully mixing hashes; remix64 for foreign ones (FNV-1 is
/// neither seeded nor well mixed).
[[nodiscard]] constexpr binary_fuse_hashing fuse_hashing_for(hash_algorithm algorithm) noexcept {
    return is_foreign(algorithm) ? binary_fuse_hashing::remix64 : binary_fuse_hashing::direct64;
}

/// A fixed bijective step, so a construction is a deterministic function of its first seed.
[[nodiscard]] constexpr std::uint64_t next_construction_seed(std::uint64_t seed) noexcept {
    return mix64(seed + fuse_offset_salt);
}

inline constexpr unsigned fuse_max_attempts = 100;

template <class Fingerprint>
[[nodiscard]] constexpr Fingerprint fuse_fingerprint(const fuse_hash& h) noexcept {
    return static_cast<Fingerprint>(h.a);  // the low bits: multiply-high for slot 0 reads the high ones
}

/// Where a key's slots are, for building and for querying.
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

    /// Segments are powers of two, so the XOR never leaves the segment: the slots are distinct.
    [[nodiscard]] slots operator()(const fuse_hash& h) const noexcept {
        slots at;
        const std::uint64_t first = reduce(h.a, first_slot_range_);
        at[0] = first;
        for_each_index<Arity - 1>([&](auto i) {
            at[i + 1] = (first + (i + 1) * segment_length_) ^ ((h.b >> (offset_bits * i)) & segment_mask_);
        });
        return at;
    }

    /// Unrolled, so the slots stay in registers. Not for prefetches: GCC 12 drops a lambda that
    /// only prefetches as free of effects.
    template <class F>
    [[gnu::always_inline]] void for_each_slot(const fuse_hash& h, F f) const {
        const slots at = (*this)(h);
        for_each_index<Arity>([&](auto i) { f(at[i]); });
    }

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

template <class Scheme, class It, class Sentinel>
os::huge_page_vector<typename Scheme::key_type> hash_all(It first, Sentinel last, const hasher& h) {
    os::huge_page_vector<typename Scheme::key_type> keys;
    if constexpr (std::sized_sentinel_for<Sentinel, It>) keys.reserve(static_cast<std::size_t>(last - first));
    for (; first != last; ++first) keys.push_back(Scheme::key_of(h(*first)));
    return keys;
}

[[nodiscard]] constexpr std::uint64_t leading_bits(std::uint64_t x) noexcept { return x; }
[[nodiscard]] constexpr std::uint64_t leading_bits(const digest& d) noexcept { return d.low; }
[[nodiscard]] constexpr bool key_less(std::uint64_t x, std::uint64_t y) noexcept { return x < y; }
[[nodiscard]] constexpr bool key_less(const digest& x, const digest& y) noexcept {
    return std::tie(x.low, x.high) < std::tie(y.low, y.high);
}

/// Removes repeated keys in O(n): a counting sort on the (uniform) top bits, then tiny sorts per
/// bucket. The order left is not the input's.
template <class Key>
void keep_distinct(os::huge_page_vector<Key>& keys) {
    const std::size_t n = keys.size();
    if (n < 2) return;
    // About four keys per bucket.
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

/// In place, so a build keeps one key array; a failed attempt turns the keys back.
template <class Scheme>
void remix_in_place(std::span<typename Scheme::key_type> keys, std::uint64_t seed) noexcept {
    for (auto& k : keys) k = Scheme::remix(k, seed);
}
template <class Scheme>
void unremix_in_place(std::span<typename Scheme::key_type> keys, std::uint64_t seed) noexcept {
    for (auto& k : keys) k = Scheme::unremix(k, seed);
}

enum class peel_outcome : std::uint8_t {
    peeled,    ///< every key peeled: assign() can fill the array
    stuck,     ///< a core of keys is left that no slot isolates
    overflow,  ///< a slot count reached 128 (pathological input)
};

/// One construction attempt: hypergraph peeling over slots holding a count (a byte) and the XOR
/// of their keys' items. With own keys the peak is ~18 bytes a key (8 per key while adding, 1 + 8
/// per slot, 4 per key of peeling order).
template <class Scheme, unsigned Arity, class Index, class Items>
class fuse_peeler {
    using key_type = typename Scheme::key_type;
    using item_type = typename Items::item_type;

public:
    explicit fuse_peeler(const binary_fuse_geometry& g)
        : addressing_(g), counts_(g.array_length, 0), items_(g.array_length, 0) {}

    /// Sorts the remixed `keys` by segment (they stay so) and adds them; false on count overflow.
    bool add(std::span<key_type> keys) {
        sort_by_segment(keys);
        return add_keys(keys);
    }

    /// `keys`: the keys added, or nothing when the slots hold them. True if all `count` peeled.
    bool peel(std::span<const key_type> keys, std::uint64_t count) { return peel_all(keys, count); }

    /// Into zeroed `fingerprints`, backwards through the peeling order: when a key is assigned,
    /// every other key on its slots is final, so its own slot can make its XOR come out right.
    template <class Fingerprint>
    void assign(std::span<const key_type> keys, Fingerprint* fingerprints) const noexcept {
        // No hardware prefetcher follows this order (docs/design/performance.md, "Builds").
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
    /// An in-place counting sort along cycles: adding the keys then walks a window of arity
    /// segments that slides through the table instead of random lines all over it.
    void sort_by_segment(std::span<key_type> keys) const {
        const auto segment = [this](const key_type& k) { return addressing_.segment_of(Scheme::hash_of(k)); };
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

    /// False when an 8-bit count reached 128 (the mean is about 2.7).
    bool add_keys(std::span<const key_type> keys) noexcept {
        // Once the sliding window outgrows the caches each update waits on memory; prefetching
        // 32 keys ahead overlaps the waits (docs/design/performance.md, "Builds").
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

    /// Sweeps the table in order; a peel leaving a single behind the sweep peels it at once,
    /// slots ahead wait. The work stays within a few segments of the sweep (in cache), where a
    /// depth-first chase would wander the whole table.
    bool peel_all(std::span<const key_type> keys, std::uint64_t count) {
        // A single's slots lie up to two segments on, beyond the sweep: prefetch them 64 slots
        // ahead, and its key 128 ahead (docs/design/performance.md, "Builds").
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
    os::huge_page_vector<std::uint8_t> counts_;  // keys on each slot
    os::huge_page_vector<item_type> items_;      // XOR of their items
    os::huge_page_vector<Index> order_;          // slots in peeling order, each naming its key
    os::huge_page_vector<Index> pending_;        // slots found holding one key, not yet peeled
};

template <class Fingerprint>
struct fuse_array {
    std::uint64_t keys = 0;  ///< distinct keys (distinct hashes)
    binary_fuse_geometry geometry{};
    std::uint64_t seed = 0;  ///< the construction seed that peeled
    word_storage<Fingerprint> fingerprints;
};

/// On failure `keys` come back as they were, or empty when the slots held them (make them again).
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

/// `make_keys()` may repeat keys and is called again when an attempt let them go. Repeats are
/// removed only after a failure (a set with repeats never peels, so a success proves there were
/// none), then the same seed is retried: the result depends on the set of keys only.
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

/// A static binary fuse filter: FPR 2^-bits in ~1.125 × bits per key (3-wise) or ~1.075 × with
/// one more read per lookup (4-wise). Built once from its keys; no insert, no union.
template <class Fingerprint, unsigned Arity>
requires(std::same_as<Fingerprint, std::uint8_t> || std::same_as<Fingerprint, std::uint16_t>) &&
    (Arity == 3 || Arity == 4) class basic_binary_fuse_filter
    : public detail::filter_api<basic_binary_fuse_filter<Fingerprint, Arity>> {
    using api = detail::filter_api<basic_binary_fuse_filter<Fingerprint, Arity>>;
    friend api;

public:
    /// One slot of the array.
    using fingerprint_type = Fingerprint;
    /// Counts of keys and slots.
    using size_type = std::uint64_t;
    /// The array: owned, or a read-only view of a mapped file.
    using storage_type = detail::word_storage<Fingerprint>;

    /// The empty filter: holds no key, contains() is always false.
    basic_binary_fuse_filter() : api(hasher{}, {}) {}

    /// Duplicates are counted once. Throws binary_fuse_construction_error if no seed peels,
    /// std::bad_alloc without the ~18 bytes/key of temporary memory.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel>
    requires hashable_key<std::iter_value_t<It>> basic_binary_fuse_filter(It first, Sentinel last,
                                                                          filter_options options = {})
        : api(hasher(options.hash.value_or(default_hash_algorithm), options.seed), {},
              options.keys != key_format::unrecorded ? options.keys : key_format_of<std::iter_value_t<It>>()) {
        build([&] { return detail::hash_all<build_scheme>(first, last, this->hasher_); }, options.seed);
    }

    /// A string or byte vector is one key, so it is refused here (the iterator pair takes bytes).
    template <std::ranges::forward_range Range>
    requires hashable_key<std::ranges::range_value_t<Range>> &&
        (!byte_sequence_key<Range>)explicit basic_binary_fuse_filter(const Range& keys, filter_options options = {})
        : basic_binary_fuse_filter(std::ranges::begin(keys), std::ranges::end(keys), options) {}

    /// A filter holding the keys listed: binary_fuse8_filter f({"alpha", "beta"}).
    template <hashable_key Key>
    basic_binary_fuse_filter(std::initializer_list<Key> keys, filter_options options = {})
        : basic_binary_fuse_filter(keys.begin(), keys.end(), options) {}

    /// From its stored parts (io/ codecs). Throws invalid_argument unless the parameters fit this
    /// type (check_binary_fuse_parameters) and the array is exactly as long as they say.
    basic_binary_fuse_filter(const binary_fuse_parameters& parameters, const hasher& h, storage_type fingerprints)
        : api(h, {}),
          parameters_(checked(parameters, fingerprints.size())),
          fingerprints_(std::move(fingerprints)),
          addressing_(parameters_.geometry),
          plain_lookup_(is_plain_lookup(parameters_, h)),
          plain_mum_lookup_(is_plain_mum_lookup(parameters_, h)) {}

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
    /// size(), under the name every kind has.
    [[nodiscard]] size_type inserted_count() const noexcept { return parameters_.keys; }
    /// expected_fpr(), or 0 when empty.
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
    /// The seed of the attempt that peeled (the filter's seed unless it needed a retry).
    [[nodiscard]] std::uint64_t construction_seed() const noexcept { return parameters_.construction_seed; }

    /// The array: one fingerprint per slot, in native byte order.
    [[nodiscard]] std::span<const Fingerprint> fingerprints() const noexcept { return fingerprints_.words(); }

    /// True for a filter mapped from a file.
    [[nodiscard]] bool read_only() const noexcept { return fingerprints_.read_only(); }

private:
    // filter_api's bulk hook: use(answer) for every key, in order.
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

    // direct64 and remix64 keep the same 8 bytes of a key.
    using build_scheme = detail::fuse_remix64;

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

    // A single lookup tests one flag, decided when the filter is made, and then does only the
    // hash, the slots and the reads; the empty filter, a retried seed and other schemes go out of
    // line. For integer keys the flag also fixes the hash as xxh3_mum's mixer, so no test of the
    // algorithm is left on the path (docs/design/performance.md, "Plain lookups").
    static bool is_plain_lookup(const binary_fuse_parameters& p, const hasher& h) noexcept {
        return p.keys != 0 && p.hashing == binary_fuse_hashing::direct64 && p.construction_seed == h.seed();
    }
    static bool is_plain_mum_lookup(const binary_fuse_parameters& p, const hasher& h) noexcept {
        return is_plain_lookup(p, h) && integer_hashing_of(h.algorithm()) == hash_algorithm::xxh3_mum;
    }
    // By value: a reference would make every inlined lookup store its key.
    template <class Key>
    using key_argument = std::conditional_t<std::is_scalar_v<Key>, Key, const Key&>;
    // Not gnu::pure: hashing throws for a key the funnel refuses, and Clang takes a pure function
    // for one that never throws.
    template <class Key>
    [[nodiscard, gnu::noinline]] bool contains_otherwise(key_argument<Key> key) const {
        return !empty() && matches(lookup_hash(this->hasher_(key)));
    }

    // Not for the empty filter. A filter has one scheme, so every branch predicts.
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

    // Not for the empty filter (no array). Forced inline: a call passes the hash on the stack.
    [[nodiscard, gnu::always_inline]] bool matches(const detail::fuse_hash& h) const noexcept {
        const Fingerprint* slots = fingerprints_.data();
        auto x = detail::fuse_fingerprint<Fingerprint>(h);
        addressing_.for_each_slot(h, [&](std::uint64_t at) { x = static_cast<Fingerprint>(x ^ slots[at]); });
        return x == 0;
    }

    // The probe is the 16-byte hash, not the slots: a 40-byte probe copied into the batch stalls
    // 4-wise lookups on store forwarding; recomputing the slots costs a multiplication
    // (docs/design/performance.md, "Lookups"). Prefetches are issued while locating: GCC 12 drops
    // a lambda that only prefetches.
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

template <class Fingerprint, unsigned Arity>
/// The registry's entry (kind_request.hpp): kind "fuse"; built from keys, so no make().
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
        kind_request r{std::string(word), {}, {}, {}, {}, {}};
        if (bits != 8) r.fingerprint_bits = bits;
        if (Arity != 3) r.arity = Arity;
        return r;
    }
    /// The options of a kind_request it takes (kinds.hpp refuses the others).
    static constexpr request_options accepted_options{.fingerprint_bits = true, .arity = true};
    /// Kind "fuse" with this arity (default 3) and bits (default: the fewest meeting p); throws
    /// invalid_request for bits other than 8 or 16, or an arity other than 3 or 4.
    static bool accepts(const kind_request& r, double p) {
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
    /// plan_binary_fuse(); throws invalid_argument when the fingerprints cannot reach p.
    static kind_plan plan(double n, double p, const kind_request& = {}) {
        const binary_fuse_plan plan = plan_binary_fuse(Arity, n, p, bits);
        if (plan.fpr > p)
            throw invalid_argument(std::string("reaches at best p = 1/") + (bits == 8 ? "256" : "65536") + " (" +
                                   std::to_string(bits) + "-bit fingerprints)");
        return {plan.bytes(), plan.fpr, 0, bits};
    }
};

}  // namespace bloomkit
