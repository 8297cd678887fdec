// tests/filter_checks.hpp — checks every filter kind's tests make the same way: bulk lookups
// against single ones, a refused union, and the all-or-nothing batch remove.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"

namespace bloomkit_test {

/// Asks `bulk` about every probe with one bulk call and `single` one key at a time: the answers
/// must agree key by key, and count_contained must count the bulk call's "maybe"s. Returns how
/// many there were.
template <class Filter, class Keys>
std::uint64_t expect_bulk_answers_match_single(const Filter& bulk, const Filter& single, const Keys& probes) {
    std::vector<bool> answers;
    bulk.contains(probes.begin(), probes.end(), std::back_inserter(answers));
    EXPECT_EQ(answers.size(), probes.size());
    std::uint64_t maybe = 0;
    for (std::size_t i = 0; i < answers.size() && i < probes.size(); ++i) {
        EXPECT_EQ(answers[i], single.contains(probes[i])) << i;
        maybe += answers[i] ? 1 : 0;
    }
    EXPECT_EQ(bulk.count_contained(probes.begin(), probes.end()), maybe);
    return maybe;
}

/// `base |= other` must throw incompatible_filters with a message mentioning `mentions`, and
/// leave a copy of `base` untouched.
template <class Filter>
void expect_union_refused(const Filter& base, const Filter& other, const std::string& mentions) {
    Filter copy = base;
    try {
        copy |= other;
        ADD_FAILURE() << "union accepted an incompatible filter";
    } catch (const bloomkit::incompatible_filters& e) {
        EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
    }
    EXPECT_EQ(copy, base);  // untouched
}

/// The batch remove of a filter holding `held` (some of its keys) is all or nothing: a batch of
/// held keys with one key the filter certainly does not hold in the middle removes nothing and
/// points at that key; the same batch without it removes every key. `absent` are keys the filter
/// was never given.
template <class Filter>
std::uint64_t keys_held(const Filter& f) {
    if constexpr (requires { f.inserted_count(); }) return f.inserted_count();
    else return f.size();
}

template <class Filter, class Key>
void expect_batch_remove_all_or_nothing(Filter filter, const std::vector<Key>& held, const std::vector<Key>& absent) {
    const Key* certainly_absent = nullptr;
    for (const Key& key : absent)
        if (!filter.contains(key)) {
            certainly_absent = &key;
            break;
        }
    ASSERT_NE(certainly_absent, nullptr);
    std::vector<Key> batch(held.begin(), held.begin() + static_cast<std::ptrdiff_t>(held.size() / 2));
    const std::size_t middle = batch.size() / 2;
    batch.insert(batch.begin() + static_cast<std::ptrdiff_t>(middle), *certainly_absent);
    const Filter before = filter;
    const auto stop = filter.remove(batch.begin(), batch.end());
    EXPECT_EQ(stop - batch.begin(), static_cast<std::ptrdiff_t>(middle));
    EXPECT_EQ(keys_held(filter), keys_held(before));
    for (const Key& key : held) EXPECT_TRUE(filter.contains(key)) << "a key was lost to a refused batch";
    batch.erase(batch.begin() + static_cast<std::ptrdiff_t>(middle));
    EXPECT_EQ(filter.remove(batch.begin(), batch.end()), batch.end());
    EXPECT_EQ(keys_held(filter), keys_held(before) - batch.size());
    for (std::size_t i = batch.size(); i < held.size(); ++i)
        EXPECT_TRUE(filter.contains(held[i])) << "a kept key was lost";
}

}  // namespace bloomkit_test
