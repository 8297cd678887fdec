// bloomkit/detail/bits.hpp — small bit tricks the layouts share.
#pragma once

#include <cstdint>

namespace bloomkit::detail {

/// 128-bit unsigned arithmetic (a GCC/Clang extension; one MUL instruction on x86-64/AArch64).
__extension__ using uint128 = unsigned __int128;

/// Maps a uniform 64-bit hash onto [0, range) without a division: the high word of the
/// 128-bit product hash·range (Lemire, "Fast random integer generation in an interval",
/// 2019). Unlike hash % range it costs one multiplication and keeps the high (best-mixed)
/// bits of the hash; the result is uniform up to a bias of range/2^64.
[[nodiscard]] constexpr std::uint64_t reduce(std::uint64_t hash, std::uint64_t range) noexcept {
    return static_cast<std::uint64_t>((static_cast<uint128>(hash) * range) >> 64);
}

/// Asks the CPU to start loading the cache line holding `address`, so that a later access
/// does not stall on memory. A hint: it never faults, whatever the address.
inline void prefetch(const void* address) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(address, 0 /* read */, 3 /* keep in all cache levels */);
#else
    (void)address;
#endif
}

}  // namespace bloomkit::detail
