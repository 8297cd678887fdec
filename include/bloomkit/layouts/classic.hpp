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

#include <cstddef>
#include <cstdint>
#include <span>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/geometry_checks.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/sizing/bloom.hpp"

namespace bloomkit {

class classic_layout {
public:
    using word_type = std::uint64_t;
    static constexpr bloom_layout id = bloom_layout::classic;
    static constexpr hash_algorithm default_hash = default_hash_algorithm;

    /// Where a key's probes go: the digest itself, unfolded probe by probe.
    using probe = digest;

    explicit classic_layout(bloom_geometry g) : geometry_(g) { detail::check_geometry(id, g); }

    [[nodiscard]] bloom_geometry geometry() const noexcept { return geometry_; }
    [[nodiscard]] std::uint64_t word_count() const noexcept { return geometry_.bits / 64 + (geometry_.bits % 64 != 0); }

    [[nodiscard]] probe locate(const digest& d) const noexcept { return d; }

    void prefetch(const word_type* words, const probe& p) const noexcept {
        all_probed_bits(p, [&](std::uint64_t bit) {
            detail::prefetch(words + bit / 64);
            return true;
        });
    }

    /// Calls visit(first_word, 1) for each word a probe of the key lands in.
    template <class Visit>
    void for_each_word_range(const probe& p, Visit visit) const {
        all_probed_bits(p, [&](std::uint64_t bit) {
            visit(bit / 64, std::uint64_t{1});
            return true;
        });
    }

    template <class Access>
    [[nodiscard]] bool test(const word_type* words, const probe& p) const noexcept {
        return all_probed_bits(
            p, [&](std::uint64_t bit) { return (Access::load(words[bit / 64]) >> (bit % 64) & 1) != 0; });
    }

    template <class Access>
    void test_batch(const word_type* words, std::span<const probe> probes, bool* out) const noexcept {
        for (std::size_t i = 0; i < probes.size(); ++i) out[i] = test<Access>(words, probes[i]);
    }

    template <class Access>
    std::size_t set_batch(word_type* words, std::span<const probe> probes) const noexcept {
        std::size_t added = 0;
        for (const probe& p : probes) added += set<Access>(words, p) ? 1 : 0;
        return added;
    }

    template <class Access>
    bool set(word_type* words, const probe& p) const noexcept {
        word_type newly_set = 0;
        all_probed_bits(p, [&](std::uint64_t bit) {
            newly_set |= Access::set(words[bit / 64], word_type{1} << (bit % 64));
            return true;
        });
        return newly_set != 0;
    }

private:
    /// Calls visit(bit) for each of the k probed bit positions until it returns false; returns
    /// whether every call returned true. (Not the blocked layouts' for_each_bit, which visits
    /// every probe as a word and a mask.)
    template <class Visit>
    bool all_probed_bits(const probe& p, Visit visit) const noexcept {
        std::uint64_t x = p.low;
        std::uint64_t y = p.high;
        for (std::uint32_t i = 0; i < geometry_.hashes; ++i) {
            if (!visit(detail::reduce(x, geometry_.bits))) return false;
            x += y;
            y += i;
        }
        return true;
    }

    bloom_geometry geometry_;
};

}  // namespace bloomkit
