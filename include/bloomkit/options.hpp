// bloomkit/options.hpp — what a caller chooses about a filter beyond its size: how it hashes,
// how a scalable filter grows, and the tag that selects the thread-safe calls. Every kind
// takes these from here, so no filter header includes another just to reach them.
#pragma once

#include <cstdint>
#include <optional>

#include "bloomkit/hash.hpp"

namespace bloomkit {

/// Tag selecting the thread-safe flavour of insert and contains (Bloom filters): any number
/// of threads may make such calls on one filter at once.
struct concurrent_t {
    explicit concurrent_t() = default;
};
/// The value to pass: `f.insert(key, bloomkit::concurrent)`.
inline constexpr concurrent_t concurrent{};

/// How a filter hashes. Keep the defaults for reproducible files; pass random_seed() (or a
/// secret) when an adversary chooses the keys.
struct filter_options {
    /// The hash seed, saved with the filter: default_seed (0) for reproducible files,
    /// random_seed() against chosen keys. Guava's and DCSO's hashes take none.
    std::uint64_t seed = default_seed;
    /// Defaults to the kind's own: xxh3_64_mum, XXH64 for split block (as Parquet requires),
    /// murmur3_128 for Guava's layouts and fnv1_64 for DCSO's (which take no other).
    std::optional<hash_algorithm> hash{};
    /// What the keys are, recorded in the filter's file for its readers (hash.hpp). A filter
    /// built from a range of keys records their type when this is left unrecorded.
    key_format keys = key_format::unrecorded;
    /// For a Guava filter (hash murmur3_128): the funnel its keys go through, as the Java side's
    /// (hash/guava_funnel.hpp); none means Funnels.stringFunnel(UTF_8), or Funnels.longFunnel()
    /// for a Bloom filter whose `keys` are integers.
    guava_funnel funnel = guava_funnel::none;
};

/// How a scalable Bloom filter grows and hashes. The defaults are RedisBloom's: each new stage
/// holds twice the keys of the one before at half its false-positive rate.
struct scalable_options {
    /// Each new stage holds this many times the keys of the one before: 1 to 16.
    double growth = 2.0;
    /// Each new stage's FPR target is this times the one before's: strictly between 0 and 1.
    double tightening = 0.5;
    /// The hash seed of every stage (filter_options::seed).
    std::uint64_t seed = default_seed;
    /// Defaults to xxh3_64_mum, as for block_bloom_filter.
    std::optional<hash_algorithm> hash{};
    /// What the keys are (filter_options::keys).
    key_format keys = key_format::unrecorded;
};

/// What a filter was sized for: the keys it holds at its target false-positive rate. Both 0
/// for a filter built from an explicit geometry (or from its keys, as a binary fuse filter is).
struct sizing_target {
    /// n: the keys the filter was sized to hold.
    std::uint64_t expected_keys = 0;
    /// p: the false-positive rate the filter meets while it holds at most n keys.
    double fpr = 0;
    /// Both fields equal.
    friend constexpr bool operator==(const sizing_target&, const sizing_target&) = default;
};

}  // namespace bloomkit
