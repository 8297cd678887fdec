// src/redis/metadata.hpp — NAME:meta, the record that makes a set of Redis strings one filter,
// the checks every description read from Redis passes, and the plan of a filter's shards.
//
// The record is text, one "field value" per line, so that `redis-cli GET NAME:meta` explains
// itself:
//     bloomkit-redis 2          format version: an older or newer one is refused, not misread
//     kind block                the layout (layouts/block.hpp), or "windowed": a ring of G + 1
//                               block filters (redis_windowed.hpp), with two more fields
//                               after generation: window_ms W and generations G
//     state ready               "creating" while a claim's owner makes the shards, "dropping"
//                               while they are deleted
//     owner 5f0c…(32 hex)       creating and dropping only: the random token of the claim's owner
//     generation 9a3e…(16 hex)  random, odd: also bytes 120–127 of every shard (shard_header.hpp)
//     bits 1048576              the geometry: bits (whole 512-bit blocks)…
//     hashes 8                  …and probes per key
//     shards 4                  strings NAME:0 … NAME:3
//     blocks_per_shard 512      shard s holds blocks [s·512, (s+1)·512); the last may hold fewer
//     hash xxh3-64-mum          the hash algorithm (hash.hpp) and its seed
//     seed 0
//     keys u64                  what the keys are: text, u64, i64, u32 or unrecorded
//     inserted 0                the inserted count of the file it was pushed from
//     expected_keys 100000      what it was sized for (0 0 when pushed from a bare geometry)
//     fpr 0.01
//     written 1764161057123     when it was last written, in ms by the server's clock (for a
//                               claim: the owner's last progress); added by the script that
//                               writes it (meta_store.hpp)
// Every field is required (owner only in the states that have one), none may appear twice,
// and no other is accepted: a record that is not exactly this is refused, naming what is wrong.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bloomkit/redis.hpp"

namespace bloomkit::redis::detail {

inline constexpr int meta_format_version = 2;

enum class filter_state { creating, ready, dropping };
[[nodiscard]] std::string_view to_string(filter_state state) noexcept;

/// A record as read: the filter, its state, and who holds it in the states that have an owner.
struct stored_meta {
    filter_description description;
    filter_state state = filter_state::creating;
    std::string owner{};          ///< 32 hex digits; empty when ready
    std::int64_t written_ms = 0;  ///< the server's clock when it was written
};

/// The record's text, without the "written" line (the script that stores it adds that).
[[nodiscard]] std::string encode_meta(const filter_description& d, filter_state state, std::string_view owner);

/// Reads NAME:meta's text; throws filter_mismatch naming what is wrong with it.
[[nodiscard]] stored_meta decode_meta(std::string_view name, std::string_view text);

/// What is impossible about a description read from Redis (a geometry no filter has, more than
/// max_shards shards, an even generation...), or "" when nothing is.
[[nodiscard]] std::string impossible(const filter_description& d);

/// The first field in which `stored` differs from `wanted` ("hashes 7 in Redis, 8 asked"), or
/// "" when they describe the same filter. Key formats differ when both are recorded and unequal.
[[nodiscard]] std::string first_difference(const filter_description& stored, const filter_description& wanted);

/// Shards for `geometry`'s blocks, each holding them once per slot (a windowed filter's G + 1 ring
/// slots; 1 for a block filter): as few as fit in max_shard_bytes each, equal but for the last.
/// With `round_up`, each shard then grows to fill its allocation (a created filter: the bits
/// would be allocated anyway, so they lower the FPR instead of being wasted); a pushed filter
/// keeps its geometry. Throws invalid_argument for a shard size out of range or a filter that
/// would need more than max_shards shards.
[[nodiscard]] filter_description plan_shards(std::string name, bloom_geometry geometry, std::uint64_t max_shard_bytes,
                                             bool round_up, std::uint64_t slots = 1);

/// Refuses (invalid_argument) an empty name, and a name whose shard keys would carry a hash tag
/// ("{…}"): on a cluster every shard would hash to the same slot, on one node.
void require_untagged_name(std::string_view name);

}  // namespace bloomkit::redis::detail
