// bloomkit/detail/simd/split_block_avx2.hpp — the AVX2 backend of the Parquet split-block
// layout (layouts/split_block.hpp): lookups and inserts of a batch of already-located keys.
//
// The spec's own shape is one SIMD step: the 256-bit block is one ymm register of eight 32-bit
// words, word i's bit is (x·salt[i]) >> 27, so one vpmulld, one shift and one vpsllvd give the
// eight masks, and vptest checks them all (the layout Apache Impala and Parquet designed it
// for), and inserting is the same mask ORed in with one load and one store. AVX-512 has
// nothing to add to a 256-bit block.
#pragma once

#include "bloomkit/simd.hpp"

#ifdef BLOOMKIT_X86_SIMD
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "bloomkit/detail/blocked_layout.hpp"

namespace bloomkit::detail::simd {

__attribute__((target("avx2"))) inline void split_block_test_avx2(const std::uint32_t* words, const block_probe* probes,
                                                                  std::size_t count, const std::uint32_t* salts,
                                                                  bool* out) noexcept {
    const __m256i salt = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(salts));
    const __m256i one = _mm256_set1_epi32(1);
    for (std::size_t key = 0; key < count; ++key) {
        const __m256i block = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + probes[key].block * 8));
        const __m256i product = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(probes[key].pattern)), salt);
        const __m256i mask = _mm256_sllv_epi32(one, _mm256_srli_epi32(product, 27));
        out[key] = _mm256_testc_si256(block, mask) != 0;  // every mask bit set in the block
    }
}

/// Sets the bits of `count` located keys; returns how many set a bit that was clear.
__attribute__((target("avx2"))) inline std::size_t split_block_set_avx2(std::uint32_t* words, const block_probe* probes,
                                                                       std::size_t count, const std::uint32_t* salts) noexcept {
    const __m256i salt = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(salts));
    const __m256i one = _mm256_set1_epi32(1);
    std::size_t added = 0;
    for (std::size_t key = 0; key < count; ++key) {
        auto* block = reinterpret_cast<__m256i*>(words + probes[key].block * 8);
        const __m256i product = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(probes[key].pattern)), salt);
        const __m256i mask = _mm256_sllv_epi32(one, _mm256_srli_epi32(product, 27));
        const __m256i old = _mm256_loadu_si256(block);
        _mm256_storeu_si256(block, _mm256_or_si256(old, mask));
        added += _mm256_testc_si256(old, mask) == 0 ? 1 : 0;  // some mask bit was clear
    }
    return added;
}

}  // namespace bloomkit::detail::simd

#endif  // BLOOMKIT_X86_SIMD
