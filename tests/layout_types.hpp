// tests/layout_types.hpp — the Bloom filter layouts as a GoogleTest type list, with readable
// names, for the suites that run once per layout.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "bloomkit/bloom_filter.hpp"

namespace bloomkit_test {

using bloom_layouts =
    ::testing::Types<bloomkit::classic_bloom_filter, bloomkit::block_bloom_filter, bloomkit::split_block_bloom_filter>;

/// Names typed tests "classic", "block", "split_block" instead of 0, 1, 2.
struct layout_name {
    template <class Filter>
    static std::string GetName(int) {
        std::string name(bloomkit::to_string(Filter::layout()));
        for (char& c : name)
            if (c == '-') c = '_';
        return name;
    }
};

}  // namespace bloomkit_test
