// bloomkit/detail/simd/counting_block_avx2.hpp — the AVX2 backend of the counting Bloom
// filter's blocks (layouts/counting_block.hpp): a key's 4-bit counters tested with one vector
// step instead of a scalar pass over the block's eight words (~290 instructions a key).
//
// A key's counters are the nibbles holding the bits a block Bloom filter would set
// (layouts/block.hpp), so block_avx2.hpp's one step finds them: probe i's 9-bit position p
// lies in 32-bit word p / 32 (fetched into the probe's lane by two vpermd and a blend), in the
// nibble at bit p % 32 rounded down to a multiple of 4. The key is present when no probe's
// nibble is zero. Lanes past k repeat probe 0, as in the block layout. Same answers as the
// scalar code (tests/test_simd.cpp). Increments stay scalar: like block inserts, they need the
// key's mask scattered over the block's words, which AVX2 builds no faster than scalar code.
#pragma once

#include "bloomkit/simd.hpp"

#ifdef BLOOMKIT_X86_SIMD
#include <immintrin.h>

#include <cstdint>

#include "bloomkit/detail/simd/block_avx2.hpp"

namespace bloomkit::detail::simd {

/// Whether every counter of a key with k ≤ 8 is nonzero.
__attribute__((target("avx2"))) inline bool counting_test_avx2(const std::uint64_t* block, std::uint32_t pattern,
                                                               const std::uint32_t* lane_powers) noexcept {
    const __m256i product = block_products_avx2(pattern, lane_powers);
    const __m256i fetched = block_probed_words_avx2(block, product);
    const __m256i shift = _mm256_and_si256(_mm256_srli_epi32(product, 23), _mm256_set1_epi32(28));  // the nibble's first bit
    const __m256i nibble = _mm256_and_si256(_mm256_srlv_epi32(fetched, shift), _mm256_set1_epi32(0xf));
    const __m256i zero = _mm256_cmpeq_epi32(nibble, _mm256_setzero_si256());
    return _mm256_testz_si256(zero, zero) != 0;  // no lane whose counter is zero
}

}  // namespace bloomkit::detail::simd

#endif  // BLOOMKIT_X86_SIMD
