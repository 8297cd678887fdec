// src/redis/lifecycle.hpp — making, opening and pushing a filter of any kind in Redis, for the
// kinds' classes (redis.hpp's bloom_filter, redis_windowed.hpp's windowed_filter): each
// describes the filter it wants (metadata.hpp's plan_shards), these do the rest — the claim of
// NAME:meta, the shards, the record's recovery — and return the filter as Redis holds it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "bloomkit/redis.hpp"

namespace bloomkit::redis::detail {

/// Where a pushed filter's bits come from.
struct pushed_bits {
    /// Region j of shard s (ring slot j's blocks; 0 for a block filter): shard_blocks(s)·8 words,
    /// in the file's order.
    std::function<const std::uint64_t*(std::uint64_t shard, std::uint64_t region)> words;
    /// A windowed filter's shard's label (shard_header.hpp); empty for a block filter.
    std::function<std::uint64_t(std::uint64_t shard)> label{};
};

/// Creates `wanted`, or returns it as Redis holds it when it exists alike (recording `wanted`'s
/// key format where it records none and holds no key). Throws filter_mismatch for other
/// parameters, foreign keys or a stale claim.
[[nodiscard]] filter_description create_filter(client& c, const filter_description& wanted, const filter_options& o);

/// The filter NAME as recorded; filter_mismatch if there is none or it is being created or dropped.
[[nodiscard]] filter_description open_filter(client& c, const std::string& name, const filter_options& o);

/// Makes `d`, which must not exist, with the bits of `local`; ready only once every bit is in.
[[nodiscard]] filter_description push_filter(client& c, const filter_description& d, const pushed_bits& local,
                                             const filter_options& o);

/// The key format a pushed filter records: the file's, or when it records none, the one asked
/// for; invalid_argument when they disagree.
[[nodiscard]] key_format pushed_key_format(key_format file, key_format asked);

}  // namespace bloomkit::redis::detail
