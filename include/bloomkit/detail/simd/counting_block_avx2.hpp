// bloomkit/detail/simd/counting_block_avx2.hpp — the AVX2 backend of the counting Bloom filter's
// blocks (layouts/counting_block.hpp): a key's counters in one vector step instead of a scalar
// pass over the block (docs/design/performance.md, "Counting filters").
//
// A key's counters are the nibbles holding the bits a block Bloom filter would set, so
// block_avx2.hpp's step finds them: position p's nibble starts at bit p % 32 rounded down to 4 in
// word p / 32. Incrementing widens the key's bit mask (block_key_mask_avx2) to a unit per nibble
// touched and adds the units to the unsaturated counters, once per counter however many probes
// share it.
#pragma once

#include "bloomkit/simd.hpp"

#ifdef BLOOMKIT_X86_SIMD
#include <immintrin.h>

#include <cstdint>

#include "bloomkit/detail/simd/block_avx2.hpp"

namespace bloomkit::detail::simd {

/// k ≤ 8. Pure, so a loop of single lookups keeps the filter in registers.
__attribute__((target("avx2"), pure)) inline bool counting_test_avx2(const std::uint64_t* block, std::uint32_t pattern,
                                                                     const std::uint32_t* lane_powers) noexcept {
    const __m256i product = block_products_avx2(pattern, lane_powers);
    const __m256i fetched = block_probed_words_avx2(block, product);
    const __m256i shift =
        _mm256_and_si256(_mm256_srli_epi32(product, 23), _mm256_set1_epi32(28));  // the nibble's first bit
    const __m256i nibble = _mm256_and_si256(_mm256_srlv_epi32(fetched, shift), _mm256_set1_epi32(0xf));
    const __m256i zero = _mm256_cmpeq_epi32(nibble, _mm256_setzero_si256());
    return _mm256_testz_si256(zero, zero) != 0;  // no lane whose counter is zero
}

/// Per 64-bit lane, the low bit of every nibble of `v` that is nonzero (nibble_counters.hpp).
__attribute__((target("avx2"), always_inline)) inline __m256i nonzero_nibbles_avx2(__m256i v) noexcept {
    v = _mm256_or_si256(v, _mm256_srli_epi64(v, 1));
    v = _mm256_or_si256(v, _mm256_srli_epi64(v, 2));
    return _mm256_and_si256(v, _mm256_set1_epi64x(0x1111'1111'1111'1111LL));
}

/// Per 64-bit lane, the low bit of every nibble of `v` that is 15 (saturated).
__attribute__((target("avx2"), always_inline)) inline __m256i saturated_nibbles_avx2(__m256i v) noexcept {
    v = _mm256_and_si256(v, _mm256_srli_epi64(v, 1));
    v = _mm256_and_si256(v, _mm256_srli_epi64(v, 2));
    return _mm256_and_si256(v, _mm256_set1_epi64x(0x1111'1111'1111'1111LL));
}

/// Except saturated counters; returns the units of those that were zero.
__attribute__((target("avx2"), always_inline)) inline __m256i counting_add_units_avx2(__m256i* half,
                                                                                      __m256i units) noexcept {
    const __m256i old = _mm256_loadu_si256(half);
    // A nibble below 15 plus one stays in its nibble: no carry crosses into the next counter.
    _mm256_storeu_si256(half, _mm256_add_epi64(old, _mm256_andnot_si256(saturated_nibbles_avx2(old), units)));
    return _mm256_andnot_si256(nonzero_nibbles_avx2(old), units);
}

/// k ≤ 8, saturated counters excepted; true if one was zero.
__attribute__((target("avx2"))) inline bool counting_increment_avx2(std::uint64_t* block, std::uint32_t pattern,
                                                                    const std::uint32_t* lane_powers) noexcept {
    const auto [low, high] = block_key_mask_avx2(pattern, lane_powers);
    auto* halves = reinterpret_cast<__m256i*>(block);
    const __m256i was_zero = _mm256_or_si256(counting_add_units_avx2(halves, nonzero_nibbles_avx2(low)),
                                             counting_add_units_avx2(halves + 1, nonzero_nibbles_avx2(high)));
    return _mm256_testz_si256(was_zero, was_zero) == 0;
}

}  // namespace bloomkit::detail::simd

#endif  // BLOOMKIT_X86_SIMD
