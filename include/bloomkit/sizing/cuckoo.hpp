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

/// The load that sizing starts from: cuckoo_buckets_for() takes the fewest buckets at most
/// this full with n keys, then adds a margin. With b = 4, walks first fail at 95.3–96.4% load
/// in tables of a million keys (and the stash takes one key more), so n keys would fit there.
/// Small tables vary more: sized at exactly 95% for n ≤ 1,000 keys, about 1 in 100–700 of them
/// reported full (losing nothing) before taking all n random keys; hence the margin.
inline constexpr double cuckoo_max_load = 0.95;

/// The largest bucket count: keeps every byte offset and size well inside 64 bits.
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

/// Words (64-bit) holding a table of this geometry: the buckets, plus the padding that keeps
/// the last bucket's 64-bit window in bounds.
[[nodiscard]] constexpr std::uint64_t cuckoo_word_count(cuckoo_geometry g) noexcept {
    if (g.buckets == 0) return 0;
    const std::uint64_t last_window_end = (g.buckets - 1) * (g.fingerprint_bits / 2) + 8;  // bytes
    return (last_window_end + 7) / 8;
}

/// What plan_cuckoo() recommends for (n, p), and the FPR the model predicts at n keys.
struct cuckoo_plan {
    /// The fewest buckets that hold n keys (cuckoo_buckets_for()), with the fingerprint bits
    /// asked for or the fewest that meet p.
    cuckoo_geometry geometry;
    /// cuckoo_fpr() at the load n keys give.
    double fpr = 0;
    /// The table's size: cuckoo_word_count() words of 8 bytes.
    [[nodiscard]] std::uint64_t bytes() const noexcept { return cuckoo_word_count(geometry) * 8; }
    /// The table's bits divided among n keys.
    [[nodiscard]] double bits_per_key(double n) const noexcept { return static_cast<double>(bytes()) * 8 / n; }
};

/// The FPR of a cuckoo filter with f-bit fingerprints whose slots are a fraction `load` full:
/// a query compares its fingerprint with the 2b slots of its two buckets, each holding a
/// fingerprint with probability `load`, equal to the query's with probability 1/(2^f - 1)
/// (fingerprints are uniform over the nonzero values). At load 1 this is the bound the
/// filter never exceeds, ≈ 2b / 2^f. (The one-slot stash adds ~2/(buckets · 2^f): ignored.)
[[nodiscard]] inline double cuckoo_fpr(std::uint32_t fingerprint_bits, double load) noexcept {
    const double fingerprints = std::ldexp(1.0, static_cast<int>(fingerprint_bits)) - 1;
    return -std::expm1(2.0 * cuckoo_bucket_size * load * std::log1p(-1.0 / fingerprints));
}

/// The fewest fingerprint bits (8, 12 or 16) whose FPR stays at most p however full the table
/// gets. Throws invalid_argument for p outside (0, 1), and below what 16 bits give (~0.0122%).
[[nodiscard]] inline std::uint32_t cuckoo_fingerprint_bits_for(double p) {
    detail::require_probability(p);
    for (const std::uint32_t bits : {8U, 12U, 16U})
        if (cuckoo_fpr(bits, 1.0) <= p) return bits;
    throw invalid_argument("a cuckoo filter's false-positive rate is at best " + show_number(cuckoo_fpr(16, 1.0)) +
                           " (16-bit fingerprints); for p = " + show_number(p) + " use a Bloom filter");
}

/// Buckets that hold n keys: ceil(n / 3.8) — a load of at most cuckoo_max_load — plus
/// ceil(sqrt) of that. The 95% a big table reaches is an average; a small one fluctuates around
/// it (sized at exactly 95%, about 1% of filters for n <= 200 refused one of their n keys).
/// The sqrt margin covers the fluctuation, which shrinks as 1/sqrt(B): with n <= 1000 and
/// 8-bit fingerprints about 1 filter in a million still refuses a key (4 in 4.3 million
/// trials; none in 300,000 each at 12 and 16 bits), for 0.2% more memory at n = 1M. Throws
/// invalid_argument for n < 1 (or NaN) and beyond cuckoo_max_buckets.
[[nodiscard]] inline std::uint64_t cuckoo_buckets_for(double n) {
    detail::require_keys(n);
    const double at_max_load = std::max(1.0, std::ceil(n / (cuckoo_max_load * cuckoo_bucket_size)));
    const double buckets = at_max_load + std::ceil(std::sqrt(at_max_load));
    if (buckets > static_cast<double>(cuckoo_max_buckets))
        throw invalid_argument("a cuckoo filter for " + show_number(n) + " keys would need more than 2^58 buckets");
    return static_cast<std::uint64_t>(buckets);
}

/// Throws invalid_argument unless a table of this geometry can exist: fingerprints of 8, 12 or
/// 16 bits, and 1 to 2^58 buckets (any count: the mod-B pairing needs no power of two).
inline void check_cuckoo_geometry(cuckoo_geometry g) {
    const std::uint32_t f = g.fingerprint_bits;
    if (f != 8 && f != 12 && f != 16)
        throw invalid_argument("a cuckoo filter's fingerprints have 8, 12 or 16 bits, not " + std::to_string(f));
    if (g.buckets == 0 || g.buckets > cuckoo_max_buckets)
        throw invalid_argument("a cuckoo filter has 1 to 2^58 buckets, not " + std::to_string(g.buckets));
}

/// The smallest cuckoo filter that holds n keys with an FPR of at most p (at any load). With
/// `fingerprint_bits` (8, 12 or 16) given, fingerprints of that length whatever p asks (the
/// plan's fpr says what they reach).
[[nodiscard]] inline cuckoo_plan plan_cuckoo(double n, double p, std::uint32_t fingerprint_bits = 0) {
    const std::uint32_t bits = fingerprint_bits != 0 ? fingerprint_bits : cuckoo_fingerprint_bits_for(p);
    const std::uint64_t buckets = cuckoo_buckets_for(n);
    check_cuckoo_geometry({buckets, bits});
    const double load = n / (static_cast<double>(buckets) * cuckoo_bucket_size);
    return {{buckets, bits}, cuckoo_fpr(bits, load)};
}

}  // namespace bloomkit
