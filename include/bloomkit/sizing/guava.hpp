// bloomkit/sizing/guava.hpp — Guava's BloomFilter.create(funnel, n, p) sizing, to the bit (Guava
// 18 to 33.3; BloomFilter.java optimalNumOfBits and optimalNumOfHashFunctions):
//
//   m = (long)(-n·ln p / (ln 2)²)            truncated, from the double
//   words = ⌈m / 64⌉, bits = 64·words         a long[] of that many words, every bit probed
//   k = max(1, Math.round(m / n · ln 2))      from the unrounded m
//
// Java's Math.log and glibc's log agreed on all 500,000 (n, p) checked; to match a Java peer
// whatever happens, make the filter from its geometry. (Guava after 33.3 takes k = round(-ln p /
// ln 2), which differs only for a handful of n ≤ 5.)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "bloomkit/error.hpp"
#include "bloomkit/sizing/models.hpp"

namespace bloomkit {

namespace detail {
/// Java's Math.round for non-negative values: halves up.
[[nodiscard]] inline double java_round(double x) noexcept {
    const double whole = std::floor(x);
    return x - whole >= 0.5 ? whole + 1 : whole;
}
}  // namespace detail

/// The geometry Guava's create(funnel, n, p) gives (n ≥ 1, 0 < p < 1, checked by the caller).
/// Throws invalid_argument where Guava's create throws: more than 2^31 - 1 words, or k > 255.
[[nodiscard]] inline bloom_geometry guava_geometry(double n, double p) {
    const auto keys = static_cast<std::int64_t>(std::min(n, 0x1p62));
    const double ln2 = std::log(2.0);
    const double ideal = static_cast<double>(-keys) * std::log(p) / (ln2 * ln2);
    const auto m = static_cast<std::int64_t>(std::min(ideal, 0x1p62));
    const std::int64_t words = (m + 63) / 64;
    if (m <= 0 || words > INT32_MAX)
        throw invalid_argument("Guava cannot make a filter of " + std::to_string(m) + " bits for " + show_number(n) +
                               " keys at p = " + show_number(p) + " (it holds 1 to 2^31 - 1 longs)");
    const double k = std::max(1.0, detail::java_round(static_cast<double>(m) / static_cast<double>(keys) * ln2));
    if (k > 255)
        throw invalid_argument("Guava takes at most 255 hash functions; p = " + show_number(p) + " needs " +
                               show_number(k));
    return {static_cast<std::uint64_t>(words) * 64, static_cast<std::uint32_t>(k)};
}

}  // namespace bloomkit
