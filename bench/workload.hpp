// bench/workload.hpp — what bloomkit_bench and peer_bench share beyond measure.hpp: the streams
// of keys (8-byte integers and ~60-byte URL-like strings, present, absent and half of each), the
// timing of an operation a chunk of keys at a time, the loop a user writes over single lookups,
// and the CPU's name for a table's header.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#include "measure.hpp"

namespace bench {

/// Keys are made, and an operation timed, this many at a time: 100M URL-like keys need no
/// 10 GB of RAM, and a chunk just made is still in the cache when it is timed.
inline constexpr std::uint64_t chunk_keys = 1 << 20;

enum class key_set : std::uint64_t { present = 1, absent = 2 };  // disjoint streams of keys

inline std::uint64_t integer_key(key_set set, std::uint64_t i) {
    return splitmix64(i * 4 + static_cast<std::uint64_t>(set));
}

inline std::string url_key(key_set set, std::uint64_t i) {
    const std::uint64_t h = integer_key(set, i);
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, "https://www.site%05u.example.com/articles/%016llx/index.html",
                  static_cast<unsigned>(h % 100000), static_cast<unsigned long long>(splitmix64(h)));
    return buffer;
}

template <class Key>
std::vector<Key> make_chunk(key_set set, std::uint64_t first, std::uint64_t count) {
    std::vector<Key> keys;
    keys.reserve(count);
    for (std::uint64_t i = first; i < first + count; ++i) {
        if constexpr (std::is_same_v<Key, std::string>) keys.push_back(url_key(set, i));
        else keys.push_back(integer_key(set, i));
    }
    return keys;
}

/// Half present, half absent keys, interleaved at random.
template <class Key>
std::vector<Key> make_mixed_chunk(std::uint64_t present_count, std::uint64_t first, std::uint64_t count) {
    std::vector<Key> keys;
    keys.reserve(count);
    for (std::uint64_t i = first; i < first + count; ++i) {
        const std::uint64_t h = splitmix64(i ^ 0x5eed);
        const key_set set = h & 1 ? key_set::present : key_set::absent;
        const std::uint64_t index = set == key_set::present ? (h >> 1) % present_count : i;
        if constexpr (std::is_same_v<Key, std::string>) keys.push_back(url_key(set, index));
        else keys.push_back(integer_key(set, index));
    }
    return keys;
}

/// Runs `op(chunk)` over `count` keys of a stream in chunks; returns ns per key (op time only).
template <class Key, class Make, class Op>
double timed_over_chunks(std::uint64_t count, Make make, Op op) {
    double nanoseconds = 0;
    for (std::uint64_t first = 0; first < count; first += chunk_keys) {
        const std::vector<Key> chunk = make(first, std::min(chunk_keys, count - first));
        const auto start = clock_type::now();
        op(chunk);
        keep(chunk);
        nanoseconds += std::chrono::duration<double, std::nano>(clock_type::now() - start).count();
    }
    return nanoseconds / static_cast<double>(count);
}

/// The loop a user writes over single lookups, in a function of its own: inlined into the
/// benchmark's bookkeeping, its count lives in memory and its filter's fields in stack slots
/// reloaded after every kernel call, a cost a user's loop does not pay
/// (docs/design/performance.md, "Artefacts of measurement").
template <class Key, class Contains>
[[gnu::noinline]] std::uint64_t count_found(const Contains& contains, const std::vector<Key>& keys) {
    std::uint64_t found = 0;
    for (const Key& key : keys) found += contains(key) ? 1 : 0;
    return found;
}

inline std::string cpu_model() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);)
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown";
}

}  // namespace bench
