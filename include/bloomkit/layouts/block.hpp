// bloomkit/layouts/block.hpp — the cache-blocked Bloom filter: all k probes of a key in
// one 512-bit block, i.e. one 64-byte cache line (Putze, Sanders & Singler 2007). bloomkit's
// default layout: one memory access per lookup, at the price of ~3–10% more bits than classic
// for the same FPR (sizing.hpp models the difference exactly and sizes for it).
//
// Block: multiply-high of the digest's high half by the number of blocks.
// Bits: the digest's low 32 bits x, multiplied by 0x9e3779b9 (2^32 / golden ratio) once per
// probe; the top 9 bits of each product pick one of the 512 bits. This is the scheme of
// RocksDB's FastLocalBloom, whose authors measured it at the FPR of independent probes. Every
// product is x·c^(i+1) mod 2^32, so a SIMD backend computes eight probes at once from the
// powers of c and sets the same bits as this scalar loop.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "bloomkit/detail/blocked_layout.hpp"
#include "bloomkit/simd.hpp"
#include "bloomkit/detail/simd/block_avx2.hpp"
#include "bloomkit/detail/simd/block_avx512.hpp"

namespace bloomkit {

class block_layout : public detail::blocked_layout<block_layout, std::uint64_t, 8> {
public:
    static constexpr bloom_layout id = bloom_layout::block;
    static constexpr hash_algorithm default_hash = default_hash_algorithm;
    static constexpr std::uint32_t probe_multiplier = 0x9e3779b9U;

    explicit block_layout(bloom_geometry g) : blocked_layout(g) {}

    [[nodiscard]] probe locate(const digest& d) const noexcept {
        return {detail::reduce(d.high, block_count()), static_cast<std::uint32_t>(d.low)};
    }

    template <class Visit>
    void for_each_bit(std::uint32_t pattern, Visit visit) const noexcept {
        // Independent products x·c^(i+1), not a chain of x *= c: the multiplications overlap
        // instead of waiting on each other (and vectorise: simd/block_kernels.hpp).
        for (std::uint32_t i = 0; i < geometry().hashes; ++i) {
            const std::uint32_t bit = (pattern * multiplier_powers[i]) >> (32 - 9);  // 0..511
            visit(bit / 64, std::uint64_t{1} << (bit % 64));
        }
    }

    bool test_batch_simd(const word_type* words, std::span<const probe> probes, bool* out) const noexcept {
#ifdef BLOOMKIT_X86_SIMD
        // AVX-512 pays only when k > 8: up to 8 probes fit one AVX2 step, which is cheaper.
        const simd_level level = active_simd_level();
        if (level == simd_level::avx512 && geometry().hashes > 8) {
            detail::simd::block_test_avx512(words, probes.data(), probes.size(), geometry().hashes,
                                            multiplier_powers.data(), out);
            return true;
        }
        if (level != simd_level::scalar) {
            detail::simd::block_test_avx2(words, probes.data(), probes.size(), geometry().hashes, multiplier_powers.data(),
                                          out);
            return true;
        }
#endif
        (void)words, (void)probes, (void)out;
        return false;
    }

    std::optional<std::size_t> set_batch_simd(word_type* words, std::span<const probe> probes) const noexcept {
#ifdef BLOOMKIT_X86_SIMD
        if (active_simd_level() == simd_level::avx512)  // AVX2 measured no faster than scalar
            return detail::simd::block_set_avx512(words, probes.data(), probes.size(), geometry().hashes,
                                                  multiplier_powers.data());
#endif
        (void)words, (void)probes;
        return std::nullopt;
    }

    /// c^(i+1) mod 2^32 for probe i: the multipliers of the probes, in order.
    static constexpr std::array<std::uint32_t, max_hashes + 16> multiplier_powers = [] {
        std::array<std::uint32_t, max_hashes + 16> powers{};  // + 16: a SIMD step's idle lanes
        std::uint32_t power = 1;
        for (auto& p : powers) p = power *= probe_multiplier;
        return powers;
    }();
};

}  // namespace bloomkit
