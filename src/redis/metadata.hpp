// src/redis/metadata.hpp — NAME:meta, the record that makes a set of Redis strings one filter,
// and the plan of its shards.
//
// The record is text, one "field value" per line, so that `redis-cli GET NAME:meta` explains
// itself:
//     bloomkit-redis 1          format version: a newer one is refused, not misread
//     kind block                the layout (layouts/block.hpp)
//     state ready               "creating" until every shard exists
//     bits 1048576              the geometry: bits (whole 512-bit blocks)…
//     hashes 8                  …and probes per key
//     shards 4                  strings NAME:0 … NAME:3
//     blocks_per_shard 512      shard s holds blocks [s·512, (s+1)·512); the last may hold fewer
//     hash xxh3-mix             the hash algorithm (hash.hpp) and its seed
//     seed 0
//     expected_keys 100000      what it was sized for (0 0 when pushed from a bare geometry)
//     fpr 0.01
#pragma once

#include <string>
#include <string_view>

#include "bloomkit/redis.hpp"

namespace bloomkit::redis::detail {

inline constexpr int meta_format_version = 1;

enum class filter_state { creating, ready };

[[nodiscard]] std::string encode_meta(const filter_description& d, filter_state state);

struct stored_meta {
    filter_description description;
    filter_state state = filter_state::creating;
};
/// Reads NAME:meta's text; throws filter_mismatch naming what is wrong with it.
[[nodiscard]] stored_meta decode_meta(std::string_view name, std::string_view text);

/// The first field in which `stored` differs from `wanted` ("hashes 7 in Redis, 8 asked"), or
/// "" when they describe the same filter.
[[nodiscard]] std::string first_difference(const filter_description& stored, const filter_description& wanted);

/// Shards for `blocks` blocks: as few as fit in max_shard_bytes each, equal but for the last.
/// With `round_up`, each shard then grows to fill its allocation (a created filter: the bits
/// would be allocated anyway, so they lower the FPR instead of being wasted); a pushed filter
/// keeps its geometry.
[[nodiscard]] filter_description plan_shards(std::string name, bloom_geometry geometry, std::uint64_t max_shard_bytes,
                                             bool round_up);

}  // namespace bloomkit::redis::detail
