// bloomkit/sizing/dcso.hpp — DCSO bloom's sizing (bloom.go, Initialize(n, p)), to the bit:
//
//   m = |⌈n·ln p / (ln 2)²⌉|      the ceiling of a negative number: ⌊n·|ln p| / (ln 2)²⌋
//   k = ⌈ln 2 · m / n⌉
//
// The bits are stored in ⌈m / 64⌉ 64-bit words; probes reach bits 0..m-1 only.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "bloomkit/error.hpp"
#include "bloomkit/sizing/models.hpp"

namespace bloomkit {

/// For n ≥ 1, 0 < p < 1 (checked by the caller); throws invalid_argument for no bits (DCSO would
/// divide by zero) or more than 255 probes.
[[nodiscard]] inline bloom_geometry dcso_geometry(double n, double p) {
    const double ln2 = std::log(2.0);
    const double m = std::fabs(std::ceil(n * std::log(p) / (ln2 * ln2)));
    if (!(m >= 1) || m >= 0x1p63)
        throw invalid_argument("DCSO's sizing gives " + show_number(m) + " bits for " + show_number(n) +
                               " keys at p = " + show_number(p) + ": no such filter");
    const double k = std::ceil(ln2 * m / n);
    if (k > 255)
        throw invalid_argument("a DCSO filter of at most 255 hash functions cannot reach p = " + show_number(p));
    return {static_cast<std::uint64_t>(m), static_cast<std::uint32_t>(std::max(k, 1.0))};
}

}  // namespace bloomkit
