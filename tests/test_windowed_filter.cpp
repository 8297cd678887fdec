// Tests of bloomkit/windowed_filter.hpp: no false negative for a key looked up at any time inside
// its window (a property test on a random clock), forgetting by W(1 + 1/G), the FPR at steady
// state within the target, clocks that run back (the newest time holds), bulk = single, union of
// rings at different times, the generation arithmetic, and bad parameters. The bkf suite
// (tests/io/) covers the file: round trips, maps, damage and forged rings.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/file.hpp"
#include "bloomkit/windowed_filter.hpp"
#include "key_sets.hpp"

namespace {

using namespace bloomkit;
using namespace std::chrono_literals;
using bloomkit_test::random_numbers;
using time_point = windowed_filter::time_point;

const time_point base = std::chrono::sys_days(std::chrono::year(2030) / 6 / 1);

// --- The arithmetic ----------------------------------------------------------------------------

TEST(WindowArithmetic, GenerationsAreCountedFromTheEpochInStepsOfWOverG) {
    const window_parameters p{1000, 0.01, 24h, 4};
    EXPECT_EQ(window_generation_at(p, 0), 0U);
    EXPECT_EQ(window_generation_at(p, 6 * 3600 * 1000 - 1), 0U);
    EXPECT_EQ(window_generation_at(p, 6 * 3600 * 1000), 1U);
    EXPECT_EQ(window_generation_start(p, 1), 6 * 3600 * 1000);
    const window_parameters sevenths{1000, 0.01, 1000ms, 7};  // W/G = 142.857 ms: boundaries round up
    for (std::uint64_t e = 0; e < 50; ++e) {
        const std::int64_t start = window_generation_start(sevenths, e);
        EXPECT_EQ(window_generation_at(sevenths, start), e);
        if (start > 0) {
            EXPECT_EQ(window_generation_at(sevenths, start - 1), e - 1);
        }
    }
    EXPECT_THROW((void)window_generation_at(p, -1), invalid_argument);
}

TEST(WindowArithmetic, EachGenerationTargetsItsShareOfTheRate) {
    const windowed_plan plan = plan_windowed_bloom({1'000'000, 0.01, 24h, 4});
    EXPECT_EQ(plan.filters, 5U);
    EXPECT_EQ(plan.generation.capacity, 250'000U);
    EXPECT_NEAR(1 - std::pow(1 - plan.generation.fpr, 5), 0.01, 1e-12);
    EXPECT_LE(plan.fpr, 0.01);
    EXPECT_EQ(plan_windowed_bloom({10, 0.01, 1h, 3}).generation.capacity, 4U);  // ⌈10/3⌉
}

TEST(WindowedFilter, BadParametersAreRefusedWithTheirReason) {
    const auto refuses = [](auto make, const std::string& part) {
        try {
            make();
            ADD_FAILURE() << "accepted; expected a refusal mentioning " << part;
        } catch (const invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
        }
    };
    refuses([] { windowed_filter(0, 0.01, 1h); }, "at least 1 key");
    refuses([] { windowed_filter(100, 1.0, 1h); }, "strictly between 0 and 1");
    refuses([] { windowed_filter(100, 0.01, 0ms); }, "at least 1 millisecond");
    refuses([] { windowed_filter(100, 0.01, 1h, {.generations = 0}); }, "1 to 64 generations");
    refuses([] { windowed_filter(100, 0.01, 1h, {.generations = 65}); }, "not 65");
    windowed_filter f(100, 0.01, 1h);
    refuses([&] { f.insert(1, time_point(-1ms)); }, "1970");
}

// --- Remembering and forgetting -----------------------------------------------------------------

TEST(WindowedFilter, NoKeyIsLostInsideItsWindowOnARandomClock) {
    for (const std::uint32_t g : {1U, 2U, 4U, 7U}) {
        SCOPED_TRACE("G = " + std::to_string(g));
        const auto window = 10'000ms;
        windowed_filter f(2000, 0.01, window, {.generations = g});
        std::mt19937_64 rng(g);
        std::vector<std::pair<std::uint64_t, time_point>> inserted;  // key, when
        time_point now = base + std::chrono::milliseconds(rng() % 100'000);
        std::uint64_t next_key = 1, checked = 0;
        for (int step = 0; step < 3000; ++step) {
            now += std::chrono::milliseconds(rng() % 40);  // sometimes 0, sometimes across a generation
            if (rng() % 500 == 0) now += std::chrono::milliseconds(rng() % 30'000);  // a long pause
            if (rng() % 3 != 0) {
                f.insert(next_key, now);
                inserted.emplace_back(next_key++, now);
            }
            // Every key inserted within the window is found: in one call and in bulk.
            std::vector<std::uint64_t> due;
            for (auto it = inserted.rbegin(); it != inserted.rend() && now - it->second <= window; ++it)
                due.push_back(it->first);
            for (const std::uint64_t key : due) ASSERT_TRUE(f.contains(key, now)) << "key " << key << " lost";
            f.set_clock([now] { return now; });
            std::vector<char> answers(due.size());
            f.contains(due.begin(), due.end(), answers.begin());
            ASSERT_EQ(std::count(answers.begin(), answers.end(), 1), static_cast<long>(due.size()));
            checked += due.size();
        }
        EXPECT_GT(checked, 100'000U);
    }
}

TEST(WindowedFilter, KeysAreGoneByWTimesOnePlusOneOverG) {
    const auto window = 24h;
    windowed_filter f(10'000, 0.001, window, {.generations = 4});
    const std::vector<std::uint64_t> keys = random_numbers(10'000, 1);
    const time_point t0 = base + 5h + 17min;
    for (const std::uint64_t k : keys) f.insert(k, t0);
    const auto found_at = [&](time_point t) {
        std::size_t found = 0;
        for (const std::uint64_t k : keys) found += f.contains(k, t) ? 1 : 0;
        return found;
    };
    EXPECT_EQ(found_at(t0 + window), keys.size()) << "all remembered for W";
    EXPECT_LE(found_at(t0 + window + window / 4), 30U) << "gone by W(1 + 1/G): only false positives left";
    // Once time reaches there, the ring has cleared them.
    f.advance(t0 + window + window / 4);
    EXPECT_EQ(f.inserted_count(), 0U);
}

TEST(WindowedFilter, AKeySeenAgainIsRememberedFromItsLatestInsert) {
    windowed_filter f(100, 0.01, 1h, {.generations = 4});
    EXPECT_TRUE(f.insert(7, base));
    EXPECT_FALSE(f.insert(7, base + 50min)) << "held by a live generation: not new";
    EXPECT_TRUE(f.contains(7, base + 50min + 59min)) << "set again in the current generation";
}

TEST(WindowedFilter, TheFprAtSteadyStateMeetsTheTarget) {
    const std::uint64_t n = 40'000;
    const double p = 0.01;
    windowed_filter f(n, p, 1h, {.generations = 4});
    // n keys per hour, evenly, for three hours: every generation holds its share.
    const std::vector<std::uint64_t> keys = random_numbers(3 * n, 2);
    for (std::size_t i = 0; i < keys.size(); ++i)
        f.insert(keys[i], base + std::chrono::milliseconds(static_cast<std::int64_t>(i) * 3'600'000 /
                                                           static_cast<std::int64_t>(n)));
    const time_point end = base + 3h;
    f.set_clock([end] { return end; });
    const std::vector<std::uint64_t> absent = random_numbers(400'000, 3);
    const double measured =
        static_cast<double>(f.count_contained(absent.begin(), absent.end())) / static_cast<double>(absent.size());
    EXPECT_LE(measured, p * 1.1) << "measured " << measured;
    EXPECT_LE(f.current_fpr(), p);
    EXPECT_GT(measured, p / 4) << "sized for the target, not far above it";
}

TEST(WindowedFilter, AClockThatRunsBackCountsAsTheNewestTimeAndLosesNothing) {
    windowed_filter f(1000, 0.01, 1h, {.generations = 4});
    f.insert(1, base + 3h);
    EXPECT_TRUE(f.insert(2, base));  // an hour-old log line, replayed late
    EXPECT_EQ(f.newest_generation(), f.generation_at(base + 3h));
    EXPECT_TRUE(f.contains(2, base + 3h + 59min)) << "remembered from the newest time";
    EXPECT_TRUE(f.contains(1, base)) << "a lookup in the past sees the newest generations";
}

TEST(WindowedFilter, TheSystemClockIsTheDefaultAndASetClockReplaces) {
    windowed_filter f(100, 0.01, 1h);
    const time_point before = windowed_filter::clock_type::now();
    EXPECT_GE(f.now(), before);
    f.set_clock([] { return base; });
    EXPECT_EQ(f.now(), base);
    f.insert("x");
    EXPECT_EQ(f.newest_generation(), f.generation_at(base));
    f.set_clock({});
    EXPECT_GE(f.now(), before);
}

// --- Bulk, union, files ----------------------------------------------------------------------------

TEST(WindowedFilter, BulkCallsAnswerAsSingleOnes) {
    windowed_filter single(5000, 0.01, 1h), bulk(5000, 0.01, 1h);
    const std::vector<std::uint64_t> keys = random_numbers(20'000, 4);
    for (int hour = 0; hour < 3; ++hour) {
        const time_point t = base + std::chrono::minutes(20 * hour);
        single.set_clock([t] { return t; });
        bulk.set_clock([t] { return t; });
        const auto first = keys.begin() + hour * 5000, last = first + 8000;  // overlapping the last batch
        std::vector<char> one, many(8000);
        for (auto it = first; it != last; ++it) one.push_back(single.insert(*it) ? 1 : 0);
        bulk.insert(first, last, many.begin());
        EXPECT_EQ(one, many);
        EXPECT_TRUE(single == bulk);
        std::vector<char> looked(keys.size());
        bulk.contains(keys.begin(), keys.end(), looked.begin());
        for (std::size_t i = 0; i < keys.size(); i += 7) ASSERT_EQ(looked[i] != 0, single.contains(keys[i]));
    }
}

TEST(WindowedFilter, AUnionHoldsTheLiveKeysOfBothAtTheNewerTime) {
    windowed_filter a(1000, 0.01, 1h), b(1000, 0.01, 1h);
    a.insert(1, base);
    a.insert(2, base + 30min);
    b.insert(3, base + 40min);
    b.insert(4, base + 80min);  // b's newest: 1 (at base) is out of b's window there
    windowed_filter both = a | b;
    EXPECT_EQ(both.newest_generation(), b.newest_generation());
    const time_point t = base + 80min;
    EXPECT_FALSE(both.contains(1, t));
    for (const int key : {2, 3, 4}) EXPECT_TRUE(both.contains(key, t)) << key;
    EXPECT_THROW(a |= windowed_filter(1000, 0.01, 2h), incompatible_filters);
    EXPECT_THROW(a |= windowed_filter(1000, 0.01, 1h, {.generations = 3}), incompatible_filters);
}

TEST(WindowedFilter, ALoadedFilterGoesOnForgettingOnItsOwnClock) {
    windowed_filter f(1000, 0.01, 1h);
    f.insert(std::string("seen"), base);
    windowed_filter loaded = from_bytes<windowed_filter>(to_bytes(f));
    EXPECT_TRUE(loaded == f);
    EXPECT_TRUE(loaded.contains(std::string("seen"), base + 1h));
    EXPECT_FALSE(loaded.contains(std::string("seen"), base + 2h));
    loaded.set_clock([] { return base + 3h; });
    EXPECT_FALSE(loaded.contains(std::string("seen")));
}

TEST(WindowedFilter, ClearForgetsEveryGeneration) {
    windowed_filter f(1000, 0.01, 1h);
    f.insert(1, base);
    f.clear();
    EXPECT_EQ(f.inserted_count(), 0U);
    EXPECT_FALSE(f.contains(1, base));
    EXPECT_EQ(std::count(f.slot_generations().begin(), f.slot_generations().end(), windowed_filter::no_generation), 5);
}

}  // namespace
