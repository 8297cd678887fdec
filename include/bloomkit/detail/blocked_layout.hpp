// bloomkit/detail/blocked_layout.hpp — what the cache-blocked layouts share: a key maps to one
// block of W words and a mask of bits within it, so a lookup touches a single cache line
// (Putze, Sanders & Singler, "Cache-, Hash- and Space-Efficient Bloom Filters", 2007).
//
// A layout (block, split block) supplies the block and the key's bits in it; testing, setting and
// prefetching are written once, here, branch-free: a probe's bit is as likely set as not, so a
// branch per probe would mispredict half the time, costing more than the remaining probes of a
// line already in L1.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/bulk_pipeline.hpp"
#include "bloomkit/detail/geometry_checks.hpp"
#include "bloomkit/detail/word_access.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/simd.hpp"
#include "bloomkit/sizing/bloom.hpp"

namespace bloomkit::detail {

/// Which block, and the 32 bits that pick the key's bits in it.
struct block_probe {
    std::uint64_t block;
    std::uint32_t pattern;
};

/// Base of the blocked layouts. `Derived` provides
///     static constexpr bloom_layout id;
///     probe locate(const digest&) const;
///     template <class Visit> void for_each_bit(std::uint32_t pattern, Visit visit) const;
///     bool test_one(const Word* block, std::uint32_t pattern, bool& answer) const;
///     bool set_one(Word* block, std::uint32_t pattern, bool& added) const;
///     bool has_key_step() const;
///     bool key_test_step(const Word* block, std::uint32_t pattern) const;
///     bool key_set_step(Word* block, std::uint32_t pattern) const;
///     template <class Answer> bool test_batch_simd(const Word*, std::span<const probe>, Answer& answer) const;
///     bool has_set_batch_simd() const;
///     std::size_t set_batch_simd(Word*, std::span<const probe>) const;
/// test_one and set_one return false when the layout has no single-key path better than the
/// generic loop; the *_step functions make no choice of their own, serving only where
/// has_key_step() says; the batch ones return false (no call) or serve where has_*() says.
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
    static constexpr std::size_t prefetch_distance = detail::pipeline_distance;

    /// visit(first_word, word_count) for the words the key's bits lie in.
    template <class Visit>
    void for_each_word_range(const probe& p, Visit visit) const {
        visit(p.block * Words, std::uint64_t{Words});
    }

    using key_masks_type = std::array<word_type, Words>;

    /// One mask per word of a block (for callers working word by word: counting_block_layout).
    [[nodiscard]] key_masks_type key_masks(std::uint32_t pattern) const noexcept {
        key_masks_type masks{};
        self().for_each_bit(pattern, [&](std::size_t word, word_type bit) { masks[word] |= bit; });
        return masks;
    }

    /// Through the layout's single-key path when it has one: the fewer instructions a lookup
    /// takes, the more lookups an out-of-order core overlaps (docs/design/performance.md).
    template <class Access>
    [[nodiscard]] bool test(const word_type* words, const probe& p) const noexcept {
        if constexpr (std::is_same_v<Access, plain_access>) {
            bool answer = false;
            if (self().test_one(words + p.block * Words, p.pattern, answer)) return answer;
        }
        return test_scalar<Access>(words, p);
    }

    /// test() by the SIMD step, with no choice made: only where has_key_step() (asked once, when
    /// a filter is made: its "plain lookups").
    [[nodiscard]] bool test_by_key_step(const word_type* words, const probe& p) const noexcept {
        return self().key_test_step(words + p.block * Words, p.pattern);
    }

    /// set() likewise, for plain access.
    bool set_by_key_step(word_type* words, const probe& p) const noexcept {
        return self().key_set_step(words + p.block * Words, p.pattern);
    }

    /// answer(test(p)) for each probe, in order, straight to `answer` so a consumer keeps them in
    /// registers. Atomic access stays scalar (a vector load is not atomic). `answer` may throw.
    template <class Access, class Answer>
    void test_batch(const word_type* words, std::span<const probe> probes, Answer& answer) const {
        with_batch_test<Access>([&](const auto& test) { test(words, probes, answer); });
    }

    /// f(test_batch) with the way to test chosen once per bulk call: chosen per batch, the paths
    /// not taken take registers from the pipeline, which spills its state every batch
    /// (docs/design/performance.md, "The test chosen once per call").
    template <class Access, class F>
    decltype(auto) with_batch_test(F&& f) const {
        if constexpr (std::is_same_v<Access, plain_access>)
            if (self().has_key_step())
                return std::forward<F>(f)([this](const word_type* words, std::span<const probe> probes, auto& answer) {
                    this->test_by_steps(words, probes, answer);
                });
        return std::forward<F>(f)([this](const word_type* words, std::span<const probe> probes, auto& answer) {
            this->template test_without_steps<Access>(words, probes, answer);
        });
    }

    /// True if any bit was clear; through the layout's single-key path, as for test().
    template <class Access>
    bool set(word_type* words, const probe& p) const noexcept {
        if constexpr (std::is_same_v<Access, plain_access>) {
            bool added = false;
            if (self().set_one(words + p.block * Words, p.pattern, added)) return added;
        }
        return set_probe_by_probe<Access>(words, p);
    }

    /// f(set_batch), set_batch returning how many keys set a clear bit, chosen once per bulk call
    /// as with_batch_test is. Atomic access goes key by key, one atomic OR per word.
    template <class Access, class F>
    decltype(auto) with_batch_set(F&& f) const {
        if constexpr (std::is_same_v<Access, plain_access>)
            if (self().has_set_batch_simd())
                return std::forward<F>(f)([this](word_type* words, std::span<const probe> probes) noexcept {
                    return self().set_batch_simd(words, probes);
                });
        return std::forward<F>(f)([this](word_type* words, std::span<const probe> probes) noexcept {
            return this->template set_one_by_one<Access>(words, probes);
        });
    }

protected:
    /// Runs kernel(probes, bool* out) a piece at a time, passing each answer on.
    template <class Answer, class Kernel>
    static void answer_through_buffer(std::span<const probe> probes, Answer& answer, Kernel kernel) {
        constexpr std::size_t piece = 32;
        bool out[piece];
        for (std::size_t at = 0; at < probes.size(); at += piece) {
            const std::span<const probe> some = probes.subspan(at, std::min(piece, probes.size() - at));
            kernel(some, out);
            for (std::size_t i = 0; i < some.size(); ++i) answer(out[i]);
        }
    }

    explicit blocked_layout(bloom_geometry g) : geometry_(g), blocks_(g.bits / bits_per_block) {
        check_geometry(Derived::id, g);
        (void)active_simd_level();  // decided here, so that no single call has to (decided_simd_level)
    }

private:
    template <class Answer>
    void test_by_steps(const word_type* words, std::span<const probe> probes, Answer& answer) const {
        // In a register: a char write could alias the closure, which would reload `this`.
        const Derived* const layout = &self();
        for (const probe& p : probes) answer(layout->key_test_step(words + p.block * Words, p.pattern));
    }

    template <class Access, class Answer>
    void test_without_steps(const word_type* words, std::span<const probe> probes, Answer& answer) const {
        if constexpr (std::is_same_v<Access, plain_access>)
            if (self().test_batch_simd(words, probes, answer)) return;
        test_one_by_one<Access>(words, probes, answer);
    }

    // Out of line, so it cannot keep test_batch from inlining on the SIMD levels (it never runs
    // there).
    template <class Access, class Answer>
    [[gnu::noinline]] void test_one_by_one(const word_type* words, std::span<const probe> probes,
                                           Answer& answer) const {
        for (const probe& p : probes) answer(test<Access>(words, p));
    }

    // Out of line, as test_one_by_one is.
    template <class Access>
    [[gnu::noinline]] std::size_t set_one_by_one(word_type* words, std::span<const probe> probes) const noexcept {
        std::size_t added = 0;
        for (const probe& p : probes) {
            bool added_here = false;
            if (!(std::is_same_v<Access, plain_access> &&
                  self().set_one(words + p.block * Words, p.pattern, added_here)))
                added_here = set_scalar<Access>(words, p);
            added += added_here ? 1 : 0;
        }
        return added;
    }

    template <class Access>
    [[nodiscard]] bool test_scalar(const word_type* words, const probe& p) const noexcept {
        const word_type* block = words + p.block * Words;
        word_type missing = 0;
        self().for_each_bit(p.pattern,
                            [&](std::size_t word, word_type bit) { missing |= ~Access::load(block[word]) & bit; });
        return missing == 0;
    }

    // Each word written once: probes often share a word, and writing per probe would chain each
    // store to the next load through memory (docs/design/performance.md, "Bulk inserts").
    template <class Access>
    bool set_scalar(word_type* words, const probe& p) const noexcept {
        const key_masks_type masks = key_masks(p.pattern);
        word_type* block = words + p.block * Words;
        word_type newly_set = 0;
        for (std::size_t word = 0; word < Words; ++word) newly_set |= Access::set(block[word], masks[word]);
        return newly_set != 0;
    }

    // Fewer instructions than set_scalar, which is what a single call costs; batches gather to
    // avoid the store-forwarding wait where probes share a word
    // (docs/design/performance.md, "Single inserts with AVX2 and without SIMD").
    template <class Access>
    bool set_probe_by_probe(word_type* words, const probe& p) const noexcept {
        word_type* block = words + p.block * Words;
        word_type newly_set = 0;
        self().for_each_bit(p.pattern,
                            [&](std::size_t word, word_type bit) { newly_set |= Access::set(block[word], bit); });
        return newly_set != 0;
    }

    const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }

    bloom_geometry geometry_;
    std::uint64_t blocks_;
};

}  // namespace bloomkit::detail
