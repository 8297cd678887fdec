// bloomkit/detail/simd/block_avx512.hpp — the AVX-512 backend of the 512-bit block layout
// (layouts/block.hpp): lookups and inserts of a batch of already-located keys.
//
// The block is viewed as sixteen 32-bit words, as in block_avx2.hpp: probe i's 9-bit position
// p is bit p % 32 of word p / 32. Lookups handle 16 probes per step: one vpermd over the whole
// block held in a zmm register fetches each probe's word. Lanes past k test an empty mask.
//
// Inserting builds the key's 512-bit mask in a zmm register — per probe, a compare of the
// probe's word against the eight lane numbers picks the lane its bit goes to — and ORs it into
// the block with one load and one store, where the scalar path writes a word at a time
// (docs/design/performance.md).
//
// Loads and stores are the unaligned forms: as fast as the aligned ones on a 64-byte-aligned
// filter, and safe on any block a caller passes.
#pragma once

#include "bloomkit/simd.hpp"

#ifdef BLOOMKIT_X86_SIMD
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "bloomkit/detail/blocked_layout.hpp"

namespace bloomkit::detail::simd {

// GCC 12's own AVX-512 headers trip -Wmaybe-uninitialized (their _mm512_undefined_* helpers);
// Clang has no such warning, and would warn about the unknown name instead.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline void block_test_avx512(
    const std::uint64_t* words, const block_probe* probes, std::size_t count, std::uint32_t hashes,
    const std::uint32_t* powers, bool* out) noexcept {
    const __m512i one = _mm512_set1_epi32(1);
    for (std::size_t key = 0; key < count; ++key) {
        const __m512i block = _mm512_loadu_si512(words + probes[key].block * 8);
        const __m512i pattern = _mm512_set1_epi32(static_cast<int>(probes[key].pattern));
        __mmask16 missing = 0;
        for (std::uint32_t first = 0; first < hashes; first += 16) {
            const std::uint32_t left = hashes - first;
            const auto active = static_cast<__mmask16>(left >= 16 ? 0xffffU : (1U << left) - 1);
            const __m512i product = _mm512_mullo_epi32(pattern, _mm512_loadu_si512(powers + first));
            const __m512i fetched = _mm512_permutexvar_epi32(_mm512_srli_epi32(product, 28), block);
            const __m512i mask = _mm512_sllv_epi32(one, _mm512_and_si512(_mm512_srli_epi32(product, 23), _mm512_set1_epi32(31)));
            // A lane misses when its bit is clear in the fetched word.
            missing |= _mm512_mask_testn_epi32_mask(active, _mm512_and_si512(fetched, mask), mask);
        }
        out[key] = missing == 0;
    }
}

/// Sets the bits of `count` located keys; returns how many set a bit that was clear.
__attribute__((target("avx512f"))) inline std::size_t block_set_avx512(std::uint64_t* words, const block_probe* probes,
                                                                      std::size_t count, std::uint32_t hashes,
                                                                      const std::uint32_t* powers) noexcept {
    const __m512i lane = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    const __m512i one = _mm512_set1_epi64(1);
    const __m512i low_six = _mm512_set1_epi64(63);
    std::size_t added = 0;
    for (std::size_t key = 0; key < count; ++key) {
        __m512i mask = _mm512_setzero_si512();
        for (std::uint32_t i = 0; i < hashes; ++i) {
            const __m512i bit = _mm512_set1_epi64((probes[key].pattern * powers[i]) >> (32 - 9));  // 0..511
            const __mmask8 in_word = _mm512_cmpeq_epi64_mask(_mm512_srli_epi64(bit, 6), lane);
            mask = _mm512_mask_or_epi64(mask, in_word, mask, _mm512_sllv_epi64(one, _mm512_and_si512(bit, low_six)));
        }
        std::uint64_t* block = words + probes[key].block * 8;
        const __m512i old = _mm512_loadu_si512(block);
        _mm512_storeu_si512(block, _mm512_or_si512(old, mask));
        added += _mm512_test_epi64_mask(_mm512_andnot_si512(old, mask), mask) != 0 ? 1 : 0;
    }
    return added;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace bloomkit::detail::simd

#endif  // BLOOMKIT_X86_SIMD
