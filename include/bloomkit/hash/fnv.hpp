// bloomkit/hash/fnv.hpp — FNV-1 64 (Fowler, Noll, Vo; draft-eastlake-fnv), DCSO bloom's hash (Go's
// hash/fnv New64: multiply, then XOR; not FNV-1a), so a DCSO filter answers here as there. A
// multiplication per byte: fine for indicator lists' short keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace bloomkit {

/// FNV-1 64's starting value: the hash of no bytes.
inline constexpr std::uint64_t fnv64_offset_basis = 14695981039346656037ULL;
/// FNV-1 64's multiplier, 2^40 + 2^8 + 0xb3.
inline constexpr std::uint64_t fnv64_prime = 1099511628211ULL;

/// For each byte, multiply by the prime, then XOR the byte in.
[[nodiscard]] constexpr std::uint64_t fnv1_64(std::span<const std::byte> bytes) noexcept {
    std::uint64_t h = fnv64_offset_basis;
    for (const std::byte b : bytes) h = (h * fnv64_prime) ^ std::to_integer<std::uint64_t>(b);
    return h;
}

}  // namespace bloomkit
