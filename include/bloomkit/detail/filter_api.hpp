// bloomkit/detail/filter_api.hpp — the part of the public API every filter kind shares, written
// once: the hash function and what the filter was sized for, the bulk queries over an iterator
// range, and insert_range.
//
// A kind derives from filter_api<itself> (CRTP) and provides the one hook the bulk queries
// stand on, each key answered in order:
//
//     template <class It, class Sentinel, class Use>
//     Use for_each_answer(It first, Sentinel last, Use use) const;   // use(bool) per key
//
// which is where a kind pipelines (hashes a batch, prefetches, then tests), and which returns
// `use` as it is after the last key, as std::for_each does: the queries' consumers of answers
// hold their state by value, so that a kind's loop can keep it in registers. A kind that
// declares its own single-key contains() brings the bulk one back into view with
// `using filter_api::contains;`.
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

    /// How the filter hashes keys (algorithm and seed): two filters combine only if theirs are
    /// equal, and a digest from it can be given to the *_digest calls of filters that share it.
    [[nodiscard]] const hasher& hash_function() const noexcept { return hasher_; }

    /// The n and target p the filter was sized for; 0 when it was built from an explicit
    /// geometry (or from its keys, as a binary fuse filter is).
    [[nodiscard]] size_type expected_keys() const noexcept { return target_.expected_keys; }
    [[nodiscard]] double target_fpr() const noexcept { return target_.fpr; }
    [[nodiscard]] const sizing_target& sized_for() const noexcept { return target_; }

    /// What the keys are (text, u64, i64, u32: keys.hpp), as recorded for the filter's readers:
    /// what filter_options::keys said, or the type of the keys it was built from, or of the
    /// first key inserted into it while it was empty (text for strings, i64 for signed integer
    /// types, u64 for unsigned ones), or what its file records; unrecorded otherwise. Recorded,
    /// not enforced: the filter hashes whatever it is given (the command, the Python bindings
    /// and the Redis filter refuse keys by it; keys.hpp).
    [[nodiscard]] key_format recorded_key_format() const noexcept { return keys_; }
    /// Records what the keys are (after the filter was made, or read from a file of an older
    /// version that did not record it). Integer keys of types narrower than 64 bits then hash
    /// widened under every hash (hasher::own_width_integers()).
    void record_key_format(key_format keys) noexcept {
        keys_ = keys;
        hasher_.own_width_integers(keys == key_format::unrecorded);
    }

    /// Writes contains(key) for every key of [first, last) to `out`, in order; returns the
    /// output iterator past the last answer. Pipelined: much faster than a loop of contains().
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel, std::output_iterator<bool> Out>
    requires hashable_key<std::iter_value_t<It>> Out contains(It first, Sentinel last, Out out)
    const { return self().for_each_answer(first, last, write_answers<Out>{out}).out; }

    /// How many keys of [first, last) the filter may contain.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel>
    requires hashable_key<std::iter_value_t<It>>
    [[nodiscard]] size_type count_contained(It first, Sentinel last) const {
        return self().for_each_answer(first, last, count_answers{}).found;
    }

    /// Inserts every key of a range with the bulk insert; returns what it returns (how many
    /// keys were new, or stored).
    template <std::ranges::forward_range Range, class Self = Derived>
    requires hashable_key<std::ranges::range_value_t<Range>> && requires(Self& f, Range& r) {
        f.insert(std::ranges::begin(r), std::ranges::end(r));
    }
    size_type insert_range(Range&& keys) { return self().insert(std::ranges::begin(keys), std::ranges::end(keys)); }

    /// Removes every key of [first, last), or none of them (the kinds that remove: counting
    /// Bloom, cuckoo). Each key is removed in turn, so a key listed twice must have been
    /// inserted twice; at the first key the filter certainly does not hold when its turn comes,
    /// the keys removed so far are inserted again and the position of that key is returned.
    /// Returns the end when every key was removed. A key that was never inserted is evidence
    /// that the batch is not what was inserted: removing the others — some of them false
    /// positives — would take away part of keys that were, and make them false negatives.
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
    // The bulk queries' consumers of answers: values, not closures over the caller's variables.
    // Through a reference, a byte written at the iterator might be the iterator itself as far as
    // the compiler knows, so it reloaded and stored the iterator back for every answer.
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

    /// Records the format of keys of type Key (key_format_of) when the filter records none and
    /// holds no key yet: a kind calls it before the inserts that take typed keys, so that a
    /// filter a program fills with integers says so in its file.
    template <class Key>
    void record_first_keys() {
        if constexpr (key_format_of<Key>() != key_format::unrecorded)
            if (keys_ == key_format::unrecorded && self().inserted_count() == 0) [[unlikely]]
                self().record_key_format(key_format_of<Key>());
    }

    /// record_first_keys() for inserts that run beside others (insert(key, concurrent)): the
    /// first of them records the format with a compare-and-swap, and sets how narrow integers
    /// hash before the format is seen, so that every thread that sees it hashes alike.
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

    /// The key format of this filter combined with `other` (keys.hpp: union_key_format for a
    /// union, intersection_key_format for an intersection): recorded before the words change,
    /// or incompatible_filters when no format holds the combined keys.
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
