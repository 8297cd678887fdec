// bloomkit/sizing/binary_fuse.hpp — sizing a binary fuse filter (Thomas Mueller Graf & Daniel
// Lemire, "Binary Fuse Filters: Fast and Smaller Than Xor Filters", ACM JEA 27, 2022): the
// paper's segment lengths and size factors, the rounding to whole segments, and the choice of
// fingerprint bits for a target FPR (2^-f).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "bloomkit/error.hpp"
#include "bloomkit/sizing/models.hpp"

namespace bloomkit {

/// How the array is cut: segment_count segments for a key's first slot, arity - 1 more for its
/// others. The empty filter has every field 0.
struct binary_fuse_geometry {
    /// Slots per segment, a power of two up to binary_fuse_max_segment_length.
    std::uint64_t segment_length = 0;
    /// Segments where a key's first slot may fall.
    std::uint64_t segment_count = 0;
    /// Slots (fingerprints) in all: (segment_count + arity - 1) · segment_length.
    std::uint64_t array_length = 0;
    /// Every field equal.
    friend constexpr bool operator==(const binary_fuse_geometry&, const binary_fuse_geometry&) = default;
};

/// 2^18 slots: a slot offset takes 18 bits of a 64-bit hash.
inline constexpr std::uint64_t binary_fuse_max_segment_length = std::uint64_t{1} << 18;

/// Far beyond any memory; keeps the arithmetic exact.
inline constexpr std::uint64_t binary_fuse_max_keys = std::uint64_t{1} << 56;

namespace detail {

inline void require_fuse_arity(unsigned arity) {
    if (arity != 3 && arity != 4)
        throw invalid_argument("binary fuse filters are 3-wise or 4-wise, not " + std::to_string(arity) + "-wise");
}

inline void require_fuse_keys(std::uint64_t keys) {
    if (keys > binary_fuse_max_keys)
        throw invalid_argument("a binary fuse filter holds at most 2^56 keys, not " + std::to_string(keys));
}

/// The paper's formulas hold for n >= 2 (ln 1 = 0 would divide by zero).
inline double fuse_sizing_keys(std::uint64_t keys) noexcept {
    return static_cast<double>(std::max<std::uint64_t>(keys, 2));
}

inline constexpr double fuse_floor_size_factor(unsigned arity) noexcept { return arity == 3 ? 1.125 : 1.075; }

}  // namespace detail

/// 2^floor(ln n / ln 3.33 + 2.25) for 3-wise, 2^floor(ln n / ln 2.91 - 0.5) for 4-wise (the
/// paper's fit, so construction rarely fails), in [1, 2^18]; 0 for no keys.
[[nodiscard]] inline std::uint64_t binary_fuse_segment_length(unsigned arity, std::uint64_t keys) {
    detail::require_fuse_arity(arity);
    detail::require_fuse_keys(keys);
    if (keys == 0) return 0;
    const double ln_n = std::log(detail::fuse_sizing_keys(keys));
    const double exponent =
        arity == 3 ? std::floor(ln_n / std::log(3.33) + 2.25) : std::floor(ln_n / std::log(2.91) - 0.5);
    const int max_exponent = std::countr_zero(binary_fuse_max_segment_length);
    return std::uint64_t{1} << std::clamp(static_cast<int>(exponent), 0, max_exponent);
}

/// Slots per key before rounding: max(1.125, 0.875 + 0.25·ln(10^6)/ln n) for 3-wise,
/// max(1.075, 0.77 + 0.305·ln(600000)/ln n) for 4-wise; peeling few keys fails more often.
[[nodiscard]] inline double binary_fuse_size_factor(unsigned arity, std::uint64_t keys) {
    detail::require_fuse_arity(arity);
    detail::require_fuse_keys(keys);
    const double ln_n = std::log(detail::fuse_sizing_keys(keys));
    const double fitted = arity == 3 ? 0.875 + 0.25 * std::log(1e6) / ln_n : 0.77 + 0.305 * std::log(600000.0) / ln_n;
    return std::max(detail::fuse_floor_size_factor(arity), fitted);
}

/// round(n · size factor) slots rounded up to whole segments. Once the factor is at its floor,
/// rounding can cost up to 1% more (3-wise at 1.38M keys: 1.1365 slots per key), so segments are
/// halved while it would add more than n/200 slots, keeping within factor + 0.005; that makes a
/// peel fail more often, costing build time, never space (docs/design/sizing.md).
[[nodiscard]] inline binary_fuse_geometry binary_fuse_geometry_for(unsigned arity, std::uint64_t keys) {
    std::uint64_t segment_length = binary_fuse_segment_length(arity, keys);
    if (keys == 0) return {};
    const double factor = binary_fuse_size_factor(arity, keys);
    const auto slots = static_cast<std::uint64_t>(std::round(detail::fuse_sizing_keys(keys) * factor));
    const auto whole_segments = [&] { return (slots + segment_length - 1) / segment_length * segment_length; };
    const bool factor_at_floor = !(factor > detail::fuse_floor_size_factor(arity));
    while (factor_at_floor && whole_segments() - slots > keys / 200) segment_length /= 2;
    const std::uint64_t segments = whole_segments() / segment_length;
    const std::uint64_t segment_count = std::max<std::uint64_t>(segments, arity) - (arity - 1);  // at least 1
    return {segment_length, segment_count, (segment_count + arity - 1) * segment_length};
}

/// Bits per key of a filter built from `keys` distinct keys with f-bit fingerprints.
[[nodiscard]] inline double binary_fuse_bits_per_key(unsigned arity, unsigned fingerprint_bits, std::uint64_t keys) {
    if (keys == 0) return 0;
    const binary_fuse_geometry g = binary_fuse_geometry_for(arity, keys);
    return static_cast<double>(g.array_length) * fingerprint_bits / static_cast<double>(keys);
}

/// How a key's slots and fingerprint follow from its digest (binary_fuse_filter.hpp); stored in
/// files.
enum class binary_fuse_hashing : std::uint8_t {
    remix128 = 0,  ///< both digest halves, each fmix64-remixed with the seed: read, not built
    remix64 = 1,   ///< the low 64 bits fmix64-remixed with the seed: for foreign hashes
    direct64 = 2,  ///< the low 64 bits as they are at the hasher's seed, else as remix64
};

/// The last slot hashing a reader knows.
inline constexpr binary_fuse_hashing last_binary_fuse_hashing = binary_fuse_hashing::direct64;

/// Everything a file stores of a built filter besides its hasher and array.
struct binary_fuse_parameters {
    /// Slots per key: 3 or 4.
    std::uint32_t arity = 3;
    /// Bits per fingerprint: 8 or 16.
    std::uint32_t fingerprint_bits = 8;
    std::uint64_t keys = 0;  ///< distinct keys (digests) the filter was built from
    /// How the array is cut into segments.
    binary_fuse_geometry geometry{};
    std::uint64_t construction_seed = 0;  ///< the seed of the attempt that peeled
    /// How keys find their slots.
    binary_fuse_hashing hashing = binary_fuse_hashing::direct64;
    /// Every field equal.
    friend constexpr bool operator==(const binary_fuse_parameters&, const binary_fuse_parameters&) = default;
};

/// Throws invalid_argument unless `p` can exist. Not the geometry binary_fuse_geometry_for()
/// picks: a file written where std::log rounds differently, or by a later rule, must load.
inline void check_binary_fuse_parameters(const binary_fuse_parameters& p) {
    auto refuse = [](const std::string& why) { throw invalid_argument("inconsistent binary fuse filter: " + why); };
    if ((p.arity != 3 && p.arity != 4) || (p.fingerprint_bits != 8 && p.fingerprint_bits != 16))
        refuse(std::to_string(p.arity) + "-wise with " + std::to_string(p.fingerprint_bits) +
               "-bit fingerprints (3- or 4-wise, 8 or 16 bits)");
    if (p.hashing > last_binary_fuse_hashing)
        refuse("unknown slot hashing " + std::to_string(static_cast<unsigned>(p.hashing)));
    const binary_fuse_geometry& g = p.geometry;
    if (p.keys == 0) {
        if (g != binary_fuse_geometry{}) refuse("no keys but a non-empty array");
        return;
    }
    if (!std::has_single_bit(g.segment_length) || g.segment_length > binary_fuse_max_segment_length)
        refuse("segment length " + std::to_string(g.segment_length) + " is not a power of two up to 2^18");
    if (g.segment_count == 0 ||
        g.segment_count > std::numeric_limits<std::uint64_t>::max() / g.segment_length - p.arity)
        refuse("segment count " + std::to_string(g.segment_count) + " is 0 or too large");
    if (g.array_length != (g.segment_count + p.arity - 1) * g.segment_length)
        refuse("array length " + std::to_string(g.array_length) + " is not (segment count + " +
               std::to_string(p.arity - 1) + ") x segment length");
    if (p.keys > g.array_length)
        refuse(std::to_string(p.keys) + " keys cannot fit in " + std::to_string(g.array_length) + " slots");
}

/// What plan_binary_fuse() recommends: the fingerprint length and the array for n keys.
struct binary_fuse_plan {
    /// Slots per key: 3 or 4, as asked.
    std::uint32_t arity = 3;
    /// Bits per fingerprint: as asked, or the fewest (8 or 16) that meet p.
    std::uint32_t fingerprint_bits = 8;
    /// The array binary_fuse_geometry_for() picks for n keys.
    binary_fuse_geometry geometry;
    double fpr = 0;  ///< 2^-fingerprint_bits
    /// The fingerprint array's size.
    [[nodiscard]] std::uint64_t bytes() const noexcept { return geometry.array_length * (fingerprint_bits / 8); }
    /// The array's bits divided among n keys.
    [[nodiscard]] double bits_per_key(double n) const noexcept { return static_cast<double>(bytes()) * 8 / n; }
};

/// The fewest (8 or 16) with 2^-bits ≤ p; throws invalid_argument for p outside [2^-16, 1).
[[nodiscard]] inline std::uint32_t binary_fuse_fingerprint_bits_for(double p) {
    detail::require_probability(p);
    for (const std::uint32_t bits : {8U, 16U})
        if (std::ldexp(1.0, -static_cast<int>(bits)) <= p) return bits;
    throw invalid_argument("a binary fuse filter reaches at best p = 1/65536 (16-bit fingerprints), not " +
                           show_number(p) + "; use a Bloom filter");
}

/// For n distinct keys at FPR ≤ p (or with `fingerprint_bits`, when given); throws
/// invalid_argument for an arity but 3 or 4, n < 1, or p out of reach.
[[nodiscard]] inline binary_fuse_plan plan_binary_fuse(unsigned arity, double n, double p,
                                                       std::uint32_t fingerprint_bits = 0) {
    detail::require_keys(n);
    const std::uint32_t bits = fingerprint_bits != 0 ? fingerprint_bits : binary_fuse_fingerprint_bits_for(p);
    if (bits != 8 && bits != 16)
        throw invalid_argument("a binary fuse filter's fingerprints have 8 or 16 bits, not " + std::to_string(bits));
    if (!(n <= static_cast<double>(binary_fuse_max_keys)))
        throw invalid_argument("a binary fuse filter holds at most 2^56 keys, not " + show_number(n));
    const binary_fuse_geometry g = binary_fuse_geometry_for(arity, static_cast<std::uint64_t>(n));
    return {arity, bits, g, std::ldexp(1.0, -static_cast<int>(bits))};
}

}  // namespace bloomkit
