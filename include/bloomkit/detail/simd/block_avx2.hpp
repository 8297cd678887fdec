// bloomkit/detail/simd/block_avx2.hpp — the AVX2 backend of the 512-bit block layout
// (layouts/block.hpp): lookups of already-located keys, 8 probes per step.
//
// The block is sixteen 32-bit words (on a little-endian machine bit b of 64-bit word j is bit
// b % 32 of word 2j + b / 32), so a probe's position p, the top 9 bits of x·c^(i+1) mod 2^32, is
// bit (product >> 23) & 31 of word product >> 28: the same bits as layouts/block.hpp. A step is 8
// probes: vpmulld, two in-register permutes and a blend to fetch the words, vpsllvd for the bits.
// For k ≤ 8 it is one step with no lane to mask (lane_powers repeat probe 0 past k), which is what
// a single lookup costs besides its hash (docs/design/performance.md, "Where the instructions go").
//
// An insert (k ≤ 8) builds the key's mask in two ymm halves: each position broadcast, lane j of
// half h shifts 1 left by position − 32·(j + 8h), and vpsllvd gives 0 outside 0..31, so only the
// probe's own word gets its bit. Single inserts take it inline (assembly in baseline builds):
// behind a call it would cost more than the scalar path. Loads and stores are unaligned: as fast
// as aligned ones on an aligned filter, and safe on any block.
#pragma once

#include "bloomkit/simd.hpp"

#ifdef BLOOMKIT_X86_SIMD
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "bloomkit/detail/blocked_layout.hpp"
#include "bloomkit/detail/simd/inline_asm.hpp"

namespace bloomkit::detail::simd {

__attribute__((target("avx2"), always_inline)) inline __m256i block_products_avx2(
    std::uint32_t pattern, const std::uint32_t* lane_powers) noexcept {
    return _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(pattern)),
                              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lane_powers)));
}

__attribute__((target("avx2"), always_inline)) inline __m256i block_probed_words_avx2(const std::uint64_t* block,
                                                                                      __m256i product) noexcept {
    const __m256i word = _mm256_srli_epi32(product, 28);  // vpermd reads its low 3 bits
    const auto* halves = reinterpret_cast<const __m256i*>(block);
    const __m256i low = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(halves), word);
    const __m256i high = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(halves + 1), word);
    // Bit 3 of the word, i.e. bit 31 of the product, picks the half: blendvps reads each lane's top bit.
    return _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(low), _mm256_castsi256_ps(high), _mm256_castsi256_ps(product)));
}

/// k ≤ 8, one step.
__attribute__((target("avx2"), always_inline)) inline bool block_test_one_avx2(
    const std::uint64_t* block, std::uint32_t pattern, const std::uint32_t* lane_powers) noexcept {
    const __m256i product = block_products_avx2(pattern, lane_powers);
    const __m256i fetched = block_probed_words_avx2(block, product);
    const __m256i mask = _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(_mm256_slli_epi32(product, 4), 27));
    return _mm256_testc_si256(fetched, mask) != 0;  // every mask bit set in what was fetched
}

/// Lookups of `count` located keys with any k, 8 probes per step (lanes past k masked off).
__attribute__((target("avx2"))) inline void block_test_avx2(const std::uint64_t* words, const block_probe* probes,
                                                            std::size_t count, std::uint32_t hashes,
                                                            const std::uint32_t* powers, bool* out) noexcept {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i seven = _mm256_set1_epi32(7);
    for (std::size_t key = 0; key < count; ++key) {
        const auto* block = reinterpret_cast<const __m256i*>(words + probes[key].block * 8);
        const __m256i low = _mm256_loadu_si256(block);
        const __m256i high = _mm256_loadu_si256(block + 1);
        const __m256i pattern = _mm256_set1_epi32(static_cast<int>(probes[key].pattern));
        __m256i missing = _mm256_setzero_si256();
        for (std::uint32_t first = 0; first < hashes; first += 8) {
            const __m256i multipliers = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(powers + first));
            const __m256i product = _mm256_mullo_epi32(pattern, multipliers);
            const __m256i word = _mm256_srli_epi32(product, 28);
            const __m256i bit = _mm256_and_si256(_mm256_srli_epi32(product, 23), _mm256_set1_epi32(31));
            const __m256i in_high = _mm256_cmpgt_epi32(word, seven);
            const __m256i fetched = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(low, word),
                                                       _mm256_permutevar8x32_epi32(high, word), in_high);
            const __m256i active = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(hashes - first)), lane);
            const __m256i mask = _mm256_and_si256(_mm256_sllv_epi32(one, bit), active);
            missing = _mm256_or_si256(missing, _mm256_andnot_si256(fetched, mask));
        }
        out[key] = _mm256_testz_si256(missing, missing) != 0;
    }
}

struct block_mask_avx2 {
    __m256i low, high;
};

__attribute__((target("avx2"), always_inline)) inline block_mask_avx2 block_key_mask_avx2(
    std::uint32_t pattern, const std::uint32_t* lane_powers) noexcept {
    alignas(32) std::uint32_t positions[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(positions),
                       _mm256_srli_epi32(block_products_avx2(pattern, lane_powers), 23));
    const __m256i first_bit_low = _mm256_setr_epi32(0, 32, 64, 96, 128, 160, 192, 224);
    const __m256i first_bit_high = _mm256_add_epi32(first_bit_low, _mm256_set1_epi32(256));
    const __m256i one = _mm256_set1_epi32(1);
    __m256i low = _mm256_setzero_si256(), high = _mm256_setzero_si256();
    for (const std::uint32_t position : positions) {  // unrolled: eight lanes, no count to test
        const __m256i at = _mm256_set1_epi32(static_cast<int>(position));
        low = _mm256_or_si256(low, _mm256_sllv_epi32(one, _mm256_sub_epi32(at, first_bit_low)));
        high = _mm256_or_si256(high, _mm256_sllv_epi32(one, _mm256_sub_epi32(at, first_bit_high)));
    }
    return {low, high};
}

/// k ≤ 8; true if a bit was clear.
__attribute__((target("avx2"), always_inline)) inline bool block_set_one_avx2(
    std::uint64_t* block, std::uint32_t pattern, const std::uint32_t* lane_powers) noexcept {
    const auto [low, high] = block_key_mask_avx2(pattern, lane_powers);
    auto* halves = reinterpret_cast<__m256i*>(block);
    const __m256i old_low = _mm256_loadu_si256(halves), old_high = _mm256_loadu_si256(halves + 1);
    _mm256_storeu_si256(halves, _mm256_or_si256(old_low, low));
    _mm256_storeu_si256(halves + 1, _mm256_or_si256(old_high, high));
    const __m256i newly_set = _mm256_or_si256(_mm256_andnot_si256(old_low, low), _mm256_andnot_si256(old_high, high));
    return _mm256_testz_si256(newly_set, newly_set) == 0;
}

/// k ≤ 8; returns how many keys set a clear bit.
__attribute__((target("avx2"))) inline std::size_t block_set_few_avx2(std::uint64_t* words, const block_probe* probes,
                                                                      std::size_t count,
                                                                      const std::uint32_t* lane_powers) noexcept {
    std::size_t added = 0;
    for (std::size_t key = 0; key < count; ++key)
        added += block_set_one_avx2(words + probes[key].block * 8, probes[key].pattern, lane_powers) ? 1 : 0;
    return added;
}

/// block_test_one_avx2 as inline assembly for baseline builds on an AVX2 CPU
/// (detail/simd/inline_asm.hpp): inside the caller's loop, not a call. The answer is the carry flag.
inline bool block_test_one_avx2_asm(const std::uint64_t* block, std::uint32_t pattern,
                                    const std::uint32_t* lane_powers) noexcept {
    bool all_set;
    asm("vmovd        %[pattern], %%xmm0\n\t"
        "vpbroadcastd %%xmm0, %%ymm0\n\t"
        "vpmulld      %[powers], %%ymm0, %%ymm0\n\t"  // product = x * c^(i+1)
        "vpsrld       $28, %%ymm0, %%ymm1\n\t"        // its word (vpermd reads 3 bits)
        "vpermd       %[low], %%ymm1, %%ymm2\n\t"
        "vpermd       %[high], %%ymm1, %%ymm1\n\t"
        "vblendvps    %%ymm0, %%ymm1, %%ymm2, %%ymm2\n\t"  // the high half where bit 31 is set
        "vpslld       $4, %%ymm0, %%ymm0\n\t"
        "vpsrld       $27, %%ymm0, %%ymm0\n\t"  // its bit: (product >> 23) & 31
        "vpbroadcastd %[one], %%ymm1\n\t"
        "vpsllvd      %%ymm0, %%ymm1, %%ymm1\n\t"  // the mask
        "vptest       %%ymm1, %%ymm2\n\t"          // CF: no mask bit clear in fetched
        "vzeroupper"
        : "=@ccc"(all_set)
        : [pattern] "r"(pattern), [powers] "m"(asm_ymm_at(lane_powers)), [low] "m"(asm_ymm_at(block)),
          [high] "m"(asm_ymm_at(block + 4)), [one] "m"(asm_one)
        : BLOOMKIT_ASM_VZEROUPPER_CLOBBERS);
    return all_set;
}

/// The first bit of each 32-bit word, 0, 32, ..., 480.
alignas(32) inline constexpr std::uint32_t asm_block_word_first_bits[16] = {0,   32,  64,  96,  128, 160, 192, 224,
                                                                            256, 288, 320, 352, 384, 416, 448, 480};

// One probe of block_set_one_avx2_asm's mask: its position, at byte OFFSET of the positions
// stored, broadcast (ymm6); each half's lanes shift 1 (ymm3, broadcast) left by position − first
// bit of their word (vpsllvd gives 0 outside 0..31) and OR it in (ymm1: words 0–7, ymm2: 8–15).
#define BLOOMKIT_BLOCK_MASK_PROBE_ASM(OFFSET)        \
    "vpbroadcastd " #OFFSET                          \
    "(%[positions]), %%ymm6\n\t"                     \
    "vpsubd       %[first_low], %%ymm6, %%ymm7\n\t"  \
    "vpsllvd      %%ymm7, %%ymm3, %%ymm7\n\t"        \
    "vpor         %%ymm7, %%ymm1, %%ymm1\n\t"        \
    "vpsubd       %[first_high], %%ymm6, %%ymm6\n\t" \
    "vpsllvd      %%ymm6, %%ymm3, %%ymm6\n\t"        \
    "vpor         %%ymm6, %%ymm2, %%ymm2\n\t"

// A key's eight positions into the 32-byte scratch at %[positions], which the AVX2 insert below
// and the AVX-512 one (block_avx512.hpp) broadcast from.
#define BLOOMKIT_BLOCK_POSITIONS_TO_SCRATCH_ASM  \
    "vmovd        %[pattern], %%xmm0\n\t"        \
    "vpbroadcastd %%xmm0, %%ymm0\n\t"            \
    "vpmulld      %[powers], %%ymm0, %%ymm0\n\t" \
    "vpsrld       $23, %%ymm0, %%ymm0\n\t"       \
    "vmovdqa      %%xmm0, (%[positions])\n\t"    \
    "vextracti128 $1, %%ymm0, 16(%[positions])\n\t"

/// block_set_one_avx2 as inline assembly for baseline builds; true if a bit was clear. The
/// positions go through a stack scratch (a broadcast from memory is one instruction, from a
/// register lane two), stored as two 16-byte halves: a 16-byte-aligned stack keeps either from
/// splitting a line and failing to forward, where a 32-byte store would need a realigned frame.
inline bool block_set_one_avx2_asm(std::uint64_t* block, std::uint32_t pattern,
                                   const std::uint32_t* lane_powers) noexcept {
    alignas(16) std::uint32_t positions[8];
    bool added;
    asm(BLOOMKIT_BLOCK_POSITIONS_TO_SCRATCH_ASM
        "vpbroadcastd %[one], %%ymm3\n\t"
        "vpbroadcastd (%[positions]), %%ymm6\n\t"
        "vpsubd       %[first_low], %%ymm6, %%ymm1\n\t"
        "vpsllvd      %%ymm1, %%ymm3, %%ymm1\n\t"
        "vpsubd       %[first_high], %%ymm6, %%ymm2\n\t"
        "vpsllvd      %%ymm2, %%ymm3, %%ymm2\n\t"
        BLOOMKIT_BLOCK_MASK_PROBE_ASM(4) BLOOMKIT_BLOCK_MASK_PROBE_ASM(8) BLOOMKIT_BLOCK_MASK_PROBE_ASM(12)
        BLOOMKIT_BLOCK_MASK_PROBE_ASM(16) BLOOMKIT_BLOCK_MASK_PROBE_ASM(20) BLOOMKIT_BLOCK_MASK_PROBE_ASM(24)
        BLOOMKIT_BLOCK_MASK_PROBE_ASM(28)
        "vmovdqu      %[low], %%ymm6\n\t"
        "vpor         %%ymm1, %%ymm6, %%ymm7\n\t"
        "vmovdqu      %%ymm7, %[low]\n\t"
        "vpandn       %%ymm1, %%ymm6, %%ymm1\n\t"  // the mask's bits that were clear
        "vmovdqu      %[high], %%ymm6\n\t"
        "vpor         %%ymm2, %%ymm6, %%ymm7\n\t"
        "vmovdqu      %%ymm7, %[high]\n\t"
        "vpandn       %%ymm2, %%ymm6, %%ymm2\n\t"
        "vpor         %%ymm1, %%ymm2, %%ymm1\n\t"
        "vptest       %%ymm1, %%ymm1\n\t"  // ZF: no bit was clear
        "vzeroupper"
        : "=@ccnz"(added), [low] "+m"(asm_ymm_at(block)), [high] "+m"(asm_ymm_at(block + 4)),
          [scratch] "=m"(asm_ymm_at(positions))  // declares the bytes written through %[positions]
        : [pattern] "r"(pattern), [powers] "m"(asm_ymm_at(lane_powers)), [positions] "r"(positions), [one] "m"(asm_one),
          [first_low] "m"(asm_ymm_at(asm_block_word_first_bits)), [first_high] "m"(asm_ymm_at(asm_block_word_first_bits + 8))
        : BLOOMKIT_ASM_VZEROUPPER_CLOBBERS);
    return added;
}
#undef BLOOMKIT_BLOCK_MASK_PROBE_ASM

}  // namespace bloomkit::detail::simd

#endif  // BLOOMKIT_X86_SIMD
