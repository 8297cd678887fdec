// bloomkit/detail/nibble_counters.hpp — sixteen 4-bit saturating counters packed in a 64-bit
// word, operated on all at once (SWAR: SIMD within a register).
//
// Counter i is bits 4i..4i+3. A lane mask has the low bit of each chosen counter set, so adding or
// subtracting it changes them all by one; no carry or borrow crosses a neighbour as long as only
// counters below 15 are incremented and above 0 decremented.
#pragma once

#include <bit>
#include <cstdint>

namespace bloomkit::detail {

inline constexpr unsigned counters_per_word = 16;
inline constexpr std::uint64_t counter_saturated = 15;

/// The low bit of every counter: a lane mask selecting all sixteen.
inline constexpr std::uint64_t counter_low_bits = 0x1111'1111'1111'1111ULL;

/// The nonzero counters; for a word of bits, the nibbles holding a set bit.
[[nodiscard]] constexpr std::uint64_t nonzero_counters(std::uint64_t word) noexcept {
    word |= word >> 1;
    word |= word >> 2;
    return word & counter_low_bits;
}

/// The lane mask of the counters of `word` that are saturated (15).
[[nodiscard]] constexpr std::uint64_t saturated_counters(std::uint64_t word) noexcept {
    word &= word >> 1;
    word &= word >> 2;
    return word & counter_low_bits;
}

/// Counter by counter, min(a + b, 15).
[[nodiscard]] constexpr std::uint64_t saturating_add_counters(std::uint64_t a, std::uint64_t b) noexcept {
    constexpr std::uint64_t high = counter_low_bits << 3;  // bit 3 of every counter
    // The low three bits add within a counter (7 + 7); the top bits by XOR; a counter overflowed
    // where the majority of its two top bits and the carry into them is 1.
    const std::uint64_t low_sum = (a & ~high) + (b & ~high);
    const std::uint64_t sum = low_sum ^ ((a ^ b) & high);
    const std::uint64_t overflow = ((a & b) | ((a | b) & ~sum)) & high;
    return sum | ((overflow >> 3) * counter_saturated);  // overflowed counters become 15
}

/// The smallest of the counters of `word` chosen by the lane mask `lanes`; 15 if it chooses none.
[[nodiscard]] constexpr std::uint32_t min_counter(std::uint64_t word, std::uint64_t lanes) noexcept {
    std::uint64_t least = counter_saturated;
    for (; lanes != 0; lanes &= lanes - 1) {
        const std::uint64_t value = (word >> std::countr_zero(lanes)) & counter_saturated;
        least = value < least ? value : least;
    }
    return static_cast<std::uint32_t>(least);
}

}  // namespace bloomkit::detail
