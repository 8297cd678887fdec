// bloomkit/hash/murmur3.hpp — MurmurHash3_x64_128 (Austin Appleby, SMHasher's MurmurHash3.cpp),
// Guava BloomFilter's hash (Hashing.murmur3_128(), seed 0), so a Guava filter answers as in Java.
// Lanes are read little-endian whatever the byte order, as Guava and SMHasher on x86 read them;
// h1 is Guava's HashCode.asLong(). SMHasher's verification value: 0x6384BA69 (tests check it).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

#include "bloomkit/hash/endian.hpp"

namespace bloomkit {

/// The two 64-bit halves of a MurmurHash3_x64_128 hash.
struct murmur3_128_hash {
    /// The first half, h1 in the reference code: Guava's HashCode.asLong().
    std::uint64_t h1 = 0;
    /// The second half, h2 in the reference code.
    std::uint64_t h2 = 0;
};

namespace detail {

inline constexpr std::uint64_t murmur3_c1 = 0x87c37b91114253d5ULL;
inline constexpr std::uint64_t murmur3_c2 = 0x4cf5ad432745937fULL;

/// The finaliser: a bijection with full avalanche.
[[nodiscard]] constexpr std::uint64_t murmur3_fmix64(std::uint64_t k) noexcept {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

/// An odd number's inverse mod 2^64 by Newton's iteration: each step doubles the correct low bits
/// (an odd number is its own inverse to 3 bits).
[[nodiscard]] constexpr std::uint64_t multiplicative_inverse(std::uint64_t odd) noexcept {
    std::uint64_t x = odd;
    for (int i = 0; i < 5; ++i) x *= 2 - odd * x;
    return x;
}

/// murmur3_fmix64 undone step by step: x ^= x >> 33 is its own inverse, the shift being at least half the width.
[[nodiscard]] constexpr std::uint64_t murmur3_fmix64_inverse(std::uint64_t k) noexcept {
    k ^= k >> 33;
    k *= multiplicative_inverse(0xc4ceb9fe1a85ec53ULL);
    k ^= k >> 33;
    k *= multiplicative_inverse(0xff51afd7ed558ccdULL);
    k ^= k >> 33;
    return k;
}
static_assert(murmur3_fmix64_inverse(murmur3_fmix64(0x0123456789abcdefULL)) == 0x0123456789abcdefULL);

[[nodiscard]] constexpr std::uint64_t murmur3_mix_k1(std::uint64_t k1) noexcept {
    return std::rotl(k1 * murmur3_c1, 31) * murmur3_c2;
}
[[nodiscard]] constexpr std::uint64_t murmur3_mix_k2(std::uint64_t k2) noexcept {
    return std::rotl(k2 * murmur3_c2, 33) * murmur3_c1;
}

}  // namespace detail

/// With a 32-bit seed (Guava's is 0); the length mod 2^64, as SMHasher's (Guava's agrees < 2 GiB).
[[nodiscard]] inline murmur3_128_hash murmur3_x64_128(std::span<const std::byte> bytes,
                                                      std::uint32_t seed = 0) noexcept {
    using namespace detail;
    const std::byte* p = bytes.data();
    const std::size_t length = bytes.size();
    std::uint64_t h1 = seed, h2 = seed;

    const std::size_t blocks = length / 16;
    for (std::size_t i = 0; i < blocks; ++i, p += 16) {
        h1 ^= murmur3_mix_k1(load_le<std::uint64_t>(p));
        h1 = (std::rotl(h1, 27) + h2) * 5 + 0x52dce729;
        h2 ^= murmur3_mix_k2(load_le<std::uint64_t>(p + 8));
        h2 = (std::rotl(h2, 31) + h1) * 5 + 0x38495ab5;
    }

    // The tail: bytes 0..7 into k1, 8..14 into k2, as SMHasher's fall-through switch.
    const std::size_t tail = length % 16;
    std::uint64_t k1 = 0, k2 = 0;
    for (std::size_t i = tail; i-- > 8;) k2 |= std::uint64_t(std::to_integer<unsigned char>(p[i])) << (8 * (i - 8));
    for (std::size_t i = tail < 8 ? tail : 8; i-- > 0;)
        k1 |= std::uint64_t(std::to_integer<unsigned char>(p[i])) << (8 * i);
    h2 ^= murmur3_mix_k2(k2);  // mixing 0 gives 0, so an absent part changes nothing
    h1 ^= murmur3_mix_k1(k1);

    h1 ^= length;
    h2 ^= length;
    h1 += h2;
    h2 += h1;
    h1 = murmur3_fmix64(h1);
    h2 = murmur3_fmix64(h2);
    h1 += h2;
    h2 += h1;
    return {h1, h2};
}

}  // namespace bloomkit
