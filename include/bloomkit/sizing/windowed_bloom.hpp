// bloomkit/sizing/windowed_bloom.hpp — the arithmetic of a windowed Bloom filter
// (windowed_filter.hpp, docs/design/windowed.md): which generation a time falls in, and what each
// generation is sized for.
//
// Time is cut into generations of W/G: time t (milliseconds since the Unix epoch) is in
// generation e(t) = ⌊t·G/W⌋, so every program that knows W and G numbers them alike. A key goes
// into the generation of its time; a lookup at time t asks generations e(t) − G .. e(t), G + 1 of
// them. A key inserted at t0 is therefore found while e(t) ≤ e(t0) + G, which holds for every
// t ≤ t0 + W (⌊(t0 + W)·G/W⌋ = e(t0) + G) and fails from t0 + W(1 + 1/G) on: remembered for at
// least W, forgotten by W(1 + 1/G).
//
// A steady stream of n keys per window puts n/G into each generation. An absent key is a false
// positive if any of the G + 1 live generations says so, with probability 1 − Π(1 − p_g), so each
// generation is a block Bloom filter for ⌈n/G⌉ keys at p_g = 1 − (1 − p)^(1/(G+1)).
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "bloomkit/error.hpp"
#include "bloomkit/sizing/bloom.hpp"
#include "bloomkit/sizing/models.hpp"
#include "bloomkit/sizing/stage_table.hpp"

namespace bloomkit {

/// The most generations a window is cut into: each is asked on every lookup.
inline constexpr std::uint32_t windowed_max_generations = 64;

/// What fixes a windowed filter.
struct window_parameters {
    /// n: the keys a window of a steady stream brings.
    std::uint64_t keys_per_window = 0;
    /// p: the bound on the FPR over every live generation, each holding its share of n.
    double fpr = 0;
    /// W: keys are remembered for at least this long.
    std::chrono::milliseconds window{0};
    /// G: the window is cut into this many generations (1 to windowed_max_generations); keys
    /// are forgotten by W(1 + 1/G), and G + 1 generations are kept.
    std::uint32_t generations = 4;
    /// Every field equal.
    friend bool operator==(const window_parameters&, const window_parameters&) = default;
};

/// Throws invalid_argument unless the parameters describe a filter that can exist.
inline void check_window_parameters(const window_parameters& params) {
    if (params.keys_per_window == 0) throw invalid_argument("a windowed filter is sized for at least 1 key per window");
    detail::require_probability(params.fpr);
    if (params.generations == 0 || params.generations > windowed_max_generations)
        throw invalid_argument("a windowed filter has 1 to " + std::to_string(windowed_max_generations) +
                               " generations per window, not " + std::to_string(params.generations));
    // ⌊t·G/W⌋ is computed in 64 bits for any time up to the year 292,277,026 / G.
    if (params.window.count() < 1)
        throw invalid_argument("a windowed filter's window is at least 1 millisecond, not " +
                               std::to_string(params.window.count()));
}

/// Each generation's share of a steady window's keys, and its FPR target.
struct window_generation_plan {
    /// ⌈n/G⌉.
    std::uint64_t capacity = 0;
    /// p_g = 1 − (1 − p)^(1/(G+1)).
    double fpr = 0;
};

/// The plan of every generation of a filter of `params`.
[[nodiscard]] inline window_generation_plan plan_window_generation(const window_parameters& params) {
    check_window_parameters(params);
    const std::uint64_t g = params.generations;
    return {params.keys_per_window / g + (params.keys_per_window % g != 0 ? 1 : 0),
            -std::expm1(std::log1p(-params.fpr) / static_cast<double>(g + 1))};
}

/// The generation time `t_ms` (milliseconds since the Unix epoch, ≥ 0) falls in: ⌊t·G/W⌋.
/// Throws invalid_argument for a negative time or one past what 64 bits can number.
[[nodiscard]] inline std::uint64_t window_generation_at(const window_parameters& params, std::int64_t t_ms) {
    if (t_ms < 0) throw invalid_argument("a windowed filter's clock starts at 1970-01-01T00:00:00Z");
    const auto t = static_cast<std::uint64_t>(t_ms);
    const std::uint64_t g = params.generations, w = static_cast<std::uint64_t>(params.window.count());
    if (t > std::numeric_limits<std::uint64_t>::max() / g)
        throw invalid_argument("a windowed filter's clock stops at " +
                               std::to_string(std::numeric_limits<std::uint64_t>::max() / g) + " ms");
    return t * g / w;
}

/// When generation `generation` starts: ⌈generation·W/G⌉ ms since the Unix epoch (saturating).
[[nodiscard]] inline std::int64_t window_generation_start(const window_parameters& params, std::uint64_t generation) {
    const std::uint64_t g = params.generations, w = static_cast<std::uint64_t>(params.window.count());
    // generation·W may overflow; split it: (q·G + r)·W/G = q·W + r·W/G with q, r of generation / G.
    const std::uint64_t q = generation / g, r = generation % g;
    const std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (q > limit / w) return std::numeric_limits<std::int64_t>::max();
    const std::uint64_t start = q * w + (r * w + g - 1) / g;
    return start > limit ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(start);
}

/// What a windowed filter costs.
struct windowed_plan {
    window_generation_plan generation;  ///< what each generation is sized for
    bloom_geometry geometry;            ///< each generation's block Bloom filter
    std::uint32_t filters = 0;          ///< G + 1: the generations kept
    /// The generations' bits, in bytes.
    [[nodiscard]] std::uint64_t bytes() const noexcept { return std::uint64_t{filters} * (geometry.bits / 8); }
    /// The FPR with every kept generation holding its share: at most p.
    double fpr = 0;
};

/// Throws invalid_argument for impossible parameters.
[[nodiscard]] inline windowed_plan plan_windowed_bloom(const window_parameters& params) {
    windowed_plan plan;
    plan.generation = plan_window_generation(params);
    const bloom_plan sized =
        plan_bloom(bloom_layout::block, static_cast<double>(plan.generation.capacity), plan.generation.fpr);
    plan.geometry = sized.geometry;
    plan.filters = params.generations + 1;
    plan.fpr = -std::expm1(static_cast<double>(plan.filters) * std::log1p(-sized.fpr));
    return plan;
}

}  // namespace bloomkit
