// bloomkit/detail/simd/inline_asm.hpp — what the SIMD steps written as inline assembly share
// (block_avx2.hpp, block_avx512.hpp, split_block_avx2.hpp).
//
// A baseline build cannot inline an intrinsic compiled for a wider target, and calling one costs a
// single-key call more than the step itself (docs/design/performance.md, "The AVX2 step inline");
// the assembler does not care. What keeps such a step correct in any caller:
//  - Memory operands are may_alias blocks (asm_ymm_operand, asm_zmm_operand), so the compiler
//    orders the asm's reads after any store to those bytes whatever their type; except a split
//    block an insert writes, typed by its 32-bit words (split_block_avx2.hpp).
//  - A scratch written through a register pointer is also an "=m" output.
//  - It ends with vzeroupper (no SSE transition penalty after it), which zeroes the upper bits of
//    (y/z)mm0–15: all are declared clobbered (BLOOMKIT_ASM_VZEROUPPER_CLOBBERS) for callers
//    keeping 256-bit values live; AVX-512 steps use only zmm0–15.
// AT&T syntax: not for a translation unit built with -masm=intel.
#pragma once

#include "bloomkit/simd.hpp"

#ifdef BLOOMKIT_X86_SIMD
#include <cstdint>

namespace bloomkit::detail::simd {

/// 32 bytes a step reads or writes: half a 512-bit block, a 256-bit block, eight multipliers.
struct [[gnu::may_alias]] asm_ymm_operand {
    unsigned char bytes[32];
};

/// 64 bytes: a 512-bit block, or a zmm register's worth of constants.
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
