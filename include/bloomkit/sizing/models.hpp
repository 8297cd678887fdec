// bloomkit/sizing/models.hpp — the false-positive models every Bloom-family filter is sized
// with, and the numerical machinery they share. Pure functions, no allocation.
//
// Models (derivations: docs/design/sizing.md):
//  * classic (Bloom 1970): (1 - (1 - 1/m)^(k·n))^k, without the e^(-kn/m) shortcut, which is
//    optimistic by a hair.
//  * blocked (Putze, Sanders & Singler 2007): a block's load is Poisson with mean λ = n·B/m, so
//    FPR = Σ_i Poisson(i; λ) · F(i), F(i) the FPR of a block holding i keys, computed exactly (the
//    usual mean-fill model is 1–2% optimistic, and the filters must meet the target as measured).
//  * split block (Apache Parquet): one bit in each of eight 32-bit words, (1 - (1 - 1/32)^i)^8.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/error.hpp"

namespace bloomkit {

/// The most probes any layout allows; beyond it a filter is slower and no smaller.
inline constexpr std::uint32_t max_hashes = 64;

/// Number of bits (m) and probes per key (k) of a Bloom filter.
struct bloom_geometry {
    /// m: the filter's bits.
    std::uint64_t bits = 0;
    /// k: the bits each key sets, and each lookup tests.
    std::uint32_t hashes = 0;
    /// Same m and k.
    friend constexpr bool operator==(const bloom_geometry&, const bloom_geometry&) = default;
};

namespace detail {

inline void require_keys(double n) {
    if (!(n >= 1) || !std::isfinite(n))
        throw invalid_argument("expected number of keys must be at least 1, got " + show_number(n));
}

inline void require_probability(double p) {
    if (!(p > 0 && p < 1))  // also rejects NaN
        throw invalid_argument("false-positive rate must be strictly between 0 and 1, got " + show_number(p));
}

/// P(Poisson(λ) = i), in logs so that large λ (and i) neither overflow nor underflow.
inline double poisson_pmf(double lambda, double i) noexcept {
    if (lambda == 0) return i == 0 ? 1.0 : 0.0;
    return std::exp(i * std::log(lambda) - lambda - std::lgamma(i + 1));
}

/// `load` keys each set `probes` uniform bits of `range`; a query tests `probes` such bits.
inline double loaded_block_fpr(double load, double probes, double range) noexcept {
    const double unset = std::exp(probes * load * std::log1p(-1.0 / range));
    return std::pow(1.0 - unset, probes);
}

/// How far from λ a Poisson(λ) sum must reach: beyond 9σ (+ a margin for small λ) the terms
/// add less than 1e-15.
inline double poisson_spread(double lambda) noexcept { return 9.0 * std::sqrt(lambda) + 20.0; }

/// Σ_i Poisson(i; λ) · f(i) over the terms that matter, by one lgamma and P(i+1) = P(i)·λ/(i+1).
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

/// Mean-fill model, Σ_i Poisson(i; λ) · (1 - (1 - 1/B)^(k·i))^k: cheap, 1–2% optimistic; plan_bloom()
/// searches with it, then settles with the exact one.
inline double blocked_fpr_mean_fill(double lambda, double k, double block) noexcept {
    return poisson_expectation(lambda, [&](double load) { return loaded_block_fpr(load, k, block); });
}

/// Σ_i Poisson(i; λ) · E[(S_i/B)^k], S_i the bits k·i uniform probes set in B: a Markov chain,
/// each probe hitting a set bit with probability s/B (S stays) or a clear one (S + 1).
/// O(k · i_max · B).
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
    return poisson_expectation(lambda,
                               [](double load) { return std::pow(-std::expm1(load * std::log1p(-1.0 / 32)), 8); });
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

/// Classic Bloom filter FPR with n keys, m bits, k probes.
[[nodiscard]] inline double classic_fpr(double n, double m, double k) noexcept {
    if (m <= 1) return 1.0;
    return detail::loaded_block_fpr(n, k, m);
}

/// Blocked Bloom filter FPR: k probes in one block of B bits.
[[nodiscard]] inline double blocked_fpr(double n, double m, std::uint32_t k, std::uint32_t block) {
    return detail::blocked_fpr_exact(n * block / m, k, block);
}

/// Split-block (Parquet) FPR: blocks of 256 bits, one of 32 bits set in each of 8 words.
[[nodiscard]] inline double split_block_fpr(double n, double m) noexcept {
    const double lambda = n * 256.0 / m;
    return detail::split_block_fpr_at(lambda);
}

namespace detail {

/// The optimum sits near log2(1/p) for classic and a little below for blocked: a generous band.
inline std::pair<std::uint32_t, std::uint32_t> hash_count_band(double p) noexcept {
    const double ideal_k = -std::log2(p);
    return {static_cast<std::uint32_t>(std::max(1.0, std::floor(ideal_k / 2) - 1)),
            static_cast<std::uint32_t>(std::min<double>(max_hashes, std::ceil(ideal_k * 1.5) + 2))};
}

/// The block divided by the classic ideal bits per key; solve_lambda() brackets λ from it.
inline double load_guess(double p, std::uint64_t block) noexcept {
    const double bits_per_key = -std::log(p) / (std::log(2.0) * std::log(2.0));
    return static_cast<double>(block) / bits_per_key;
}

/// The k and the largest λ whose exact FPR is at most p: ranks k by the mean-fill model, settles
/// the two best exactly (the models never reorder distant k). Expensive: callers memoise it.
inline std::pair<std::uint32_t, double> best_blocked_probes(double p, std::uint32_t block) {
    const double guess = load_guess(p, block);
    const auto [first_k, last_k] = hash_count_band(p);
    std::vector<std::pair<double, std::uint32_t>> ranked;
    for (std::uint32_t k = first_k; k <= last_k; ++k)
        ranked.emplace_back(solve_lambda([&](double l) { return blocked_fpr_mean_fill(l, k, block); }, p, guess), k);
    std::sort(ranked.rbegin(), ranked.rend());      // largest λ = fewest bits first
    std::pair<std::uint32_t, double> best{8, 0.0};  // λ = 0 when no k in the band reaches p
    for (std::size_t i = 0; i < std::min<std::size_t>(2, ranked.size()); ++i) {
        const std::uint32_t k = ranked[i].second;
        const double lambda =
            solve_lambda([&](double l) { return blocked_fpr_exact(l, k, block); }, p, ranked[i].first);
        if (lambda > best.second) best = {k, lambda};
    }
    return best;
}

/// A thread-safe memo of an expensive function, in bounded memory whatever the callers ask.
template <class Key, class Value>
class memo {
public:
    template <class Compute>
    Value operator()(const Key& key, Compute compute) {
        {
            const std::lock_guard lock(mutex_);
            if (const auto it = known_.find(key); it != known_.end()) return it->second;
        }
        const Value value = compute();
        const std::lock_guard lock(mutex_);
        if (known_.size() > 4096) known_.clear();
        known_.emplace(key, value);
        return value;
    }

private:
    std::mutex mutex_;
    std::map<Key, Value> known_;
};

/// n = -z·ln(1 - X/m) / (1 - (1 - 1/B)^k) for z = m/B blocks, X of m positions set, given
/// clear_fraction_log = ln(1 - X/m). The callers handle X = 0 and X = m.
inline double blocked_key_estimate(double m, double block, std::uint32_t k, double clear_fraction_log) noexcept {
    return -(m / block) * clear_fraction_log / -std::expm1(k * std::log1p(-1.0 / block));
}
}  // namespace detail
}  // namespace bloomkit
