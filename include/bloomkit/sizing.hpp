// bloomkit/sizing.hpp — the math of Bloom filters: from (n keys, false-positive rate p) to
// (m bits, k probes), and back from a filter's fill to an estimated count and current FPR.
//
// Pure functions, no allocation. They size the filters' constructors and print the `plan`.
//
// Models (see ../shared/specs/filters.md for the sources):
//  * classic (Bloom 1970): FPR = (1 - (1 - 1/m)^(k·n))^k, computed without the usual
//    e^(-kn/m) shortcut, which is optimistic by a hair.
//  * blocked (Putze, Sanders & Singler 2007): all k probes of a key land in one block of B bits.
//    Blocks get uneven loads — the number of keys in a block is Poisson with mean
//    λ = n·B/m — so FPR = Σ_i Poisson(i; λ) · F(i), F(i) the FPR of a block holding i keys.
//    The usual model takes F(i) = (1 - (1 - 1/B)^(k·i))^k: the mean fill to the k-th power.
//    But in a block of 512 bits the fill itself varies from block to block, and since x^k is
//    convex, E[fill^k] > (E[fill])^k: that model is 1–2% optimistic at k = 6–9 (we measured
//    +1.0% at p = 1%, +1.6% at p = 0.1% over 32M queries, with truly independent probes too).
//    bloomkit computes F(i) = E[(S/B)^k] exactly, S being the number of bits set by k·i
//    uniform probes, from the occupancy distribution (a Markov chain over S), and sizes with it,
//    so that the *measured* FPR meets the target.
//  * split block (Apache Parquet): blocks of eight 32-bit words, one bit per word, so k = 8
//    and the inner term is (1 - (1 - 1/32)^i)^8.
//
// Sizing searches, for every k, the smallest m whose modelled FPR is at most p, then keeps the
// (m, k) with the fewest bits. The textbook k = (m/n)·ln 2 rounded can land a hair above the
// target (1% asks m/n = 9.585, k = 7 gives 1.003%); the search never does.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bloomkit/error.hpp"

namespace bloomkit {

/// How a Bloom filter places a key's probes. The numeric values are stored in files.
enum class bloom_layout : std::uint8_t {
    classic = 1,      ///< k probes anywhere in the m bits (k cache lines per key)
    block = 2,        ///< k probes inside one 512-bit block (one cache line per key)
    split_block = 3,  ///< Apache Parquet: 256-bit blocks, one probe in each of 8 32-bit words
};

[[nodiscard]] constexpr std::string_view to_string(bloom_layout layout) noexcept {
    switch (layout) {
        case bloom_layout::classic: return "classic";
        case bloom_layout::block: return "block";
        case bloom_layout::split_block: return "split-block";
    }
    return "unknown";
}

/// Bits per block of a layout; 0 for classic, whose "block" is the whole array.
[[nodiscard]] constexpr std::uint64_t block_bits(bloom_layout layout) noexcept {
    switch (layout) {
        case bloom_layout::block: return 512;
        case bloom_layout::split_block: return 256;
        case bloom_layout::classic: break;
    }
    return 0;
}

/// The most probes any layout allows; beyond it a filter is slower and no smaller.
inline constexpr std::uint32_t max_hashes = 64;

/// Number of bits (m) and probes per key (k) of a Bloom filter.
struct bloom_geometry {
    std::uint64_t bits = 0;
    std::uint32_t hashes = 0;
    friend constexpr bool operator==(const bloom_geometry&, const bloom_geometry&) = default;
};

/// What plan_bloom() recommends for (n, p): the geometry and the FPR its model predicts at n.
struct bloom_plan {
    bloom_geometry geometry;
    double fpr = 0;
    [[nodiscard]] double bits_per_key(double n) const noexcept { return static_cast<double>(geometry.bits) / n; }
    [[nodiscard]] std::uint64_t bytes() const noexcept { return (geometry.bits + 7) / 8; }
};

namespace detail {

inline void require_keys(double n) {
    if (!(n >= 1) || !std::isfinite(n))
        throw invalid_argument("expected number of keys must be at least 1, got " + std::to_string(n));
}

inline void require_probability(double p) {
    if (!(p > 0 && p < 1))  // also rejects NaN
        throw invalid_argument("false-positive rate must be strictly between 0 and 1, got " + std::to_string(p));
}

/// P(Poisson(λ) = i), in logs so that large λ (and i) neither overflow nor underflow.
inline double poisson_pmf(double lambda, double i) noexcept {
    if (lambda == 0) return i == 0 ? 1.0 : 0.0;
    return std::exp(i * std::log(lambda) - lambda - std::lgamma(i + 1));
}

/// FPR of a key whose block holds `load` keys, each setting `probes` bits chosen uniformly
/// among `range` bits, when a query tests `probes` such bits.
inline double loaded_block_fpr(double load, double probes, double range) noexcept {
    const double unset = std::exp(probes * load * std::log1p(-1.0 / range));
    return std::pow(1.0 - unset, probes);
}

/// How far from λ a Poisson(λ) sum must reach: beyond 9σ (+ a margin for small λ) the terms
/// add less than 1e-15.
inline double poisson_spread(double lambda) noexcept { return 9.0 * std::sqrt(lambda) + 20.0; }

/// Σ_i Poisson(i; λ) · f(i), over the terms that matter (see poisson_spread). The probabilities
/// come from one lgamma and the recurrence P(i+1) = P(i)·λ/(i+1).
template <class F>
double poisson_expectation(double lambda, F f) noexcept {
    if (lambda == 0) return f(0.0);
    const double spread = poisson_spread(lambda);
    const double first = std::max(0.0, std::floor(lambda - spread));
    const double last = std::ceil(lambda + spread);
    double pmf = poisson_pmf(lambda, first);
    double sum = 0;
    for (double i = first; i <= last; i += 1) {
        sum += pmf * f(i);
        pmf *= lambda / (i + 1);
    }
    return sum;
}

/// FPR of a blocked filter by the mean-fill model: Σ_i Poisson(i; λ) · (1 - (1 - 1/B)^(k·i))^k.
/// Cheap, and 1–2% optimistic; plan_bloom() searches with it, then settles with the exact one.
inline double blocked_fpr_mean_fill(double lambda, double k, double block) noexcept {
    return poisson_expectation(lambda, [&](double load) { return loaded_block_fpr(load, k, block); });
}

/// The exact blocked FPR: Σ_i Poisson(i; λ) · E[(S_i/B)^k], where S_i is the number of distinct
/// bits that k·i independent uniform probes set in a block of B bits. The distribution of S
/// evolves as a Markov chain, one probe at a time: an occupied bit is hit with probability
/// s/B (S stays), a clear one otherwise (S grows by one). Cost: O(k · i_max · B).
inline double blocked_fpr_exact(double lambda, std::uint32_t k, std::uint32_t block) {
    const double spread = poisson_spread(lambda);
    const auto first = static_cast<std::uint64_t>(std::max(0.0, std::floor(lambda - spread)));
    const auto last = static_cast<std::uint64_t>(std::ceil(lambda + spread));
    const double size = block;
    // occupancy[s + 1] = P(S = s); occupancy[0] stays 0 so that s - 1 needs no branch.
    std::vector<double> occupancy(block + 2, 0.0), next(block + 2, 0.0), hit_all(block + 1);
    occupancy[1] = 1.0;
    for (std::uint32_t s = 0; s <= block; ++s) hit_all[s] = std::pow(s / size, k);
    // Only a window [low, high] of S carries probability worth adding (mass below 1e-30 is
    // dropped): the chain only moves up, and concentrates within a few dozen states.
    std::uint32_t low = 0, high = 0;
    double pmf = poisson_pmf(lambda, static_cast<double>(first));
    double fpr = 0;
    for (std::uint64_t keys = 0; keys <= last; ++keys) {
        if (keys >= first) {
            double given_keys = 0;
            for (std::uint32_t s = low; s <= high; ++s) given_keys += occupancy[s + 1] * hit_all[s];
            fpr += pmf * given_keys;
            pmf *= lambda / static_cast<double>(keys + 1);
        }
        for (std::uint32_t probe = 0; probe < k; ++probe) {
            high = std::min(high + 1, block);
            for (std::uint32_t s = low; s <= high; ++s)
                next[s + 1] = occupancy[s + 1] * (s / size) + occupancy[s] * ((size - (s - 1.0)) / size);
            next[low] = 0.0;  // below the window (or the sentinel)
            occupancy.swap(next);
            while (low < high && occupancy[low + 1] < 1e-30) occupancy[++low] = 0.0;
            while (high > low && occupancy[high + 1] < 1e-30) occupancy[1 + high--] = 0.0;
        }
    }
    return fpr;
}

/// Split-block FPR at λ keys per 256-bit block: each key sets one bit of each 32-bit word, so
/// the eight words are independent given the load and the model is exact.
inline double split_block_fpr_at(double lambda) noexcept {
    return poisson_expectation(lambda, [](double load) { return std::pow(-std::expm1(load * std::log1p(-1.0 / 32)), 8); });
}

/// The λ (keys per block) at which an increasing FPR function `fpr_of` reaches p: regula
/// falsi (Illinois variant) on log FPR against log λ, where the curve is nearly straight, so a
/// handful of evaluations of an expensive model suffice.
template <class F>
double solve_lambda(F fpr_of, double p, double guess) {
    double lo = guess, hi = guess;
    double f_lo = std::log(fpr_of(lo)), f_hi = f_lo;
    const double target = std::log(p);
    while (f_lo > target) f_lo = std::log(fpr_of(lo /= 2));
    while (f_hi <= target) f_hi = std::log(fpr_of(hi *= 2));
    double x_lo = std::log(lo), x_hi = std::log(hi);
    int stale = 0;  // which end stayed put last time (Illinois halves its weight)
    for (int iteration = 0; iteration < 60 && x_hi - x_lo > 1e-12; ++iteration) {
        const double x = x_lo + (target - f_lo) * (x_hi - x_lo) / (f_hi - f_lo);
        const double f = std::log(fpr_of(std::exp(x)));
        if (std::abs(f - target) < 1e-12) return std::exp(x);
        if (f <= target) {
            x_lo = x, f_lo = f;
            if (stale == -1) f_hi = target + (f_hi - target) / 2;
            stale = -1;
        } else {
            x_hi = x, f_hi = f;
            if (stale == 1) f_lo = target + (f_lo - target) / 2;
            stale = 1;
        }
    }
    return std::exp(x_lo);
}

}  // namespace detail

/// Classic Bloom filter FPR with n keys, m bits, k probes: (1 - (1 - 1/m)^(k·n))^k.
[[nodiscard]] inline double classic_fpr(double n, double m, double k) noexcept {
    if (m <= 1) return 1.0;
    return detail::loaded_block_fpr(n, k, m);
}

/// Blocked Bloom filter FPR (k probes in one block of B bits): Poisson block loads, and the
/// exact distribution of a block's fill (see the top of this file).
[[nodiscard]] inline double blocked_fpr(double n, double m, std::uint32_t k, std::uint32_t block) {
    return detail::blocked_fpr_exact(n * block / m, k, block);
}

/// Split-block (Parquet) FPR: blocks of 256 bits, one of 32 bits set in each of 8 words.
[[nodiscard]] inline double split_block_fpr(double n, double m) noexcept {
    const double lambda = n * 256.0 / m;
    return detail::split_block_fpr_at(lambda);
}

/// The modelled FPR of a filter of the given layout and geometry holding n keys.
[[nodiscard]] inline double expected_fpr(bloom_layout layout, double n, bloom_geometry g) {
    if (n <= 0) return 0.0;
    const auto m = static_cast<double>(g.bits);
    switch (layout) {
        case bloom_layout::classic: return classic_fpr(n, m, g.hashes);
        case bloom_layout::block: return blocked_fpr(n, m, g.hashes, 512);
        case bloom_layout::split_block: return split_block_fpr(n, m);
    }
    return 1.0;
}

/// Smallest allowed bit count of a layout at or above `bits`: whole blocks (at least one), or
/// at least one bit for classic. Throws when that does not fit in 64 bits.
[[nodiscard]] inline std::uint64_t round_bits(bloom_layout layout, std::uint64_t bits) {
    const std::uint64_t block = block_bits(layout);
    if (block == 0) return std::max<std::uint64_t>(bits, 1);
    if (bits > std::numeric_limits<std::uint64_t>::max() - (block - 1))
        throw invalid_argument("a filter of " + std::to_string(bits) + " bits does not fit in 64-bit sizes");
    return std::max<std::uint64_t>((bits + block - 1) / block, 1) * block;
}

namespace detail {

/// The probe counts worth trying for target p: the optimum sits near log2(1/p) for classic
/// and a little below it for blocked layouts; the band is generous around both.
inline std::pair<std::uint32_t, std::uint32_t> hash_count_band(double p) noexcept {
    const double ideal_k = -std::log2(p);
    return {static_cast<std::uint32_t>(std::max(1.0, std::floor(ideal_k / 2) - 1)),
            static_cast<std::uint32_t>(std::min<double>(max_hashes, std::ceil(ideal_k * 1.5) + 2))};
}

/// A first guess at the load λ (keys per block of `block` positions) that reaches p: the block
/// divided by the classic ideal bits per key. solve_lambda() brackets the true λ from it.
inline double load_guess(double p, std::uint64_t block) noexcept {
    const double bits_per_key = -std::log(p) / (std::log(2.0) * std::log(2.0));
    return static_cast<double>(block) / bits_per_key;
}

/// For target p and blocks of `block` positions, each key probing k of them uniformly: the k
/// and the largest load λ whose exact FPR is at most p. Ranks k by the cheap mean-fill model
/// around log2(1/p); settles the two best with the exact model, which asks a few percent more
/// bits and never reorders distant k. A few milliseconds: callers remember the answer.
inline std::pair<std::uint32_t, double> best_blocked_probes(double p, std::uint32_t block) {
    const double guess = load_guess(p, block);
    const auto [first_k, last_k] = hash_count_band(p);
    std::vector<std::pair<double, std::uint32_t>> ranked;
    for (std::uint32_t k = first_k; k <= last_k; ++k)
        ranked.emplace_back(solve_lambda([&](double l) { return blocked_fpr_mean_fill(l, k, block); }, p, guess), k);
    std::sort(ranked.rbegin(), ranked.rend());  // largest λ = fewest bits first
    std::pair<std::uint32_t, double> best{8, 0.0};  // λ = 0 when no k in the band reaches p
    for (std::size_t i = 0; i < std::min<std::size_t>(2, ranked.size()); ++i) {
        const std::uint32_t k = ranked[i].second;
        const double lambda = solve_lambda([&](double l) { return blocked_fpr_exact(l, k, block); }, p, ranked[i].first);
        if (lambda > best.second) best = {k, lambda};
    }
    return best;
}

/// For a blocked layout and target p: the number of probes k and the largest load λ (keys per
/// block) whose FPR is at most p. Independent of n, so it is computed once per (layout, p)
/// and remembered (a few milliseconds of model evaluations the first time).
inline std::pair<std::uint32_t, double> blocked_optimum(bloom_layout layout, double p) {
    static std::mutex mutex;
    static std::map<std::pair<bloom_layout, double>, std::pair<std::uint32_t, double>> known;
    {
        const std::lock_guard lock(mutex);
        if (const auto it = known.find({layout, p}); it != known.end()) return it->second;
    }
    std::pair<std::uint32_t, double> best{8, 0.0};
    if (layout == bloom_layout::split_block)
        best.second = solve_lambda(split_block_fpr_at, p, load_guess(p, block_bits(layout)));
    else
        best = best_blocked_probes(p, static_cast<std::uint32_t>(block_bits(layout)));
    const std::lock_guard lock(mutex);
    if (known.size() > 4096) known.clear();  // bounded, whatever the callers ask
    known.emplace(std::pair{layout, p}, best);
    return best;
}

}  // namespace detail

/// The geometry with the fewest bits whose modelled FPR at n keys is at most p.
/// Throws bloomkit::invalid_argument for n < 1, p outside (0, 1) or NaN, and when the
/// answer would exceed 2^64 bits.
[[nodiscard]] inline bloom_plan plan_bloom(bloom_layout layout, double n, double p) {
    detail::require_keys(n);
    detail::require_probability(p);
    // The ideal classic size is a lower bound for every layout; blocked ones need a bit more.
    const double ideal = -n * std::log(p) / (std::log(2.0) * std::log(2.0));
    const double ceiling = 0x1p64 - 0x1p12;  // largest bit count still representable, whole blocks
    if (ideal * 1.5 > ceiling)
        throw invalid_argument("a filter for " + std::to_string(n) + " keys at p = " + std::to_string(p) +
                               " would need more than 2^64 bits");

    bloom_plan best{{0, 0}, 1.0};
    auto consider = [&](bloom_geometry g) {
        if (g.bits != 0 && (best.geometry.bits == 0 || g.bits < best.geometry.bits)) best = {g, expected_fpr(layout, n, g)};
    };
    if (layout == bloom_layout::classic) {
        // A closed form: binary search for the smallest m meeting p, for every k in the band.
        const auto [first_k, last_k] = detail::hash_count_band(p);
        for (std::uint32_t k = first_k; k <= last_k; ++k) {
            auto lo = static_cast<std::uint64_t>(ideal * 0.9) + 1;
            auto hi = static_cast<std::uint64_t>(std::min(ideal * 64.0, ceiling));
            if (classic_fpr(n, static_cast<double>(hi), k) > p) continue;
            while (lo < hi) {
                const std::uint64_t mid = lo + (hi - lo) / 2;
                if (classic_fpr(n, static_cast<double>(mid), k) <= p) hi = mid; else lo = mid + 1;
            }
            consider({lo, k});
        }
    } else {
        // Blocked: the FPR depends on the load λ = n/blocks alone, so the best (k, λ) for p
        // holds for every n; the blocks follow as ⌈n/λ⌉ (a smaller λ only lowers the FPR).
        const auto [k, lambda] = detail::blocked_optimum(layout, p);
        const double blocks = std::ceil(n / lambda);
        const auto block = static_cast<double>(block_bits(layout));
        if (blocks * block <= ceiling) consider({static_cast<std::uint64_t>(blocks * block), k});
    }
    if (best.geometry.bits == 0)
        throw invalid_argument("no " + std::string(to_string(layout)) + " Bloom filter of at most 2^64 bits reaches p = " +
                               std::to_string(p) + " for " + std::to_string(n) + " keys");
    return best;
}

/// Keys a filter holds, estimated from the number of set bits X (Swamidass & Baldi 2007),
/// generalised to blocked layouts. A layout is z equal ranges of bits (the whole array for
/// classic, a block for block, a 32-bit word for split block); a key leaves a given bit of its
/// range clear with probability q, and the number of keys per range is Poisson(λ = n/z), so
/// the expected clear fraction is E[q^L] = e^(-λ(1-q)), which inverts to
/// n = -z·ln(1 - X/m) / (1 - q). Classic is one range and inverts exactly:
/// n = ln(1 - X/m) / (k·ln(1 - 1/m)) ≈ -(m/k)·ln(1 - X/m), the textbook formula.
/// Returns +infinity when every bit is set: the filter then answers "maybe" to every key and
/// how many it holds cannot be told.
namespace detail {

/// Keys in z = m/B blocks of B positions, X of the m positions set, when each key sets k
/// uniform positions of its block (see estimate_keys): n = -z·ln(1 - X/m) / (1 - (1 - 1/B)^k),
/// given clear_fraction_log = ln(1 - X/m). The callers handle X = 0 and X = m.
inline double blocked_key_estimate(double m, double block, std::uint32_t k, double clear_fraction_log) noexcept {
    return -(m / block) * clear_fraction_log / -std::expm1(k * std::log1p(-1.0 / block));
}

}  // namespace detail

[[nodiscard]] inline double estimate_keys(bloom_layout layout, bloom_geometry g, std::uint64_t set_bits) noexcept {
    if (set_bits == 0 || g.bits == 0) return 0.0;
    if (set_bits >= g.bits) return std::numeric_limits<double>::infinity();
    const auto m = static_cast<double>(g.bits);
    const double clear_fraction_log = std::log1p(-static_cast<double>(set_bits) / m);
    switch (layout) {
        case bloom_layout::classic:  // one range, no Poisson averaging: (1-1/m)^(k·n) = 1 - X/m exactly
            return clear_fraction_log / (g.hashes * std::log1p(-1.0 / m));
        case bloom_layout::block:
            return detail::blocked_key_estimate(m, 512, g.hashes, clear_fraction_log);
        case bloom_layout::split_block:
            return -(m / 256) * clear_fraction_log * 32;  // 1 - q = 1/32
    }
    return 0.0;
}

/// The FPR a filter has now, from its fill: the model at the estimated key count. For the
/// classic layout this is exactly (X/m)^k; 1 when every bit is set.
[[nodiscard]] inline double current_fpr(bloom_layout layout, bloom_geometry g, std::uint64_t set_bits) {
    const double n = estimate_keys(layout, g, set_bits);
    if (std::isinf(n)) return 1.0;
    return expected_fpr(layout, n, g);
}

// =============================================================================================
// Counting Bloom filter (Fan, Cao, Almeida & Broder 2000, "Summary Cache")
//
// Every bit becomes a 4-bit counter, 128 counters to a 512-bit block. A counter is nonzero
// exactly where a Bloom filter with one bit per counter would have its bit set, so the exact
// blocked model above holds unchanged with B = 128 positions per block. Four times the bits
// of a Bloom filter, and more: 128-position blocks load less evenly than 512-bit ones, so they
// need more positions per key (10.8 at 1%, against 9.9 for 512-bit blocks).
// =============================================================================================

/// Counters per block: 512 bits of 4-bit counters, one cache line.
inline constexpr std::uint32_t counting_block_counters = 128;

/// Number of 4-bit counters (a multiple of 128) and probes per key of a counting Bloom filter.
struct counting_geometry {
    std::uint64_t counters = 0;
    std::uint32_t hashes = 0;
    friend constexpr bool operator==(const counting_geometry&, const counting_geometry&) = default;
};

/// What plan_counting_bloom() recommends for (n, p): the geometry and its modelled FPR at n.
struct counting_plan {
    counting_geometry geometry;
    double fpr = 0;
    [[nodiscard]] double bits_per_key(double n) const noexcept { return 4.0 * static_cast<double>(geometry.counters) / n; }
    [[nodiscard]] std::uint64_t bytes() const noexcept { return geometry.counters / 2; }
};

/// The modelled FPR of a counting Bloom filter holding n keys (distinct keys: a key inserted
/// twice makes no more counters nonzero than once).
[[nodiscard]] inline double counting_fpr(double n, counting_geometry g) {
    if (n <= 0) return 0.0;
    return blocked_fpr(n, static_cast<double>(g.counters), g.hashes, counting_block_counters);
}

/// Smallest allowed counter count at or above `counters`: whole blocks, at least one. Throws
/// when the filter's bits (4 per counter) would not fit in 64 bits.
[[nodiscard]] inline std::uint64_t round_counters(std::uint64_t counters) {
    constexpr std::uint64_t limit = std::uint64_t{1} << 62;  // 2^64 bits of 4-bit counters
    if (counters > limit)
        throw invalid_argument("a counting Bloom filter of " + std::to_string(counters) +
                               " counters does not fit in 64-bit sizes");
    const std::uint64_t blocks = (counters + counting_block_counters - 1) / counting_block_counters;
    return std::max<std::uint64_t>(blocks, 1) * counting_block_counters;
}

namespace detail {

/// best_blocked_probes() for 128-counter blocks, remembered per p like blocked_optimum().
inline std::pair<std::uint32_t, double> counting_optimum(double p) {
    static std::mutex mutex;
    static std::map<double, std::pair<std::uint32_t, double>> known;
    {
        const std::lock_guard lock(mutex);
        if (const auto it = known.find(p); it != known.end()) return it->second;
    }
    const auto best = best_blocked_probes(p, counting_block_counters);
    const std::lock_guard lock(mutex);
    if (known.size() > 4096) known.clear();  // bounded, whatever the callers ask
    known.emplace(p, best);
    return best;
}

}  // namespace detail

/// The counting geometry with the fewest counters whose modelled FPR at n keys is at most p.
/// Throws invalid_argument for n < 1, p outside (0, 1) or NaN, and beyond 2^64 bits.
[[nodiscard]] inline counting_plan plan_counting_bloom(double n, double p) {
    detail::require_keys(n);
    detail::require_probability(p);
    const auto [k, lambda] = detail::counting_optimum(p);
    const double blocks = std::ceil(n / lambda);
    if (!(blocks * counting_block_counters <= 0x1p62))
        throw invalid_argument("a counting Bloom filter for " + std::to_string(n) + " keys at p = " + std::to_string(p) +
                               " would need more than 2^64 bits");
    const counting_geometry g{static_cast<std::uint64_t>(blocks) * counting_block_counters, k};
    return {g, counting_fpr(n, g)};
}

/// Distinct keys a counting filter holds, estimated from its number of nonzero counters as
/// estimate_keys() does for a block Bloom filter; +infinity when no counter is zero.
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
