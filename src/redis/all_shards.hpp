// src/redis/all_shards.hpp — what a filter in Redis does to all its shards at once, whatever its
// kind (block or windowed): check that each still holds its generation, read each one's fill and
// label, empty them, and record the key format in the record and every header.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "bloomkit/redis.hpp"

namespace bloomkit::redis::detail {

/// Throws shard_missing or filter_replaced unless every shard of `d` holds its generation.
void require_shards(client& c, const filter_description& d, const filter_options& o);

/// A shard's set bits (BITCOUNT of each region: of its blocks, for a block filter) and its label
/// (a windowed filter's newest generation of time; 0 for a block filter).
struct shard_fill {
    std::vector<std::uint64_t> region_bits;
    std::uint64_t label = 0;
    /// Over all its regions.
    [[nodiscard]] std::uint64_t set_bits() const noexcept;
};
/// Every shard's fill, in shard order; throws as require_shards does.
[[nodiscard]] std::vector<shard_fill> shard_fills(client& c, const filter_description& d, const filter_options& o);

/// Copies region j of each shard s into the shard_blocks(s)·8 words at words_of(s, j), in the
/// file's order, shard after shard (so the copy holds every key added before the call began).
/// Returns each shard's label; throws as require_shards does, also for a shard gone meanwhile.
std::vector<std::uint64_t> read_shards(
    client& c, const filter_description& d, const filter_options& o,
    const std::function<std::uint64_t*(std::uint64_t shard, std::uint64_t region)>& words_of);

/// Empties every shard, their headers kept; a lost shard is reported before anything is cleared.
void clear_shards(client& c, const filter_description& d, const filter_options& o);

/// A compare-and-set of NAME:meta's key format, then every header's; a format another client
/// recorded first stays (and is copied into `d`). Throws filter_mismatch for other keys, or
/// filter_replaced.
void record_key_format(client& c, filter_description& d, const filter_options& o, key_format keys);

/// Re-reads an unrecorded key format into `d`; throws filter_replaced.
key_format refresh_key_format(client& c, filter_description& d, const filter_options& o);

}  // namespace bloomkit::redis::detail
