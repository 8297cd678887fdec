// Tests of bloomkit/detail/bulk_pipeline.hpp, the pipeline under every bulk call: every key is
// located and prefetched once and visited once, in key order, in groups of at most
// pipeline_group; a key is visited only once the keys pipeline_distance ahead of it (or all
// of them, near the end) have been located — for every length around the ring's boundaries,
// and over an iterator that only goes forward.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <forward_list>
#include <numeric>
#include <span>
#include <vector>

#include "bloomkit/detail/bulk_pipeline.hpp"

namespace {

using bloomkit::detail::pipeline_distance;
using bloomkit::detail::pipeline_group;
using bloomkit::detail::pipelined;

/// What one run of the pipeline did, in order.
struct trace {
    std::vector<std::size_t> located, prefetched, visited;
    std::vector<std::size_t> group_sizes;
    std::vector<std::size_t> located_before_visit;  // per visited key: keys located by then
};

template <class Range>
trace run(const Range& keys) {
    trace t;
    pipelined(
        keys.begin(), keys.end(),
        [&t](std::size_t key) {
            t.located.push_back(key);
            return key;
        },
        [&t](std::size_t probe) { t.prefetched.push_back(probe); },
        [&t](std::span<const std::size_t> group) {
            t.group_sizes.push_back(group.size());
            for (const std::size_t probe : group) {
                t.visited.push_back(probe);
                t.located_before_visit.push_back(t.located.size());
            }
        });
    return t;
}

std::vector<std::size_t> first_keys(std::size_t n) {
    std::vector<std::size_t> keys(n);
    std::iota(keys.begin(), keys.end(), std::size_t{0});
    return keys;
}

TEST(BulkPipeline, EveryKeyIsLocatedPrefetchedAndVisitedOnceInOrder) {
    // Empty, shorter than the ring, the ring exactly, and past it by every remainder of a group,
    // over several turns of the ring.
    for (std::size_t n = 0; n <= 3 * pipeline_distance + 2 * pipeline_group + 1; ++n) {
        SCOPED_TRACE(n);
        const std::vector<std::size_t> keys = first_keys(n);
        const trace t = run(keys);
        EXPECT_EQ(t.located, keys);
        EXPECT_EQ(t.prefetched, keys);
        EXPECT_EQ(t.visited, keys);
        for (const std::size_t size : t.group_sizes) {
            EXPECT_GE(size, 1U);
            EXPECT_LE(size, pipeline_group);
        }
    }
}

TEST(BulkPipeline, AKeyIsVisitedOnlyOnceTheDistanceAheadOfItIsLocated) {
    for (const std::size_t n :
         {std::size_t{1}, pipeline_group, pipeline_distance - 1, pipeline_distance, pipeline_distance + 1,
          2 * pipeline_distance + pipeline_group - 1, 5 * pipeline_distance + 3}) {
        SCOPED_TRACE(n);
        const trace t = run(first_keys(n));
        ASSERT_EQ(t.located_before_visit.size(), n);
        for (std::size_t i = 0; i < n; ++i) {
            // A group is visited once the key pipeline_distance past its first is located (every
            // key, near the end): the prefetch of each of its keys had a ring's worth of hashing.
            const std::size_t group_start = i - i % pipeline_group;
            EXPECT_EQ(t.located_before_visit[i], std::min(n, group_start + pipeline_distance)) << "key " << i;
        }
    }
}

TEST(BulkPipeline, AForwardOnlyRangeIsWalkedOnce) {
    const std::size_t n = 2 * pipeline_distance + 5;
    std::forward_list<std::size_t> keys;
    for (std::size_t i = n; i-- > 0;) keys.push_front(i);
    const trace t = run(keys);
    EXPECT_EQ(t.located, first_keys(n));
    EXPECT_EQ(t.visited, first_keys(n));
}

}  // namespace
