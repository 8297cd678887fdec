// bloomkit/layouts/dcso.hpp — DCSO's bloom (github.com/DCSO/bloom, v0.2.4; its Python twin
// flor), bit for bit: where it puts a key's k bits among m, from the key's FNV-1 64 hash h
// (hash.hpp, fnv1_64), as bloom.go's Fingerprint does.
//
// With P = 2^64 - 59 and g = 18446744073709550147: x = h mod P, then k times x = (x·g mod 2^64)
// mod P and bit x mod m. Its known weakness (DCSO/bloom#19): x·g is taken mod 2^64 before mod P,
// so x mod 2^t of every probe follows from the first, and when m has a large power-of-two factor
// the FPR is far above target (20% for 1% upstream). Reproduced as DCSO has it; `bloomkit info`
// warns.
#pragma once

#include <cstdint>

#include "bloomkit/detail/scattered_layout.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/sizing/bloom.hpp"

namespace bloomkit {

/// DCSO bloom's probe rule.
struct dcso_probes {
    /// The layout's code, stored in files.
    static constexpr bloom_layout id = bloom_layout::dcso;
    /// DCSO's hash, the only one its filters take.
    static constexpr hash_algorithm default_hash = hash_algorithm::fnv1_64;
    /// P = 2^64 - 59, the largest prime below 2^64.
    static constexpr std::uint64_t prime = 18446744073709551557ULL;
    /// g: each probe's x is the one before times g, mod 2^64, then mod P.
    static constexpr std::uint64_t generator = 18446744073709550147ULL;
    /// DCSO's N ("elements present") counts the keys that set at least one bit.
    static constexpr bool counts_new_keys_only = true;

    template <class Visit>
    /// visit(bit) for each of the k bits in probe order, until one returns false; whether none did.
    static bool visit(const digest& d, bloom_geometry g, Visit visit) noexcept {
        std::uint64_t x = d.low % prime;
        for (std::uint32_t i = 0; i < g.hashes; ++i) {
            x = (x * generator) % prime;
            if (!visit(x % g.bits)) return false;
        }
        return true;
    }
};

/// DCSO bloom's layout: k probes anywhere in m bits, from FNV-1 64 by a multiplicative generator.
using dcso_layout = detail::scattered_layout<dcso_probes>;

}  // namespace bloomkit
