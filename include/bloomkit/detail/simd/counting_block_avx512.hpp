// bloomkit/detail/simd/counting_block_avx512.hpp — the AVX-512 backend of the counting Bloom
// filter's blocks, as counting_block_avx2.hpp on the whole block: a test fetches each probe's word
// by one vpermd and shifts its nibble down; an increment widens the key's bit mask
// (block_key_mask_avx512) to a unit per nibble and adds the units to the unsaturated counters.
#pragma once

#include "bloomkit/simd.hpp"

#ifdef BLOOMKIT_X86_SIMD
#include <immintrin.h>

#include <cstdint>

#include "bloomkit/detail/simd/block_avx512.hpp"

namespace bloomkit::detail::simd {

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

/// k ≤ 16. Pure, as counting_test_avx2.
__attribute__((target("avx512f"), pure)) inline bool counting_test_avx512(const std::uint64_t* block,
                                                                          std::uint32_t pattern,
                                                                          const std::uint32_t* lane_powers) noexcept {
    const __m512i product =
        _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(pattern)), _mm512_loadu_si512(lane_powers));
    const __m512i fetched = _mm512_permutexvar_epi32(_mm512_srli_epi32(product, 28), _mm512_loadu_si512(block));
    const __m512i shift =
        _mm512_and_si512(_mm512_srli_epi32(product, 23), _mm512_set1_epi32(28));  // the nibble's first bit
    return _mm512_testn_epi32_mask(_mm512_srlv_epi32(fetched, shift), _mm512_set1_epi32(0xf)) == 0;
}

/// Per 64-bit lane, the low bit of every nibble of `v` that is nonzero (nibble_counters.hpp).
__attribute__((target("avx512f"), always_inline)) inline __m512i nonzero_nibbles_avx512(__m512i v) noexcept {
    v = _mm512_or_si512(v, _mm512_srli_epi64(v, 1));
    v = _mm512_or_si512(v, _mm512_srli_epi64(v, 2));
    return _mm512_and_si512(v, _mm512_set1_epi64(0x1111'1111'1111'1111LL));
}

/// Per 64-bit lane, the low bit of every nibble of `v` that is 15 (saturated).
__attribute__((target("avx512f"), always_inline)) inline __m512i saturated_nibbles_avx512(__m512i v) noexcept {
    v = _mm512_and_si512(v, _mm512_srli_epi64(v, 1));
    v = _mm512_and_si512(v, _mm512_srli_epi64(v, 2));
    return _mm512_and_si512(v, _mm512_set1_epi64(0x1111'1111'1111'1111LL));
}

/// k ≤ Probes (8 or 16), saturated counters excepted; true if one was zero.
template <int Probes>
__attribute__((target("avx512f"))) inline bool counting_increment_avx512(std::uint64_t* block, std::uint32_t pattern,
                                                                         const std::uint32_t* lane_powers) noexcept {
    const __m512i units = nonzero_nibbles_avx512(block_key_mask_avx512<Probes>(pattern, lane_powers));
    const __m512i old = _mm512_loadu_si512(block);
    const __m512i was_zero = _mm512_andnot_si512(nonzero_nibbles_avx512(old), units);
    // A nibble below 15 plus one stays in its nibble: no carry crosses into the next counter.
    _mm512_storeu_si512(block, _mm512_add_epi64(old, _mm512_andnot_si512(saturated_nibbles_avx512(old), units)));
    return _mm512_test_epi64_mask(was_zero, was_zero) != 0;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace bloomkit::detail::simd

#endif  // BLOOMKIT_X86_SIMD
