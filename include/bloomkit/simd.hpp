// bloomkit/simd.hpp — which SIMD backend the running CPU supports, decided once at run time
// (the library is built for the baseline x86-64, so one binary runs anywhere and still uses
// AVX2 / AVX-512 where the machine has them; the kernels are in detail/simd/, one file per
// backend).
//
// Every backend sets and tests exactly the same bits as the scalar code: the choice changes
// speed, never a filter's contents or answers (tests/test_simd.cpp checks this on every
// backend the machine has). BLOOMKIT_SIMD=scalar|avx2|avx512 in the environment, or
// limit_simd_level(), caps the choice: for tests, benchmarks and bisecting a suspicion.
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace bloomkit {

/// The SIMD backends, slowest first: a cap at one level allows those below it.
enum class simd_level : int { scalar = 0, avx2 = 1, avx512 = 2 };

/// "scalar", "avx2" or "avx512", as BLOOMKIT_SIMD spells them.
[[nodiscard]] constexpr std::string_view to_string(simd_level level) noexcept {
    switch (level) {
        case simd_level::avx512: return "avx512";
        case simd_level::avx2: return "avx2";
        case simd_level::scalar: break;
    }
    return "scalar";
}

namespace detail {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BLOOMKIT_X86_SIMD 1
#endif

inline simd_level detect_simd_level() noexcept {
#ifdef BLOOMKIT_X86_SIMD
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        return simd_level::avx512;
    if (__builtin_cpu_supports("avx2")) return simd_level::avx2;
#endif
    return simd_level::scalar;
}

inline simd_level environment_cap() noexcept {
    const char* value = std::getenv("BLOOMKIT_SIMD");
    if (value == nullptr) return simd_level::avx512;
    const std::string_view cap(value);
    if (cap == "scalar") return simd_level::scalar;
    if (cap == "avx2") return simd_level::avx2;
    return simd_level::avx512;
}

/// The backend in use, or -1 until the first call decides it. A namespace-scope variable with a
/// constant initialiser, not a function-local static: reading it is one load, with no
/// initialisation guard to test on every single-key call (docs/design/performance.md).
inline std::atomic<int> simd_level_in_use{-1};

[[gnu::cold, gnu::noinline]] inline int decide_simd_level() noexcept {
    const simd_level detected = detect_simd_level(), cap = environment_cap();
    const int level = static_cast<int>(static_cast<int>(detected) < static_cast<int>(cap) ? detected : cap);
    int undecided = -1;  // a concurrent first call decides the same; a limit set meanwhile wins
    simd_level_in_use.compare_exchange_strong(undecided, level, std::memory_order_relaxed);
    return simd_level_in_use.load(std::memory_order_relaxed);
}

}  // namespace detail

/// The best SIMD backend of this CPU (ignoring any cap).
[[nodiscard]] inline simd_level supported_simd_level() noexcept {
    static const simd_level level = detail::detect_simd_level();
    return level;
}

/// The backend bulk operations use now.
[[nodiscard]] inline simd_level active_simd_level() noexcept {
    const int level = detail::simd_level_in_use.load(std::memory_order_relaxed);
    return static_cast<simd_level>(level >= 0 ? level : detail::decide_simd_level());
}

namespace detail {

/// simd_level_in_use as a single-key call reads it: the level already decided (every layout
/// that reads it decides it in its constructor, so a single call never has to), or -1, which
/// every caller takes as "scalar". It is the same relaxed load, an aligned 32-bit mov, written
/// as inline assembly so that it is no barrier to the caller's loop: through std::atomic, even
/// relaxed, GCC moves no load out of a loop that holds it, and a loop of single lookups then
/// reloaded the filter's own address from the caller's lambda every key, and everything else
/// through it after that load — ~7% of a lookup at 100M keys (docs/design/performance.md,
/// "Single calls in a loop").
[[nodiscard]] inline int decided_simd_level() noexcept {
#ifdef BLOOMKIT_X86_SIMD
    int level;
    asm("movl %1, %0" : "=r"(level) : "m"(simd_level_in_use));
    return level;
#else
    return simd_level_in_use.load(std::memory_order_relaxed);
#endif
}

}  // namespace detail

/// Caps the backend at `level` (never above what the CPU supports); returns the one in use.
/// Every call made after it follows the cap, except the single lookups and inserts of a block
/// or split-block filter made before it, which keep the SIMD step they chose when the filter
/// was made (bloom_filter.hpp, "plain lookups") — the same bits and answers, as at every level.
inline simd_level limit_simd_level(simd_level level) noexcept {
    const simd_level chosen =
        static_cast<int>(level) < static_cast<int>(supported_simd_level()) ? level : supported_simd_level();
    detail::simd_level_in_use.store(static_cast<int>(chosen), std::memory_order_relaxed);
    return chosen;
}

}  // namespace bloomkit
