// bloomkit/layouts/guava.hpp — Guava's BloomFilter (com.google.common.hash), bit for bit: where
// its two strategies put a key's k bits among the filter's 64·N bits, from the key's
// MurmurHash3_x64_128 (h1, h2) (hash.hpp, murmur3_128), as BloomFilterStrategies.java does.
//
//  - MURMUR128_MITZ_64 (ordinal 1, Guava's default since 17.0): c = h1, and k times: bit
//    (c & 2^63-1) mod 64N, then c += h2, wrapping as a Java long.
//  - MURMUR128_MITZ_32 (ordinal 0, before 17.0): from h1 alone, a = low 32 bits, b = high 32
//    bits, both Java ints; for i = 1..k: x = a + i·b (32-bit wrap), x = ~x if negative, bit
//    x mod 64N. Its probes never pass bit 2^31 (google/guava#1119, reproduced as Guava has it).
//
// The modulus is the whole array, 64N bits, not the m it was sized for (sizing/guava.hpp). A cache
// miss and a remainder per probe make lookups cost several times the block layout's
// (docs/BENCHMARKS.md).
#pragma once

#include <cstdint>

#include "bloomkit/detail/scattered_layout.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/sizing/bloom.hpp"

namespace bloomkit {

/// The MURMUR128_MITZ_64 strategy's probe rule.
struct guava_mitz64_probes {
    /// The layout's code, stored in files.
    static constexpr bloom_layout id = bloom_layout::guava;
    /// Guava's hash, the only one its filters take.
    static constexpr hash_algorithm default_hash = hash_algorithm::murmur3_128;

    template <class Visit>
    /// visit(bit) for each of the k bits in probe order, until one returns false; whether none did.
    static bool visit(const digest& d, bloom_geometry g, Visit visit) noexcept {
        std::uint64_t combined = d.low;
        for (std::uint32_t i = 0; i < g.hashes; ++i) {
            if (!visit((combined & 0x7fffffffffffffffULL) % g.bits)) return false;
            combined += d.high;
        }
        return true;
    }
};

/// The MURMUR128_MITZ_32 strategy's probe rule.
struct guava_mitz32_probes {
    /// The layout's code, stored in files.
    static constexpr bloom_layout id = bloom_layout::guava_mitz32;
    /// Guava's hash, the only one its filters take.
    static constexpr hash_algorithm default_hash = hash_algorithm::murmur3_128;

    template <class Visit>
    /// visit(bit) for each of the k bits in probe order, until one returns false; whether none did.
    static bool visit(const digest& d, bloom_geometry g, Visit visit) noexcept {
        const auto low = static_cast<std::uint32_t>(d.low), high = static_cast<std::uint32_t>(d.low >> 32);
        for (std::uint32_t i = 1; i <= g.hashes; ++i) {
            std::uint32_t combined = low + i * high;           // Java int arithmetic: wraps at 2^32
            if (combined & 0x80000000U) combined = ~combined;  // negative: ~x, as Guava does
            if (!visit(combined % g.bits)) return false;
        }
        return true;
    }
};

/// Guava's BloomFilter since 17.0 (MURMUR128_MITZ_64): k probes anywhere in its 64·N bits.
using guava_layout = detail::scattered_layout<guava_mitz64_probes>;
/// Guava's BloomFilter before 17.0 (MURMUR128_MITZ_32), whose probes never pass bit 2^31.
using guava_mitz32_layout = detail::scattered_layout<guava_mitz32_probes>;

}  // namespace bloomkit
