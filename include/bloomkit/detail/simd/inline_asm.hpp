// bloomkit/detail/simd/inline_asm.hpp — what the SIMD steps written as inline assembly share
// (block_avx2.hpp, block_avx512.hpp, split_block_avx2.hpp).
//
// Code built for baseline x86-64 (or for AVX2, where the step is AVX-512's) cannot inline an
// intrinsic compiled for a wider target, and calling one out of line costs a single-key call
// more than the step itself (docs/design/performance.md, "Layer by layer" and "The AVX2 step
// inline"); the assembler does not care what the surrounding code was compiled for. Three things
// keep such a step correct in any caller:
//  - Its memory operands are 32- or 64-byte blocks of `asm_ymm_operand` or `asm_zmm_operand`,
//    may_alias types: the compiler must order the asm's reads after any store to the same bytes,
//    whatever their type (a block of uint64_t words read as a struct of uint32_t would otherwise
//    count as not aliasing). The one exception is a split block an insert writes, typed by its
//    32-bit words so that the write changes nothing else to the compiler (split_block_avx2.hpp).
//  - A scratch it writes through a pointer in a register is also an "=m" output, so that the
//    compiler knows those bytes change (and keeps them apart from every input).
//  - It ends with vzeroupper, so that baseline SSE code after it pays no transition, and
//    vzeroupper zeroes all but the low 128 bits of (y/z)mm0–15: all sixteen are declared
//    clobbered (BLOOMKIT_ASM_VZEROUPPER_CLOBBERS), for callers that do keep 256-bit values live
//    (code built with -mavx, or a target("avx2") function that inlines the call). An AVX-512 step
//    uses only zmm0–15, which the same clobbers cover.
// The steps are written in AT&T syntax: a translation unit built with -masm=intel cannot use
// them (none of bloomkit's builds is).
#pragma once

#include "bloomkit/simd.hpp"

#ifdef BLOOMKIT_X86_SIMD
#include <cstdint>

namespace bloomkit::detail::simd {

/// 32 bytes an inline-assembly step reads or writes: half a 512-bit block, a 256-bit block, or
/// eight 32-bit multipliers.
struct [[gnu::may_alias]] asm_ymm_operand {
    unsigned char bytes[32];
};

/// 64 bytes an inline-assembly step reads or writes: a whole 512-bit block, or a zmm register's
/// worth of constants.
struct [[gnu::may_alias]] asm_zmm_operand {
    unsigned char bytes[64];
};

template <class T>
[[nodiscard]] inline const asm_zmm_operand& asm_zmm_at(const T* p) noexcept {
    return *reinterpret_cast<const asm_zmm_operand*>(p);
}
template <class T>
[[nodiscard]] inline asm_zmm_operand& asm_zmm_at(T* p) noexcept {
    return *reinterpret_cast<asm_zmm_operand*>(p);
}

template <class T>
[[nodiscard]] inline const asm_ymm_operand& asm_ymm_at(const T* p) noexcept {
    return *reinterpret_cast<const asm_ymm_operand*>(p);
}
template <class T>
[[nodiscard]] inline asm_ymm_operand& asm_ymm_at(T* p) noexcept {
    return *reinterpret_cast<asm_ymm_operand*>(p);
}

/// The 32-bit 1 a step broadcasts to build its masks.
inline constexpr std::uint32_t asm_one = 1;

#define BLOOMKIT_ASM_VZEROUPPER_CLOBBERS                                                                       \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", \
        "xmm13", "xmm14", "xmm15"

}  // namespace bloomkit::detail::simd

#endif  // BLOOMKIT_X86_SIMD
