// bloomkit/bulk.hpp — batches of keys for a filter whose kind is known only at run time: insert,
// contains, remove, count and hash over spans, answering into the caller's buffers, and merge and
// intersect. Each call visits the variant once and runs the kind's pipelined bulk operation on the
// whole batch, so code driving batches (the command, the Python bindings) is compiled once.
//
//     bloomkit::any_filter f = bloomkit::load<bloomkit::any_filter>("seen.bkf");
//     std::vector<std::string_view> urls = ...;
//     std::unique_ptr<bool[]> seen(new bool[urls.size()]);
//     bloomkit::contains(f, std::span<const std::string_view>(urls), std::span(seen.get(), urls.size()));
//
// Keys are byte strings, 64-bit integers or digests from the filter's hash_function(). A kind that
// cannot do what a call asks (remove from a Bloom filter) throws invalid_argument, changing nothing.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/kinds.hpp"

namespace bloomkit {

/// The keys a batch call takes.
template <class Key>
concept batch_key = std::same_as<Key, std::string_view> || std::same_as<Key, std::span<const std::byte>> ||
    std::same_as<Key, std::uint64_t> || std::same_as<Key, std::int64_t> || std::same_as<Key, digest>;

namespace detail {

[[noreturn]] inline void cannot(const std::string& kind, const char* what) {
    throw invalid_argument("a " + kind + " cannot " + what);
}

template <class Key>
void require_answers(std::span<const Key> keys, std::size_t answers) {
    if (answers != keys.size())
        throw invalid_argument("a batch of " + std::to_string(keys.size()) + " keys needs as many answers, not " +
                               std::to_string(answers));
}

}  // namespace detail

/// In order; `added` (if not empty) says whether each was new (cuckoo: stored); returns how many
/// were. Throws invalid_argument for binary fuse, filter_full (or too_many_copies_error) when a
/// cuckoo filter cannot take some key (the others are in).
template <batch_key Key>
std::uint64_t insert(any_filter& filter, std::span<const Key> keys, std::span<bool> added = {}) {
    if (!added.empty()) detail::require_answers(keys, added.size());
    return std::visit(
        [&](auto& f) -> std::uint64_t {
            using F = std::decay_t<decltype(f)>;
            if constexpr (!inserting_filter<F>) {
                detail::cannot(kind_traits<F>::name(), "take keys after it is built: build it from all of them");
            } else if constexpr (refusing_filter<F>) {
                using status = decltype(f.try_insert(std::string_view{}));
                thread_local std::vector<status> statuses;
                statuses.clear();
                f.try_insert(keys.begin(), keys.end(), std::back_inserter(statuses));
                std::uint64_t stored = 0, full = 0, copies = 0;
                for (std::size_t i = 0; i < keys.size(); ++i) {
                    const bool in = statuses[i] == status::stored;
                    stored += in ? 1 : 0;
                    full += statuses[i] == status::full ? 1 : 0;
                    copies += statuses[i] == status::too_many_copies ? 1 : 0;
                    if (!added.empty()) added[i] = in;
                }
                if (full > 0)
                    throw filter_full("the " + kind_traits<F>::name() + " is full (" +
                                      std::to_string(f.inserted_count()) + " keys in " +
                                      std::to_string(f.size_in_bytes()) + " bytes): " + std::to_string(full) +
                                      " of the " + std::to_string(keys.size()) + " keys of the batch did not fit");
                // A copy not stored would be taken from the others by a later remove.
                if (copies > 0)
                    throw too_many_copies_error(
                        "the " + kind_traits<F>::name() + " cannot store " + std::to_string(copies) + " of the " +
                        std::to_string(keys.size()) +
                        " keys of the batch again: the two buckets of each hold copies of its "
                        "fingerprint in every slot (a key added that many times, or keys that share "
                        "its fingerprint)");
                return stored;
            } else if (added.empty()) {
                return f.insert(keys.begin(), keys.end());
            } else {
                f.insert(keys.begin(), keys.end(), added.begin());
                return static_cast<std::uint64_t>(std::count(added.begin(), added.end(), true));
            }
        },
        filter);
}

/// insert() from any number of threads, for capabilities().concurrent kinds (atomic ORs), else
/// invalid_argument. With `added`, one key at a time (not pipelined).
template <batch_key Key>
std::uint64_t insert(any_filter& filter, std::span<const Key> keys, concurrent_t, std::span<bool> added = {}) {
    if (!added.empty()) detail::require_answers(keys, added.size());
    return std::visit(
        [&](auto& f) -> std::uint64_t {
            using F = std::decay_t<decltype(f)>;
            if constexpr (!concurrent_filter<F>) {
                detail::cannot(kind_traits<F>::name(), "take keys from several threads at once");
            } else if (added.empty()) {
                return f.insert(keys.begin(), keys.end(), concurrent);
            } else {
                std::uint64_t fresh = 0;
                for (std::size_t i = 0; i < keys.size(); ++i)
                    fresh += (added[i] = f.insert(keys[i], concurrent)) ? 1 : 0;
                return fresh;
            }
        },
        filter);
}

/// Writes to answers[i] whether key i may be in the filter (false: certainly not).
template <batch_key Key>
void contains(const any_filter& filter, std::span<const Key> keys, std::span<bool> answers) {
    detail::require_answers(keys, answers.size());
    std::visit([&](const auto& f) { f.contains(keys.begin(), keys.end(), answers.begin()); }, filter);
}

/// contains() beside concurrent inserts (atomic loads), for the kinds that take them.
template <batch_key Key>
void contains(const any_filter& filter, std::span<const Key> keys, std::span<bool> answers, concurrent_t) {
    detail::require_answers(keys, answers.size());
    std::visit(
        [&](const auto& f) {
            using F = std::decay_t<decltype(f)>;
            if constexpr (!concurrent_filter<F>)
                detail::cannot(kind_traits<F>::name(), "answer beside concurrent inserts");
            else f.contains(keys.begin(), keys.end(), answers.begin(), concurrent);
        },
        filter);
}

/// All or none: keys.size(), or the index of the first key certainly absent when its turn came
/// (nothing removed then).
template <batch_key Key>
std::size_t remove(any_filter& filter, std::span<const Key> keys) {
    return std::visit(
        [&](auto& f) -> std::size_t {
            using F = std::decay_t<decltype(f)>;
            if constexpr (!removing_filter<F>) detail::cannot(kind_traits<F>::name(), "remove keys");
            else return static_cast<std::size_t>(f.remove(keys.begin(), keys.end()) - keys.begin());
        },
        filter);
}

/// counts[i]: key i's count as the kind counts it (counting Bloom: the least counter; cuckoo: its
/// fingerprints).
template <batch_key Key>
void count(const any_filter& filter, std::span<const Key> keys, std::span<std::uint64_t> counts) {
    detail::require_answers(keys, counts.size());
    std::visit(
        [&](const auto& f) {
            using F = std::decay_t<decltype(f)>;
            if constexpr (!counting_filter<F>) detail::cannot(kind_traits<F>::name(), "count a key's copies");
            else
                for (std::size_t i = 0; i < keys.size(); ++i) counts[i] = f.count(keys[i]);
        },
        filter);
}

/// digests[i]: key i as the filter hashes it, which the calls above take in place of the key.
template <batch_key Key>
void hash(const any_filter& filter, std::span<const Key> keys, std::span<digest> digests) {
    detail::require_answers(keys, digests.size());
    std::visit(
        [&](const auto& f) {
            const hasher h = f.hash_function();
            for (std::size_t i = 0; i < keys.size(); ++i) digests[i] = h(keys[i]);
        },
        filter);
}

namespace detail {

/// `act` ("take a union") and `what` ("union") word the errors.
template <class Combine>
void combine(any_filter& into, const any_filter& other, const char* act, const std::string& what, Combine combine) {
    std::visit(
        [&](auto& f) {
            using F = std::decay_t<decltype(f)>;
            if constexpr (!std::invocable<Combine&, F&, const F&>) {
                cannot(kind_traits<F>::name(), act);
            } else {
                if (!std::holds_alternative<F>(other))
                    throw incompatible_filters("cannot take the " + what + " of a " + kind_traits<F>::name() +
                                               " and a " + kind_name(other));
                combine(f, std::get<F>(other));
            }
        },
        into);
}

}  // namespace detail

/// into |= other; incompatible_filters when they differ, invalid_argument for a kind without union.
inline void merge(any_filter& into, const any_filter& other) {
    detail::combine(into, other, "take a union", "union", []<merging_filter F>(F& a, const F& b) { a |= b; });
}

/// into &= other: the intersection (Bloom filters), as merge().
inline void intersect(any_filter& into, const any_filter& other) {
    detail::combine(into, other, "take an intersection", "intersection",
                    []<intersecting_filter F>(F& a, const F& b) { a &= b; });
}

}  // namespace bloomkit
