// bench/measure.hpp — what the benchmark programs share: their keys' mixer, the barrier that
// keeps a timed loop inside its clock reads, huge-page accounting, and the memory floor every
// lookup is compared with.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.hpp"

namespace bench {

using clock_type = std::chrono::steady_clock;

/// SplitMix64 (Steele, Lea & Flood 2014): distinct, random-looking keys from a counter.
constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/// Makes `value` count as used and memory as touched before the code that follows: the timed
/// loops are inlined, and without this a compiler may move a loop whose answers only a local
/// variable receives past the clock read that ends its timing (a std::unordered_set lookup
/// loop measured 0.00 ns).
template <class T>
inline void keep(const T& value) {
    asm volatile("" : : "g"(&value) : "memory");
}

inline double nanoseconds_since(clock_type::time_point start) {
    return std::chrono::duration<double, std::nano>(clock_type::now() - start).count();
}

/// Bytes of this process's anonymous memory on 2 MiB pages (/proc/self/smaps_rollup).
inline std::uint64_t huge_page_bytes() {
    std::ifstream rollup("/proc/self/smaps_rollup");
    for (std::string line; std::getline(rollup, line);)
        if (line.rfind("AnonHugePages:", 0) == 0) return std::stoull(line.substr(14)) * 1024;
    return 0;
}

/// The memory floor: `reads` independent random 64-byte reads over `bytes` of memory allocated
/// as a filter's is (2 MiB pages where the system gives them), their addresses computed before
/// the clock starts — what a lookup touching one cache line cannot beat. ns per read; `huge`
/// receives the bytes of the process on huge pages while it ran.
inline double memory_floor_ns(std::uint64_t bytes, std::uint64_t reads, double& huge) {
    constexpr std::uint64_t chunk = 1 << 20;
    const std::uint64_t lines = std::max<std::uint64_t>(bytes / 64, 1);
    bloomkit::block_bloom_filter::storage_type memory(lines * 8);  // a filter's own storage
    std::fill_n(memory.mutable_data(), lines * 8, 1);              // touch every page
    huge = static_cast<double>(huge_page_bytes());
    std::vector<std::uint64_t> index(std::min<std::uint64_t>(reads, chunk));
    double nanoseconds = 0;
    std::uint64_t sum = 0;
    for (std::uint64_t done = 0; done < reads; done += index.size()) {
        index.resize(std::min<std::uint64_t>(index.size(), reads - done));  // the last chunk may be short
        for (std::uint64_t i = 0; i < index.size(); ++i) index[i] = splitmix64(done + i) % lines;
        const auto start = clock_type::now();
        for (const std::uint64_t line : index) sum += memory.data()[line * 8];
        nanoseconds += nanoseconds_since(start);
    }
    if (sum != reads) {
        std::fprintf(stderr, "benchmark: WRONG ANSWER: the memory floor's reads\n");
        std::exit(1);
    }
    return nanoseconds / static_cast<double>(reads);
}

}  // namespace bench
