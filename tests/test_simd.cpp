// The SIMD backends answer and insert exactly as the scalar code: for every layout, every
// backend this CPU has, single keys and bulk, and probe counts that fill a SIMD step, leave it
// part-empty, or need several.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/detail/bits.hpp"
#include "bloomkit/simd.hpp"
#include "layout_types.hpp"

namespace {

using namespace bloomkit;

/// Restores the detected backend when a test ends.
struct simd_guard {
    ~simd_guard() { limit_simd_level(simd_level::avx512); }
};

std::vector<simd_level> levels_of_this_cpu() {
    std::vector<simd_level> levels{simd_level::scalar};
    if (supported_simd_level() >= simd_level::avx2) levels.push_back(simd_level::avx2);
    if (supported_simd_level() >= simd_level::avx512) levels.push_back(simd_level::avx512);
    return levels;
}

/// The k each backend is checked at: split block's fixed 8; for the block layouts every k up
/// to 17 (block_layout unrolls a single insert's and a single lookup's probes for each k ≤ 16, and one SIMD step
/// serves k ≤ 8 or 16), and two that need several steps.
std::vector<std::uint32_t> hash_counts_to_check(bool split) {
    if (split) return {8};
    std::vector<std::uint32_t> ks{33, 64};
    for (std::uint32_t k = 1; k <= 17; ++k) ks.push_back(k);
    return ks;
}

/// A filter made now, at the SIMD level now in use, with the geometry, hash and bits of `f`.
template <class Filter>
Filter made_again(const Filter& f) {
    typename Filter::storage_type words(f.words().size());
    std::copy(f.words().begin(), f.words().end(), words.mutable_data());
    return Filter(f.geometry(), f.hash_function(), std::move(words));
}

template <class Filter>
class SimdBackends : public testing::Test {};
TYPED_TEST_SUITE(SimdBackends, bloomkit_test::bloom_layouts, bloomkit_test::layout_name);

TYPED_TEST(SimdBackends, AnswerExactlyAsTheScalarCode) {
    const simd_guard guard;
    std::mt19937_64 rng(17);
    const bool split = TypeParam::layout() == bloom_layout::split_block;
    for (const std::uint32_t k : hash_counts_to_check(split)) {
        // Filled until about half of all queries say "maybe" (fill^k = 1/2): answers are an even
        // mix of yes and no, so a wrong lane shows.
        const std::uint64_t bits = 512 * (4 + rng() % 64);
        TypeParam filter(bloom_geometry{bits, k}, {.seed = rng()});
        const double fill = std::pow(0.5, 1.0 / (split ? 8 : k));
        const auto keys = static_cast<std::uint64_t>(-static_cast<double>(bits) * std::log1p(-fill) / (split ? 8 : k));
        for (std::uint64_t i = 0; i < keys; ++i) filter.insert(rng());
        std::vector<std::uint64_t> probes(5000);
        for (auto& p : probes) p = rng();

        std::vector<bool> expected;
        for (const auto p : probes) expected.push_back(filter.contains(p, concurrent));  // the scalar path
        std::size_t yes = 0;
        for (const bool answer : expected) yes += answer ? 1 : 0;
        ASSERT_GT(yes, 0U);
        ASSERT_LT(yes, probes.size());
        for (const simd_level level : levels_of_this_cpu()) {
            SCOPED_TRACE(testing::Message() << "k=" << k << " backend=" << to_string(level));
            ASSERT_EQ(limit_simd_level(level), level);
            std::vector<bool> answers;
            filter.contains(probes.begin(), probes.end(), std::back_inserter(answers));
            EXPECT_EQ(answers, expected);
            EXPECT_EQ(filter.count_contained(probes.begin(), probes.end()), yes);
            // Single keys take the SIMD step too: a filter's single lookups choose theirs when it
            // is made (bloom_filter.hpp, plain lookups), so one made at this level answers them
            // by this level's, and the filter made before by the one it chose then.
            const TypeParam made_here = made_again(filter);
            std::vector<bool> single_answers, made_here_answers;
            for (const auto p : probes) {
                single_answers.push_back(filter.contains(p));
                made_here_answers.push_back(made_here.contains(p));
            }
            EXPECT_EQ(single_answers, expected);
            EXPECT_EQ(made_here_answers, expected);
        }
    }
}

TYPED_TEST(SimdBackends, InsertSetsExactlyTheScalarCodesBits) {
    const simd_guard guard;
    std::mt19937_64 rng(29);
    const bool split = TypeParam::layout() == bloom_layout::split_block;
    for (const std::uint32_t k : hash_counts_to_check(split)) {
        const std::uint64_t bits = 512 * (4 + rng() % 64);
        const bloom_geometry geometry{bits, k};
        const filter_options options{.seed = rng()};
        // Enough keys to fill about half the bits, then a third of them again: the repeats set
        // nothing new, so the count of keys that set a bit is not simply the number of keys.
        std::vector<std::uint64_t> keys(bits / (2 * (split ? 8 : k)) + 1);
        for (auto& key : keys) key = rng();
        const std::vector<std::uint64_t> repeats(keys.begin(),
                                                 keys.begin() + static_cast<std::ptrdiff_t>(keys.size() / 3));
        keys.insert(keys.end(), repeats.begin(), repeats.end());

        TypeParam expected(geometry, options);
        std::uint64_t expected_added = 0;
        for (const auto key : keys) expected_added += expected.insert(key, concurrent) ? 1 : 0;  // the scalar path
        ASSERT_LT(expected_added, keys.size());
        for (const simd_level level : levels_of_this_cpu()) {
            SCOPED_TRACE(testing::Message() << "k=" << k << " backend=" << to_string(level));
            ASSERT_EQ(limit_simd_level(level), level);
            TypeParam filter(geometry, options);
            EXPECT_EQ(filter.insert(keys.begin(), keys.end()), expected_added);
            EXPECT_TRUE(filter == expected);
            TypeParam one_at_a_time(geometry, options);  // single keys take the SIMD kernel too
            std::uint64_t added = 0;
            for (const auto key : keys) added += one_at_a_time.insert(key) ? 1 : 0;
            EXPECT_EQ(added, expected_added);
            EXPECT_TRUE(one_at_a_time == expected);
        }
    }
}

TEST(Simd, LimitNeverExceedsTheCpu) {
    const simd_guard guard;
    EXPECT_EQ(limit_simd_level(simd_level::scalar), simd_level::scalar);
    EXPECT_EQ(active_simd_level(), simd_level::scalar);
    EXPECT_LE(limit_simd_level(simd_level::avx512), supported_simd_level());
}

TEST(Simd, SingleCallsReadTheLevelInUse) {
    // Single calls off a filter's plain path read the level as a plain load
    // (detail::decided_simd_level), which a filter's constructor has decided: it follows every
    // change the cap makes.
    const simd_guard guard;
    const bloomkit::block_bloom_filter filter(bloom_geometry{512 * 4, 6});
    EXPECT_EQ(detail::decided_simd_level(), static_cast<int>(active_simd_level()));
    for (const simd_level level : levels_of_this_cpu()) {
        ASSERT_EQ(limit_simd_level(level), level);
        EXPECT_EQ(detail::decided_simd_level(), static_cast<int>(level));
        EXPECT_FALSE(filter.contains(std::uint64_t{7}));
    }
}

}  // namespace

TEST(Simd, CountingOnesAgreesWithAPlainCount) {
    // detail::count_ones uses the POPCNT instruction where the CPU has it: the same count as
    // std::popcount byte by byte, at any alignment and length.
    std::mt19937_64 random(5);
    std::vector<unsigned char> bytes(4099);
    for (unsigned char& byte : bytes) byte = static_cast<unsigned char>(random());
    for (const std::size_t offset : {0, 1, 3, 8}) {
        for (const std::size_t size : {0, 1, 7, 8, 9, 64, 4000}) {
            std::uint64_t expected = 0;
            for (std::size_t i = 0; i < size; ++i)
                expected += static_cast<std::uint64_t>(std::popcount(bytes[offset + i]));
            EXPECT_EQ(bloomkit::detail::count_ones(bytes.data() + offset, size), expected) << offset << " + " << size;
        }
    }
}

TEST(Simd, CountingFiltersCountAndAnswerExactlyAsTheScalarCode) {
    // detail/simd/counting_block_avx*.hpp: inserts (saturating at 15), lookups and counts
    // agree with the scalar code for probe counts that fill 8 or 16 lanes or leave some idle,
    // and past each backend's one step (the scalar code then); every inserted key is found.
    const simd_guard guard;
    std::mt19937_64 rng(41);
    for (const std::uint32_t k : {1U, 3U, 6U, 8U, 9U, 16U, 17U}) {
        const bloomkit::counting_geometry geometry{128 * (4 + rng() % 32), k};
        const filter_options options{.seed = rng()};
        std::vector<std::uint64_t> keys(geometry.counters / (3 * k) + 1);
        for (auto& key : keys) key = rng();
        for (int i = 0; i < 20; ++i) keys.push_back(keys[0]);  // one key's counters saturate
        std::vector<std::uint64_t> probes(4000);
        for (auto& p : probes) p = rng();

        ASSERT_EQ(limit_simd_level(simd_level::scalar), simd_level::scalar);
        bloomkit::counting_bloom_filter expected(geometry, options);
        std::uint64_t expected_added = 0;
        for (const auto key : keys) expected_added += expected.insert(key) ? 1 : 0;
        std::vector<bool> expected_answers;
        for (const auto p : probes) expected_answers.push_back(expected.contains(p));
        for (const simd_level level : levels_of_this_cpu()) {
            SCOPED_TRACE(testing::Message() << "k=" << k << " backend=" << to_string(level));
            ASSERT_EQ(limit_simd_level(level), level);
            bloomkit::counting_bloom_filter filter(geometry, options);
            std::uint64_t added = 0;
            for (const auto key : keys) added += filter.insert(key) ? 1 : 0;
            EXPECT_EQ(added, expected_added);
            EXPECT_TRUE(filter == expected);
            EXPECT_EQ(filter.count(keys[0]), 15U);
            std::vector<bool> answers;
            for (const auto p : probes) answers.push_back(filter.contains(p));
            EXPECT_EQ(answers, expected_answers);
            for (const auto key : keys) ASSERT_TRUE(filter.contains(key)) << key;
            bloomkit::counting_bloom_filter bulk(geometry, options);
            EXPECT_EQ(bulk.insert(keys.begin(), keys.end()), expected_added);
            EXPECT_TRUE(bulk == expected);
        }
    }
}
