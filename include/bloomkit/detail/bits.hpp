// bloomkit/detail/bits.hpp — small bit tricks the layouts share.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace bloomkit::detail {

/// 128-bit unsigned arithmetic (a GCC/Clang extension; one MUL instruction on x86-64/AArch64).
__extension__ using uint128 = unsigned __int128;

/// A uniform hash onto [0, range) without a division: the high word of hash·range (Lemire, "Fast
/// random integer generation in an interval", 2019); uniform up to a bias of range/2^64.
[[nodiscard]] constexpr std::uint64_t reduce(std::uint64_t hash, std::uint64_t range) noexcept {
    return static_cast<std::uint64_t>((static_cast<uint128>(hash) * range) >> 64);
}

/// A hint to load `address`'s cache line: it never faults, whatever the address.
inline void prefetch(const void* address) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(address, 0 /* read */, 3 /* keep in all cache levels */);
#else
    (void)address;
#endif
}

/// Pins `value` in a register here (an empty asm that may change it): GCC otherwise sinks each
/// unrolled step's last operations to the end, keeping every step's inputs alive until registers
/// spill (docs/design/performance.md, "Single inserts with AVX2 and without SIMD").
template <class T>
requires std::is_integral_v<T>
inline void compute_here(T& value) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    asm("" : "+r"(value));
#else
    (void)value;
#endif
}

// 8 bytes at a time (byte order does not change a count). Aligned words are relaxed atomic
// loads, race-free beside concurrent inserts and compiled to the same plain load.
template <class CountWord>
[[nodiscard]] inline std::uint64_t count_ones_with(const std::byte* data, std::size_t size,
                                                   CountWord count_word) noexcept {
    std::uint64_t ones = 0;
    std::size_t at = 0;
    if (reinterpret_cast<std::uintptr_t>(data) % alignof(std::uint64_t) == 0) {
        const auto* words = reinterpret_cast<const std::uint64_t*>(data);
        for (; at + 8 <= size; at += 8) ones += count_word(__atomic_load_n(words + at / 8, __ATOMIC_RELAXED));
    } else {
        for (; at + 8 <= size; at += 8) {
            std::uint64_t word;
            std::memcpy(&word, data + at, 8);
            ones += count_word(word);
        }
    }
    for (; at < size; ++at) ones += count_word(static_cast<std::uint64_t>(data[at]));
    return ones;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// With POPCNT: in a baseline build std::popcount is a libgcc call per word.
__attribute__((target("popcnt"))) inline std::uint64_t count_ones_popcnt(const std::byte* data,
                                                                         std::size_t size) noexcept {
    return count_ones_with(data, size,
                           [](std::uint64_t word) { return static_cast<std::uint64_t>(__builtin_popcountll(word)); });
}
#endif

/// Set bits in `size` bytes from `data`, by POPCNT where the CPU has it.
[[nodiscard]] inline std::uint64_t count_ones(const void* data, std::size_t size) noexcept {
    const auto* bytes = static_cast<const std::byte*>(data);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static const bool has_popcnt = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("popcnt") != 0;
    }();
    if (has_popcnt) return count_ones_popcnt(bytes, size);
#endif
    return count_ones_with(bytes, size,
                           [](std::uint64_t word) { return static_cast<std::uint64_t>(std::popcount(word)); });
}

}  // namespace bloomkit::detail
