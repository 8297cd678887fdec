// bloomkit/sizing/cuckoo.hpp — sizing a cuckoo filter (Fan, Andersen, Kaminsky & Mitzenmacher,
// "Cuckoo Filter: Practically Better Than Bloom", CoNEXT 2014): buckets of four f-bit
// fingerprints, filled to at most 95%, with fingerprints just long enough for the target FPR.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "bloomkit/error.hpp"
#include "bloomkit/sizing/models.hpp"

namespace bloomkit {

/// Slots per bucket. Four is the paper's choice: ~95% occupancy for 3 bits of FPR per key.
inline constexpr std::uint32_t cuckoo_bucket_size = 4;

/// Relocations an insert may make before it parks the last victim in the stash.
inline constexpr std::uint32_t cuckoo_max_kicks = 500;

/// The load sizing starts from, below where walks first fail with b = 4 in large tables;
/// cuckoo_buckets_for() adds a margin for small ones (docs/design/cuckoo.md, "Sizing margin").
inline constexpr double cuckoo_max_load = 0.95;

/// Keeps every byte offset and size well inside 64 bits.
inline constexpr std::uint64_t cuckoo_max_buckets = std::uint64_t{1} << 58;

/// Number of buckets (1 to 2^58, any count) and fingerprint bits (8, 12 or 16) of a cuckoo filter.
struct cuckoo_geometry {
    /// Buckets of cuckoo_bucket_size slots each.
    std::uint64_t buckets = 0;
    /// Bits per fingerprint (slot): 8, 12 or 16.
    std::uint32_t fingerprint_bits = 0;
    /// Same buckets and fingerprint bits.
    friend constexpr bool operator==(const cuckoo_geometry&, const cuckoo_geometry&) = default;
};

/// The buckets, padded so the last bucket's 64-bit window stays in bounds.
[[nodiscard]] constexpr std::uint64_t cuckoo_word_count(cuckoo_geometry g) noexcept {
    if (g.buckets == 0) return 0;
    const std::uint64_t last_window_end = (g.buckets - 1) * (g.fingerprint_bits / 2) + 8;  // bytes
    return (last_window_end + 7) / 8;
}

/// What plan_cuckoo() recommends for (n, p), and the FPR the model predicts at n keys.
struct cuckoo_plan {
    /// cuckoo_buckets_for(n), with the bits asked for or the fewest that meet p.
    cuckoo_geometry geometry;
    /// cuckoo_fpr() at the load n keys give.
    double fpr = 0;
    /// The table's size: cuckoo_word_count() words of 8 bytes.
    [[nodiscard]] std::uint64_t bytes() const noexcept { return cuckoo_word_count(geometry) * 8; }
    /// The table's bits divided among n keys.
    [[nodiscard]] double bits_per_key(double n) const noexcept { return static_cast<double>(bytes()) * 8 / n; }
};

/// A query meets 2b slots, each full with probability `load` and equal with probability
/// 1/(2^f - 1) (fingerprints are nonzero). At load 1, the bound ≈ 2b / 2^f; the stash's
/// ~2/(buckets · 2^f) is ignored.
[[nodiscard]] inline double cuckoo_fpr(std::uint32_t fingerprint_bits, double load) noexcept {
    const double fingerprints = std::ldexp(1.0, static_cast<int>(fingerprint_bits)) - 1;
    return -std::expm1(2.0 * cuckoo_bucket_size * load * std::log1p(-1.0 / fingerprints));
}

/// The fewest (8, 12, 16) with FPR ≤ p at any load; invalid_argument for p outside (0, 1) or below
/// what 16 bits give (~0.0122%).
[[nodiscard]] inline std::uint32_t cuckoo_fingerprint_bits_for(double p) {
    detail::require_probability(p);
    for (const std::uint32_t bits : {8U, 12U, 16U})
        if (cuckoo_fpr(bits, 1.0) <= p) return bits;
    throw invalid_argument("a cuckoo filter's false-positive rate is at best " + show_number(cuckoo_fpr(16, 1.0)) +
                           " (16-bit fingerprints); for p = " + show_number(p) + " use a Bloom filter");
}

/// ceil(n / 3.8) (cuckoo_max_load) plus its ceil(sqrt): a small table's achievable load fluctuates
/// around 95% as 1/sqrt(B) (docs/design/cuckoo.md, "Sizing margin"). Throws invalid_argument for
/// n < 1 (or NaN) and beyond cuckoo_max_buckets.
[[nodiscard]] inline std::uint64_t cuckoo_buckets_for(double n) {
    detail::require_keys(n);
    const double at_max_load = std::max(1.0, std::ceil(n / (cuckoo_max_load * cuckoo_bucket_size)));
    const double buckets = at_max_load + std::ceil(std::sqrt(at_max_load));
    if (buckets > static_cast<double>(cuckoo_max_buckets))
        throw invalid_argument("a cuckoo filter for " + show_number(n) + " keys would need more than 2^58 buckets");
    return static_cast<std::uint64_t>(buckets);
}

/// Throws invalid_argument unless 8-, 12- or 16-bit fingerprints and 1 to 2^58 buckets.
inline void check_cuckoo_geometry(cuckoo_geometry g) {
    const std::uint32_t f = g.fingerprint_bits;
    if (f != 8 && f != 12 && f != 16)
        throw invalid_argument("a cuckoo filter's fingerprints have 8, 12 or 16 bits, not " + std::to_string(f));
    if (g.buckets == 0 || g.buckets > cuckoo_max_buckets)
        throw invalid_argument("a cuckoo filter has 1 to 2^58 buckets, not " + std::to_string(g.buckets));
}

/// The smallest holding n keys at FPR ≤ p at any load, or with `fingerprint_bits` whatever p asks.
[[nodiscard]] inline cuckoo_plan plan_cuckoo(double n, double p, std::uint32_t fingerprint_bits = 0) {
    const std::uint32_t bits = fingerprint_bits != 0 ? fingerprint_bits : cuckoo_fingerprint_bits_for(p);
    const std::uint64_t buckets = cuckoo_buckets_for(n);
    check_cuckoo_geometry({buckets, bits});
    const double load = n / (static_cast<double>(buckets) * cuckoo_bucket_size);
    return {{buckets, bits}, cuckoo_fpr(bits, load)};
}

}  // namespace bloomkit
