// bloomkit/sizing/bloom.hpp — sizing a Bloom filter: from (n keys, false-positive rate p) to
// (m bits, k probes) for each layout, and back from a filter's fill to an estimated count and
// current FPR. Pure functions over the models of sizing/models.hpp.
//
// Sizing searches, for every k, the smallest m whose modelled FPR is at most p, then keeps the
// (m, k) with the fewest bits. The textbook k = (m/n)·ln 2 rounded can land a hair above the
// target (1% asks m/n = 9.585, k = 7 gives 1.003%); the search never does.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "bloomkit/error.hpp"
#include "bloomkit/sizing/dcso.hpp"
#include "bloomkit/sizing/guava.hpp"
#include "bloomkit/sizing/models.hpp"

namespace bloomkit {

/// How a Bloom filter places a key's probes. The numeric values are stored in files; what each
/// layout is, is bloom_layouts below.
enum class bloom_layout : std::uint8_t {
    classic = 1,       ///< k probes anywhere in the m bits (k cache lines per key)
    block = 2,         ///< k probes inside one 512-bit block (one cache line per key)
    split_block = 3,   ///< Apache Parquet: 256-bit blocks, one probe in each of 8 32-bit words
    guava = 4,         ///< Guava's BloomFilter, MURMUR128_MITZ_64 (layouts/guava.hpp)
    guava_mitz32 = 5,  ///< Guava's BloomFilter before 17.0, MURMUR128_MITZ_32
    dcso = 6,          ///< DCSO's bloom (layouts/dcso.hpp)
};

/// What a layout is: everything bloomkit says or checks of one, in one place.
struct bloom_layout_facts {
    bloom_layout id;               ///< its code in files
    std::string_view word;         ///< its name, as parse_bloom_layout() takes it
    std::string_view summary;      ///< why one would choose it
    std::string_view filter_name;  ///< how messages name its filter; empty: "<word> Bloom filter"
    std::uint64_t block_bits;      ///< bits per block; 0 when its probes go anywhere
    std::uint64_t granularity;     ///< its bit counts are multiples of this
    std::uint32_t max_hashes;      ///< the most probes per key it takes
    std::uint32_t fixed_hashes;    ///< the probes per key it always takes; 0 when it varies
    bool foreign;                  ///< another program's, sized and probed as that program does
};

/// Every layout, in the order `bloomkit plan` shows them (the default first). Guava's count
/// of probes is a byte of its stream, DCSO's a field of its header: 255 at most.
inline constexpr bloom_layout_facts bloom_layouts[] = {
    {bloom_layout::block, "block", "one cache line per key (the default)", "", 512, 512, max_hashes, 0, false},
    {bloom_layout::classic, "classic", "fewest bits of the Bloom filters, k cache lines per key", "", 0, 1, max_hashes,
     0, false},
    {bloom_layout::split_block, "split-block", "Apache Parquet compatible", "", 256, 256, 8, 8, false},
    {bloom_layout::guava, "guava", "Guava's BloomFilter, bit for bit (MURMUR128_MITZ_64)", "Guava Bloom filter", 0, 64,
     255, 0, true},
    {bloom_layout::guava_mitz32, "guava-mitz32", "Guava's BloomFilter before 17.0 (MURMUR128_MITZ_32)",
     "Guava Bloom filter (MURMUR128_MITZ_32)", 0, 64, 255, 0, true},
    {bloom_layout::dcso, "dcso", "DCSO bloom's, bit for bit", "DCSO Bloom filter", 0, 1, 255, 0, true},
};

namespace detail {

/// The index in bloom_layouts of a layout code, or the table's size for a code no layout has.
/// (An index, not a pointer: GCC's sanitizers make a constant expression of no address test.)
[[nodiscard]] constexpr std::size_t layout_index(std::uint8_t code) noexcept {
    std::size_t i = 0;
    while (i < std::size(bloom_layouts) && static_cast<std::uint8_t>(bloom_layouts[i].id) != code) ++i;
    return i;
}

}  // namespace detail

/// The facts of a layout code stored in a file, or nullptr for a code no layout has.
[[nodiscard]] inline const bloom_layout_facts* find_layout(std::uint8_t code) noexcept {
    const std::size_t i = detail::layout_index(code);
    return i < std::size(bloom_layouts) ? &bloom_layouts[i] : nullptr;
}

/// The facts of `layout`.
[[nodiscard]] constexpr const bloom_layout_facts& facts_of(bloom_layout layout) noexcept {
    const std::size_t i = detail::layout_index(static_cast<std::uint8_t>(layout));
    return bloom_layouts[i < std::size(bloom_layouts) ? i : 0];  // every enumerator is listed
}

/// Whether the layout is another program's (Guava's, DCSO's), sized and probed as it does.
[[nodiscard]] constexpr bool is_foreign(bloom_layout layout) noexcept { return facts_of(layout).foreign; }

/// The most probes per key a layout takes.
[[nodiscard]] constexpr std::uint32_t max_hashes_of(bloom_layout layout) noexcept {
    return facts_of(layout).max_hashes;
}

/// The layout's name ("block", "split-block", ...), as parse_bloom_layout() takes it.
[[nodiscard]] constexpr std::string_view to_string(bloom_layout layout) noexcept { return facts_of(layout).word; }

/// The layout named `name` as to_string() names it. Throws invalid_argument for another name.
[[nodiscard]] inline bloom_layout parse_bloom_layout(std::string_view name) {
    std::string choices;
    for (const bloom_layout_facts& facts : bloom_layouts) {
        if (name == facts.word) return facts.id;
        choices += std::string(&facts == std::end(bloom_layouts) - 1 ? " or "
                               : choices.empty()                     ? ""
                                                                     : ", ") +
                   std::string(facts.word);
    }
    throw invalid_argument("unknown layout '" + std::string(name) + "': choose " + choices);
}

/// Bits per block of a layout; 0 for those whose probes go anywhere.
[[nodiscard]] constexpr std::uint64_t block_bits(bloom_layout layout) noexcept { return facts_of(layout).block_bits; }

/// What plan_bloom() recommends for (n, p): the geometry and the FPR its model predicts at n.
struct bloom_plan {
    /// The fewest bits (and the k for them) whose modelled FPR at n is at most p; for a foreign
    /// layout, what its own program chooses.
    bloom_geometry geometry;
    /// The FPR the layout's model predicts for the geometry at n keys.
    double fpr = 0;
    /// m / n.
    [[nodiscard]] double bits_per_key(double n) const noexcept { return static_cast<double>(geometry.bits) / n; }
    /// The bits, in bytes.
    [[nodiscard]] std::uint64_t bytes() const noexcept { return (geometry.bits + 7) / 8; }
};

/// The modelled FPR of a filter of the given layout and geometry holding n keys.
[[nodiscard]] inline double expected_fpr(bloom_layout layout, double n, bloom_geometry g) {
    if (n <= 0) return 0.0;
    const auto m = static_cast<double>(g.bits);
    switch (layout) {
        case bloom_layout::block: return blocked_fpr(n, m, g.hashes, 512);
        case bloom_layout::split_block: return split_block_fpr(n, m);
        default: return classic_fpr(n, m, g.hashes);  // k probes anywhere
    }
}

/// The bit counts a layout takes are multiples of this.
[[nodiscard]] constexpr std::uint64_t bit_granularity(bloom_layout layout) noexcept {
    return facts_of(layout).granularity;
}

/// Smallest allowed bit count of a layout at or above `bits`: whole blocks (at least one), or
/// at least one bit for classic. Throws when that does not fit in 64 bits.
[[nodiscard]] inline std::uint64_t round_bits(bloom_layout layout, std::uint64_t bits) {
    const std::uint64_t block = bit_granularity(layout);
    if (block == 1) return std::max<std::uint64_t>(bits, 1);
    if (bits > std::numeric_limits<std::uint64_t>::max() - (block - 1))
        throw invalid_argument("a filter of " + std::to_string(bits) + " bits does not fit in 64-bit sizes");
    return std::max<std::uint64_t>((bits + block - 1) / block, 1) * block;
}
namespace detail {

/// For a blocked layout and target p: the number of probes k and the largest load λ (keys per
/// block) whose FPR is at most p. Independent of n, so it is computed once per (layout, p).
inline std::pair<std::uint32_t, double> blocked_optimum(bloom_layout layout, double p) {
    static memo<std::pair<bloom_layout, double>, std::pair<std::uint32_t, double>> known;
    return known({layout, p}, [&] {
        if (layout == bloom_layout::split_block)
            return std::pair<std::uint32_t, double>{
                8, solve_lambda(split_block_fpr_at, p, load_guess(p, block_bits(layout)))};
        return best_blocked_probes(p, static_cast<std::uint32_t>(block_bits(layout)));
    });
}

}  // namespace detail

/// The geometry with the fewest bits whose modelled FPR at n keys is at most p; for a foreign
/// layout, the geometry its own program chooses (sizing/guava.hpp, sizing/dcso.hpp).
/// Throws bloomkit::invalid_argument for n < 1, p outside (0, 1) or NaN, and when the
/// answer would exceed 2^64 bits.
[[nodiscard]] inline bloom_plan plan_bloom(bloom_layout layout, double n, double p) {
    detail::require_keys(n);
    detail::require_probability(p);
    if (is_foreign(layout)) {  // sized as the program the layout comes from sizes it
        const bloom_geometry g = layout == bloom_layout::dcso ? dcso_geometry(n, p) : guava_geometry(n, p);
        return {g, expected_fpr(layout, n, g)};
    }
    // The ideal classic size is a lower bound for every layout; blocked ones need a bit more.
    const double ideal = -n * std::log(p) / (std::log(2.0) * std::log(2.0));
    const double ceiling = 0x1p64 - 0x1p12;  // largest bit count still representable, whole blocks
    if (ideal * 1.5 > ceiling)
        throw invalid_argument("a filter for " + show_number(n) + " keys at p = " + show_number(p) +
                               " would need more than 2^64 bits");

    bloom_plan best{{0, 0}, 1.0};
    auto consider = [&](bloom_geometry g) {
        if (g.bits != 0 && (best.geometry.bits == 0 || g.bits < best.geometry.bits))
            best = {g, expected_fpr(layout, n, g)};
    };
    if (layout == bloom_layout::classic) {
        // A closed form: binary search for the smallest m meeting p, for every k in the band.
        const auto [first_k, last_k] = detail::hash_count_band(p);
        for (std::uint32_t k = first_k; k <= last_k; ++k) {
            // m from the ideal up: far above it at a loose p (p = 0.999 needs ~70x the ideal
            // at k = 1), where the textbook formula is no guide.
            auto lo = static_cast<std::uint64_t>(ideal * 0.9) + 1;
            auto hi = static_cast<std::uint64_t>(std::min(std::max(ideal * 2.0, 64.0), ceiling));
            while (classic_fpr(n, static_cast<double>(hi), k) > p && static_cast<double>(hi) < ceiling / 2)
                lo = hi, hi *= 2;
            if (classic_fpr(n, static_cast<double>(hi), k) > p) continue;
            while (lo < hi) {
                const std::uint64_t mid = lo + (hi - lo) / 2;
                if (classic_fpr(n, static_cast<double>(mid), k) <= p) hi = mid;
                else lo = mid + 1;
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
        throw invalid_argument("no " + std::string(to_string(layout)) +
                               " Bloom filter of at most 2^64 bits reaches p = " + show_number(p) + " for " +
                               show_number(n) + " keys");
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
[[nodiscard]] inline double estimate_keys(bloom_layout layout, bloom_geometry g, std::uint64_t set_bits) noexcept {
    if (set_bits == 0 || g.bits == 0) return 0.0;
    if (set_bits >= g.bits) return std::numeric_limits<double>::infinity();
    const auto m = static_cast<double>(g.bits);
    const double clear_fraction_log = std::log1p(-static_cast<double>(set_bits) / m);
    switch (layout) {
        case bloom_layout::block: return detail::blocked_key_estimate(m, 512, g.hashes, clear_fraction_log);
        case bloom_layout::split_block: return -(m / 256) * clear_fraction_log * 32;  // 1 - q = 1/32
        default:  // k probes anywhere, one range, no Poisson averaging: (1-1/m)^(k·n) = 1 - X/m exactly
            return clear_fraction_log / (g.hashes * std::log1p(-1.0 / m));
    }
}

/// The FPR a filter has now, from its fill: the model at the estimated key count. For the
/// classic layout this is exactly (X/m)^k; 1 when every bit is set.
[[nodiscard]] inline double current_fpr(bloom_layout layout, bloom_geometry g, std::uint64_t set_bits) {
    const double n = estimate_keys(layout, g, set_bits);
    if (std::isinf(n)) return 1.0;
    return expected_fpr(layout, n, g);
}
}  // namespace bloomkit
