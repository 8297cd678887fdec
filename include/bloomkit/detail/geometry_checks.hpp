// bloomkit/detail/geometry_checks.hpp — the validation every layout runs on a (bits, hashes)
// pair before it trusts it, whether it came from a caller or from a file.
#pragma once

#include <cstdint>
#include <string>

#include "bloomkit/error.hpp"
#include "bloomkit/sizing/bloom.hpp"

namespace bloomkit::detail {

/// Throws invalid_argument unless `g` is a geometry `layout` can hold: at least one block,
/// whole blocks (whole 64-bit words for Guava's), 1..max_hashes_of(layout) probes (exactly
/// fixed_hashes for a layout that fixes them).
inline void check_geometry(bloom_layout layout, bloom_geometry g) {
    const std::string name{to_string(layout)};
    if (g.bits == 0) throw invalid_argument("a " + name + " Bloom filter needs at least one bit");
    const std::uint64_t block = bit_granularity(layout);
    if (g.bits % block != 0)
        throw invalid_argument("a " + name + " Bloom filter has a whole number of " + std::to_string(block) +
                               (block_bits(layout) == 0 ? "-bit words; " : "-bit blocks; ") + std::to_string(g.bits) +
                               " bits is not one");
    if (const std::uint32_t fixed = facts_of(layout).fixed_hashes; fixed != 0) {
        if (g.hashes != fixed)
            throw invalid_argument("a " + name + " Bloom filter sets exactly " + std::to_string(fixed) +
                                   " bits per key, not " + std::to_string(g.hashes));
    } else if (g.hashes == 0 || g.hashes > max_hashes_of(layout)) {
        throw invalid_argument("the number of hash probes must be between 1 and " +
                               std::to_string(max_hashes_of(layout)) + ", got " + std::to_string(g.hashes));
    }
}

}  // namespace bloomkit::detail
