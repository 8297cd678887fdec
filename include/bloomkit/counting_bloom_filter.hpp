// bloomkit/counting_bloom_filter.hpp — a Bloom filter that can forget: every bit becomes a 4-bit
// counter, so keys can be removed again (Fan, Cao, Almeida & Broder, "Summary Cache: A Scalable
// Wide-Area Web Cache Sharing Protocol", IEEE/ACM Transactions on Networking 8(3), 2000).
//
// insert() adds one to each of the key's counters, remove() subtracts one, and a key tests present
// while all its counters are nonzero. Four bits suffice: with the optimal k a counter passes 15 with
// probability about 1.37e-15 (the paper's bound). One that does saturates and is never decremented
// again, since it no longer knows what it counts: a removal never makes another key a false
// negative. Removing a key never inserted can: remove() refuses a key certainly absent (a counter
// is zero), but not a false positive; remove_unchecked() is for keys known to be inserted.
//
// The counters sit in 512-bit blocks of 128, placed as the block Bloom filter places its bits
// (layouts/counting_block.hpp), so an operation costs one cache line; sized by the exact blocked
// model (sizing/counting_bloom.hpp): 43.4 bits per key at 1%, 76 at 0.1%.
//
// Thread safety: const members may run concurrently; mutating ones need exclusive access.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <span>
#include <string>
#include <utility>

#include "bloomkit/detail/bulk_pipeline.hpp"
#include "bloomkit/detail/compatibility.hpp"
#include "bloomkit/detail/filter_api.hpp"
#include "bloomkit/detail/nibble_counters.hpp"
#include "bloomkit/detail/word_storage.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/kind_request.hpp"
#include "bloomkit/layouts/counting_block.hpp"
#include "bloomkit/options.hpp"
#include "bloomkit/sizing/counting_bloom.hpp"

namespace bloomkit {

/// A block Bloom filter of 4-bit saturating counters: keys can be removed and counted. Also has
/// the members every kind shares (detail::filter_api).
class counting_bloom_filter : public detail::filter_api<counting_bloom_filter> {
    using api = detail::filter_api<counting_bloom_filter>;
    friend api;

public:
    /// Words of sixteen 4-bit counters.
    using word_type = std::uint64_t;
    /// Counts of keys and counters.
    using size_type = std::uint64_t;
    /// An owned, 64-byte aligned array, or a read-only view of a mapped file.
    using storage_type = detail::word_storage<word_type>;

    /// The most a counter holds (saturated), and the most count() reports.
    static constexpr std::uint32_t max_count = counting_block_layout::max_count;

    /// FPR at most `fpr` at `expected_keys` distinct keys; throws invalid_argument for no keys or
    /// fpr outside (0, 1).
    counting_bloom_filter(size_type expected_keys, double fpr, filter_options options = {})
        : counting_bloom_filter(plan_counting_bloom(static_cast<double>(expected_keys), fpr).geometry, options,
                                {expected_keys, fpr}) {}

    /// The counters rounded up to whole blocks of 128.
    explicit counting_bloom_filter(counting_geometry geometry, filter_options options = {})
        : counting_bloom_filter(geometry, options, {}) {}

    /// From its stored parts (io/ codecs); throws invalid_argument for an impossible geometry or a
    /// word count that does not match it.
    counting_bloom_filter(counting_geometry geometry, const hasher& h, storage_type words, sizing_target target = {},
                          size_type inserted = 0)
        : api(h, target), layout_(geometry), words_(std::move(words)), inserted_(inserted) {
        if (words_.size() != layout_.word_count())
            throw invalid_argument("a counting Bloom filter of " + std::to_string(geometry.counters) +
                                   " counters has " + std::to_string(layout_.word_count()) + " words, not " +
                                   std::to_string(words_.size()));
    }

    /// Adds one occurrence; true if one of its counters was zero.
    template <hashable_key Key>
    bool insert(const Key& key) {
        record_first_keys<Key>();
        const bool added = layout_.increment(words_.mutable_data(), locate(key));
        ++inserted_;
        return added;
    }

    using api::contains;

    /// False: the key is not in the filter. True: it probably is (or is a false positive).
    template <hashable_key Key>
    [[nodiscard]] bool contains(const Key& key) const {
        return layout_.test(words_.data(), locate(key));
    }

    using api::remove;

    /// Removes one occurrence; false, changing nothing, when the key is certainly absent. A
    /// false positive cannot be told apart.
    template <hashable_key Key>
    bool remove(const Key& key) {
        const bool removed = layout_.decrement_if_present(words_.mutable_data(), locate(key));
        if (removed) forget_one();
        return removed;
    }

    /// Decrements the counters neither zero nor saturated, unchecked: for a key never inserted
    /// this can make other keys false negatives.
    template <hashable_key Key>
    void remove_unchecked(const Key& key) {
        layout_.decrement(words_.mutable_data(), locate(key));
        forget_one();
    }

    /// The least of its counters: never below the key's multiplicity; 15 means "15 or more".
    template <hashable_key Key>
    [[nodiscard]] std::uint32_t count(const Key& key) const {
        return layout_.min_count(words_.data(), locate(key));
    }

    /// Inserts every key of [first, last); returns how many were new.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel>
    requires hashable_key<std::iter_value_t<It>> size_type insert(It first, Sentinel last) {
        record_first_keys<std::iter_value_t<It>>();
        word_type* words = words_.mutable_data();
        size_type added = 0, keys = 0;
        pipeline(first, last, [&](const probe& p) {
            added += layout_.increment(words, p) ? 1 : 0;
            ++keys;
        });
        inserted_ += keys;
        return added;
    }

    /// Writes whether each key was new to `out`.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel, std::output_iterator<bool> Out>
    requires hashable_key<std::iter_value_t<It>> Out insert(It first, Sentinel last, Out out) {
        record_first_keys<std::iter_value_t<It>>();
        word_type* words = words_.mutable_data();
        pipeline(first, last, [&](const probe& p) {
            *out++ = layout_.increment(words, p);
            ++inserted_;
        });
        return out;
    }

    /// Forgets every key.
    void clear() {
        std::fill_n(words_.mutable_data(), words_.size(), word_type{0});
        inserted_ = 0;
    }

    /// Union of the multisets: counters added, capped at 15, so every insert of both can be
    /// removed again (a maximum would not). Throws incompatible_filters unless compatible_with().
    counting_bloom_filter& operator|=(const counting_bloom_filter& other) {
        detail::compatibility_check("union", "counting Bloom filters")
            .same("sizes", counter_count(), other.counter_count(), " counters")
            .same("numbers of probes", hash_count(), other.hash_count())
            .same_hashing(hasher_, other.hasher_);
        combine_key_format(other, "union");
        word_type* words = words_.mutable_data();
        const word_type* theirs = other.words_.data();
        for (size_type i = 0; i < words_.size(); ++i) words[i] = detail::saturating_add_counters(words[i], theirs[i]);
        inserted_ += other.inserted_;
        return *this;
    }

    /// The union of two filters (operator|=).
    friend counting_bloom_filter operator|(counting_bloom_filter a, const counting_bloom_filter& b) { return a |= b; }

    /// Same geometry, hashing and counters; sizing metadata is not compared.
    friend bool operator==(const counting_bloom_filter& a, const counting_bloom_filter& b) noexcept {
        return a.compatible_with(b) && std::ranges::equal(a.words(), b.words());
    }

    /// Whether `other` has the same geometry, hash algorithm and seed, so the two combine.
    [[nodiscard]] bool compatible_with(const counting_bloom_filter& other) const noexcept {
        return geometry() == other.geometry() && hasher_ == other.hasher_;
    }

    /// Counters and probes per key.
    [[nodiscard]] counting_geometry geometry() const noexcept { return layout_.geometry(); }
    /// The 4-bit counters, whole blocks of 128.
    [[nodiscard]] size_type counter_count() const noexcept { return geometry().counters; }
    /// k: the counters each key increments.
    [[nodiscard]] std::uint32_t hash_count() const noexcept { return geometry().hashes; }
    /// The counters, in bytes: two a byte.
    [[nodiscard]] size_type size_in_bytes() const noexcept { return words_.size() * sizeof(word_type); }

    /// Inserts minus successful removals, with multiplicity.
    [[nodiscard]] size_type inserted_count() const noexcept { return inserted_; }

    /// Number of nonzero counters (one pass over the words).
    [[nodiscard]] size_type nonzero_counter_count() const noexcept {
        size_type nonzero = 0;
        for (const word_type word : words())
            nonzero += static_cast<size_type>(std::popcount(detail::nonzero_counters(word)));
        return nonzero;
    }

    /// Distinct keys, estimated from the nonzero counters; +infinity when none is zero. O(m).
    [[nodiscard]] double approximate_count() const noexcept {
        return estimate_counting_keys(geometry(), nonzero_counter_count());
    }

    /// The false-positive rate the nonzero counters give. O(m).
    [[nodiscard]] double current_fpr() const { return current_counting_fpr(geometry(), nonzero_counter_count()); }

    /// Counter i of a word is its bits 4i..4i+3; files store the words little-endian.
    [[nodiscard]] std::span<const word_type> words() const noexcept { return words_.words(); }

    /// True for a filter mapped from a file: it can be queried, not modified.
    [[nodiscard]] bool read_only() const noexcept { return words_.read_only(); }

private:
    using probe = counting_block_layout::probe;

    counting_bloom_filter(counting_geometry geometry, filter_options options, sizing_target target)
        : api(hasher(options.hash.value_or(block_layout::default_hash), options.seed), target, options.keys),
          layout_(counting_geometry{round_counters(geometry.counters), geometry.hashes}),
          words_(layout_.word_count()) {}

    // filter_api's bulk hook: use(answer) for every key, in order.
    template <class It, class Sentinel, class Use>
    Use for_each_answer(It first, Sentinel last, Use use) const {
        return pipeline(first, last,
                        detail::answer_each{[this](const probe& p) { return layout_.test(words_.data(), p); }, use})
            .use;
    }

    template <hashable_key Key>
    [[nodiscard]] probe locate(const Key& key) const {
        return layout_.locate(hasher_(key));
    }

    template <class It, class Sentinel, class Visit>
    Visit pipeline(It first, Sentinel last, Visit visit) const {
        return detail::pipelined_by_digest(
                   hasher_, first, last, [this](const digest& d) { return layout_.locate(d); },
                   [this](const probe& p) { layout_.prefetch(words_.data(), p); }, detail::each_of_batch{visit})
            .visit;
    }

    void forget_one() noexcept { inserted_ -= inserted_ > 0 ? 1 : 0; }

    counting_block_layout layout_;
    storage_type words_;
    size_type inserted_ = 0;
};

template <>
/// The registry's entry (kind_request.hpp): kind "counting".
struct kind_traits<counting_bloom_filter> {
    /// The kind's word.
    static constexpr std::string_view word = "counting";
    /// Why one would choose it.
    static constexpr std::string_view summary = "4-bit counters, one cache line per key";
    /// How messages name the type.
    static std::string name() { return "counting Bloom filter"; }
    /// Kind "counting", which takes no options.
    static kind_request request() { return {std::string(word), {}, {}, {}, {}, {}}; }
    /// The options of a kind_request it takes (kinds.hpp refuses the others).
    static constexpr request_options accepted_options{};
    /// Whether `r` asks for kind "counting".
    static bool accepts(const kind_request& r, double) { return r.kind == word; }
    /// plan_counting_bloom() in the registry's terms.
    static kind_plan plan(double n, double p, const kind_request& = {}) {
        const counting_plan plan = plan_counting_bloom(n, p);
        return {plan.bytes(), plan.fpr, plan.geometry.hashes, 0};
    }
    /// An empty filter sized for n keys at p.
    static counting_bloom_filter make(std::uint64_t n, double p, const kind_request&, filter_options options) {
        return {n, p, options};
    }
};

}  // namespace bloomkit
