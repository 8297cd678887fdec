// bloomkit/options.hpp — what a caller chooses about a filter beyond its size: hashing, what it
// was sized for, the thread-safe calls' tag, a clock; here so no filter header includes another for them.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "bloomkit/hash.hpp"

namespace bloomkit {

/// Selects the thread-safe insert and contains of Bloom filters, callable from any number of threads.
struct concurrent_t {
    explicit concurrent_t() = default;
};
/// The value to pass: `f.insert(key, bloomkit::concurrent)`.
inline constexpr concurrent_t concurrent{};

/// How a filter hashes.
struct filter_options {
    /// 0 for reproducible files, random_seed() against chosen keys; Guava's and DCSO's take none.
    std::uint64_t seed = default_seed;
    /// Leave it empty: a new filter takes its kind's one hash (XXH64 for split block, Guava's and
    /// DCSO's for theirs). Set, it hashes as an existing file of that hash does (docs/FORMAT.md,
    /// "Format ids and why each exists").
    std::optional<hash_algorithm> hash{};
    /// Recorded for the file's readers (keys.hpp); unrecorded: a range's key type, if built from one.
    key_format keys = key_format::unrecorded;
    /// A Guava filter's funnel; none: stringFunnel(UTF_8), or longFunnel() for integer `keys`.
    guava_funnel funnel = guava_funnel::none;
};

/// Where a filter that forgets (windowed_filter.hpp) takes the time from; empty: the system clock.
using filter_clock = std::function<std::chrono::system_clock::time_point()>;

/// What a filter was sized for; both 0 when built from a geometry or from its keys.
struct sizing_target {
    /// n: the keys the filter was sized to hold.
    std::uint64_t expected_keys = 0;
    /// p: the FPR met while it holds at most n keys.
    double fpr = 0;
    /// Both fields equal.
    friend constexpr bool operator==(const sizing_target&, const sizing_target&) = default;
};

}  // namespace bloomkit
