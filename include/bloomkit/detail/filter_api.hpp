// bloomkit/detail/filter_api.hpp — the part of the public API every filter kind shares, written
// once: the hash function and what the filter was sized for, the bulk queries over an iterator
// range, and insert_range.
//
// A kind derives from filter_api<itself> (CRTP) and provides the hook the bulk queries stand on,
// where it pipelines:
//
//     template <class It, class Sentinel, class Use>
//     Use for_each_answer(It first, Sentinel last, Use use) const;   // use(bool) per key, in order
//
// returning `use` as std::for_each does, so the consumers' state, held by value, stays in
// registers. A kind declaring its own contains() adds `using filter_api::contains;`.
#pragma once

#include <atomic>
#include <concepts>
#include <cstdint>
#include <iterator>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <utility>

#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/options.hpp"

namespace bloomkit::detail {

template <class Derived>
class filter_api {
public:
    using size_type = std::uint64_t;

    /// Algorithm and seed: filters combine only if theirs are equal.
    [[nodiscard]] const hasher& hash_function() const noexcept { return hasher_; }

    /// The n and p it was sized for; 0 when built from a geometry or from its keys.
    [[nodiscard]] size_type expected_keys() const noexcept { return target_.expected_keys; }
    [[nodiscard]] double target_fpr() const noexcept { return target_.fpr; }
    [[nodiscard]] const sizing_target& sized_for() const noexcept { return target_; }

    /// From filter_options::keys, the keys it was built from or first given, or its file.
    /// Recorded, not enforced: the filter hashes whatever it is given (keys.hpp).
    [[nodiscard]] key_format recorded_key_format() const noexcept { return keys_; }
    /// Narrow integer keys then hash widened under every hash (hasher::own_width_integers()).
    void record_key_format(key_format keys) noexcept {
        keys_ = keys;
        hasher_.own_width_integers(keys == key_format::unrecorded);
    }

    /// contains(key) for each key to `out`, pipelined.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel, std::output_iterator<bool> Out>
    requires hashable_key<std::iter_value_t<It>> Out contains(It first, Sentinel last, Out out)
    const { return self().for_each_answer(first, last, write_answers<Out>{out}).out; }

    /// How many keys of [first, last) the filter may contain.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel>
    requires hashable_key<std::iter_value_t<It>>
    [[nodiscard]] size_type count_contained(It first, Sentinel last) const {
        return self().for_each_answer(first, last, count_answers{}).found;
    }

    /// The bulk insert over a range; returns how many keys were new (or stored).
    template <std::ranges::forward_range Range, class Self = Derived>
    requires hashable_key<std::ranges::range_value_t<Range>> && requires(Self& f, Range& r) {
        f.insert(std::ranges::begin(r), std::ranges::end(r));
    }
    size_type insert_range(Range&& keys) { return self().insert(std::ranges::begin(keys), std::ranges::end(keys)); }

    /// All or none, in turn (a key listed twice must have been inserted twice): at the first key
    /// certainly absent, the removals are undone and its position returned; else the end. Such a
    /// key shows the batch is not what was inserted, and removing the rest could make false
    /// negatives.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel, class Self = Derived>
    requires hashable_key<std::iter_value_t<It>> && requires(Self& f, const std::iter_value_t<It>& key) {
        f.remove(key);
        f.insert(key);
    }
    It remove(It first, Sentinel last) {
        It at = first;
        for (; at != last; ++at) {
            if (self().remove(*at)) continue;
            // Each slot or counter the removals freed takes its key back: this cannot fail.
            for (It undo = first; undo != at; ++undo) static_cast<void>(self().insert(*undo));
            return at;
        }
        return at;
    }

protected:
    // Values, not references: a byte written at the iterator might otherwise alias the iterator,
    // reloaded and stored for every answer.
    template <class Out>
    struct write_answers {
        Out out;
        void operator()(bool maybe) { *out++ = maybe; }
    };
    struct count_answers {
        size_type found = 0;
        void operator()(bool maybe) noexcept { found += maybe ? 1 : 0; }
    };

    filter_api(const hasher& h, sizing_target target, key_format keys = key_format::unrecorded) noexcept
        : hasher_(h), target_(target) {
        record_key_format(keys);
    }

    /// key_format_of<Key>() while the filter records none and is empty, so a filter filled with
    /// integers says so in its file.
    template <class Key>
    void record_first_keys() {
        if constexpr (key_format_of<Key>() != key_format::unrecorded)
            if (keys_ == key_format::unrecorded && self().inserted_count() == 0) [[unlikely]]
                self().record_key_format(key_format_of<Key>());
    }

    /// For concurrent inserts: a compare-and-swap, with narrow integers' hashing set before the
    /// format is visible, so every thread that sees it hashes alike.
    template <class Key>
    void record_first_keys_concurrently() noexcept {
        if constexpr (constexpr key_format format = key_format_of<Key>(); format != key_format::unrecorded) {
            std::atomic_ref<key_format> keys(keys_);
            if (keys.load(std::memory_order_acquire) != key_format::unrecorded || self().inserted_count() != 0) return;
            hasher_.own_width_integers(false);  // every format records integers widened
            key_format expected = key_format::unrecorded;
            keys.compare_exchange_strong(expected, format, std::memory_order_acq_rel);
        }
    }

    /// Recorded before the words change; incompatible_filters when no format holds both (keys.hpp).
    void combine_key_format(const Derived& other, const char* operation) {
        const key_format theirs = other.recorded_key_format();
        const std::optional<key_format> combined =
            std::string_view(operation) == "intersection"
                ? intersection_key_format(keys_, theirs)
                : union_key_format(keys_, self().inserted_count() > 0, theirs, other.inserted_count() > 0);
        if (!combined)
            throw incompatible_filters(
                std::string("cannot take the ") + operation + " of a filter of " + std::string(to_string(keys_)) +
                " keys and one of " + std::string(to_string(theirs)) + " keys: " +
                (keys_ == key_format::unrecorded || theirs == key_format::unrecorded
                     ? "the keys of the one that records none are unknown (record them first)"
                     : "no key format holds the keys of both (a line, or an integer, means another key in each)"));
        if (*combined != keys_) self().record_key_format(*combined);
    }

    hasher hasher_;
    sizing_target target_;
    key_format keys_ = key_format::unrecorded;

private:
    const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }
    Derived& self() noexcept { return static_cast<Derived&>(*this); }
};

}  // namespace bloomkit::detail
