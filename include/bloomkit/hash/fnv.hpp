// bloomkit/hash/fnv.hpp — FNV-1, 64-bit (Fowler, Noll, Vo; draft-eastlake-fnv): the hash DCSO's
// `bloom` tool hashes every key with (Go's hash/fnv New64, the multiply-then-XOR variant, not
// FNV-1a), so that a DCSO filter answers here exactly as it does there.
//
// A byte at a time, one multiplication per byte: fine for the short keys of indicator lists;
// the native filters hash with XXH3, which is many times faster on long keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace bloomkit {

/// FNV-1 64's starting value: the hash of no bytes.
inline constexpr std::uint64_t fnv64_offset_basis = 14695981039346656037ULL;
/// FNV-1 64's multiplier, 2^40 + 2^8 + 0xb3.
inline constexpr std::uint64_t fnv64_prime = 1099511628211ULL;

/// FNV-1 64 of `bytes`: for each byte, multiply by the FNV prime, then XOR the byte in.
[[nodiscard]] constexpr std::uint64_t fnv1_64(std::span<const std::byte> bytes) noexcept {
    std::uint64_t h = fnv64_offset_basis;
    for (const std::byte b : bytes) h = (h * fnv64_prime) ^ std::to_integer<std::uint64_t>(b);
    return h;
}

}  // namespace bloomkit
