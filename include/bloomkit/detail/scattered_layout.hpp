// bloomkit/detail/scattered_layout.hpp — prefetch, test and set for the layouts whose k probes land
// anywhere in an array of 64-bit words (classic, Guava's, DCSO's), given a probe rule. Bit i is bit
// i mod 64 of word i / 64, as Guava's long[] and DCSO's []uint64 number theirs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/geometry_checks.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/sizing/bloom.hpp"

namespace bloomkit::detail {

/// A layout of k probes anywhere in m bits. `Probes` is the rule:
///   id, default_hash                        the layout's code and the hash its keys use
///   visit(digest, geometry, f) -> bool      calls f(bit) for each probed bit in order until f
///                                           returns false; returns whether all returned true
///   counts_new_keys_only (optional)         inserted_count() counts only keys that set a bit
template <class Probes>
class scattered_layout {
public:
    using word_type = std::uint64_t;
    using probe_rule = Probes;
    static constexpr bloom_layout id = Probes::id;
    static constexpr hash_algorithm default_hash = Probes::default_hash;
    /// Whether inserted_count() counts only the keys that set a bit, as DCSO's N does.
    static constexpr bool counts_new_keys_only = [] {
        if constexpr (requires { Probes::counts_new_keys_only; }) return Probes::counts_new_keys_only;
        else return false;
    }();

    /// The digest itself, unfolded probe by probe.
    using probe = digest;

    explicit scattered_layout(bloom_geometry g) : geometry_(g) { check_geometry(id, g); }

    [[nodiscard]] bloom_geometry geometry() const noexcept { return geometry_; }
    [[nodiscard]] std::uint64_t word_count() const noexcept { return geometry_.bits / 64 + (geometry_.bits % 64 != 0); }

    [[nodiscard]] probe locate(const digest& d) const noexcept { return d; }

    /// A key touches k lines (~7 at 1%), so 32 keys ahead keep ~220 lines in flight, about what a
    /// core tracks; 128 would outrun it and L1 (docs/design/performance.md, "The prefetch distance").
    static constexpr std::size_t prefetch_distance = 32;

    void prefetch(const word_type* words, const probe& p) const noexcept {
        Probes::visit(p, geometry_, [&](std::uint64_t bit) {
            detail::prefetch(words + bit / 64);
            return true;
        });
    }

    /// visit(first_word, 1) for each word a probe lands in.
    template <class Visit>
    void for_each_word_range(const probe& p, Visit visit) const {
        Probes::visit(p, geometry_, [&](std::uint64_t bit) {
            visit(bit / 64, std::uint64_t{1});
            return true;
        });
    }

    template <class Access>
    [[nodiscard]] bool test(const word_type* words, const probe& p) const noexcept {
        return Probes::visit(p, geometry_,
                             [&](std::uint64_t bit) { return (Access::load(words[bit / 64]) >> (bit % 64) & 1) != 0; });
    }

    template <class Access, class Answer>
    void test_batch(const word_type* words, std::span<const probe> probes, Answer& answer) const {
        for (const probe& p : probes) answer(test<Access>(words, p));
    }

    /// f(test_batch<Access>): nothing to choose once here (cf. blocked_layout::with_batch_test).
    template <class Access, class F>
    decltype(auto) with_batch_test(F&& f) const {
        return std::forward<F>(f)([this](const word_type* words, std::span<const probe> probes, auto& answer) {
            this->template test_batch<Access>(words, probes, answer);
        });
    }

    template <class Access>
    std::size_t set_batch(word_type* words, std::span<const probe> probes) const noexcept {
        std::size_t added = 0;
        for (const probe& p : probes) added += set<Access>(words, p) ? 1 : 0;
        return added;
    }

    /// f(set_batch<Access>), likewise.
    template <class Access, class F>
    decltype(auto) with_batch_set(F&& f) const {
        return std::forward<F>(f)([this](word_type* words, std::span<const probe> probes) noexcept {
            return this->template set_batch<Access>(words, probes);
        });
    }

    /// Whether any bit was clear (the key was new).
    template <class Access>
    bool set(word_type* words, const probe& p) const noexcept {
        word_type newly_set = 0;
        Probes::visit(p, geometry_, [&](std::uint64_t bit) {
            newly_set |= Access::set(words[bit / 64], word_type{1} << (bit % 64));
            return true;
        });
        return newly_set != 0;
    }

private:
    bloom_geometry geometry_;
};

}  // namespace bloomkit::detail
