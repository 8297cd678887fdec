// bloomkit/detail/blocked_layout.hpp — what the cache-blocked layouts share: a key maps to one
// block of W words and a mask of bits within it, so a lookup touches a single cache line
// (Putze, Sanders & Singler, "Cache-, Hash- and Space-Efficient Bloom Filters", 2007).
//
// A concrete layout (block, split block) supplies the block index and the mask; testing,
// setting and prefetching a masked block is written once, here.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/geometry_checks.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit::detail {

/// Bits to test or set in one block: one mask word per block word.
template <class Word, std::size_t Words>
using block_mask = std::array<Word, Words>;

/// Where a key lands in a blocked layout: which block, and the 32 bits that pick its bits.
struct block_probe {
    std::uint64_t block;
    std::uint32_t pattern;
};

/// Base of the blocked layouts. `Derived` provides
///     static constexpr bloom_layout id;
///     block_mask<Word, Words> mask(std::uint32_t pattern) const;
///     std::uint64_t block_of(const digest&) const;
template <class Derived, class Word, std::size_t Words>
class blocked_layout {
public:
    using word_type = Word;
    using probe = block_probe;
    static constexpr std::size_t words_per_block = Words;
    static constexpr std::uint64_t bits_per_block = Words * sizeof(Word) * 8;

    [[nodiscard]] bloom_geometry geometry() const noexcept { return geometry_; }
    [[nodiscard]] std::uint64_t word_count() const noexcept { return blocks_ * Words; }
    [[nodiscard]] std::uint64_t block_count() const noexcept { return blocks_; }

    void prefetch(const word_type* words, const probe& p) const noexcept { detail::prefetch(words + p.block * Words); }

    template <class Access>
    [[nodiscard]] bool test(const word_type* words, const probe& p) const noexcept {
        const auto mask = self().mask(p.pattern);
        const word_type* block = words + p.block * Words;
        // No early exit: the words share a cache line, and a branch-free loop vectorises.
        word_type missing = 0;
        for (std::size_t i = 0; i < Words; ++i) missing |= (Access::load(block[i]) & mask[i]) ^ mask[i];
        return missing == 0;
    }

    template <class Access>
    bool set(word_type* words, const probe& p) const noexcept {
        const auto mask = self().mask(p.pattern);
        word_type* block = words + p.block * Words;
        bool changed = false;
        for (std::size_t i = 0; i < Words; ++i)
            if (mask[i] != 0) changed |= Access::set(block[i], mask[i]);
        return changed;
    }

protected:
    explicit blocked_layout(bloom_geometry g) : geometry_(g), blocks_(g.bits / bits_per_block) {
        check_geometry(Derived::id, g);
    }

private:
    const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }

    bloom_geometry geometry_;
    std::uint64_t blocks_;
};

}  // namespace bloomkit::detail
