// bloomkit/sizing/scalable_bloom.hpp — the chain of stages of a scalable Bloom filter (Almeida,
// Baquero, Preguiça & Hutchison, "Scalable Bloom Filters", IPL 101(6), 2007), and what holding
// n keys costs.
//
// capacity_(i+1) = ⌈capacity_i · growth⌉, fpr_0 = p·(1 - tightening), fpr_(i+1) = fpr_i ·
// tightening, so the compound FPR 1 - Π(1 - fpr_i) ≤ Σ fpr_i < p however many stages open. Each
// stage is a block Bloom filter sized by plan_bloom().
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/options.hpp"
#include "bloomkit/sizing/bloom.hpp"
#include "bloomkit/sizing/models.hpp"
#include "bloomkit/sizing/stage_table.hpp"

namespace bloomkit {

/// The largest growth factor a scalable filter accepts: RedisBloom's (its EXPANSION is an unsigned
/// 32-bit number), so that any of its filters can be made here. Memory bounds a chain long before.
inline constexpr double scalable_max_growth = 4294967295.0;

/// With growth 2, 2^4095 times the initial capacity: far past any memory; a bound files are held to.
inline constexpr std::uint32_t scalable_max_stages = 4096;

/// What fixes a scalable filter's chain of stages.
struct scalable_parameters {
    /// Keys the first stage is sized for.
    std::uint64_t initial_capacity = 0;
    /// p: the bound on the whole filter's FPR.
    double fpr = 0;
    /// Each stage's capacity over the one before's.
    double growth = 2.0;
    /// Each stage's FPR target over the one before's.
    double tightening = 0.5;
    /// Every field equal.
    friend constexpr bool operator==(const scalable_parameters&, const scalable_parameters&) = default;
};

/// The keys a stage is sized for and its FPR target there.
struct scalable_stage_plan {
    /// Keys the stage holds before the next one opens.
    std::uint64_t capacity = 0;
    /// The stage's FPR target at its capacity.
    double fpr = 0;
    /// Same capacity and FPR.
    friend constexpr bool operator==(const scalable_stage_plan&, const scalable_stage_plan&) = default;
};

/// Throws invalid_argument unless the parameters describe a chain that can exist.
inline void check_scalable_parameters(const scalable_parameters& params) {
    if (params.initial_capacity == 0)
        throw invalid_argument("a scalable Bloom filter's initial capacity must be at least 1 key");
    detail::require_probability(params.fpr);
    if (!(params.growth >= 1 && params.growth <= scalable_max_growth))  // also rejects NaN
        throw invalid_argument(
            "a scalable Bloom filter's growth factor (how many times more keys each new stage "
            "holds) must be between 1 and " +
            show_number(scalable_max_growth) + ", got " + show_number(params.growth));
    if (!(params.tightening > 0 && params.tightening < 1))
        throw invalid_argument(
            "a scalable Bloom filter's tightening ratio (each new stage's FPR over the one "
            "before's) must be strictly between 0 and 1, got " +
            show_number(params.tightening));
}

/// The first stage of the chain.
[[nodiscard]] constexpr scalable_stage_plan scalable_first_stage(const scalable_parameters& params) noexcept {
    return {params.initial_capacity, params.fpr * (1 - params.tightening)};
}

/// Correctly rounded products, so every machine computes the chain files are checked against;
/// throws invalid_argument past 2^63 keys.
[[nodiscard]] inline scalable_stage_plan scalable_next_stage(const scalable_parameters& params,
                                                             scalable_stage_plan previous) {
    const double capacity = std::ceil(static_cast<double>(previous.capacity) * params.growth);
    if (!(capacity <= 0x1p63)) throw invalid_argument("a scalable Bloom filter cannot grow a stage beyond 2^63 keys");
    return {static_cast<std::uint64_t>(capacity), previous.fpr * params.tightening};
}

/// What holding n keys costs a scalable filter.
struct scalable_plan {
    /// The stages n keys open, first to last.
    std::vector<scalable_stage_plan> stages;
    std::vector<bloom_geometry> geometries;  ///< of each stage, in order
    /// The FPR of all stages together, modelled at n keys.
    double fpr = 0;
    /// The stages' bits, in bytes.
    [[nodiscard]] std::uint64_t bytes() const noexcept {
        std::uint64_t total = 0;
        for (const bloom_geometry& g : geometries) total += g.bits / 8;
        return total;
    }
    /// The stages' bits divided among n keys.
    [[nodiscard]] double bits_per_key(double n) const noexcept { return static_cast<double>(bytes()) * 8 / n; }
};

/// Every stage but the last full. Throws invalid_argument for impossible parameters, n < 1, or
/// more than scalable_max_stages stages.
[[nodiscard]] inline scalable_plan plan_scalable_bloom(double n, const scalable_parameters& params) {
    detail::require_keys(n);
    check_scalable_parameters(params);
    scalable_plan plan;
    double left = n, log_all_negative = 0;  // Σ log(1 - fpr_i): tiny rates survive the product
    for (scalable_stage_plan stage = scalable_first_stage(params);; stage = scalable_next_stage(params, stage)) {
        if (plan.stages.size() == scalable_max_stages)
            throw invalid_argument("a scalable Bloom filter starting at " + std::to_string(params.initial_capacity) +
                                   " keys would need more than " + std::to_string(scalable_max_stages) +
                                   " stages to hold " + show_number(n));
        const bloom_plan sized = plan_bloom(bloom_layout::block, static_cast<double>(stage.capacity), stage.fpr);
        const double held = std::min(left, static_cast<double>(stage.capacity));
        plan.stages.push_back(stage);
        plan.geometries.push_back(sized.geometry);
        log_all_negative += std::log1p(-expected_fpr(bloom_layout::block, held, sized.geometry));
        left -= held;
        if (left <= 0) break;
    }
    plan.fpr = -std::expm1(log_all_negative);
    return plan;
}

}  // namespace bloomkit
