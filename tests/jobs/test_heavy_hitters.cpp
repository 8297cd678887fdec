// Tests of Space-Saving (jobs/heavy_hitters.hpp): exact counts while there are counters for
// every distinct line; with fewer, every count within its error of the truth (count - error <=
// true count <= count), every error within error_bound(), and every line more frequent than the
// bound found; top(k) by count, ties by bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "jobs/heavy_hitters.hpp"

namespace {

using bloomkit::jobs::heavy_hitters;
using truth = std::map<std::string, std::uint64_t>;

/// Checks every counter against the true counts of the `seen` lines.
void expect_within_bounds(const heavy_hitters& hitters, const truth& counts, std::uint64_t seen) {
    EXPECT_EQ(hitters.lines(), seen);
    const auto all = hitters.top(counts.size() + 1);
    std::uint64_t total = 0;
    for (const auto& c : all) {
        const std::uint64_t real = counts.contains(c.line) ? counts.at(c.line) : 0;
        EXPECT_LE(c.count - c.error, real) << c.line;
        EXPECT_LE(real, c.count) << c.line;
        EXPECT_LE(c.error, hitters.error_bound()) << c.line;
        EXPECT_LE(c.error, c.count);
        total += c.count;
    }
    EXPECT_EQ(total, seen);  // every line counted once, by some counter
    // Every line seen more often than the bound is watched.
    for (const auto& entry : counts) {  // not a structured binding: Clang 14 cannot capture one
        const std::string& line = entry.first;
        if (entry.second <= hitters.error_bound()) continue;
        EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const auto& c) { return c.line == line; }))
            << line << " seen " << entry.second << " times, bound " << hitters.error_bound();
    }
}

TEST(HeavyHitters, ExactWhileThereAreCountersForEveryLine) {
    for (const std::size_t counters : {std::size_t{50}, std::size_t{64}}) {  // as many as the lines, or more
        SCOPED_TRACE(std::to_string(counters) + " counters");
        std::mt19937_64 random(1);
        heavy_hitters hitters(counters);
        truth counts;
        for (int i = 0; i < 20'000; ++i) {
            const std::string line = "line " + std::to_string(random() % 3 == 0 ? random() % 5 : random() % 50);
            hitters.add(line);
            ++counts[line];
        }
        ASSERT_EQ(counts.size(), 50U);
        EXPECT_EQ(hitters.lines(), 20'000U);
        // With a counter to spare no line was ever replaced, and the bound says so; with every
        // counter taken it is N / m (loose: nothing was replaced here either).
        EXPECT_EQ(hitters.error_bound(), counters > 50 ? 0U : 20'000U / 50);
        const auto all = hitters.top(1000);  // more than there are: all of them
        ASSERT_EQ(all.size(), 50U);
        for (std::size_t i = 0; i < all.size(); ++i) {
            EXPECT_EQ(all[i].count, counts.at(all[i].line)) << all[i].line;
            EXPECT_EQ(all[i].error, 0U);
            if (i > 0) {
                EXPECT_TRUE(all[i - 1].count > all[i].count ||
                            (all[i - 1].count == all[i].count && all[i - 1].line < all[i].line));
            }
        }
    }
}

TEST(HeavyHitters, TopBreaksTiesByBytes) {
    heavy_hitters hitters(10);
    for (const char* line : {"b", "\xff", "a", "B", "", "b", "\xff", "a", "B", "", "z", "z", "z"}) hitters.add(line);
    const auto best = hitters.top(4);
    ASSERT_EQ(best.size(), 4U);
    EXPECT_EQ(best[0].line, "z");
    EXPECT_EQ(best[0].count, 3U);
    EXPECT_EQ(best[1].line, "");
    EXPECT_EQ(best[2].line, "B");
    EXPECT_EQ(best[3].line, "a");
    EXPECT_EQ(hitters.top(0).size(), 0U);
    const auto all = hitters.top(100);
    ASSERT_EQ(all.size(), 6U);
    EXPECT_EQ(all[4].line, "b");
    EXPECT_EQ(all[5].line, "\xff");  // bytes as unsigned
}

TEST(HeavyHitters, FewCountersFindTheHeavyLinesWithinTheBound) {
    for (const std::size_t counters : {std::size_t{10}, std::size_t{50}, std::size_t{200}}) {
        SCOPED_TRACE(std::to_string(counters) + " counters");
        std::mt19937_64 random(counters);
        heavy_hitters hitters(counters);
        truth counts;
        constexpr std::uint64_t n = 100'000;
        for (std::uint64_t i = 0; i < n; ++i) {
            // Two heavy lines (20% and 10%), the rest over 5000 lines.
            const std::uint64_t r = random() % 10;
            const std::string line = r < 2 ? "heavy" : r < 3 ? "second" : "line " + std::to_string(random() % 5000);
            hitters.add(line);
            ++counts[line];
        }
        EXPECT_EQ(hitters.error_bound(), n / counters);
        expect_within_bounds(hitters, counts, n);
        const auto best = hitters.top(2);
        ASSERT_EQ(best.size(), 2U);
        EXPECT_EQ(best[0].line, "heavy");
        EXPECT_EQ(best[1].line, "second");
        EXPECT_GE(best[0].count, counts.at("heavy"));
        EXPECT_LE(best[0].count - best[0].error, counts.at("heavy"));
        EXPECT_EQ(hitters.top(counters + 5).size(), counters);
    }
}

TEST(HeavyHitters, AnAdversarialOrderStaysWithinTheBound) {
    // Every line new: each replaces the least counted, inheriting its count.
    heavy_hitters hitters(8);
    truth counts;
    std::uint64_t seen = 0;
    for (int round = 0; round < 200; ++round) {
        for (int i = 0; i < 9; ++i) {
            const std::string line = std::to_string(round * 9 + i);
            hitters.add(line);
            ++counts[line];
            ++seen;
        }
        for (int i = 0; i < 2; ++i) {  // and a line that keeps coming: 2 in 11, more than 1 in 8
            hitters.add("steady");
            ++counts["steady"];
            ++seen;
        }
    }
    expect_within_bounds(hitters, counts, seen);
    EXPECT_GT(counts.at("steady"), hitters.error_bound());
    EXPECT_EQ(hitters.top(1).front().line, "steady");
}

TEST(HeavyHitters, ZeroCountersIsOne) {
    heavy_hitters hitters(0);
    hitters.add("a");
    EXPECT_EQ(hitters.error_bound(), 1U);
    hitters.add("b");
    const auto best = hitters.top(5);
    ASSERT_EQ(best.size(), 1U);
    EXPECT_EQ(best[0].line, "b");
    EXPECT_EQ(best[0].count, 2U);
    EXPECT_EQ(best[0].error, 1U);
    EXPECT_EQ(hitters.error_bound(), 2U);
    EXPECT_EQ(hitters.lines(), 2U);
}

}  // namespace
