// bloomkit/layouts/block.hpp — the cache-blocked Bloom filter: all k probes of a key in
// one 512-bit block, i.e. one 64-byte cache line (Putze, Sanders & Singler 2007). bloomkit's
// default layout: one memory access per lookup, at the price of ~3–10% more bits than classic
// for the same FPR (sizing.hpp models the difference exactly and sizes for it).
//
// Block: multiply-high of the digest's high half by the number of blocks.
// Bits: the digest's low 32 bits x, multiplied by 0x9e3779b9 (2^32 / golden ratio) once per
// probe; the top 9 bits of each product pick one of the 512 bits. This is the scheme of
// RocksDB's FastLocalBloom, whose authors measured it at the FPR of independent probes. Every
// product is x·c^(i+1) mod 2^32, so a SIMD backend computes eight probes at once from the
// powers of c and sets the same bits as this scalar loop.
#pragma once

#include <array>
#include <cstdint>
#include <utility>

#include "bloomkit/detail/blocked_layout.hpp"
#include "bloomkit/detail/simd/block_avx2.hpp"
#include "bloomkit/detail/simd/block_avx512.hpp"
#include "bloomkit/simd.hpp"

namespace bloomkit {

/// bloomkit's default layout: a key's k bits in one 512-bit block (one cache line). The layout
/// policy of block_bloom_filter; test, set and prefetch come from detail::blocked_layout, which
/// calls the hooks below.
class block_layout : public detail::blocked_layout<block_layout, std::uint64_t, 8> {
public:
    /// The layout's code, stored in files.
    static constexpr bloom_layout id = bloom_layout::block;
    /// The hash of a filter that does not choose one.
    static constexpr hash_algorithm default_hash = default_hash_algorithm;
    /// c, 2^32 / golden ratio: probe i's bit is the top 9 bits of x·c^(i+1) mod 2^32.
    static constexpr std::uint32_t probe_multiplier = 0x9e3779b9U;

    /// The layout of `g.bits` bits (whole 512-bit blocks, at least one) and `g.hashes` probes
    /// (1 to max_hashes); throws invalid_argument for any other geometry.
    explicit block_layout(bloom_geometry g)
        : blocked_layout(g),
          lane_powers_(lane_powers_for(g.hashes)),
          one_step_avx512_from_(g.hashes <= 16 ? static_cast<int>(simd_level::avx512) : never),
          one_step_avx2_from_(g.hashes <= 8 ? static_cast<int>(simd_level::avx2) : never),
          key_set_step_avx512_(active_simd_level() == simd_level::avx512),
          insert_unrolled_(unrolled_insert_for(g.hashes)),
          test_unrolled_(unrolled_test_for(g.hashes)) {}

    /// Where a key goes: its block, by multiply-high of the digest's high half by the block count,
    /// and x, the digest's low 32 bits, from which its bits follow.
    [[nodiscard]] probe locate(const digest& d) const noexcept {
        return {detail::reduce(d.high, block_count()), static_cast<std::uint32_t>(d.low)};
    }

    /// Calls visit(position) with each probe's bit in the block, 0..511.
    template <class Visit>
    void for_each_position(std::uint32_t pattern, Visit visit) const noexcept {
        // Independent products x·c^(i+1), not a chain of x *= c: the multiplications overlap
        // instead of waiting on each other (and vectorise: detail/simd/). k is read once: the
        // visitor's stores could alias the layout as far as the compiler knows.
        const std::uint32_t hashes = geometry().hashes;
        for (std::uint32_t i = 0; i < hashes; ++i) visit(position_of(pattern, i));
    }

    /// for_each_position for a k known at compile time: the loop unrolled, each multiplier an
    /// immediate operand.
    template <std::uint32_t K, class Visit>
    static void for_each_position_of(std::uint32_t pattern, Visit visit) noexcept {
        [&]<std::uint32_t... I>(std::integer_sequence<std::uint32_t, I...>) { (visit(position_of(pattern, I)), ...); }
        (std::make_integer_sequence<std::uint32_t, K>{});
    }

    /// Probe i's bit in the block, 0..511: the top 9 bits of x·c^(i+1) mod 2^32.
    [[nodiscard]] static constexpr std::uint32_t position_of(std::uint32_t pattern, std::uint32_t probe) noexcept {
        return (pattern * multiplier_powers[probe]) >> (32 - 9);
    }

    template <class Visit>
    /// Calls visit(word_in_block, bit_mask) for each probe of `pattern`.
    void for_each_bit(std::uint32_t pattern, Visit visit) const noexcept {
        for_each_position(pattern, [&](std::uint32_t bit) { visit(bit / 64, std::uint64_t{1} << (bit % 64)); });
    }

    // One step of AVX-512 (k ≤ 16) or AVX2 (k ≤ 8) answers a key; past that, the batch kernels
    // loop over steps. Instructions are what a single call costs (docs/design/performance.md,
    // "Why a single call costs its instructions"),
    // so a single key takes the step that needs no call: in code built for baseline x86-64 the
    // AVX2 step as inline assembly (on any CPU with AVX2, AVX-512 ones included), in code built
    // for AVX2 (-mavx2, -march=native) its intrinsics inlined, and in code built for AVX-512
    // the AVX-512 step inlined. Only 8 < k ≤ 16 calls the AVX-512 step out of line. The levels
    // at which each step serves this k are worked out once, so choosing costs a compare per
    // step ruled out: one for k ≤ 8.
    /// Answers one key in `block` by a single SIMD step when one serves this k on this CPU, else
    /// by its probes unrolled for this k (k ≤ 16): sets `answer` and returns true; returns false
    /// (answer untouched) when the generic loop is to run.
    bool test_one(const word_type* block, std::uint32_t pattern, bool& answer) const noexcept {
#ifdef BLOOMKIT_X86_SIMD
        const int level = detail::decided_simd_level();
#ifndef __AVX512F__  // where AVX-512's step would be a call, AVX2's first: it needs none
        if (level >= one_step_avx2_from_) {
            answer = avx2_test_step(block, pattern);
            return true;
        }
#endif
        if (level >= one_step_avx512_from_) {
            answer = detail::simd::block_test_single_avx512(block, pattern, lane_powers_.data());
            return true;
        }
        if (level >= one_step_avx2_from_) {
            answer = avx2_test_step(block, pattern);
            return true;
        }
#endif
        if (test_unrolled_ == nullptr) return false;
        answer = test_by_unrolled_probes(block, pattern);
        return true;
    }

#ifdef BLOOMKIT_X86_SIMD
    /// One SIMD step of a single key's test, whole: whether every probe of `pattern` is set in
    /// `block`, for k ≤ 8 (AVX2) or k ≤ 16 (AVX-512), on a CPU that has the instructions. For a
    /// lookup loop built around the layout by hand (the benchmarks time a lookup layer by layer):
    /// a caller built for that CPU (a target attribute, or -march) gets the step inlined.
    /// test_one() chooses among the steps for the library's own lookups.
    __attribute__((target("avx2"), always_inline)) bool test_step_avx2(const word_type* block,
                                                                       std::uint32_t pattern) const noexcept {
        return detail::simd::block_test_one_avx2(block, pattern, lane_powers_.data());
    }
    /// test_step_avx2() for k ≤ 16, as one AVX-512 step.
    __attribute__((target("avx512f"), always_inline)) bool test_step_avx512(const word_type* block,
                                                                            std::uint32_t pattern) const noexcept {
        return detail::simd::block_test_one_avx512(block, pattern, lane_powers_.data());
    }
#endif

    // A single insert: AVX-512's step where the CPU has it, inline for k ≤ 8 (as inline
    // assembly, in any build); else, for k ≤ 8, AVX2's step inline — inline assembly in code
    // built for baseline x86-64, as for test_one. Without a SIMD step, the probes unrolled for
    // this k (k ≤ 16), a function chosen once per filter: with the multipliers as immediates and
    // no loop, a probe is ~11 instructions instead of ~19 (docs/design/performance.md, "Single
    // inserts with AVX2 and without SIMD").
    /// Inserts one key into `block` by a SIMD step or by its probes unrolled for this k: sets
    /// `added` (a bit was clear) and returns true; returns false when the generic loop is to run.
    bool set_one(word_type* block, std::uint32_t pattern, bool& added) const noexcept {
#ifdef BLOOMKIT_X86_SIMD
        const int level = detail::decided_simd_level();
        if (level == static_cast<int>(simd_level::avx512)) {
            added = avx512_set_step(block, pattern);
            return true;
        }
        if (level >= one_step_avx2_from_) {
            added = avx2_set_step(block, pattern);
            return true;
        }
#endif
        if (insert_unrolled_ == nullptr) return false;
        added = insert_unrolled_(block, pattern);
        return true;
    }

    /// Whether key_test_step() and key_set_step() serve this filter's keys at the SIMD level in
    /// use: for k ≤ 8, wherever there is AVX2. Lookups take the AVX2 step on AVX-512 CPUs too:
    /// up to 8 probes fit it, and it measured faster over many keys, taken key by key inline (in
    /// a plain build as inline assembly), than a kernel called per batch. Code built for AVX-512
    /// takes AVX-512's steps (they are inline there), so only at that level.
    [[nodiscard]] bool has_key_step() const noexcept {
#if defined(BLOOMKIT_X86_SIMD) && defined(__AVX512F__)
        return geometry().hashes <= 8 && active_simd_level() == simd_level::avx512;
#elif defined(BLOOMKIT_X86_SIMD)
        return geometry().hashes <= 8 && active_simd_level() != simd_level::scalar;
#else
        return false;
#endif
    }

    /// One key by a SIMD step, inline (where has_key_step()): a key of a batch, or a single
    /// lookup of a filter that chose this step when it was made. AVX2's, or AVX-512's in code
    /// built for it, where it is inline too and measured faster.
    [[nodiscard]] bool key_test_step(const word_type* block, std::uint32_t pattern) const noexcept {
#if defined(BLOOMKIT_X86_SIMD) && defined(__AVX512F__)
        return detail::simd::block_test_one_avx512(block, pattern, lane_powers_.data());
#elif defined(BLOOMKIT_X86_SIMD)
        return avx2_test_step(block, pattern);
#else
        (void)block, (void)pattern;
        return false;
#endif
    }

    /// One key's insert by a SIMD step, inline (where has_key_step()): AVX-512's if the layout
    /// was made at that level (always, in code built for it), else AVX2's; true if a bit was
    /// clear. The single insert of a filter that chose this step when it was made.
    bool key_set_step(word_type* block, std::uint32_t pattern) const noexcept {
#if defined(BLOOMKIT_X86_SIMD) && defined(__AVX512F__)
        return avx512_set_step_up_to_8(block, pattern);
#elif defined(BLOOMKIT_X86_SIMD)
        if (key_set_step_avx512_) return avx512_set_step_up_to_8(block, pattern);
        return avx2_set_step(block, pattern);
#else
        (void)block, (void)pattern;
        return false;
#endif
    }

    /// answer(whether every bit of p is set) for each probe p, in order, by the CPU's SIMD
    /// kernel for a k no one-key step serves (k > 8); false (no call) when the CPU has none.
    template <class Answer>
    bool test_batch_simd(const word_type* words, std::span<const probe> probes, Answer& answer) const {
#ifdef BLOOMKIT_X86_SIMD
        const simd_level level = active_simd_level();
        if (level == simd_level::scalar) return false;
        const std::uint32_t k = geometry().hashes;
        answer_through_buffer(probes, answer, [&](std::span<const probe> some, bool* out) {
            if (level == simd_level::avx512 && k <= 16)
                detail::simd::block_test_few_avx512(words, some.data(), some.size(), lane_powers_.data(), out);
            else if (level == simd_level::avx512)
                detail::simd::block_test_avx512(words, some.data(), some.size(), k, multiplier_powers.data(), out);
            else detail::simd::block_test_avx2(words, some.data(), some.size(), k, multiplier_powers.data(), out);
        });
        return true;
#else
        (void)words, (void)probes, (void)answer;
        return false;
#endif
    }

    /// Whether set_batch_simd() inserts this filter's keys on this CPU: with AVX-512, any k; with
    /// AVX2, k ≤ 8 (one step a key).
    [[nodiscard]] bool has_set_batch_simd() const noexcept {
#ifdef BLOOMKIT_X86_SIMD
        const simd_level level = active_simd_level();
        return level == simd_level::avx512 || (level == simd_level::avx2 && geometry().hashes <= 8);
#else
        return false;
#endif
    }

    /// Sets the bits of a batch of keys by the CPU's SIMD kernel (where has_set_batch_simd())
    /// and returns how many keys set a clear bit.
    std::size_t set_batch_simd(word_type* words, std::span<const probe> probes) const noexcept {
#ifdef BLOOMKIT_X86_SIMD
        if (active_simd_level() == simd_level::avx512)
            return detail::simd::block_set_avx512(words, probes.data(), probes.size(), geometry().hashes,
                                                  multiplier_powers.data(), lane_powers_.data());
        return detail::simd::block_set_few_avx2(words, probes.data(), probes.size(), lane_powers_.data());
#else
        (void)words, (void)probes;
        return 0;
#endif
    }

    /// The multipliers of a one-step SIMD kernel (see lane_powers_for), for layouts that place
    /// their bits as this one does (layouts/counting_block.hpp).
    [[nodiscard]] const std::uint32_t* lane_powers() const noexcept { return lane_powers_.data(); }

    /// c^(i+1) mod 2^32 for probe i: the multipliers of the probes, in order.
    static constexpr std::array<std::uint32_t, max_hashes + 16> multiplier_powers = [] {
        std::array<std::uint32_t, max_hashes + 16> powers{};  // + 16: a SIMD step's idle lanes
        std::uint32_t power = 1;
        for (auto& p : powers) p = power *= probe_multiplier;
        return powers;
    }();

private:
    /// The multipliers of a one-step SIMD kernel: c^(i+1) in lane i < k, and probe 0's c^1 in
    /// the lanes past k — a repeated probe tests a bit already tested, so no lane is masked.
    static std::array<std::uint32_t, 16> lane_powers_for(std::uint32_t hashes) noexcept {
        std::array<std::uint32_t, 16> lanes{};
        for (std::uint32_t i = 0; i < lanes.size(); ++i) lanes[i] = multiplier_powers[i < hashes ? i : 0];
        return lanes;
    }

#ifdef BLOOMKIT_X86_SIMD
    /// The AVX2 steps of a single key, inline in any build: the intrinsics where the code is
    /// built for AVX2, the same instructions as inline assembly where it is not.
    bool avx2_test_step(const word_type* block, std::uint32_t pattern) const noexcept {
#ifdef __AVX2__
        return detail::simd::block_test_one_avx2(block, pattern, lane_powers_.data());
#else
        return detail::simd::block_test_one_avx2_asm(block, pattern, lane_powers_.data());
#endif
    }
    bool avx2_set_step(word_type* block, std::uint32_t pattern) const noexcept {
#ifdef __AVX2__
        return detail::simd::block_set_one_avx2(block, pattern, lane_powers_.data());
#else
        return detail::simd::block_set_one_avx2_asm(block, pattern, lane_powers_.data());
#endif
    }
    /// The AVX-512 step of a single insert: for k ≤ 8 inline assembly in any build — in code
    /// built for AVX-512 too, where it measured faster than the intrinsics' rotations
    /// (docs/design/performance.md, "Single inserts with AVX-512") — and past that the
    /// intrinsics, a call in code built without AVX-512.
    bool avx512_set_step(word_type* block, std::uint32_t pattern) const noexcept {
        if (geometry().hashes <= 8) return avx512_set_step_up_to_8(block, pattern);
        return detail::simd::block_set_single_avx512(block, pattern, geometry().hashes, multiplier_powers.data(),
                                                     lane_powers_.data());
    }
    /// avx512_set_step for k ≤ 8, with no test of k.
    bool avx512_set_step_up_to_8(word_type* block, std::uint32_t pattern) const noexcept {
        return detail::simd::block_set_one_avx512_asm(block, pattern, geometry().hashes, lane_powers_.data());
    }
#endif

    /// One key's insert with its k probes unrolled; true if a bit was clear.
    using insert_function = bool (*)(word_type* block, std::uint32_t pattern) noexcept;
    static constexpr std::uint32_t max_unrolled_hashes = 16;  // k of an FPR down to ~10^-6

    template <std::uint32_t K>
    static bool insert_unrolled(word_type* block, std::uint32_t pattern) noexcept {
        word_type were_set = 1;  // bit 0: every probe's bit was already set
        for_each_position_of<K>(pattern, [&](std::uint32_t bit) {
            const word_type old = block[bit / 64];
            block[bit / 64] = old | (word_type{1} << (bit % 64));
            were_set &= old >> (bit % 64);
            detail::compute_here(were_set);
        });
        return (were_set & 1) == 0;
    }

    // The function for each k from 1 to max_unrolled_hashes, `pick` naming it for a k given as
    // a std::integral_constant; then the one for `hashes` (nullptr past the table).
    template <class Function, class Pick>
    static constexpr std::array<Function, max_unrolled_hashes> unrolled_table(Pick pick) noexcept {
        return [&]<std::uint32_t... K>(std::integer_sequence<std::uint32_t, K...>) {
            return std::array<Function, sizeof...(K)>{pick(std::integral_constant<std::uint32_t, K + 1>{})...};
        }
        (std::make_integer_sequence<std::uint32_t, max_unrolled_hashes>{});
    }
    template <class Function>
    static Function unrolled_for(const std::array<Function, max_unrolled_hashes>& table,
                                 std::uint32_t hashes) noexcept {
        return hashes >= 1 && hashes <= table.size() ? table[hashes - 1] : nullptr;
    }

    static insert_function unrolled_insert_for(std::uint32_t hashes) noexcept {
        static constexpr auto inserts =
            unrolled_table<insert_function>([](auto k) { return &insert_unrolled<decltype(k)::value>; });
        return unrolled_for(inserts, hashes);
    }

    /// One key's lookup with its k probes unrolled, for a CPU without the SIMD step: the
    /// multipliers are immediates and there is no loop, as in insert_unrolled; the probes' bits
    /// are ANDed together, so no probe waits on a branch over the one before.
    using test_function = bool (*)(const word_type* block, std::uint32_t pattern) noexcept;

    template <std::uint32_t K>
    static bool test_unrolled(const word_type* block, std::uint32_t pattern) noexcept {
        word_type all_set = 1;
        for_each_position_of<K>(pattern, [&](std::uint32_t bit) { all_set &= block[bit / 64] >> (bit % 64); });
        return (all_set & 1) != 0;
    }

    // The call through test_unrolled_, as a function that only reads memory: GCC ignores `pure`
    // on a pointer to a function, and a call it must assume writes anything is a loop's barrier
    // (simd.hpp, decided_simd_level). On the SIMD levels it is never called; without SIMD it
    // costs a direct call and a jump.
    [[gnu::noinline, gnu::pure]] bool test_by_unrolled_probes(const word_type* block,
                                                              std::uint32_t pattern) const noexcept {
        return test_unrolled_(block, pattern);
    }

    static test_function unrolled_test_for(std::uint32_t hashes) noexcept {
        static constexpr auto tests =
            unrolled_table<test_function>([](auto k) { return &test_unrolled<decltype(k)::value>; });
        return unrolled_for(tests, hashes);
    }

    static constexpr int never = 3;  // above every simd_level

    std::array<std::uint32_t, 16> lane_powers_;
    int one_step_avx512_from_;  // the lowest level in use at which each one-step kernel serves k
    int one_step_avx2_from_;
    bool key_set_step_avx512_;         // key_set_step's choice, made with the layout
    insert_function insert_unrolled_;  // nullptr past max_unrolled_hashes
    test_function test_unrolled_;      // likewise
};

}  // namespace bloomkit
