// bloomkit/simd.hpp — which SIMD backend the running CPU supports, decided once at run time, so a
// baseline x86-64 binary uses AVX2 / AVX-512 where present (kernels: detail/simd/). Every backend
// sets and tests exactly the scalar code's bits: the choice changes speed, never contents or
// answers. BLOOMKIT_SIMD=scalar|avx2|avx512 or limit_simd_level() caps it.
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

/// The backend in use, or -1 until decided; constant-initialised, so a read needs no guard.
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

/// The level a layout's constructor decided, or -1 (scalar). A relaxed load written as inline
/// assembly: GCC hoists no load out of a loop holding a std::atomic load, even relaxed, so the
/// loop would reload the filter every key (docs/design/performance.md, "Single calls in a loop").
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

/// Caps the backend (never above the CPU's); returns the one in use. Single-key calls of Bloom
/// filters made before keep the step they chose, with the same bits and answers.
inline simd_level limit_simd_level(simd_level level) noexcept {
    const simd_level chosen =
        static_cast<int>(level) < static_cast<int>(supported_simd_level()) ? level : supported_simd_level();
    detail::simd_level_in_use.store(static_cast<int>(chosen), std::memory_order_relaxed);
    return chosen;
}

}  // namespace bloomkit
