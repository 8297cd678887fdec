// bloomkit/cuckoo_filter.hpp — the cuckoo filter: approximate membership that also supports
// deleting keys and counting duplicates (Fan, Andersen, Kaminsky & Mitzenmacher, "Cuckoo
// Filter: Practically Better Than Bloom", CoNEXT 2014; design notes: docs/design/cuckoo.md).
//
// B ≥ 1 buckets of b = 4 slots, each slot an f-bit fingerprint (f = 8, 12 or 16; 0 = empty). A key
// may live in two buckets, by partial-key cuckoo hashing with h(fingerprint) reduced into [0, B):
//
//     i1 = bucket from the key's digest        i2 = (h(fingerprint) − i1) mod B
//
// The map is an involution, so a fingerprint moves to its other bucket without its key; taking it
// mod B instead of the paper's XOR allows any bucket count (no power of two wasting up to half the
// table). h must be non-linear (mix64). An insert takes a free slot in i1 or i2, else evicts along
// a walk of at most cuckoo_max_kicks (500) relocations; with b = 4 about 95% of the slots fill. FPR
// ≈ 2b·load / 2^f (3.1% at f = 8, 0.2% at 12, 0.012% at 16, every slot full), f / load bits a key.
//
// Nothing is ever lost: a walk that runs out parks the fingerprint in hand in the stash, one slot
// consulted by every query; while it is occupied an insert that finds both buckets full reports
// the filter full and changes nothing. A key may be stored up to 2b = 8 times (4 if its buckets
// coincide). Removing a key that was never inserted can delete another key's matching fingerprint,
// a false negative: remove only what you inserted. No union: where a fingerprint sits depends on
// the history of inserts.
//
// Storage: bucket i at bits [4f·i, 4f·(i+1)) of a word array, slot j at [f·j, f·(j+1)) within it,
// in detail/byte_window.hpp's bit numbering; buckets start on a byte, so one 64-bit window load
// reads any bucket (the array is padded, the padding zero). The bucket comes from the digest's high
// half, the fingerprint from its low half; a walk's choices are seeded by where it starts, so the
// bits depend only on the sequence of operations.
//
// Thread safety: a value type; const members may run concurrently, a mutating one needs exclusive
// access.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <ranges>
#include <span>
#include <string>
#include <utility>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/bulk_pipeline.hpp"
#include "bloomkit/detail/byte_window.hpp"
#include "bloomkit/detail/filter_api.hpp"
#include "bloomkit/detail/word_storage.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/kind_request.hpp"
#include "bloomkit/options.hpp"
#include "bloomkit/sizing/cuckoo.hpp"

namespace bloomkit {

namespace detail {

/// The four f-bit slots of a bucket compared at once (SWAR); bits above the bucket's 4f ignored.
class fingerprint_lanes {
public:
    explicit constexpr fingerprint_lanes(std::uint32_t bits) noexcept
        : bits_(bits),
          slot_mask_((std::uint64_t{1} << bits) - 1),
          lowest_((std::uint64_t{1} | std::uint64_t{1} << bits | std::uint64_t{1} << 2 * bits |
                   std::uint64_t{1} << 3 * bits)),
          highest_(lowest_ << (bits - 1)) {}

    [[nodiscard]] constexpr std::uint32_t bits() const noexcept { return bits_; }
    /// 2^f - 1, which also masks one slot.
    [[nodiscard]] constexpr std::uint64_t max_fingerprint() const noexcept { return slot_mask_; }
    [[nodiscard]] constexpr std::uint64_t bucket_bytes() const noexcept { return bits_ / 2; }  // 4f bits

    /// The top bit of every slot equal to `fingerprint`. Exact: adding 2^(f-1) - 1 to a slot's
    /// low f - 1 bits sets its top bit unless all are zero, and never carries (x - 0x01.. can).
    [[nodiscard]] constexpr std::uint64_t matching(std::uint64_t bucket, std::uint64_t fingerprint) const noexcept {
        const std::uint64_t x = bucket ^ (fingerprint * lowest_);
        const std::uint64_t low_bits = highest_ - lowest_;  // the f - 1 low bits of every slot
        const std::uint64_t nonzero = ((x & low_bits) + low_bits) | x;
        return ~nonzero & highest_;
    }
    [[nodiscard]] constexpr std::uint64_t empty_slots(std::uint64_t bucket) const noexcept {
        return matching(bucket, 0);
    }
    [[nodiscard]] constexpr bool is_full_of(std::uint64_t bucket, std::uint64_t fingerprint) const noexcept {
        return matching(bucket, fingerprint) == highest_;
    }

    /// Bit offset of the first slot flagged in `flags` (nonzero).
    [[nodiscard]] constexpr unsigned first_slot(std::uint64_t flags) const noexcept {
        return static_cast<unsigned>(std::countr_zero(flags)) - (bits_ - 1);
    }
    [[nodiscard]] constexpr std::uint64_t slot(std::uint64_t bucket, unsigned offset) const noexcept {
        return (bucket >> offset) & slot_mask_;
    }
    [[nodiscard]] constexpr std::uint64_t with_slot(std::uint64_t bucket, unsigned offset,
                                                    std::uint64_t fingerprint) const noexcept {
        return (bucket & ~(slot_mask_ << offset)) | (fingerprint << offset);
    }

private:
    std::uint32_t bits_;
    std::uint64_t slot_mask_;
    std::uint64_t lowest_;   // bit 0 of every slot
    std::uint64_t highest_;  // bit f - 1 of every slot
};

/// A walk's choices: an LCG (Knuth's MMIX constants) read from its top bits, seeded by where the
/// walk starts, so equal histories give equal filters.
class walk_choices {
public:
    walk_choices(std::uint64_t bucket, std::uint64_t fingerprint) noexcept
        : state_(mix64(bucket ^ (fingerprint * 0x9e3779b97f4a7c15ULL))) {}

    [[nodiscard]] unsigned next_slot() noexcept {
        state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<unsigned>(state_ >> 62);
    }

private:
    std::uint64_t state_;
};
static_assert(cuckoo_bucket_size == 4, "walk_choices::next_slot draws two bits");

}  // namespace detail

/// The stash: the fingerprint a failed walk could not place, and one of its two buckets.
struct cuckoo_victim {
    /// The fingerprint parked; 0 when the stash is empty.
    std::uint32_t fingerprint = 0;
    /// One of its two buckets.
    std::uint64_t bucket = 0;
    /// Whether it holds a fingerprint.
    [[nodiscard]] constexpr bool occupied() const noexcept { return fingerprint != 0; }
    /// Same fingerprint and bucket.
    friend constexpr bool operator==(const cuckoo_victim&, const cuckoo_victim&) = default;
};

/// What became of an insert into a cuckoo filter.
enum class cuckoo_insert_status : std::uint8_t {
    stored,           ///< the key is stored
    full,             ///< the table is full: both of the key's buckets and the stash are taken
    too_many_copies,  ///< its buckets hold nothing but its fingerprint: a multiset limit, not full
};

/// Thrown by the runtime bulk insert (bulk.hpp) for cuckoo_insert_status::too_many_copies.
class too_many_copies_error : public filter_full {
public:
    using filter_full::filter_full;
};

/// The cuckoo filter: keys can be removed and their copies counted; a full filter refuses an
/// insert and loses nothing. Also has the members every kind shares (detail::filter_api).
class cuckoo_filter : public detail::filter_api<cuckoo_filter> {
    using api = detail::filter_api<cuckoo_filter>;
    friend api;

public:
    /// The words the packed buckets are stored in.
    using word_type = std::uint64_t;
    /// Counts of keys, fingerprints and buckets.
    using size_type = std::uint64_t;
    /// An owned, 64-byte aligned array, or a read-only view of a mapped file.
    using storage_type = detail::word_storage<word_type>;

    /// Sized by plan_cuckoo; throws invalid_argument for no keys, fpr outside (0, 1) or below
    /// ~0.0122%.
    cuckoo_filter(size_type expected_keys, double fpr, filter_options options = {})
        : cuckoo_filter(plan_cuckoo(static_cast<double>(expected_keys), fpr).geometry, options, {expected_keys, fpr}) {}

    /// Throws invalid_argument unless 1 to 2^58 buckets of 8-, 12- or 16-bit fingerprints.
    explicit cuckoo_filter(cuckoo_geometry geometry, filter_options options = {})
        : cuckoo_filter(geometry, options, {}) {}

    /// From its stored parts (io/ codecs); throws invalid_argument for an impossible geometry, a
    /// word count other than cuckoo_word_count(geometry), or a stash outside the table.
    cuckoo_filter(cuckoo_geometry geometry, const hasher& h, storage_type words, cuckoo_victim stash, size_type stored,
                  sizing_target target = {})
        : api(h, target),
          geometry_(checked(geometry)),
          lanes_(geometry.fingerprint_bits),
          words_(std::move(words)),
          victim_(stash),
          size_(stored) {
        if (words_.size() != cuckoo_word_count(geometry))
            throw invalid_argument("a cuckoo table of " + std::to_string(geometry.buckets) + " buckets of " +
                                   std::to_string(geometry.fingerprint_bits) + "-bit fingerprints has " +
                                   std::to_string(cuckoo_word_count(geometry)) + " words, not " +
                                   std::to_string(words_.size()));
        if (stash.fingerprint > lanes_.max_fingerprint() || stash.bucket >= geometry.buckets)
            throw invalid_argument("the cuckoo filter's stash (fingerprint " + std::to_string(stash.fingerprint) +
                                   ", bucket " + std::to_string(stash.bucket) + ") does not fit its geometry");
    }

    /// False: the filter is full or holds too many copies (try_insert() says which); nothing
    /// changed, nothing lost.
    template <hashable_key Key>
    [[nodiscard]] bool insert(const Key& key) {
        return try_insert(key) == cuckoo_insert_status::stored;
    }

    /// Stores a key or says why not; nothing changes unless it is stored.
    template <hashable_key Key>
    [[nodiscard]] cuckoo_insert_status try_insert(const Key& key) {
        record_first_keys<Key>();
        return insert_probe(words_.mutable_data(), locate(hasher_(key)));
    }

    using api::contains;

    /// False: the key is not stored. True: it probably is (or is a false positive).
    template <hashable_key Key>
    [[nodiscard]] bool contains(const Key& key) const {
        return contains_probe(locate(hasher_(key)));
    }

    /// Fingerprints matching the key in its buckets and the stash (a false positive counts too).
    template <hashable_key Key>
    [[nodiscard]] size_type count(const Key& key) const {
        return count_probe(locate(hasher_(key)));
    }

    using api::remove;

    /// Removes one matching fingerprint, if any. For a key never inserted that may be another
    /// key's, which becomes a false negative: remove only what you inserted.
    template <hashable_key Key>
    bool remove(const Key& key) {
        return remove_probe(words_.mutable_data(), locate(hasher_(key)));
    }

    /// In order; returns how many were stored (fewer: the filter became full).
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel>
    requires hashable_key<std::iter_value_t<It>>
    [[nodiscard]] size_type insert(It first, Sentinel last) {
        record_first_keys<std::iter_value_t<It>>();
        word_type* words = words_.mutable_data();
        size_type stored = 0;
        pipeline(first, last,
                 [&](const probe& p) { stored += insert_probe(words, p) == cuckoo_insert_status::stored ? 1 : 0; });
        return stored;
    }

    /// In order, writing try_insert(key)'s status for each to `out`.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel, std::output_iterator<cuckoo_insert_status> Out>
    requires hashable_key<std::iter_value_t<It>> Out try_insert(It first, Sentinel last, Out out) {
        record_first_keys<std::iter_value_t<It>>();
        word_type* words = words_.mutable_data();
        pipeline(first, last, [&](const probe& p) { *out++ = insert_probe(words, p); });
        return out;
    }

    /// In order, writing insert(key)'s answer for each to `out`.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel, std::output_iterator<bool> Out>
    requires hashable_key<std::iter_value_t<It>> Out insert(It first, Sentinel last, Out out) {
        record_first_keys<std::iter_value_t<It>>();
        word_type* words = words_.mutable_data();
        pipeline(first, last, [&](const probe& p) { *out++ = insert_probe(words, p) == cuckoo_insert_status::stored; });
        return out;
    }

    /// Forgets every key (the stash included).
    void clear() {
        std::fill_n(words_.mutable_data(), words_.size(), word_type{0});
        victim_ = {};
        size_ = 0;
    }

    /// Same geometry, hashing, table and stash (the same keys inserted in another order may
    /// differ); sizing metadata is not compared.
    friend bool operator==(const cuckoo_filter& a, const cuckoo_filter& b) noexcept {
        return a.geometry_ == b.geometry_ && a.hasher_ == b.hasher_ && a.victim_ == b.victim_ &&
               std::ranges::equal(a.words(), b.words());
    }

    /// Buckets and fingerprint bits.
    [[nodiscard]] cuckoo_geometry geometry() const noexcept { return geometry_; }
    /// B: the buckets.
    [[nodiscard]] size_type bucket_count() const noexcept { return geometry_.buckets; }
    /// f: bits per fingerprint, 8, 12 or 16.
    [[nodiscard]] std::uint32_t fingerprint_bits() const noexcept { return geometry_.fingerprint_bits; }
    /// b: slots per bucket, 4.
    [[nodiscard]] static constexpr std::uint32_t bucket_size() noexcept { return cuckoo_bucket_size; }

    /// Fingerprints stored, the stash included.
    [[nodiscard]] size_type size() const noexcept { return size_; }
    /// size(), under the name every kind has.
    [[nodiscard]] size_type inserted_count() const noexcept { return size_; }
    /// Whether no fingerprint is stored.
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    /// Slots in the table (the stash not included).
    [[nodiscard]] size_type capacity() const noexcept { return geometry_.buckets * cuckoo_bucket_size; }
    /// size() / capacity(): inserts start reporting full at about 0.95.
    [[nodiscard]] double load_factor() const noexcept {
        return static_cast<double>(size_) / static_cast<double>(capacity());
    }
    /// The FPR at the current load, by the model of cuckoo_fpr().
    [[nodiscard]] double current_fpr() const noexcept { return cuckoo_fpr(fingerprint_bits(), load_factor()); }

    /// The packed table, in bytes (cuckoo_word_count() words).
    [[nodiscard]] size_type size_in_bytes() const noexcept { return words_.size() * sizeof(word_type); }

    /// The victim of a failed walk, or empty.
    [[nodiscard]] cuckoo_victim stash() const noexcept { return victim_; }

    /// Counted slot by slot: size() unless the words were damaged or a file lied.
    [[nodiscard]] size_type count_fingerprints() const noexcept {
        size_type stored = victim_.occupied() ? 1 : 0;
        for (size_type bucket = 0; bucket < geometry_.buckets; ++bucket)
            stored += cuckoo_bucket_size - static_cast<size_type>(std::popcount(lanes_.empty_slots(load(bucket))));
        return stored;
    }

    /// The words holding the table (the payload of the file format).
    [[nodiscard]] std::span<const word_type> words() const noexcept { return words_.words(); }

    /// True for a filter mapped from a file: it can be queried, not modified.
    [[nodiscard]] bool read_only() const noexcept { return words_.read_only(); }

private:
    struct probe {
        size_type bucket = 0;
        size_type alternate = 0;
        std::uint64_t fingerprint = 0;
    };

    cuckoo_filter(cuckoo_geometry geometry, filter_options options, sizing_target target)
        : api(hasher(options.hash.value_or(default_hash_algorithm), options.seed), target, options.keys),
          geometry_(checked(geometry)),
          lanes_(geometry.fingerprint_bits),
          words_(cuckoo_word_count(geometry)) {}

    // filter_api's bulk hook: use(answer) for every key, in order.
    template <class It, class Sentinel, class Use>
    Use for_each_answer(It first, Sentinel last, Use use) const {
        return pipeline(first, last, detail::answer_each{[this](const probe& p) { return contains_probe(p); }, use})
            .use;
    }

    static cuckoo_geometry checked(cuckoo_geometry geometry) {
        check_cuckoo_geometry(geometry);
        return geometry;
    }

    [[nodiscard]] probe locate(const digest& d) const noexcept {
        // Onto [1, 2^f - 1]: 0 marks an empty slot.
        const std::uint64_t fingerprint = detail::reduce(d.low, lanes_.max_fingerprint()) + 1;
        const size_type bucket = detail::reduce(d.high, geometry_.buckets);
        return {bucket, alternate(bucket, fingerprint), fingerprint};
    }

    /// (h − bucket) mod B, an involution. h is mix64, reduced: a linear h gives few distinct
    /// differences h − h' mod B, and walks fail sooner (docs/design/cuckoo.md).
    [[nodiscard]] size_type alternate(size_type bucket, std::uint64_t fingerprint) const noexcept {
        const size_type h = detail::reduce(detail::mix64(fingerprint), geometry_.buckets);
        return h >= bucket ? h - bucket : h + (geometry_.buckets - bucket);
    }

    [[nodiscard]] std::uint64_t offset_of(size_type bucket) const noexcept { return bucket * lanes_.bucket_bytes(); }

    [[nodiscard]] std::uint64_t load(size_type bucket) const noexcept {
        return detail::load_window(words_.data(), offset_of(bucket));
    }

    void prefetch(size_type bucket) const noexcept {
        const auto* bytes = reinterpret_cast<const unsigned char*>(words_.data()) + offset_of(bucket);
        detail::prefetch(bytes);
        detail::prefetch(bytes + 7);  // a 12-bit bucket may straddle two cache lines
    }

    bool try_place(word_type* words, size_type bucket, std::uint64_t fingerprint) const noexcept {
        const std::uint64_t window = load(bucket);
        const std::uint64_t vacant = lanes_.empty_slots(window);
        if (vacant == 0) return false;
        detail::store_window(words, offset_of(bucket), window | (fingerprint << lanes_.first_slot(vacant)));
        return true;
    }

    bool erase_one(word_type* words, size_type bucket, std::uint64_t fingerprint) const noexcept {
        const std::uint64_t window = load(bucket);
        const std::uint64_t found = lanes_.matching(window, fingerprint);
        if (found == 0) return false;
        detail::store_window(words, offset_of(bucket), lanes_.with_slot(window, lanes_.first_slot(found), 0));
        return true;
    }

    /// Returns the fingerprint evicted.
    std::uint64_t swap_slot(word_type* words, size_type bucket, unsigned slot,
                            std::uint64_t fingerprint) const noexcept {
        const std::uint64_t window = load(bucket);
        detail::store_window(words, offset_of(bucket), lanes_.with_slot(window, slot * lanes_.bits(), fingerprint));
        return fingerprint_in(window, slot);
    }

    [[nodiscard]] std::uint64_t fingerprint_in(std::uint64_t window, unsigned slot) const noexcept {
        return lanes_.slot(window, slot * lanes_.bits());
    }

    [[nodiscard]] bool stash_matches(const probe& p) const noexcept {
        return victim_.fingerprint == p.fingerprint && (victim_.bucket == p.bucket || victim_.bucket == p.alternate);
    }

    [[nodiscard]] bool contains_probe(const probe& p) const noexcept {
        const std::uint64_t found =
            lanes_.matching(load(p.bucket), p.fingerprint) | lanes_.matching(load(p.alternate), p.fingerprint);
        // Bitwise, not ||: a match is a coin toss, and a mispredicted branch costs more than
        // the comparison it skips (docs/design/cuckoo.md).
        return static_cast<bool>(static_cast<unsigned>(found != 0) | static_cast<unsigned>(stash_matches(p)));
    }

    [[nodiscard]] size_type count_probe(const probe& p) const noexcept {
        auto copies_in = [&](size_type bucket) {
            return static_cast<size_type>(std::popcount(lanes_.matching(load(bucket), p.fingerprint)));
        };
        const size_type in_table = copies_in(p.bucket) + (p.alternate != p.bucket ? copies_in(p.alternate) : 0);
        return in_table + (stash_matches(p) ? 1 : 0);
    }

    cuckoo_insert_status insert_probe(word_type* words, const probe& p) {
        if (try_place(words, p.bucket, p.fingerprint) || try_place(words, p.alternate, p.fingerprint)) return stored();
        // A walk among copies of this fingerprint would only swap equal values.
        if (holds_only_copies(p)) return cuckoo_insert_status::too_many_copies;
        if (victim_.occupied()) return cuckoo_insert_status::full;
        relocate(words, p.bucket, p.alternate, p.fingerprint);
        return stored();
    }

    cuckoo_insert_status stored() noexcept {
        ++size_;
        return cuckoo_insert_status::stored;
    }

    [[nodiscard]] bool holds_only_copies(const probe& p) const noexcept {
        return lanes_.is_full_of(load(p.bucket), p.fingerprint) && lanes_.is_full_of(load(p.alternate), p.fingerprint);
    }

    /// The cuckoo walk from two full buckets; after cuckoo_max_kicks evictions the fingerprint in
    /// hand goes to the (empty) stash. Each step first looks one move ahead: a neighbour with
    /// room takes its fingerprint. The neighbours are prefetched together, where a blind walk
    /// waits on one cache miss per eviction (docs/design/performance.md, "Cuckoo inserts").
    void relocate(word_type* words, size_type bucket, size_type other, std::uint64_t fingerprint) {
        detail::walk_choices choices(bucket, fingerprint);
        bucket_neighbours next = neighbours_of(bucket);
        if (other != bucket && place_by_moving_one(words, other, neighbours_of(other), fingerprint)) return;
        for (std::uint32_t kick = 0; kick < cuckoo_max_kicks; ++kick) {
            if (place_by_moving_one(words, bucket, next, fingerprint)) return;
            const unsigned slot = choices.next_slot();  // every neighbour is full: walk on
            fingerprint = swap_slot(words, bucket, slot, fingerprint);
            bucket = next[slot];
            next = neighbours_of(bucket);
        }
        victim_ = {static_cast<std::uint32_t>(fingerprint), bucket};
    }

    /// The other bucket of each slot's fingerprint; prefetched.
    using bucket_neighbours = std::array<size_type, cuckoo_bucket_size>;
    [[nodiscard]] bucket_neighbours neighbours_of(size_type bucket) const noexcept {
        const std::uint64_t window = load(bucket);
        bucket_neighbours others;
        for (unsigned slot = 0; slot < cuckoo_bucket_size; ++slot) {
            others[slot] = alternate(bucket, fingerprint_in(window, slot));
            prefetch(others[slot]);
        }
        return others;
    }

    bool place_by_moving_one(word_type* words, size_type bucket, const bucket_neighbours& others,
                             std::uint64_t fingerprint) noexcept {
        const std::uint64_t window = load(bucket);
        for (unsigned slot = 0; slot < cuckoo_bucket_size; ++slot) {
            if (try_place(words, others[slot], fingerprint_in(window, slot))) {
                (void)swap_slot(words, bucket, slot, fingerprint);  // the one just moved
                return true;
            }
        }
        return false;
    }

    bool remove_probe(word_type* words, const probe& p) {
        if (stash_matches(p)) {  // the cheapest copy to drop, and it frees the stash
            victim_ = {};
        } else if (erase_one(words, p.bucket, p.fingerprint) || erase_one(words, p.alternate, p.fingerprint)) {
            rehome_victim(words);
        } else {
            return false;
        }
        --size_;
        return true;
    }

    /// After a removal, so inserts stop reporting full; a failed walk re-fills the stash.
    void rehome_victim(word_type* words) {
        if (!victim_.occupied()) return;
        const cuckoo_victim victim = std::exchange(victim_, {});
        const std::uint64_t fingerprint = victim.fingerprint;
        const size_type other = alternate(victim.bucket, fingerprint);
        if (try_place(words, victim.bucket, fingerprint) || try_place(words, other, fingerprint)) return;
        relocate(words, victim.bucket, other, fingerprint);
    }

    /// visit(probe) for every key, in order. Groups of 8, not the default 4: a key reads two
    /// lines a bucket apart (docs/design/performance.md, "... and groups of 4").
    template <class It, class Sentinel, class Visit>
    Visit pipeline(It first, Sentinel last, Visit visit) const {
        return detail::pipelined_by_digest<detail::pipeline_distance, 8>(
                   hasher_, first, last, [this](const digest& d) { return this->locate(d); },
                   [this](const probe& p) {
                       prefetch(p.bucket);
                       prefetch(p.alternate);
                   },
                   detail::each_of_batch{visit})
            .visit;
    }

    cuckoo_geometry geometry_;
    detail::fingerprint_lanes lanes_;
    storage_type words_;
    cuckoo_victim victim_{};
    size_type size_ = 0;
};

template <>
/// The registry's entry (kind_request.hpp): kind "cuckoo".
struct kind_traits<cuckoo_filter> {
    /// The kind's word.
    static constexpr std::string_view word = "cuckoo";
    /// Why one would choose it.
    static constexpr std::string_view summary = "full at ~95% load; beats Bloom below ~0.4%";
    /// How messages name the type.
    static std::string name() { return "cuckoo filter"; }
    /// Kind "cuckoo"; its fingerprint bits follow from p unless a request sets them.
    static kind_request request() { return {std::string(word), {}, {}, {}, {}, {}}; }
    /// The options of a kind_request it takes (kinds.hpp refuses the others).
    static constexpr request_options accepted_options{.fingerprint_bits = true};
    /// Kind "cuckoo"; throws invalid_request for fingerprint bits other than 8, 12 or 16.
    static bool accepts(const kind_request& r, double) {
        if (r.kind != word) return false;
        if (r.fingerprint_bits && *r.fingerprint_bits != 8 && *r.fingerprint_bits != 12 && *r.fingerprint_bits != 16)
            throw invalid_request(
                invalid_request::part::fingerprint_bits,
                "a cuckoo filter's fingerprints are 8, 12 or 16 bits, not " + std::to_string(*r.fingerprint_bits));
        return true;
    }
    /// plan_cuckoo() with the request's fingerprint bits, in the registry's terms.
    static kind_plan plan(double n, double p, const kind_request& r = {}) {
        const cuckoo_plan plan = plan_cuckoo(n, p, r.fingerprint_bits.value_or(0));
        return {plan.bytes(), plan.fpr, 0, plan.geometry.fingerprint_bits};
    }
    /// An empty filter sized for n keys at p, with the request's fingerprint bits if it sets them.
    static cuckoo_filter make(std::uint64_t n, double p, const kind_request& r, filter_options options) {
        if (!r.fingerprint_bits) return {n, p, options};
        return cuckoo_filter(plan_cuckoo(static_cast<double>(n), p, *r.fingerprint_bits).geometry, options);
    }
};

}  // namespace bloomkit
