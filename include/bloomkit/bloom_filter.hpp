// bloomkit/bloom_filter.hpp — Bloom filters: "definitely not in the set" or "probably in it",
// in a fraction of the memory of the set itself (Bloom 1970).
//
// One implementation, three layouts (a policy decides where a key's bits go):
//
//   block_bloom_filter        k bits in one 512-bit block: one cache line per key (the default,
//                             also spelled bloom_filter)
//   classic_bloom_filter      k bits anywhere: the fewest bits for a given FPR
//   split_block_bloom_filter  the Apache Parquet split-block filter, bit for bit
//
// Every key is hashed once (hash.hpp); its probes are derived from that one digest. Filters are
// sized from (expected keys, target FPR) with the exact model of their layout (sizing.hpp), so
// the FPR measured at the expected count meets the target; or built from an explicit geometry.
//
// Thread safety. A filter is a value type with the usual rules: any number of threads may call
// const members at once; a mutating member needs exclusive access. The one exception is the
// concurrent mode: any number of threads may call insert(..., concurrent) and
// contains(..., concurrent) on the same filter at once (words are set with atomic OR and read
// with atomic loads). A key whose insert returned before a query began (and happens-before it,
// e.g. the inserting thread was joined) is always found; a key inserted during the query may
// or may not be. Nothing else may run on the filter meanwhile. insert's "was new" answer can
// be true in both of two threads inserting the same key at the same moment.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <optional>
#include <ranges>
#include <span>
#include <string>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/bulk_pipeline.hpp"
#include "bloomkit/detail/compatibility.hpp"
#include "bloomkit/detail/filter_api.hpp"
#include "bloomkit/detail/word_access.hpp"
#include "bloomkit/detail/word_storage.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/kind_request.hpp"
#include "bloomkit/layouts/block.hpp"
#include "bloomkit/layouts/classic.hpp"
#include "bloomkit/layouts/dcso.hpp"
#include "bloomkit/layouts/guava.hpp"
#include "bloomkit/layouts/split_block.hpp"
#include "bloomkit/options.hpp"
#include "bloomkit/sizing/bloom.hpp"

namespace bloomkit {

template <class Layout>
/// A Bloom filter whose layout policy `Layout` places each key's bits: one implementation for
/// every layout; use it through its aliases (bloom_filter, classic_bloom_filter,
/// split_block_bloom_filter, guava_bloom_filter, dcso_bloom_filter, ...).
/// A value type: const members may run in any number of threads at once, a mutating one needs
/// the filter to itself, except insert(..., concurrent) and contains(..., concurrent), which any
/// number of threads may call at once. Besides the members below it has those every kind shares
/// (detail::filter_api): hash_function(), expected_keys(), target_fpr(), sized_for(),
/// recorded_key_format(), record_key_format(), contains(first, last, out), count_contained()
/// and insert_range().
class basic_bloom_filter : public detail::filter_api<basic_bloom_filter<Layout>> {
    using api = detail::filter_api<basic_bloom_filter<Layout>>;
    friend api;

public:
    /// The layout policy.
    using layout_type = Layout;
    /// The words the bits are stored in: 64-bit, 32-bit for split block.
    using word_type = typename Layout::word_type;
    /// Counts of keys and bits.
    using size_type = std::uint64_t;
    /// The words: an owned, 64-byte aligned array, or a read-only view of a mapped file.
    using storage_type = detail::word_storage<word_type>;

    /// Whether inserted_count() counts only the keys that set a bit (DCSO's layout, as its N):
    /// then the count depends on the order of the inserts, and copies filled apart and united
    /// do not add up to it.
    static constexpr bool counts_new_keys_only = [] {
        if constexpr (requires { Layout::counts_new_keys_only; }) return Layout::counts_new_keys_only;
        else return false;
    }();

    /// A filter sized so that its FPR, once it holds `expected_keys` keys, is at most `fpr`.
    /// Throws invalid_argument for expected_keys = 0 or fpr outside (0, 1).
    basic_bloom_filter(size_type expected_keys, double fpr, filter_options options = {})
        : basic_bloom_filter(plan_bloom(Layout::id, static_cast<double>(expected_keys), fpr).geometry, options,
                             {expected_keys, fpr}) {}

    /// A filter of exactly `geometry.bits` bits (rounded up to whole blocks) and
    /// `geometry.hashes` probes per key.
    explicit basic_bloom_filter(bloom_geometry geometry, filter_options options = {})
        : basic_bloom_filter(geometry, options, {}) {}

    /// A filter from its stored parts, as a codec (io/) reads them: `words` holds the bits,
    /// as words() returns them, and must be exactly as many words as the geometry needs;
    /// `inserted` is what inserted_count() will say. Throws invalid_argument for a geometry
    /// the layout cannot hold or a word count that does not match it.
    basic_bloom_filter(bloom_geometry geometry, const hasher& h, storage_type words, sizing_target target = {},
                       size_type inserted = 0)
        : api(h, target),
          layout_(geometry),
          plain_lookup_(is_plain_lookup(h, layout_)),
          words_(std::move(words)),
          inserted_(inserted) {
        plain_insert_ = is_plain_insert();
        require_own_hash();
        if (words_.size() != layout_.word_count())
            throw invalid_argument("a " + std::string(to_string(Layout::id)) + " Bloom filter of " +
                                   std::to_string(geometry.bits) + " bits has " + std::to_string(layout_.word_count()) +
                                   " words, not " + std::to_string(words_.size()));
    }

    // --- Single keys -------------------------------------------------------------------------

    /// Adds a key. Returns true if the key was new: at least one of its bits was clear (false
    /// means the filter already answered "maybe" for it).
    template <hashable_key Key>
    bool insert(const Key& key) {
        if constexpr (integer_key<Key> && has_plain_calls) {
            if (plain_insert_) [[likely]] {
                const digest d = this->hasher_.template integer_digest<plain_integer_hash>(key);
                const bool added = layout_.set_by_key_step(words_.unguarded_data(), layout_.locate(d));
                count_inserted<detail::plain_access>(counts_new_keys_only && !added ? 0 : 1);
                return added;
            }
            return insert_otherwise<Key>(key);
        }
        this->template record_first_keys<Key>();
        return insert_digest<detail::plain_access>(this->hasher_(key));
    }
    template <hashable_key Key>
    /// insert(key), safe while other threads call insert(..., concurrent) and
    /// contains(..., concurrent) on the filter (atomic OR on its words).
    bool insert(const Key& key, concurrent_t) {
        this->template record_first_keys_concurrently<Key>();
        return insert_digest<detail::atomic_access>(this->hasher_(key));
    }

    using api::contains;

    /// False: the key was never inserted. True: it probably was (or is a false positive).
    template <hashable_key Key>
    [[nodiscard]] bool contains(const Key& key) const {
        if constexpr (integer_key<Key> && has_plain_calls) {
            if (plain_lookup_) [[likely]] {
                const digest d = this->hasher_.template integer_digest<plain_integer_hash>(key);
                return layout_.test_by_key_step(words_.data(), layout_.locate(d));
            }
            return contains_otherwise<Key>(key);
        }
        return contains_digest<detail::plain_access>(this->hasher_(key));
    }
    template <hashable_key Key>
    /// contains(key), safe while other threads call insert(..., concurrent) on the filter (atomic
    /// loads): a key whose insert happened-before the call is found.
    [[nodiscard]] bool contains(const Key& key, concurrent_t) const {
        return contains_digest<detail::atomic_access>(this->hasher_(key));
    }

    // --- Pre-hashed keys: for callers that probe several filters with one hash -------------
    // The digest must come from hash_function() (filters that share a hasher share digests).

    template <class Access = detail::plain_access>
    /// insert() for a key hashed to `d` by hash_function(); `Access` (detail::atomic_access)
    /// makes it a concurrent insert.
    bool insert_digest(const digest& d) {
        const bool added = layout_.template set<Access>(words_.mutable_data(), layout_.locate(d));
        count_inserted<Access>(counts_new_keys_only && !added ? 0 : 1);
        return added;
    }

    template <class Access = detail::plain_access>
    /// contains() for a key hashed to `d` by hash_function(); `Access` (detail::atomic_access)
    /// makes it a concurrent lookup.
    [[nodiscard]] bool contains_digest(const digest& d) const noexcept {
        return layout_.template test<Access>(words_.data(), layout_.locate(d));
    }

    /// Starts loading the memory a digest's key touches (before contains_digest/insert_digest).
    void prefetch_digest(const digest& d) const noexcept { layout_.prefetch(words_.data(), layout_.locate(d)); }

    /// insert(first, last, out) for keys already hashed — on other threads, say, while this
    /// one inserts: the same bits, answers and count, pipelined alike.
    template <std::output_iterator<bool> Out>
    Out insert_digests(std::span<const digest> digests, Out out) {
        return insert_answering(digests.begin(), digests.end(), out);
    }

    /// Calls visit(first_word, word_count) for each run of words() the key of digest `d` has its
    /// bits in — its block, or a word per probe for classic: what inserting it may change, for
    /// callers that keep a copy of the words elsewhere in step (a file updated in place).
    template <class Visit>
    void for_each_word_range(const digest& d, Visit visit) const {
        layout_.for_each_word_range(layout_.locate(d), visit);
    }

    // --- Bulk: pipelined (hash a batch, prefetch, then touch memory) -------------------------

    /// Inserts every key of [first, last); returns how many were new.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel>
    requires hashable_key<std::iter_value_t<It>> size_type insert(It first, Sentinel last) {
        return insert_many<detail::plain_access>(first, last);
    }
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel>
    /// insert(first, last), safe while other threads make concurrent calls on the filter:
    /// pipelined alike, but without SIMD (a vector store is not an atomic OR).
    requires hashable_key<std::iter_value_t<It>> size_type insert(It first, Sentinel last, concurrent_t) {
        return insert_many<detail::atomic_access>(first, last);
    }

    /// Inserts every key of [first, last), in order, writing insert(key)'s answer (was it new?)
    /// for each to `out` — a key repeated later in the range is not new the second time. Returns
    /// the output iterator past the last answer.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel, std::output_iterator<bool> Out>
    requires hashable_key<std::iter_value_t<It>> Out insert(It first, Sentinel last, Out out) {
        return insert_answering(first, last, out);
    }

    /// Writes contains(key, concurrent) for every key of [first, last) to `out`, in order.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel, std::output_iterator<bool> Out>
    requires hashable_key<std::iter_value_t<It>> Out contains(It first, Sentinel last, Out out, concurrent_t)
    const {
        return test_batches<detail::atomic_access>(first, last,
                                                   typename basic_bloom_filter::template write_answers<Out>{out})
            .out;
    }

    // --- Whole-filter operations -------------------------------------------------------------

    /// Forgets every key.
    void clear() {
        word_type* words = words_.mutable_data();
        std::fill_n(words, words_.size(), word_type{0});
        inserted_ = 0;
        plain_insert_ = is_plain_insert();
    }

    /// Records what the keys are (detail::filter_api::record_key_format).
    void record_key_format(key_format keys) noexcept {
        api::record_key_format(keys);
        plain_insert_ = is_plain_insert();
    }

    /// Union: afterwards the filter answers "maybe" for every key either filter held, exactly
    /// as if all of them had been inserted into it. Throws incompatible_filters unless both
    /// have the same geometry, hash algorithm and seed.
    basic_bloom_filter& operator|=(const basic_bloom_filter& other) {
        combine(other, "union", [](word_type a, word_type b) { return a | b; });
        inserted_ += other.inserted_;
        return *this;
    }

    /// Intersection: keeps the bits set in both. Every key inserted into both filters is still
    /// found; the FPR is at most that of either filter (and may exceed that of a filter built
    /// from the true intersection). Throws incompatible_filters like operator|=.
    basic_bloom_filter& operator&=(const basic_bloom_filter& other) {
        combine(other, "intersection", [](word_type a, word_type b) { return a & b; });
        const double estimate = approximate_count();
        inserted_ = std::isfinite(estimate) ? static_cast<size_type>(std::llround(estimate)) : inserted_;
        return *this;
    }

    /// The union of two filters (operator|=).
    friend basic_bloom_filter operator|(basic_bloom_filter a, const basic_bloom_filter& b) { return a |= b; }
    /// The intersection of two filters (operator&=).
    friend basic_bloom_filter operator&(basic_bloom_filter a, const basic_bloom_filter& b) { return a &= b; }

    /// Same geometry, hashing and bits. (Metadata such as expected_keys is not compared.)
    friend bool operator==(const basic_bloom_filter& a, const basic_bloom_filter& b) noexcept {
        return a.compatible_with(b) && std::equal(a.words().begin(), a.words().end(), b.words().begin());
    }

    /// Whether `other` has the same geometry, hash algorithm and seed, so the two combine.
    [[nodiscard]] bool compatible_with(const basic_bloom_filter& other) const noexcept {
        return geometry() == other.geometry() && this->hasher_ == other.hasher_;
    }

    // --- Observers ---------------------------------------------------------------------------

    /// The layout's code.
    [[nodiscard]] static constexpr bloom_layout layout() noexcept { return Layout::id; }
    /// Bits and probes per key.
    [[nodiscard]] bloom_geometry geometry() const noexcept { return layout_.geometry(); }
    /// m: the filter's bits.
    [[nodiscard]] size_type bit_count() const noexcept { return geometry().bits; }
    /// k: the bits each key sets.
    [[nodiscard]] std::uint32_t hash_count() const noexcept { return geometry().hashes; }
    /// The bits, in bytes: whole words.
    [[nodiscard]] size_type size_in_bytes() const noexcept { return words_.size() * sizeof(word_type); }

    /// How many keys were inserted (summed over unions), repeats included: a count that does
    /// not depend on the order of the inserts, so a filter built by several threads is the
    /// same file as one built by one. (A DCSO filter counts as DCSO's N does: the keys that
    /// set a bit.) approximate_count() estimates the distinct keys. (A
    /// relaxed atomic load: save() may ask while other threads insert.)
    [[nodiscard]] size_type inserted_count() const noexcept { return __atomic_load_n(&inserted_, __ATOMIC_RELAXED); }

    /// Number of bits set (one pass over the words).
    [[nodiscard]] size_type set_bit_count() const noexcept {
        return detail::count_ones(words().data(), words().size_bytes());
    }

    /// Keys the filter holds, estimated from its fill (sizing.hpp); +infinity when every bit
    /// is set. Unlike inserted_count() it survives intersection and counts keys inserted by
    /// other programs into a loaded file. O(m).
    [[nodiscard]] double approximate_count() const noexcept {
        return estimate_keys(Layout::id, geometry(), set_bit_count());
    }

    /// The probability that a key never inserted is reported present, from the fill. O(m).
    [[nodiscard]] double current_fpr() const { return bloomkit::current_fpr(Layout::id, geometry(), set_bit_count()); }

    /// The words holding the bits, little-endian order within each word as in the file format.
    [[nodiscard]] std::span<const word_type> words() const noexcept { return words_.words(); }

    /// True for a filter mapped from a file: it can be queried, not modified.
    [[nodiscard]] bool read_only() const noexcept { return words_.read_only(); }

private:
    basic_bloom_filter(bloom_geometry geometry, filter_options options, sizing_target target)
        : api(hasher_for(options), target, options.keys),
          layout_(bloom_geometry{round_bits(Layout::id, geometry.bits), geometry.hashes}),
          plain_lookup_(is_plain_lookup(this->hasher_, layout_)),
          words_(layout_.word_count()) {
        plain_insert_ = is_plain_insert();
        require_own_hash();
    }

    // The hasher `options` ask for. A Guava filter made for integer keys and told no funnel takes
    // Java longs (Funnels.longFunnel()), as stringFunnel takes no integers.
    static hasher hasher_for(const filter_options& options) {
        const hash_algorithm algorithm = options.hash.value_or(Layout::default_hash);
        guava_funnel funnel = options.funnel;
        if (algorithm == hash_algorithm::murmur3_128 && funnel == guava_funnel::none && is_integer(options.keys))
            funnel = guava_funnel::long_integer;
        // A funnel that takes no key of the format would make a filter nothing can be added to.
        if (funnel != guava_funnel::none && options.keys != key_format::unrecorded &&
            is_integer(options.keys) != takes_integers(funnel))
            throw invalid_argument(
                std::string(to_string(options.keys)) + " keys do not go through " + std::string(java_name(funnel)) +
                (takes_integers(funnel) ? ", which takes Java ints or longs" : ", which takes strings or bytes"));
        return hasher(algorithm, options.seed, funnel);
    }

    // A foreign layout answers as its program only with that program's hash.
    void require_own_hash() const {
        if (is_foreign(Layout::id) && this->hasher_.algorithm() != Layout::default_hash)
            throw invalid_argument("a " + std::string(to_string(Layout::id)) + " Bloom filter hashes with " +
                                   std::string(to_string(Layout::default_hash)) + ", not " +
                                   std::string(to_string(this->hasher_.algorithm())));
    }

    // Inserts [first, last) in order (keys, or digests, which the hasher passes through),
    // writing for each whether it was new.
    template <class It, class Sentinel, class Out>
    Out insert_answering(It first, Sentinel last, Out out) {
        this->template record_first_keys<std::iter_value_t<It>>();
        word_type* words = words_.mutable_data();
        size_type keys = 0;
        pipeline(first, last, [&](const auto& probes) {
            for (const auto& p : probes) {
                const bool added = layout_.template set<detail::plain_access>(words, p);
                *out++ = added;
                keys += counts_new_keys_only && !added ? 0 : 1;
            }
        });
        count_inserted<detail::plain_access>(keys);
        return out;
    }

    // Inserts a batch at a time, the way to insert chosen once per call (with_batch_set).
    template <class Access, class It, class Sentinel>
    size_type insert_many(It first, Sentinel last) {
        if constexpr (std::is_same_v<Access, detail::plain_access>)
            this->template record_first_keys<std::iter_value_t<It>>();
        else this->template record_first_keys_concurrently<std::iter_value_t<It>>();
        word_type* words = words_.mutable_data();
        return layout_.template with_batch_set<Access>([&](const auto& set_batch) {
            using set_type = std::remove_cvref_t<decltype(set_batch)>;
            const inserting<set_type> done = pipeline(first, last, inserting<set_type>{set_batch, words});
            count_inserted<Access>(counts_new_keys_only ? done.added : done.keys);
            return done.added;
        });
    }

    // The visitor of insert_many: sets a batch's bits by `set` and counts its keys, and the keys
    // that set a clear bit, in counts of its own, which the pipeline keeps as locals
    // (detail::pipelined) — counted through references, they were stored and reloaded every
    // batch.
    template <class Set>
    struct inserting {
        const Set& set;
        word_type* words;
        size_type added = 0;
        size_type keys = 0;
        [[gnu::always_inline]] void operator()(std::span<const typename Layout::probe> probes) {
            added += set(words, probes);
            keys += probes.size();
        }
    };

    // The hook of filter_api's bulk queries: use(answer) for every key, in order; returns use.
    template <class It, class Sentinel, class Use>
    Use for_each_answer(It first, Sentinel last, Use use) const {
        return test_batches<detail::plain_access>(first, last, use);
    }

    // use(answer) for every key of [first, last), in order, a pipelined batch at a time;
    // returns use.
    template <class Access, class It, class Sentinel, class Use>
    Use test_batches(It first, Sentinel last, Use use) const {
        return layout_.template with_batch_test<Access>([&](const auto& test_batch) {
            using test_type = std::remove_cvref_t<decltype(test_batch)>;
            return pipeline(first, last, answering<test_type, Use>{test_batch, words_.data(), use}).use;
        });
    }

    // The visitor of test_batches: answers a batch by `test` and passes each answer on to `use`,
    // which it holds, so that the pipeline keeps it as a local of its own (detail::pipelined)
    // and answers written through a char pointer cannot alias it.
    template <class Test, class Use>
    struct answering {
        const Test& test;
        const word_type* words;
        Use use;
        [[gnu::always_inline]] void operator()(std::span<const typename Layout::probe> probes) {
            test(words, probes, use);
        }
    };

    // Plain lookups. A single lookup of an integer key tests one flag of the filter's, then hashes
    // as the layout's default hash does (xxh3_mum's mixer, XXH64 for split block) and answers by
    // the layout's one-key SIMD step, inline — nothing else; every other case (another hash, no
    // step for this k or at this SIMD level) takes the general path, out of line, and byte keys
    // the general path inline. The flag is worked out when the filter is made and never changes
    // after, so that in a caller's loop of lookups it is loop-invariant: the compiler then splits
    // the loop in two (GCC's -funswitch-loops, at -O3), and the copy of the plain path has no call
    // on any branch, so the hash's secrets, the block count and the words' address stay in
    // registers, where calls on the paths not taken would have them loaded from the filter every
    // lookup (docs/design/performance.md, "Plain lookups: one flag, decided when the filter is
    // made").
    // Plain inserts are the same path with the layout's insert step, where the words are not a
    // read-only view: the one flag stands for the tests of the algorithm, the SIMD level, k and
    // the read-only guard, and that the filter records its key format, or holds keys already (a
    // first key takes the general path, which records it: detail::filter_api::record_first_keys).
    // The cost: a cap on the SIMD level (limit_simd_level) reaches the single calls of filters
    // made after it, not those of a filter already made.
    static constexpr bool has_plain_calls = requires(const Layout& layout) { layout.has_key_step(); };
    // The integer hashing of the layout's default hash (xxh3_mum's mixer; XXH64 for split block),
    // which filters of the default hash and of xxh3_mum share.
    static constexpr hash_algorithm plain_integer_hash = integer_hashing_of(Layout::default_hash);
    static bool is_plain_lookup(const hasher& h, const Layout& layout) noexcept {
        if constexpr (has_plain_calls)
            return integer_hashing_of(h.algorithm()) == plain_integer_hash && layout.has_key_step();
        else return false;
    }
    // An integer key by value: a reference would make every inlined lookup store its key.
    template <class Key>
    using key_argument = std::conditional_t<std::is_scalar_v<Key>, Key, const Key&>;
    // The general paths of a single lookup and insert where a layout has plain ones, out of
    // line: on the plain path's loop they would leave calls (the other hashes, the kernels of
    // other k). Not gnu::pure: hashing throws for a key the funnel refuses, and Clang takes a
    // pure function for one that never throws.
    template <class Key>
    [[nodiscard, gnu::noinline]] bool contains_otherwise(key_argument<Key> key) const {
        return contains_digest<detail::plain_access>(this->hasher_(key));
    }
    template <class Key>
    [[gnu::noinline]] bool insert_otherwise(key_argument<Key> key) {
        this->template record_first_keys<Key>();
        const bool added = insert_digest<detail::plain_access>(this->hasher_(key));
        plain_insert_ = is_plain_insert();
        return added;
    }
    [[nodiscard]] bool is_plain_insert() const noexcept {
        return plain_lookup_ && !words_.read_only() &&
               (this->recorded_key_format() != key_format::unrecorded || inserted_ != 0);
    }

    template <class It, class Sentinel, class VisitBatch>
    VisitBatch pipeline(It first, Sentinel last, VisitBatch visit_batch) const {
        return detail::pipelined_by_digest<Layout::prefetch_distance>(
            this->hasher_, first, last, [this](const digest& d) { return layout_.locate(d); },
            [this](const auto& probe) { layout_.prefetch(words_.data(), probe); }, visit_batch);
    }

    template <class Access>
    void count_inserted(size_type keys) noexcept {
        if (keys == 0) return;
        if constexpr (std::is_same_v<Access, detail::atomic_access>)
            std::atomic_ref<size_type>(inserted_).fetch_add(keys, std::memory_order_relaxed);
        else inserted_ += keys;
    }

    template <class Op>
    void combine(const basic_bloom_filter& other, const char* operation, Op op) {
        require_compatible(other, operation);
        this->combine_key_format(other, operation);
        word_type* words = words_.mutable_data();
        const word_type* theirs = other.words_.data();
        for (size_type i = 0; i < words_.size(); ++i) words[i] = op(words[i], theirs[i]);
    }

    void require_compatible(const basic_bloom_filter& other, const char* operation) const {
        detail::compatibility_check(operation, "Bloom filters")
            .same("sizes", bit_count(), other.bit_count(), " bits")
            .same("numbers of probes", hash_count(), other.hash_count())
            .same_hashing(this->hasher_, other.hasher_);
    }

    Layout layout_;
    bool plain_lookup_;  // is_plain_lookup
    storage_type words_;
    bool plain_insert_ = false;  // is_plain_insert()
    size_type inserted_ = 0;
};

/// k bits anywhere: the fewest bits for a given FPR, k cache lines per key.
using classic_bloom_filter = basic_bloom_filter<classic_layout>;
/// k bits in one 512-bit block: one cache line per key (the default, bloom_filter).
using block_bloom_filter = basic_bloom_filter<block_layout>;
/// The Apache Parquet split-block filter, bit for bit (XXH64 at seed 0 by default).
using split_block_bloom_filter = basic_bloom_filter<split_block_layout>;
/// Guava's BloomFilter (MURMUR128_MITZ_64 / legacy MURMUR128_MITZ_32), answering and stored
/// exactly as in Java for the funnel its hasher carries (io/guava.hpp reads and writes its
/// streams).
using guava_bloom_filter = basic_bloom_filter<guava_layout>;
/// Guava's BloomFilter before 17.0 (MURMUR128_MITZ_32), read and written as Java does.
using guava_mitz32_bloom_filter = basic_bloom_filter<guava_mitz32_layout>;
/// DCSO's bloom filter, answering exactly as its `bloom` tool does (io/dcso.hpp: its files).
using dcso_bloom_filter = basic_bloom_filter<dcso_layout>;

/// The default Bloom filter: the cache-blocked layout.
using bloom_filter = block_bloom_filter;

// --- The registry's entry (kind_request.hpp) ------------------------------------------------

template <class Layout>
/// The registry's entry of the Bloom filters (kind_traits): kind "bloom", one type per layout.
struct kind_traits<basic_bloom_filter<Layout>> {
    /// The kind's word.
    static constexpr std::string_view word = "bloom";
    /// A file of it takes keys in place (file_update.hpp): its operations only set bits.
    static constexpr bool updates_in_place = true;
    /// Why one would choose this layout.
    static constexpr std::string_view summary = facts_of(Layout::id).summary;
    /// How messages name the type ("block Bloom filter", "Guava Bloom filter").
    static std::string name() {
        const bloom_layout_facts& facts = facts_of(Layout::id);
        if (!facts.filter_name.empty()) return std::string(facts.filter_name);
        // Appended to, not `std::string(...) + "..."`: GCC 12's link-time optimiser warns (a
        // false -Wstringop-overread) on the concatenation of a temporary.
        std::string name(facts.word);
        return name.append(" Bloom filter");
    }
    /// Kind "bloom", with the layout unless it is the default block.
    static kind_request request() {
        kind_request r{std::string(word), {}, {}, {}, {}, {}};
        if (Layout::id != bloom_layout::block) r.layout = Layout::id;
        return r;
    }
    /// The options of a kind_request it takes (kinds.hpp refuses the others).
    static constexpr request_options accepted_options{.layout = true};
    /// Whether `r` asks for kind "bloom" and this layout (block when unset).
    static bool accepts(const kind_request& r, double) {
        return r.kind == word && r.layout.value_or(bloom_layout::block) == Layout::id;
    }
    /// plan_bloom() for this layout, in the registry's terms.
    static kind_plan plan(double n, double p, const kind_request& = {}) {
        const bloom_plan plan = plan_bloom(Layout::id, n, p);
        return {plan.bytes(), plan.fpr, plan.geometry.hashes, 0};
    }
    /// An empty filter sized for n keys at p.
    static basic_bloom_filter<Layout> make(std::uint64_t n, double p, const kind_request&, filter_options options) {
        return {n, p, options};
    }
};

}  // namespace bloomkit
