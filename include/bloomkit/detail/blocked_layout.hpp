// bloomkit/detail/blocked_layout.hpp — what the cache-blocked layouts share: a key maps to one
// block of W words and a mask of bits within it, so a lookup touches a single cache line
// (Putze, Sanders & Singler, "Cache-, Hash- and Space-Efficient Bloom Filters", 2007).
//
// A concrete layout (block, split block) supplies the block index and the key's bits within
// the block; testing, setting and prefetching are written once, here. Both are branch-free:
// a probe's bit is as likely set as not, so a branch per probe would be mispredicted half the
// time, which costs more than testing the remaining probes of a line already in L1.
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

/// Where a key lands in a blocked layout: which block, and the 32 bits that pick its bits.
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
/// where for_each_bit calls visit(word_in_block, bit_mask) once per probe; test_one answers one
/// key and set_one inserts one by the layout's fastest way for a single key — a SIMD step, or
/// probes unrolled for its k — returning false when it has none that pays more than the
/// generic loop; key_test_step answers one key and key_set_step inserts one by a SIMD step,
/// inline, with no choice of their own, wherever has_key_step() says they serve (this CPU, this
/// k); test_batch_simd answers a batch by a kernel where no step serves, calling answer(bool)
/// for each key in order (false, and no call, when there is none); and set_batch_simd inserts a
/// batch by a SIMD kernel, returning how many keys set a clear bit, wherever
/// has_set_batch_simd() says one pays (this CPU, this k).
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
    /// Keys a bulk call locates and prefetches ahead of the one it tests (one line each).
    static constexpr std::size_t prefetch_distance = detail::pipeline_distance;

    /// Calls visit(first_word, word_count) for the words the key's bits lie in: its block.
    template <class Visit>
    void for_each_word_range(const probe& p, Visit visit) const {
        visit(p.block * Words, std::uint64_t{Words});
    }

    using key_masks_type = std::array<word_type, Words>;

    /// The bits a key's pattern selects, as one mask per word of a block (scalar code: for a
    /// caller that goes on to work on the words one at a time, see counting_block_layout).
    [[nodiscard]] key_masks_type key_masks(std::uint32_t pattern) const noexcept {
        key_masks_type masks{};
        self().for_each_bit(pattern, [&](std::size_t word, word_type bit) { masks[word] |= bit; });
        return masks;
    }

    /// Whether every bit of the key is set. A single key goes through the layout's own path for
    /// one key when it has one (a SIMD step): the fewer instructions each lookup takes, the
    /// more consecutive lookups an out-of-order core keeps in flight, overlapping their misses
    /// (docs/design/performance.md).
    template <class Access>
    [[nodiscard]] bool test(const word_type* words, const probe& p) const noexcept {
        if constexpr (std::is_same_v<Access, plain_access>) {
            bool answer = false;
            if (self().test_one(words + p.block * Words, p.pattern, answer)) return answer;
        }
        return test_scalar<Access>(words, p);
    }

    /// test() by the layout's one-key SIMD step, with no choice made: only where has_key_step()
    /// said it serves. A filter asks that once, when it is made, and its single lookups then
    /// test one flag of its own (bloom_filter.hpp, "plain lookups").
    [[nodiscard]] bool test_by_key_step(const word_type* words, const probe& p) const noexcept {
        return self().key_test_step(words + p.block * Words, p.pattern);
    }

    /// set() by the layout's one-key SIMD step, as test_by_key_step() tests: only where
    /// has_key_step() said it serves, for plain access.
    bool set_by_key_step(word_type* words, const probe& p) const noexcept {
        return self().key_set_step(words + p.block * Words, p.pattern);
    }

    /// Calls answer(test(p)) for each probe p of a batch of located (and prefetched) keys, in
    /// order: key by key through the derived layout's SIMD step where one serves, else through
    /// its SIMD kernel for a batch, else one key at a time as test() answers it (the probes
    /// unrolled for k). Concurrent (atomic) access stays scalar: a vector load is not an atomic
    /// one. Each answer goes straight to `answer`, not through an array: a consumer that counts
    /// or writes them keeps them in registers. Whatever `answer` throws (an output iterator that
    /// allocates) propagates.
    template <class Access, class Answer>
    void test_batch(const word_type* words, std::span<const probe> probes, Answer& answer) const {
        with_batch_test<Access>([&](const auto& test) { test(words, probes, answer); });
    }

    /// Calls f(test_batch) and returns what it returns, where test_batch(words, probes, answer)
    /// answers as test_batch<Access> does, with the way to test chosen once, here: for a bulk
    /// call, whose batches then run the layout's step for one key inline, one after another,
    /// with no choice of their own. Chosen per batch, the choice (SIMD level, k) and the kernel
    /// calls on the paths not taken took registers from the pipeline around it, which spilled
    /// and reloaded its state every batch (docs/design/performance.md, "Bulk lookups").
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

    /// Sets the key's bits; true if any was clear. Through the layout's own path for one key
    /// when it has one that pays (a SIMD step, unrolled probes), as for test().
    template <class Access>
    bool set(word_type* words, const probe& p) const noexcept {
        if constexpr (std::is_same_v<Access, plain_access>) {
            bool added = false;
            if (self().set_one(words + p.block * Words, p.pattern, added)) return added;
        }
        return set_probe_by_probe<Access>(words, p);
    }

    /// Calls f(set_batch) and returns what it returns, where set_batch(words, probes) sets the
    /// bits of a batch of located (and prefetched) keys and returns how many of them set a bit
    /// that was clear: through the derived layout's SIMD kernel when the CPU has one that pays,
    /// else one key at a time — by the layout's own path for one key (the probes unrolled for k)
    /// when it has one, else each word written once with every bit the key puts in it.
    /// Concurrent (atomic) access takes the latter: one atomic OR per word. The way to insert is
    /// chosen once, here, for a bulk call: the pipeline around each batch then holds only the
    /// kernel's call, where the choice per batch, and the key-by-key paths beside it, made GCC
    /// keep the pipeline's state on the stack (docs/design/performance.md, "Bulk inserts"), as
    /// with_batch_test does for lookups.
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
    /// For a kernel that writes a batch's answers to an array (kernel(probes, bool* out)):
    /// runs it over `probes` a piece at a time and passes each answer on to answer(bool).
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
        // In a register: an answer written through a char pointer could change the closure of
        // with_batch_test, which would reload `this` from it after every answer.
        const Derived* const layout = &self();
        for (const probe& p : probes) answer(layout->key_test_step(words + p.block * Words, p.pattern));
    }

    // test_batch where no one-key step serves: the layout's batch kernel, else key by key.
    template <class Access, class Answer>
    void test_without_steps(const word_type* words, std::span<const probe> probes, Answer& answer) const {
        if constexpr (std::is_same_v<Access, plain_access>)
            if (self().test_batch_simd(words, probes, answer)) return;
        test_one_by_one<Access>(words, probes, answer);
    }

    // test_batch without a SIMD kernel (or with atomic access). Out of line: with the single
    // steps it runs, it would otherwise keep test_batch from being inlined into the pipeline on
    // the SIMD levels, where it never runs.
    template <class Access, class Answer>
    [[gnu::noinline]] void test_one_by_one(const word_type* words, std::span<const probe> probes,
                                           Answer& answer) const {
        for (const probe& p : probes) answer(test<Access>(words, p));
    }

    // set_batch without a SIMD kernel (or with atomic access): key by key. Out of line, as
    // test_one_by_one is.
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

    // The key's bits are first gathered into one mask per word, in registers, and each word of
    // the block is then written once: several of k probes often share a word (7 probes in 8
    // words), and writing per probe would chain each store to the load of the next through
    // memory (docs/design/performance.md).
    template <class Access>
    bool set_scalar(word_type* words, const probe& p) const noexcept {
        const key_masks_type masks = key_masks(p.pattern);
        word_type* block = words + p.block * Words;
        word_type newly_set = 0;
        for (std::size_t word = 0; word < Words; ++word) newly_set |= Access::set(block[word], masks[word]);
        return newly_set != 0;
    }

    // A single key the layout has no faster way for (concurrent access; a k past block_layout's
    // unrolled inserts; split block on a CPU without AVX2) writes each probe's bit straight
    // into its word: fewer instructions than gathering masks for all the block's words first,
    // and a single call's time is its instructions (docs/design/performance.md, "Single
    // inserts with AVX2 and without SIMD"). Where probes share a word, the second
    // write waits for the first through store forwarding — a few cycles, which a batch would
    // pay on every key, so batches without a path of the layout's own for one key gather
    // (set_scalar).
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
