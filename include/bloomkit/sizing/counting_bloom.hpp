// bloomkit/sizing/counting_bloom.hpp — sizing a counting Bloom filter (Fan, Cao, Almeida & Broder
// 2000, "Summary Cache").
//
// A counter is nonzero exactly where a Bloom filter with a bit per counter has its bit set, so the
// exact blocked model (sizing/models.hpp) holds with B = 128 positions per 512-bit block. That
// costs more than four times a Bloom filter's bits: 128-position blocks load less evenly, so they
// need more positions per key (10.8 at 1%, against 9.9 for 512-bit blocks).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "bloomkit/error.hpp"
#include "bloomkit/sizing/models.hpp"

namespace bloomkit {

/// Counters per block: 512 bits of 4-bit counters, one cache line.
inline constexpr std::uint32_t counting_block_counters = 128;

/// 4-bit counters and probes per key of a counting Bloom filter.
struct counting_geometry {
    /// 4-bit counters, whole blocks of counting_block_counters.
    std::uint64_t counters = 0;
    /// k: the counters each key increments.
    std::uint32_t hashes = 0;
    /// Same counters and k.
    friend constexpr bool operator==(const counting_geometry&, const counting_geometry&) = default;
};

/// What plan_counting_bloom() recommends for (n, p).
struct counting_plan {
    /// The fewest counters (and the k for them) whose modelled FPR at n is at most p.
    counting_geometry geometry;
    /// counting_fpr() of the geometry at n keys.
    double fpr = 0;
    /// 4 bits per counter, divided among n keys.
    [[nodiscard]] double bits_per_key(double n) const noexcept {
        return 4.0 * static_cast<double>(geometry.counters) / n;
    }
    /// Two counters a byte.
    [[nodiscard]] std::uint64_t bytes() const noexcept { return geometry.counters / 2; }
};

/// At n distinct keys (a key inserted twice makes no more counters nonzero).
[[nodiscard]] inline double counting_fpr(double n, counting_geometry g) {
    if (n <= 0) return 0.0;
    return blocked_fpr(n, static_cast<double>(g.counters), g.hashes, counting_block_counters);
}

/// Whole blocks, at least one; throws when the bits would not fit in 64 bits.
[[nodiscard]] inline std::uint64_t round_counters(std::uint64_t counters) {
    constexpr std::uint64_t limit = (std::uint64_t{1} << 62) - counting_block_counters;  // whole blocks below 2^64 bits
    if (counters > limit)
        throw invalid_argument("a counting Bloom filter of " + std::to_string(counters) +
                               " counters does not fit in 64-bit sizes");
    const std::uint64_t blocks = (counters + counting_block_counters - 1) / counting_block_counters;
    return std::max<std::uint64_t>(blocks, 1) * counting_block_counters;
}

/// The fewest counters meeting p at n keys; invalid_argument for n < 1, p outside (0, 1) or NaN,
/// and beyond 2^64 bits.
[[nodiscard]] inline counting_plan plan_counting_bloom(double n, double p) {
    detail::require_keys(n);
    detail::require_probability(p);
    static detail::memo<double, std::pair<std::uint32_t, double>> optimum;  // per p, like plan_bloom's
    const auto [k, lambda] = optimum(p, [&] { return detail::best_blocked_probes(p, counting_block_counters); });
    const double blocks = std::ceil(n / lambda);
    if (!(blocks * counting_block_counters <= 0x1p62))
        throw invalid_argument("a counting Bloom filter for " + show_number(n) + " keys at p = " + show_number(p) +
                               " would need more than 2^64 bits");
    const counting_geometry g{static_cast<std::uint64_t>(blocks) * counting_block_counters, k};
    return {g, counting_fpr(n, g)};
}

/// Distinct keys from the nonzero counters, as estimate_keys(); +infinity when none is zero.
[[nodiscard]] inline double estimate_counting_keys(counting_geometry g, std::uint64_t nonzero_counters) noexcept {
    if (nonzero_counters == 0 || g.counters == 0) return 0.0;
    if (nonzero_counters >= g.counters) return std::numeric_limits<double>::infinity();
    const auto m = static_cast<double>(g.counters);
    return detail::blocked_key_estimate(m, counting_block_counters, g.hashes,
                                        std::log1p(-static_cast<double>(nonzero_counters) / m));
}

/// The FPR a counting filter has now, from its nonzero counters; 1 when none is zero.
[[nodiscard]] inline double current_counting_fpr(counting_geometry g, std::uint64_t nonzero_counters) {
    const double n = estimate_counting_keys(g, nonzero_counters);
    if (std::isinf(n)) return 1.0;
    return counting_fpr(n, g);
}

}  // namespace bloomkit
