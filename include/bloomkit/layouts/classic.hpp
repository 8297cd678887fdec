// bloomkit/layouts/classic.hpp — the classic Bloom filter (Bloom 1970): k probes
// anywhere in an array of m bits.
//
// The k positions come from the one 128-bit digest by enhanced double hashing (Dillinger &
// Manolios 2004; Kirsch & Mitzenmacher 2006 show double hashing costs no FPR asymptotically):
// x = h1, y = h2, and after each probe x += y, y += i. The growing increment keeps the probes
// distinct even when h2 happens to be 0. Each 64-bit x is mapped onto [0, m) by multiply-high,
// so m may be any size, a power of two or not, beyond 2^32.
//
// Classic gives the lowest FPR per bit, but a key touches up to k cache lines; prefer the
// block layout unless bits are scarcer than memory bandwidth.
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
    /// Calls visit(bit) for each of the key's k bits, in probe order, until it returns false;
    /// returns whether every call returned true.
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
