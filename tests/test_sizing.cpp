// Tests of bloomkit/sizing.hpp: the published figures, the plan, the estimators, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bloomkit/sizing.hpp"

namespace {

using namespace bloomkit;

double best_fpr_at(bloom_layout layout, double bits_per_key) {
    const double n = 1e6;
    double best = 1;
    for (std::uint32_t k = 1; k <= 30; ++k)
        best = std::min(best, expected_fpr(layout, n, {static_cast<std::uint64_t>(bits_per_key * n), k}));
    return best;
}

TEST(Sizing, ClassicFormulaMatchesTheTextbook) {
    // m = -n ln p / (ln 2)^2: 9.585 bits/key at 1%, 14.38 at 0.1% (k = 7 and 10).
    const bloom_plan one = plan_bloom(bloom_layout::classic, 1e6, 0.01);
    EXPECT_NEAR(one.bits_per_key(1e6), 9.585, 0.02);
    EXPECT_EQ(one.geometry.hashes, 7U);
    const bloom_plan tenth = plan_bloom(bloom_layout::classic, 1e6, 0.001);
    EXPECT_NEAR(tenth.bits_per_key(1e6), 14.38, 0.02);
    EXPECT_EQ(tenth.geometry.hashes, 10U);
}

TEST(Sizing, FprAtEqualBitsPerKeyMatchesPublishedTable) {
    // specs/filters.md, from the mean-fill model; bloomkit's exact blocked model is a few
    // percent (relative) higher for the 512-bit block, hence the wider tolerance there.
    struct row {
        double bits, classic, block, split;
    };
    for (const row r : {row{8, 2.16e-2, 2.31e-2, 3.32e-2}, row{10, 0.82e-2, 0.96e-2, 1.26e-2},
                        row{16, 0.046e-2, 0.083e-2, 0.13e-2}, row{24, 0.001e-2, 0.005e-2, 0.016e-2}}) {
        SCOPED_TRACE(r.bits);
        EXPECT_NEAR(best_fpr_at(bloom_layout::classic, r.bits) / r.classic, 1.0, 0.05);
        EXPECT_NEAR(best_fpr_at(bloom_layout::block, r.bits) / r.block, 1.0, 0.08);
        EXPECT_NEAR(best_fpr_at(bloom_layout::split_block, r.bits) / r.split, 1.0, 0.05);
    }
}

TEST(Sizing, SplitBlockMatchesParquetSizingTable) {
    // Parquet BloomFilter.md: bits per key -> FPR.
    for (const auto& [bits, fpr] : {std::pair{6.0, 0.10}, {10.5, 0.01}, {16.9, 0.001}, {26.4, 0.0001}, {41.0, 0.00001}})
        EXPECT_NEAR(split_block_fpr(1e6, bits * 1e6) / fpr, 1.0, 0.03) << bits;
}

TEST(Sizing, ExactBlockedModelExceedsTheMeanFillModel) {
    // E[fill^k] > E[fill]^k: the exact model is strictly above the mean-fill one, by a little.
    const double lambda = 512.0 / 10;  // 10 bits per key
    const double exact = detail::blocked_fpr_exact(lambda, 7, 512);
    const double mean_fill = detail::blocked_fpr_mean_fill(lambda, 7, 512);
    EXPECT_GT(exact, mean_fill);
    EXPECT_LT(exact, mean_fill * 1.05);
}

TEST(Sizing, PlansMeetTheTargetWithFewBitsToSpare) {
    for (const auto layout : {bloom_layout::classic, bloom_layout::block, bloom_layout::split_block}) {
        for (const double n : {1.0, 10.0, 1e3, 1e6, 1e9}) {
            for (const double p : {0.999, 0.9, 0.3, 0.01, 0.001, 1e-6}) {  // 0.999: far from the textbook formula
                SCOPED_TRACE(testing::Message() << to_string(layout) << " n=" << n << " p=" << p);
                const bloom_plan plan = plan_bloom(layout, n, p);
                EXPECT_LE(plan.fpr, p);
                EXPECT_DOUBLE_EQ(plan.fpr, expected_fpr(layout, n, plan.geometry));
                EXPECT_EQ(plan.geometry.bits % std::max<std::uint64_t>(block_bits(layout), 1), 0U);
                // One block (or bit) fewer would miss the target: the plan is minimal.
                const std::uint64_t step = std::max<std::uint64_t>(block_bits(layout), 1);
                if (plan.geometry.bits > step) {
                    EXPECT_GT(expected_fpr(layout, n, {plan.geometry.bits - step, plan.geometry.hashes}), p);
                }
            }
        }
    }
}

TEST(Sizing, FiftyBillionUrlsAtOnePercentNeedAboutSixtyGigabytes) {
    const bloom_plan plan = plan_bloom(bloom_layout::classic, 50e9, 0.01);
    EXPECT_NEAR(static_cast<double>(plan.bytes()) / 1e9, 60.0, 0.5);
    const bloom_plan blocked = plan_bloom(bloom_layout::block, 50e9, 0.01);
    EXPECT_GT(blocked.bytes(), plan.bytes());
    EXPECT_LT(static_cast<double>(blocked.bytes()), static_cast<double>(plan.bytes()) * 1.06);
}

TEST(Sizing, AbsurdParametersAreRejected) {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    constexpr double inf = std::numeric_limits<double>::infinity();
    for (const double p : {0.0, 1.0, -0.5, 1.5, nan, inf})
        EXPECT_THROW((void)plan_bloom(bloom_layout::block, 1000, p), invalid_argument) << p;
    for (const double n : {0.0, -1.0, 0.5, nan, inf})
        EXPECT_THROW((void)plan_bloom(bloom_layout::block, n, 0.01), invalid_argument) << n;
    // More than 2^64 bits.
    EXPECT_THROW((void)plan_bloom(bloom_layout::classic, 1e19, 1e-9), invalid_argument);
    try {
        (void)plan_bloom(bloom_layout::block, 1000, 0);
    } catch (const invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("between 0 and 1"), std::string::npos) << e.what();
    }
}

TEST(Sizing, EstimatedKeysInvertTheExpectedFill) {
    // Expected set bits after n keys, then the estimate recovers n.
    const double n = 50000;
    const bloom_geometry g{1 << 20, 7};
    const double classic_set = g.bits * -std::expm1(7 * n * std::log1p(-1.0 / g.bits));
    EXPECT_NEAR(estimate_keys(bloom_layout::classic, g, static_cast<std::uint64_t>(classic_set)) / n, 1.0, 1e-3);
    const double block_set = g.bits * -std::expm1(-(n * 512.0 / g.bits) * -std::expm1(7 * std::log1p(-1.0 / 512)));
    EXPECT_NEAR(estimate_keys(bloom_layout::block, g, static_cast<std::uint64_t>(block_set)) / n, 1.0, 1e-3);
    const bloom_geometry split{1 << 20, 8};
    const double split_set = split.bits * -std::expm1(-(n * 256.0 / split.bits) / 32);
    EXPECT_NEAR(estimate_keys(bloom_layout::split_block, split, static_cast<std::uint64_t>(split_set)) / n, 1.0, 1e-3);
}

TEST(Sizing, EmptyAndFullFiltersHaveDefinedEstimates) {
    const bloom_geometry g{4096, 7};
    EXPECT_EQ(estimate_keys(bloom_layout::block, g, 0), 0.0);
    EXPECT_EQ(current_fpr(bloom_layout::block, g, 0), 0.0);
    EXPECT_TRUE(std::isinf(estimate_keys(bloom_layout::block, g, 4096)));
    EXPECT_EQ(current_fpr(bloom_layout::block, g, 4096), 1.0);
    // Classic: current FPR from the fill is (X/m)^k.
    EXPECT_NEAR(current_fpr(bloom_layout::classic, g, 2048), std::pow(0.5, 7), 1e-9);
}

TEST(Sizing, RoundBitsToWholeBlocks) {
    EXPECT_EQ(round_bits(bloom_layout::block, 1), 512U);
    EXPECT_EQ(round_bits(bloom_layout::block, 1024), 1024U);
    EXPECT_EQ(round_bits(bloom_layout::split_block, 257), 512U);
    EXPECT_EQ(round_bits(bloom_layout::classic, 1001), 1001U);
    EXPECT_EQ(round_bits(bloom_layout::classic, 0), 1U);
    EXPECT_THROW((void)round_bits(bloom_layout::block, std::numeric_limits<std::uint64_t>::max()), invalid_argument);
}

}  // namespace
