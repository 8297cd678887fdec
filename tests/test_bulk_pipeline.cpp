// Tests of bloomkit/detail/bulk_pipeline.hpp, the pipeline under every bulk call: every key is
// located and prefetched once and visited once, in key order, in groups of at most the group
// size (pipeline_group, or a kind's own); a key is visited only once the keys the prefetch
// distance ahead of it (or all of them, near the end) have been located — for every length
// around the ring's boundaries, for the default distance and shorter ones, over an iterator
// that only goes forward, and for string keys, whose bytes are fetched ahead; and the visitor
// comes back with its state.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <forward_list>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/detail/bulk_pipeline.hpp"

namespace {

using bloomkit::detail::key_bytes_distance;
using bloomkit::detail::pipeline_distance;
using bloomkit::detail::pipeline_group;
using bloomkit::detail::pipelined;

/// What one run of the pipeline did, in order.
struct trace {
    std::vector<std::size_t> located, prefetched, visited;
    std::vector<std::size_t> group_sizes;
    std::vector<std::size_t> located_before_visit;  // per visited key: keys located by then
};

template <std::size_t Distance = pipeline_distance, std::size_t Group = pipeline_group, class Range>
trace run(const Range& keys) {
    trace t;
    pipelined<Distance, Group>(
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

template <std::size_t Distance, std::size_t Group = pipeline_group>
void expect_every_key_once_in_order() {
    // Empty, shorter than the ring, the ring exactly, and past it by every remainder of a group,
    // over several turns of the ring.
    for (std::size_t n = 0; n <= 3 * Distance + 2 * Group + 1; ++n) {
        SCOPED_TRACE(n);
        const std::vector<std::size_t> keys = first_keys(n);
        const trace t = run<Distance, Group>(keys);
        EXPECT_EQ(t.located, keys);
        EXPECT_EQ(t.prefetched, keys);
        EXPECT_EQ(t.visited, keys);
        for (const std::size_t size : t.group_sizes) {
            EXPECT_GE(size, 1U);
            EXPECT_LE(size, Group);
        }
    }
}

template <std::size_t Distance, std::size_t Group = pipeline_group>
void expect_visits_the_distance_behind() {
    for (const std::size_t n :
         {std::size_t{1}, Group, Distance - 1, Distance, Distance + 1, 2 * Distance + Group - 1, 5 * Distance + 3}) {
        SCOPED_TRACE(n);
        const trace t = run<Distance, Group>(first_keys(n));
        ASSERT_EQ(t.located_before_visit.size(), n);
        for (std::size_t i = 0; i < n; ++i) {
            // A group is visited once the key Distance past its first is located (every key,
            // near the end): the prefetch of each of its keys had a ring's worth of hashing.
            const std::size_t group_start = i - i % Group;
            EXPECT_EQ(t.located_before_visit[i], std::min(n, group_start + Distance)) << "key " << i;
        }
    }
}

TEST(BulkPipeline, EveryKeyIsLocatedPrefetchedAndVisitedOnceInOrder) {
    expect_every_key_once_in_order<pipeline_distance>();
    expect_every_key_once_in_order<32>();
    expect_every_key_once_in_order<pipeline_group>();        // a ring of one group
    expect_every_key_once_in_order<pipeline_distance, 8>();  // a kind's own group size (cuckoo's)
    expect_every_key_once_in_order<8, 8>();
    expect_every_key_once_in_order<16, 1>();
}

TEST(BulkPipeline, AKeyIsVisitedOnlyOnceTheDistanceAheadOfItIsLocated) {
    expect_visits_the_distance_behind<pipeline_distance>();
    expect_visits_the_distance_behind<32>();
    expect_visits_the_distance_behind<pipeline_group>();
    expect_visits_the_distance_behind<pipeline_distance, 8>();
    expect_visits_the_distance_behind<16, 1>();
}

TEST(BulkPipeline, ReturnsItsVisitorWithTheStateItGathered) {
    // As std::for_each returns its function: a visitor held by value (the bulk queries' consumer
    // of answers) comes back with everything it saw, for a sized range and a forward-only one.
    struct summing {
        std::size_t visits = 0, sum = 0;
        void operator()(std::span<const std::size_t> group) {
            for (const std::size_t key : group) sum += key;
            visits += group.size();
        }
    };
    const auto locate = [](std::size_t key) { return key; };
    const auto ignore = [](std::size_t) {};
    for (const std::size_t n : {std::size_t{0}, pipeline_group - 1, pipeline_distance, 3 * pipeline_distance + 7}) {
        SCOPED_TRACE(n);
        const std::vector<std::size_t> keys = first_keys(n);
        const std::forward_list<std::size_t> listed(keys.begin(), keys.end());
        const std::size_t expected = n * (n == 0 ? 0 : n - 1) / 2;
        const summing sized = pipelined(keys.begin(), keys.end(), locate, ignore, summing{});
        EXPECT_EQ(sized.visits, n);
        EXPECT_EQ(sized.sum, expected);
        const summing forward = pipelined(listed.begin(), listed.end(), locate, ignore, summing{});
        EXPECT_EQ(forward.visits, n);
        EXPECT_EQ(forward.sum, expected);
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

TEST(BulkPipeline, StringKeysWhoseBytesAreFetchedAheadAreVisitedInOrderToo) {
    // String keys take a second iterator ahead of the one hashed (to fetch their bytes early):
    // it must change nothing of what is located and visited, with a size or without one.
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, key_bytes_distance - 1, key_bytes_distance,
                                key_bytes_distance + 1, pipeline_distance + key_bytes_distance + 3}) {
        SCOPED_TRACE(n);
        std::vector<std::string> keys;
        for (std::size_t i = 0; i < n; ++i) keys.push_back("https://example.com/" + std::to_string(i));
        const std::forward_list<std::string> listed(keys.begin(), keys.end());
        const auto visited_keys = [](const auto& range) {
            std::vector<std::string> located, visited;
            pipelined(
                range.begin(), range.end(),
                [&](const std::string& key) {
                    located.push_back(key);
                    return located.size() - 1;
                },
                [](std::size_t) {},
                [&](std::span<const std::size_t> group) {
                    for (const std::size_t at : group) visited.push_back(located[at]);
                });
            EXPECT_EQ(located, visited);
            return visited;
        };
        EXPECT_EQ(visited_keys(keys), keys);
        EXPECT_EQ(visited_keys(listed), keys);
    }
}

}  // namespace
