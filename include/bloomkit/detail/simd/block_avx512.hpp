// bloomkit/detail/simd/block_avx512.hpp — the AVX-512 backend of the 512-bit block layout
// (layouts/block.hpp): lookups and inserts of a batch of already-located keys.
//
// The block is sixteen 32-bit words, as in block_avx2.hpp: position p is bit p % 32 of word p / 32.
// A lookup step handles 16 probes, one vpermd over the block in a zmm register fetching each
// probe's word; lanes past k test an empty mask or repeat probe 0. An insert builds the key's
// 512-bit mask and ORs it in with one load and one store. Loads and stores are unaligned: as fast
// as aligned ones on an aligned filter, and safe on any block.
#pragma once

#include "bloomkit/simd.hpp"

#ifdef BLOOMKIT_X86_SIMD
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "bloomkit/detail/blocked_layout.hpp"
#include "bloomkit/detail/simd/block_avx2.hpp"
#include "bloomkit/detail/simd/inline_asm.hpp"

namespace bloomkit::detail::simd {

// GCC 12's own AVX-512 headers trip -W(maybe-)uninitialized (their _mm512_undefined_* helpers);
// Clang has no such warning, and would warn about the unknown name instead.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
/// k ≤ 16 in one step, with the layout's lane_powers; vprolvd takes its count mod 32, so the bit
/// needs no masking.
__attribute__((target("avx512f"), always_inline)) inline bool block_test_one_avx512(
    const std::uint64_t* block, std::uint32_t pattern, const std::uint32_t* lane_powers) noexcept {
    const __m512i product =
        _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(pattern)), _mm512_loadu_si512(lane_powers));
    const __m512i fetched = _mm512_permutexvar_epi32(_mm512_srli_epi32(product, 28), _mm512_loadu_si512(block));
    const __m512i mask = _mm512_rolv_epi32(_mm512_set1_epi32(1), _mm512_srli_epi32(product, 23));
    return _mm512_testn_epi32_mask(fetched, mask) == 0;  // no lane whose bit is clear
}

/// Lookups of `count` located keys with any k, 16 probes per step (lanes past k masked off).
__attribute__((target("avx512f"))) inline void block_test_avx512(const std::uint64_t* words, const block_probe* probes,
                                                                 std::size_t count, std::uint32_t hashes,
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
            const __m512i mask = _mm512_rolv_epi32(one, _mm512_srli_epi32(product, 23));
            missing |= _mm512_mask_testn_epi32_mask(active, fetched, mask);
        }
        out[key] = missing == 0;
    }
}

/// block_test_avx512 for k ≤ 16: one step per key.
__attribute__((target("avx512f"))) inline void block_test_few_avx512(const std::uint64_t* words,
                                                                     const block_probe* probes, std::size_t count,
                                                                     const std::uint32_t* lane_powers,
                                                                     bool* out) noexcept {
    for (std::size_t key = 0; key < count; ++key)
        out[key] = block_test_one_avx512(words + probes[key].block * 8, probes[key].pattern, lane_powers);
}

/// Called from baseline builds; pure, so the call does not keep a caller's loop from holding the
/// filter in registers.
__attribute__((target("avx512f"), pure)) inline bool block_test_single_avx512(
    const std::uint64_t* block, std::uint32_t pattern, const std::uint32_t* lane_powers) noexcept {
    return block_test_one_avx512(block, pattern, lane_powers);
}

/// Eight probes' mask (positions in the 64-bit lanes) as a block's eight words: rotation r moves
/// probe (j + r) mod 8 into lane j, and 1 << (position − 64·j) is its bit in word j or 0 (vpsllvq
/// gives 0 for counts outside 0..63). Eight rotations of four instructions pair every probe with
/// every word.
__attribute__((target("avx512f"), always_inline)) inline __m512i block_bits_in_words_avx512(
    __m512i positions) noexcept {
    const __m512i word_start = _mm512_setr_epi64(0, 64, 128, 192, 256, 320, 384, 448);
    return _mm512_sllv_epi64(_mm512_set1_epi64(1), _mm512_sub_epi64(positions, word_start));
}

__attribute__((target("avx512f"), always_inline)) inline __m512i block_mask_of_eight_avx512(
    __m512i positions) noexcept {
    __m512i mask = block_bits_in_words_avx512(positions);
    mask = _mm512_or_si512(mask, block_bits_in_words_avx512(_mm512_alignr_epi64(positions, positions, 1)));
    mask = _mm512_or_si512(mask, block_bits_in_words_avx512(_mm512_alignr_epi64(positions, positions, 2)));
    mask = _mm512_or_si512(mask, block_bits_in_words_avx512(_mm512_alignr_epi64(positions, positions, 3)));
    mask = _mm512_or_si512(mask, block_bits_in_words_avx512(_mm512_alignr_epi64(positions, positions, 4)));
    mask = _mm512_or_si512(mask, block_bits_in_words_avx512(_mm512_alignr_epi64(positions, positions, 5)));
    mask = _mm512_or_si512(mask, block_bits_in_words_avx512(_mm512_alignr_epi64(positions, positions, 6)));
    return _mm512_or_si512(mask, block_bits_in_words_avx512(_mm512_alignr_epi64(positions, positions, 7)));
}

/// The mask of a key with k ≤ Probes: the positions from one vpmulld with lane_powers (past k,
/// probe 0 again: setting a bit twice sets it once). A store per lane would lose a bit whenever
/// two probes share a word.
template <int Probes>
__attribute__((target("avx512f"), always_inline)) inline __m512i block_key_mask_avx512(
    std::uint32_t pattern, const std::uint32_t* lane_powers) noexcept {
    static_assert(Probes == 8 || Probes == 16);
    const __m512i positions = _mm512_srli_epi32(
        _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(pattern)), _mm512_loadu_si512(lane_powers)), 23);
    const __m512i mask = block_mask_of_eight_avx512(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(positions)));
    if constexpr (Probes == 8) return mask;
    else
        return _mm512_or_si512(
            mask, block_mask_of_eight_avx512(_mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(positions, 1))));
}

template <int Probes>
__attribute__((target("avx512f"), always_inline)) inline bool block_set_unrolled_avx512(
    std::uint64_t* block, std::uint32_t pattern, const std::uint32_t* lane_powers) noexcept {
    const __m512i mask = block_key_mask_avx512<Probes>(pattern, lane_powers);
    const __m512i old = _mm512_loadu_si512(block);
    _mm512_storeu_si512(block, _mm512_or_si512(old, mask));
    return _mm512_test_epi32_mask(_mm512_andnot_si512(old, mask), mask) != 0;
}

/// Any k; true if a bit was clear. 1 << (p − 64·lane) in every lane sets only the probe's own lane.
__attribute__((target("avx512f"), always_inline)) inline bool block_set_one_avx512(
    std::uint64_t* block, std::uint32_t pattern, std::uint32_t hashes, const std::uint32_t* powers) noexcept {
    const __m512i lane_start = _mm512_setr_epi64(0, 64, 128, 192, 256, 320, 384, 448);
    const __m512i one = _mm512_set1_epi64(1);
    __m512i mask = _mm512_setzero_si512();
    for (std::uint32_t i = 0; i < hashes; ++i) {
        const __m512i position = _mm512_set1_epi64((pattern * powers[i]) >> (32 - 9));
        mask = _mm512_or_si512(mask, _mm512_sllv_epi64(one, _mm512_sub_epi64(position, lane_start)));
    }
    const __m512i old = _mm512_loadu_si512(block);
    _mm512_storeu_si512(block, _mm512_or_si512(old, mask));
    return _mm512_test_epi64_mask(_mm512_andnot_si512(old, mask), mask) != 0;
}

/// Returns how many keys set a clear bit; k ≤ 16 uses `lane_powers`, larger k `powers`.
__attribute__((target("avx512f"))) inline std::size_t block_set_avx512(std::uint64_t* words, const block_probe* probes,
                                                                       std::size_t count, std::uint32_t hashes,
                                                                       const std::uint32_t* powers,
                                                                       const std::uint32_t* lane_powers) noexcept {
    std::size_t added = 0;
    if (hashes <= 8) {
        for (std::size_t key = 0; key < count; ++key)
            added +=
                block_set_unrolled_avx512<8>(words + probes[key].block * 8, probes[key].pattern, lane_powers) ? 1 : 0;
    } else if (hashes <= 16) {
        for (std::size_t key = 0; key < count; ++key)
            added +=
                block_set_unrolled_avx512<16>(words + probes[key].block * 8, probes[key].pattern, lane_powers) ? 1 : 0;
    } else {
        for (std::size_t key = 0; key < count; ++key)
            added += block_set_one_avx512(words + probes[key].block * 8, probes[key].pattern, hashes, powers) ? 1 : 0;
    }
    return added;
}

/// Called from baseline builds.
__attribute__((target("avx512f"))) inline bool block_set_single_avx512(std::uint64_t* block, std::uint32_t pattern,
                                                                       std::uint32_t hashes,
                                                                       const std::uint32_t* powers,
                                                                       const std::uint32_t* lane_powers) noexcept {
    if (hashes <= 8) return block_set_unrolled_avx512<8>(block, pattern, lane_powers);
    if (hashes <= 16) return block_set_unrolled_avx512<16>(block, pattern, lane_powers);
    return block_set_one_avx512(block, pattern, hashes, powers);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/// 0, −32, ..., −480: added to a position, the bit's offset in each 32-bit word.
alignas(64) inline constexpr std::int32_t asm_block_word_minus_first_bits[16] = {
    0, -32, -64, -96, -128, -160, -192, -224, -256, -288, -320, -352, -384, -416, -448, -480};

// Probe OFFSET / 4 into zmmOUT: its position broadcast from the scratch (part of the add), less
// each word's first bit (zmm2), shifts 1 (zmm1) into its word (vpsllvd: 0 outside 0..31).
#define BLOOMKIT_BLOCK_MASK_PROBE_AVX512_ASM(OFFSET, OUT)                 \
    "vpaddd       " #OFFSET "(%[positions])%{1to16%}, %%zmm2, %%zmm" #OUT \
    "\n\t"                                                                \
    "vpsllvd      %%zmm" #OUT ", %%zmm1, %%zmm" #OUT "\n\t"

/// A single insert, k ≤ 8, AVX-512 found at run time, inline in any build; true if a bit was
/// clear. Each position is broadcast to the sixteen words from a stack scratch as an add's memory
/// operand: two vector operations a probe where a rotation takes three, and probes past k skipped.
/// A single insert waits on a miss, and fewer operations let more inserts overlap it; the bulk
/// kernel keeps the rotations (docs/design/performance.md, "Single inserts with AVX-512").
inline bool block_set_one_avx512_asm(std::uint64_t* block, std::uint32_t pattern, std::uint32_t hashes,
                                     const std::uint32_t* lane_powers) noexcept {
    alignas(16) std::uint32_t positions[8];
    bool added;
    asm(BLOOMKIT_BLOCK_POSITIONS_TO_SCRATCH_ASM
        "vpbroadcastd %[one], %%zmm1\n\t"
        "vmovdqa64    %[minus_first], %%zmm2\n\t"
        BLOOMKIT_BLOCK_MASK_PROBE_AVX512_ASM(0, 3) BLOOMKIT_BLOCK_MASK_PROBE_AVX512_ASM(4, 4)
        BLOOMKIT_BLOCK_MASK_PROBE_AVX512_ASM(8, 5)
        "vpternlogd   $0xfe, %%zmm5, %%zmm4, %%zmm3\n\t"  // zmm3 |= zmm4 | zmm5
        BLOOMKIT_BLOCK_MASK_PROBE_AVX512_ASM(12, 4)
        "vpord        %%zmm4, %%zmm3, %%zmm3\n\t"
        "cmpl         $4, %[hashes]\n\t"
        "jbe          1f\n\t"  // probes 4–7 repeat probe 0
        BLOOMKIT_BLOCK_MASK_PROBE_AVX512_ASM(16, 4) BLOOMKIT_BLOCK_MASK_PROBE_AVX512_ASM(20, 5)
        "vpternlogd   $0xfe, %%zmm5, %%zmm4, %%zmm3\n\t"
        "cmpl         $6, %[hashes]\n\t"
        "jbe          1f\n\t"  // probes 6 and 7 repeat probe 0
        BLOOMKIT_BLOCK_MASK_PROBE_AVX512_ASM(24, 4) BLOOMKIT_BLOCK_MASK_PROBE_AVX512_ASM(28, 5)
        "vpternlogd   $0xfe, %%zmm5, %%zmm4, %%zmm3\n"
        "1:\n\t"  // zmm3: the key's mask
        "vmovdqu64    %[block], %%zmm4\n\t"
        "vpord        %%zmm3, %%zmm4, %%zmm5\n\t"
        "vmovdqu64    %%zmm5, %[block]\n\t"
        "vpandnd      %%zmm3, %%zmm4, %%zmm3\n\t"  // the mask's bits that were clear
        "vextracti64x4 $1, %%zmm3, %%ymm4\n\t"
        "vpor         %%ymm4, %%ymm3, %%ymm3\n\t"
        "vptest       %%ymm3, %%ymm3\n\t"  // ZF: no bit was clear
        "vzeroupper"
        : "=@ccnz"(added), [block] "+m"(asm_zmm_at(block)), [scratch] "=m"(asm_ymm_at(positions))
        : [pattern] "r"(pattern), [hashes] "r"(hashes), [powers] "m"(asm_ymm_at(lane_powers)), [positions] "r"(positions),
          [one] "m"(asm_one), [minus_first] "m"(asm_zmm_at(asm_block_word_minus_first_bits))
        : BLOOMKIT_ASM_VZEROUPPER_CLOBBERS);
    return added;
}
#undef BLOOMKIT_BLOCK_MASK_PROBE_AVX512_ASM

}  // namespace bloomkit::detail::simd

#endif  // BLOOMKIT_X86_SIMD
