// bloomkit/detail/simd/split_block_avx2.hpp — the AVX2 backend of the Parquet split-block
// layout (layouts/split_block.hpp): lookups and inserts of a batch of already-located keys.
//
// The spec's shape is one AVX2 step: the block is a ymm register of eight words, word i's bit
// (x·salt[i]) >> 27, so vpmulld, a shift and vpsllvd give the masks and vptest checks them; an
// insert ORs the mask in. AVX-512 adds nothing to a 256-bit block.
#pragma once

#include "bloomkit/simd.hpp"

#ifdef BLOOMKIT_X86_SIMD
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "bloomkit/detail/blocked_layout.hpp"
#include "bloomkit/detail/simd/inline_asm.hpp"

namespace bloomkit::detail::simd {

/// The block as a vector of 32-bit words, what an insert writes through: an __m256i may alias
/// anything, so a loop of inserts would reload the filter's fields after every key
/// (docs/design/performance.md, "Split-block inserts: a store typed by its words"). Aligned only as
/// the words are, as a mapped file promises.
using split_block_words = std::uint32_t __attribute__((vector_size(32), aligned(4)));

__attribute__((target("avx2"), always_inline)) inline __m256i split_block_mask_avx2(
    std::uint32_t pattern, const std::uint32_t* salts) noexcept {
    const __m256i product = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(pattern)),
                                               _mm256_loadu_si256(reinterpret_cast<const __m256i*>(salts)));
    return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(product, 27));
}

/// Whether every bit of the key is set in `block`.
__attribute__((target("avx2"))) inline bool split_block_test_one_avx2(const std::uint32_t* block, std::uint32_t pattern,
                                                                      const std::uint32_t* salts) noexcept {
    const __m256i mask = split_block_mask_avx2(pattern, salts);
    return _mm256_testc_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block)), mask) != 0;
}

/// Sets the key's bits in `block`; true if one was clear.
__attribute__((target("avx2"))) inline bool split_block_set_one_avx2(std::uint32_t* block, std::uint32_t pattern,
                                                                     const std::uint32_t* salts) noexcept {
    const __m256i mask = split_block_mask_avx2(pattern, salts);
    auto& words = *reinterpret_cast<split_block_words*>(block);
    const auto old = reinterpret_cast<__m256i>(words);
    words = reinterpret_cast<split_block_words>(_mm256_or_si256(old, mask));
    return _mm256_testc_si256(old, mask) == 0;  // some mask bit was clear
}

/// Returns how many keys set a clear bit.
__attribute__((target("avx2"))) inline std::size_t split_block_set_avx2(std::uint32_t* words, const block_probe* probes,
                                                                        std::size_t count,
                                                                        const std::uint32_t* salts) noexcept {
    std::size_t added = 0;
    for (std::size_t key = 0; key < count; ++key)
        added += split_block_set_one_avx2(words + probes[key].block * 8, probes[key].pattern, salts) ? 1 : 0;
    return added;
}

// The same two steps as inline assembly for baseline builds (detail/simd/inline_asm.hpp).
#define BLOOMKIT_SPLIT_BLOCK_MASK_ASM           \
    "vmovd        %[pattern], %%xmm0\n\t"       \
    "vpbroadcastd %%xmm0, %%ymm0\n\t"           \
    "vpmulld      %[salts], %%ymm0, %%ymm0\n\t" \
    "vpsrld       $27, %%ymm0, %%ymm0\n\t"      \
    "vpbroadcastd %[one], %%ymm1\n\t"           \
    "vpsllvd      %%ymm0, %%ymm1, %%ymm0\n\t" /* the mask */

inline bool split_block_test_one_avx2_asm(const std::uint32_t* block, std::uint32_t pattern,
                                          const std::uint32_t* salts) noexcept {
    bool all_set;
    asm(BLOOMKIT_SPLIT_BLOCK_MASK_ASM
        "vmovdqu      %[block], %%ymm1\n\t"
        "vptest       %%ymm0, %%ymm1\n\t"  // CF: no mask bit clear in the block
        "vzeroupper"
        : "=@ccc"(all_set)
        : [pattern] "r"(pattern), [salts] "m"(asm_ymm_at(salts)), [block] "m"(asm_ymm_at(block)), [one] "m"(asm_one)
        : BLOOMKIT_ASM_VZEROUPPER_CLOBBERS);
    return all_set;
}

inline bool split_block_set_one_avx2_asm(std::uint32_t* block, std::uint32_t pattern,
                                         const std::uint32_t* salts) noexcept {
    bool all_were_set;
    asm(BLOOMKIT_SPLIT_BLOCK_MASK_ASM
        "vmovdqu      %[block], %%ymm1\n\t"
        "vpor         %%ymm0, %%ymm1, %%ymm2\n\t"
        "vmovdqu      %%ymm2, %[block]\n\t"
        "vptest       %%ymm0, %%ymm1\n\t"  // CF: no mask bit was clear in the old block
        "vzeroupper"
        : "=@ccc"(all_were_set), [block] "+m"(*reinterpret_cast<split_block_words*>(block))
        : [pattern] "r"(pattern), [salts] "m"(asm_ymm_at(salts)), [one] "m"(asm_one)
        : BLOOMKIT_ASM_VZEROUPPER_CLOBBERS);
    return !all_were_set;
}
#undef BLOOMKIT_SPLIT_BLOCK_MASK_ASM

}  // namespace bloomkit::detail::simd

#endif  // BLOOMKIT_X86_SIMD
