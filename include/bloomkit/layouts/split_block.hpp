// bloomkit/layouts/split_block.hpp — the split-block Bloom filter, bit for bit as the
// Apache Parquet format specifies it (parquet-format, BloomFilter.md).
//
// A block is eight 32-bit words and a key sets one bit in each (k = 8). With XXH64 at seed 0 (the
// default), h the 64-bit hash and x its low 32 bits:
//   block = ((h >> 32) · z) >> 32 for z blocks,   bit in word i = (x · salt[i] mod 2^32) >> 27.
// The product is taken in 128 bits: the spec's rule for every z < 2^32, still in range beyond.
// Words are stored little-endian, so a saved payload is a Parquet bitset.
#pragma once

#include <array>
#include <cstdint>

#include "bloomkit/detail/blocked_layout.hpp"
#include "bloomkit/detail/simd/split_block_avx2.hpp"
#include "bloomkit/simd.hpp"

namespace bloomkit {

/// The Parquet split-block layout, split_block_bloom_filter's; the hooks serve
/// detail::blocked_layout.
class split_block_layout : public detail::blocked_layout<split_block_layout, std::uint32_t, 8> {
public:
    /// The layout's code, stored in files.
    static constexpr bloom_layout id = bloom_layout::split_block;
    /// XXH64, as Parquet specifies.
    static constexpr hash_algorithm default_hash = hash_algorithm::xxh64;

    /// The eight odd constants of the Parquet spec, one per word of a block.
    static constexpr std::array<std::uint32_t, 8> salt = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                                          0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

    /// Whole 256-bit blocks (at least one) and k = 8, else invalid_argument.
    explicit split_block_layout(bloom_geometry g) : blocked_layout(g) {}

    /// Parquet's block of the digest's low half, and x, its low 32 bits.
    [[nodiscard]] probe locate(const digest& d) const noexcept {
        const auto block =
            static_cast<std::uint64_t>((static_cast<detail::uint128>(d.low >> 32) * block_count()) >> 32);
        return {block, static_cast<std::uint32_t>(d.low)};
    }

    /// One key's test by an AVX2 step where the CPU has it; false when the generic loop is to run.
    bool test_one(const word_type* block, std::uint32_t pattern, bool& answer) const noexcept {
        if (!has_step_for_single_keys()) return false;
        answer = key_test_step(block, pattern);
        return true;
    }

    /// One key's insert likewise; `added`: a bit was clear.
    bool set_one(word_type* block, std::uint32_t pattern, bool& added) const noexcept {
        if (!has_step_for_single_keys()) return false;
        added = key_set_step(block, pattern);
        return true;
    }

    /// Whether the one-key steps serve: wherever there is AVX2.
    [[nodiscard]] static bool has_key_step() noexcept {
#ifdef BLOOMKIT_X86_SIMD
        return active_simd_level() != simd_level::scalar;
#else
        return false;
#endif
    }

    /// One AVX2 step inline (where has_key_step()): intrinsics, or assembly in baseline builds.
    [[nodiscard]] static bool key_test_step(const word_type* block, std::uint32_t pattern) noexcept {
#if defined(BLOOMKIT_X86_SIMD) && defined(__AVX2__)
        return detail::simd::split_block_test_one_avx2(block, pattern, salt.data());
#elif defined(BLOOMKIT_X86_SIMD)
        return detail::simd::split_block_test_one_avx2_asm(block, pattern, salt.data());
#else
        (void)block, (void)pattern;
        return false;
#endif
    }

    /// As key_test_step(); true if a bit was clear.
    static bool key_set_step(word_type* block, std::uint32_t pattern) noexcept {
#if defined(BLOOMKIT_X86_SIMD) && defined(__AVX2__)
        return detail::simd::split_block_set_one_avx2(block, pattern, salt.data());
#elif defined(BLOOMKIT_X86_SIMD)
        return detail::simd::split_block_set_one_avx2_asm(block, pattern, salt.data());
#else
        (void)block, (void)pattern;
        return false;
#endif
    }

    /// No batch kernel: wherever there is AVX2 its one-key step serves (key_test_step).
    template <class Answer>
    static bool test_batch_simd(const word_type*, std::span<const probe>, Answer&) noexcept {
        return false;
    }

    /// Whether set_batch_simd() serves: wherever there is AVX2.
    [[nodiscard]] static bool has_set_batch_simd() noexcept {
#ifdef BLOOMKIT_X86_SIMD
        return active_simd_level() != simd_level::scalar;
#else
        return false;
#endif
    }

    /// A batch by the AVX2 kernel; returns how many keys set a clear bit.
    std::size_t set_batch_simd(word_type* words, std::span<const probe> probes) const noexcept {
#ifdef BLOOMKIT_X86_SIMD
        return detail::simd::split_block_set_avx2(words, probes.data(), probes.size(), salt.data());
#else
        (void)words, (void)probes;
        return 0;
#endif
    }

    template <class Visit>
    /// visit(word, bit_mask) for each of the eight words.
    void for_each_bit(std::uint32_t pattern, Visit visit) const noexcept {
        for (std::size_t word = 0; word < 8; ++word) visit(word, std::uint32_t{1} << ((pattern * salt[word]) >> 27));
    }

private:
    // has_key_step() for a single key, the level read as decided (simd.hpp).
    [[nodiscard]] static bool has_step_for_single_keys() noexcept {
#ifdef BLOOMKIT_X86_SIMD
        return detail::decided_simd_level() > static_cast<int>(simd_level::scalar);
#else
        return false;
#endif
    }
};

}  // namespace bloomkit
