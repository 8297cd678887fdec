// bloomkit/layouts/classic.hpp — the classic Bloom filter (Bloom 1970): k probes
// anywhere in an array of m bits.
//
// Enhanced double hashing of the digest (Dillinger & Manolios 2004; Kirsch & Mitzenmacher 2006:
// double hashing costs no FPR asymptotically): x = h1, y = h2, after each probe x += y, y += i,
// the growing increment keeping probes distinct when h2 is 0; x onto [0, m) by multiply-high, so m
// is any size. Lowest FPR per bit, but up to k cache lines a key: prefer the block layout unless
// bits are scarcer than memory bandwidth.
#pragma once

#include <cstdint>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/scattered_layout.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/sizing/bloom.hpp"

namespace bloomkit {

/// The classic layout's probe rule (detail/scattered_layout.hpp).
struct classic_probes {
    /// The layout's code, stored in files.
    static constexpr bloom_layout id = bloom_layout::classic;
    /// The hash of a filter that does not choose one.
    static constexpr hash_algorithm default_hash = default_hash_algorithm;

    template <class Visit>
    /// visit(bit) for each of the k bits in probe order, until one returns false; whether none did.
    static bool visit(const digest& d, bloom_geometry g, Visit visit) noexcept {
        std::uint64_t x = d.low;
        std::uint64_t y = d.high;
        for (std::uint32_t i = 0; i < g.hashes; ++i) {
            if (!visit(detail::reduce(x, g.bits))) return false;
            x += y;
            y += i;
        }
        return true;
    }
};

/// The classic layout: k probes anywhere in m bits, by enhanced double hashing.
using classic_layout = detail::scattered_layout<classic_probes>;

}  // namespace bloomkit
