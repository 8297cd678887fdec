// bloomkit/layouts/counting_block.hpp — where a key's counters are in a counting Bloom
// filter, and what is done to them: test, increment, decrement, read the least.
//
// The block Bloom filter's placement (block.hpp) seen four bits at a time: a 512-bit block holds
// 128 counters, and probe i picks counter (top 9 bits of x·c^(i+1)) / 4, the top 7 bits, uniform
// as the sizing model assumes. So the nonzero counters are exactly the nibbles with a bit set in
// the block Bloom filter of the same keys and seed. A key's counters are a set (two probes on one
// counter select it once), so an insert adds exactly one to each and count() is the key's
// multiplicity, not twice it. Every operation is branch-free (nibble_counters.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "bloomkit/detail/nibble_counters.hpp"
#include "bloomkit/detail/simd/counting_block_avx2.hpp"
#include "bloomkit/detail/simd/counting_block_avx512.hpp"
#include "bloomkit/detail/word_access.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/layouts/block.hpp"
#include "bloomkit/simd.hpp"
#include "bloomkit/sizing/counting_bloom.hpp"

namespace bloomkit {

/// counting_bloom_filter's layout: the block layout's placement as 128 4-bit counters a block.
class counting_block_layout {
public:
    /// Sixteen counters a word.
    using word_type = std::uint64_t;
    /// Its block and the 32 bits its counters follow from.
    using probe = block_layout::probe;
    /// Eight words, 512 bits, 128 counters: one cache line.
    static constexpr std::size_t words_per_block = block_layout::words_per_block;
    static_assert(words_per_block * detail::counters_per_word == counting_block_counters);
    /// A counter that reaches it is saturated and stays there.
    static constexpr std::uint32_t max_count = static_cast<std::uint32_t>(detail::counter_saturated);

    /// Throws invalid_argument unless whole blocks (at least one) and 1..max_hashes probes.
    explicit counting_block_layout(counting_geometry g)
        : geometry_(checked(g)), placement_(bloom_geometry{g.counters * 4, g.hashes}) {}

    /// Counters and probes per key.
    [[nodiscard]] counting_geometry geometry() const noexcept { return geometry_; }
    /// Words holding the counters: counters / 16.
    [[nodiscard]] std::uint64_t word_count() const noexcept { return placement_.word_count(); }

    /// Where the key's counters are, as block_layout places its bits.
    [[nodiscard]] probe locate(const digest& d) const noexcept { return placement_.locate(d); }
    /// Starts loading the key's block.
    void prefetch(const word_type* words, const probe& p) const noexcept { placement_.prefetch(words, p); }

    /// Whether every counter is nonzero; one vector step where k fits (docs/design/performance.md,
    /// "Counting filters").
    [[nodiscard]] bool test(const word_type* words, const probe& p) const noexcept {
#ifdef BLOOMKIT_X86_SIMD
        const auto level = static_cast<simd_level>(detail::decided_simd_level());  // -1: none of the below
        if (geometry_.hashes <= 16 && level == simd_level::avx512)
            return detail::simd::counting_test_avx512(block_of(words, p), p.pattern, placement_.lane_powers());
        if (geometry_.hashes <= 8 && level == simd_level::avx2)
            return detail::simd::counting_test_avx2(block_of(words, p), p.pattern, placement_.lane_powers());
#endif
        return all_nonzero(block_of(words, p), lanes_of(p));
    }

    /// Adds one to each counter but saturated ones; true if one was zero (the key was absent).
    bool increment(word_type* words, const probe& p) const noexcept {
#ifdef BLOOMKIT_X86_SIMD
        const auto level = static_cast<simd_level>(detail::decided_simd_level());  // -1: none of the below
        if (geometry_.hashes <= 16 && level == simd_level::avx512) {
            return geometry_.hashes <= 8 ? detail::simd::counting_increment_avx512<8>(block_of(words, p), p.pattern,
                                                                                      placement_.lane_powers())
                                         : detail::simd::counting_increment_avx512<16>(block_of(words, p), p.pattern,
                                                                                       placement_.lane_powers());
        }
        if (geometry_.hashes <= 8 && level == simd_level::avx2)
            return detail::simd::counting_increment_avx2(block_of(words, p), p.pattern, placement_.lane_powers());
#endif
        // Probe by probe, cheaper than SWAR over all 128 counters; `done` marks the counters
        // incremented, so one that two probes share goes up once.
        word_type* block = block_of(words, p);
        std::array<std::uint16_t, words_per_block> done{};
        bool was_zero = false;
        placement_.for_each_position(p.pattern, [&](std::uint32_t position) {
            const std::size_t word = position / 64;
            const unsigned first_bit = position % 64 & ~3U;  // of the counter's nibble
            const auto done_bit = static_cast<std::uint16_t>(1U << first_bit / 4);
            const word_type counter = block[word] >> first_bit & detail::counter_saturated;
            was_zero |= counter == 0;
            const bool add = (done[word] & done_bit) == 0 && counter != detail::counter_saturated;
            block[word] += static_cast<word_type>(add) << first_bit;
            done[word] = static_cast<std::uint16_t>(done[word] | done_bit);
        });
        return was_zero;
    }

    /// Subtracts one from each counter but saturated ones, only if all are nonzero (else false).
    bool decrement_if_present(word_type* words, const probe& p) const noexcept {
        const lanes key = lanes_of(p);
        word_type* block = block_of(words, p);
        if (!all_nonzero(block, key)) return false;
        for (std::size_t i = 0; i < words_per_block; ++i) block[i] -= key[i] & ~detail::saturated_counters(block[i]);
        return true;
    }

    /// Subtracts one from each counter neither zero nor saturated.
    void decrement(word_type* words, const probe& p) const noexcept {
        const lanes key = lanes_of(p);
        word_type* block = block_of(words, p);
        for (std::size_t i = 0; i < words_per_block; ++i)
            block[i] -= key[i] & detail::nonzero_counters(block[i]) & ~detail::saturated_counters(block[i]);
    }

    /// 0 if the key is absent, at most 15.
    [[nodiscard]] std::uint32_t min_count(const word_type* words, const probe& p) const noexcept {
        const lanes key = lanes_of(p);
        const word_type* block = block_of(words, p);
        std::uint32_t least = max_count;
        for (std::size_t i = 0; i < words_per_block; ++i) {
            const std::uint32_t in_word = detail::min_counter(block[i], key[i]);
            least = in_word < least ? in_word : least;
        }
        return least;
    }

private:
    /// One lane mask per word of a block (nibble_counters.hpp): the key's counters.
    using lanes = block_layout::key_masks_type;

    /// The bits a block Bloom filter would set, each widened to its nibble.
    [[nodiscard]] lanes lanes_of(const probe& p) const noexcept {
        lanes key = placement_.key_masks(p.pattern);
        for (word_type& word : key) word = detail::nonzero_counters(word);
        return key;
    }

    [[nodiscard]] static bool all_nonzero(const word_type* block, const lanes& key) noexcept {
        word_type missing = 0;
        for (std::size_t i = 0; i < words_per_block; ++i) missing |= key[i] & ~detail::nonzero_counters(block[i]);
        return missing == 0;
    }

    template <class Word>
    [[nodiscard]] static Word* block_of(Word* words, const probe& p) noexcept {
        return words + p.block * words_per_block;
    }

    static counting_geometry checked(counting_geometry g) {
        if (g.counters == 0) throw invalid_argument("a counting Bloom filter needs at least one counter");
        if (g.counters % counting_block_counters != 0)
            throw invalid_argument("a counting Bloom filter has a whole number of " +
                                   std::to_string(counting_block_counters) + "-counter blocks; " +
                                   std::to_string(g.counters) + " counters is not one");
        (void)round_counters(g.counters);  // throws beyond 64-bit sizes
        return g;                          // block_layout checks the number of probes
    }

    counting_geometry geometry_;
    block_layout placement_;
};

}  // namespace bloomkit
