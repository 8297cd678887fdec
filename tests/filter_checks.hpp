// tests/filter_checks.hpp — checks every filter kind's tests make the same way: bulk lookups
// against single ones, and a refused union.
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

}  // namespace bloomkit_test
