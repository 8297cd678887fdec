// bloomkit/layouts/block.hpp — the cache-blocked Bloom filter: all k probes of a key in one
// 512-bit block, one 64-byte cache line (Putze, Sanders & Singler 2007). The default layout: one
// memory access per lookup, for ~3–10% more bits than classic at the same FPR (sizing.hpp models
// the difference exactly and sizes for it).
//
// Block: multiply-high of the digest's high half by the block count. Bits: probe i takes the top 9
// bits of x·c^(i+1) mod 2^32, x the digest's low 32 bits and c = 0x9e3779b9 (2^32 / golden ratio):
// RocksDB's FastLocalBloom scheme, at the FPR of independent probes. The products are independent,
// so a SIMD backend computes eight or sixteen at once from the powers of c.
#pragma once

#include <array>
#include <cstdint>
#include <utility>

#include "bloomkit/detail/blocked_layout.hpp"
#include "bloomkit/detail/simd/block_avx2.hpp"
#include "bloomkit/detail/simd/block_avx512.hpp"
#include "bloomkit/simd.hpp"

namespace bloomkit {

/// The default layout, block_bloom_filter's: a key's k bits in one 512-bit block. The hooks
/// below serve detail::blocked_layout's test, set and prefetch.
class block_layout : public detail::blocked_layout<block_layout, std::uint64_t, 8> {
public:
    /// The layout's code, stored in files.
    static constexpr bloom_layout id = bloom_layout::block;
    /// The hash of a filter that does not choose one.
    static constexpr hash_algorithm default_hash = default_hash_algorithm;
    /// c, 2^32 / golden ratio: probe i's bit is the top 9 bits of x·c^(i+1) mod 2^32.
    static constexpr std::uint32_t probe_multiplier = 0x9e3779b9U;

    /// Whole 512-bit blocks (at least one) and 1 to max_hashes probes, else invalid_argument.
    explicit block_layout(bloom_geometry g)
        : blocked_layout(g),
          lane_powers_(lane_powers_for(g.hashes)),
          one_step_avx512_from_(g.hashes <= 16 ? static_cast<int>(simd_level::avx512) : never),
          one_step_avx2_from_(g.hashes <= 8 ? static_cast<int>(simd_level::avx2) : never),
          key_set_step_avx512_(active_simd_level() == simd_level::avx512),
          insert_unrolled_(unrolled_insert_for(g.hashes)),
          test_unrolled_(unrolled_test_for(g.hashes)) {}

    /// Its block and x, the digest's low 32 bits, from which its bits follow.
    [[nodiscard]] probe locate(const digest& d) const noexcept {
        return {detail::reduce(d.high, block_count()), static_cast<std::uint32_t>(d.low)};
    }

    /// Calls visit(position) with each probe's bit in the block, 0..511.
    template <class Visit>
    void for_each_position(std::uint32_t pattern, Visit visit) const noexcept {
        // Independent products, not a chain of x *= c, so the multiplications overlap. k is read
        // once: the visitor's stores could alias the layout.
        const std::uint32_t hashes = geometry().hashes;
        for (std::uint32_t i = 0; i < hashes; ++i) visit(position_of(pattern, i));
    }

    /// for_each_position for a k known at compile time: unrolled, the multipliers immediates.
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

    // A single call costs its instructions (docs/design/performance.md, "Why a single call costs
    // its instructions"), so a single key takes a SIMD step that needs no call: AVX2's (k ≤ 8) as
    // inline assembly in a baseline build or intrinsics in an AVX2 build, AVX-512's (k ≤ 16) in
    // an AVX-512 build; only 8 < k ≤ 16 calls AVX-512's out of line. The levels are decided once.
    /// One key by a SIMD step or by its probes unrolled (k ≤ 16): sets `answer` and returns true;
    /// false when the generic loop is to run.
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
    /// Whether every probe is set, by one AVX2 step (k ≤ 8), for lookup loops built by hand (the
    /// benchmarks); a caller built for the CPU gets it inline. test_one() chooses for the library.
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

    // AVX-512's step where the CPU has it (inline assembly for k ≤ 8), else AVX2's for k ≤ 8,
    // else the probes unrolled for this k, the multipliers immediates (docs/design/performance.md,
    // "Single inserts with AVX2 and without SIMD").
    /// One key by a SIMD step or its probes unrolled: sets `added` (a bit was clear) and returns
    /// true; false when the generic loop is to run.
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

    /// Whether key_test_step() and key_set_step() serve: k ≤ 8 wherever there is AVX2 (inline
    /// per key beats a kernel called per batch: docs/design/performance.md, "The AVX2 step
    /// inline"); in an AVX-512 build, only at that level.
    [[nodiscard]] bool has_key_step() const noexcept {
#if defined(BLOOMKIT_X86_SIMD) && defined(__AVX512F__)
        return geometry().hashes <= 8 && active_simd_level() == simd_level::avx512;
#elif defined(BLOOMKIT_X86_SIMD)
        return geometry().hashes <= 8 && active_simd_level() != simd_level::scalar;
#else
        return false;
#endif
    }

    /// One key's test by a SIMD step, inline (where has_key_step()): AVX2's, or AVX-512's in an
    /// AVX-512 build.
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

    /// One key's insert by a SIMD step, inline (where has_key_step()): AVX-512's if the layout was
    /// made at that level, else AVX2's; true if a bit was clear.
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

    /// answer(all of p's bits set) for each probe, by the CPU's SIMD kernel; false without one.
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

    /// Whether set_batch_simd() serves: with AVX-512 any k, with AVX2 k ≤ 8.
    [[nodiscard]] bool has_set_batch_simd() const noexcept {
#ifdef BLOOMKIT_X86_SIMD
        const simd_level level = active_simd_level();
        return level == simd_level::avx512 || (level == simd_level::avx2 && geometry().hashes <= 8);
#else
        return false;
#endif
    }

    /// Returns how many keys set a clear bit.
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

    /// A one-step SIMD kernel's multipliers, for layouts placing bits alike (counting_block.hpp).
    [[nodiscard]] const std::uint32_t* lane_powers() const noexcept { return lane_powers_.data(); }

    /// c^(i+1) mod 2^32 for probe i: the multipliers of the probes, in order.
    static constexpr std::array<std::uint32_t, max_hashes + 16> multiplier_powers = [] {
        std::array<std::uint32_t, max_hashes + 16> powers{};  // + 16: a SIMD step's idle lanes
        std::uint32_t power = 1;
        for (auto& p : powers) p = power *= probe_multiplier;
        return powers;
    }();

private:
    /// c^(i+1) in lane i < k, c^1 past k: a repeated probe tests a bit again, so no lane is masked.
    static std::array<std::uint32_t, 16> lane_powers_for(std::uint32_t hashes) noexcept {
        std::array<std::uint32_t, 16> lanes{};
        for (std::uint32_t i = 0; i < lanes.size(); ++i) lanes[i] = multiplier_powers[i < hashes ? i : 0];
        return lanes;
    }

#ifdef BLOOMKIT_X86_SIMD
    /// Inline in any build: intrinsics in an AVX2 build, the same instructions as assembly elsewhere.
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
    /// For k ≤ 8 inline assembly in any build: its mask takes two vector operations a probe where
    /// a rotation takes three (docs/design/performance.md, "Single inserts with AVX-512").
    bool avx512_set_step(word_type* block, std::uint32_t pattern) const noexcept {
        if (geometry().hashes <= 8) return avx512_set_step_up_to_8(block, pattern);
        return detail::simd::block_set_single_avx512(block, pattern, geometry().hashes, multiplier_powers.data(),
                                                     lane_powers_.data());
    }
    bool avx512_set_step_up_to_8(word_type* block, std::uint32_t pattern) const noexcept {
        return detail::simd::block_set_one_avx512_asm(block, pattern, geometry().hashes, lane_powers_.data());
    }
#endif

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

    /// The probes' bits ANDed, so no probe waits on a branch over the one before.
    using test_function = bool (*)(const word_type* block, std::uint32_t pattern) noexcept;

    template <std::uint32_t K>
    static bool test_unrolled(const word_type* block, std::uint32_t pattern) noexcept {
        word_type all_set = 1;
        for_each_position_of<K>(pattern, [&](std::uint32_t bit) { all_set &= block[bit / 64] >> (bit % 64); });
        return (all_set & 1) != 0;
    }

    // GCC ignores `pure` on a function pointer, and a call that may write anything is a barrier
    // to a loop's registers: this wrapper is pure.
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
