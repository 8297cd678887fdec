// src/redis/shard_header.hpp — the first 128 bytes of every shard: the filter's description
// repeated, so that a lost NAME:meta can be rebuilt from the shards, and in its last 8 bytes the
// filter's generation, which every add and query reads (`BITFIELD … GET i64 960`) to know that
// the shard is there and belongs to the filter it opened. The blocks follow it.
//
// At the start, not the end: the header is at the same place in every shard of every filter,
// whatever its geometry, so the bits a client sets from a stale description (of a filter
// dropped and created again with other shards) land after any filter's header, never in it.
//
//   offset  bytes  field (little-endian unless said)
//        0      4  "BKRS" (a block filter's shard), "BKRW" (a windowed filter's)
//        4      1  format version (metadata.hpp's meta_format_version, 2)
//        5      1  complete: 1 once the shard holds all its bits (0 while a push copies them)
//        6      1  hash algorithm (hash.hpp's numbering, as in files)
//        7      1  key format (hash.hpp's numbering)
//        8      4  hashes (k)
//       12      4  0
//       16      8  bits
//       24      8  blocks per shard (the shard count follows from bits)
//       32      8  seed
//       40      8  expected keys
//       48      8  fpr (IEEE 754 binary64)
//       56      8  inserted (of the file it was pushed from)
//       64      8  window W in ms (windowed; 0 for a block filter)
//       72      4  generations G (windowed; 0 for a block filter)
//       76     36  0
//      112      8  windowed: the label, the newest generation of time the shard has opened, big-
//                  endian (BITFIELD's `GET i64 896`; 0 in a new shard); 0 for a block filter.
//                  Region j (the blocks of ring slot j) holds the newest generation e ≤ label with
//                  e mod (G + 1) = j, or nothing
//      120      8  generation, big-endian (as BITFIELD's i64 reads it): odd, so the header's
//                  last bit — bit 1023 of the shard, the sentinel — is 1
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bloomkit/redis.hpp"

namespace bloomkit::redis::detail {

inline constexpr std::uint64_t header_complete_offset = 5;
inline constexpr std::uint64_t header_keys_offset = 7;
/// Where a windowed filter's shard holds its label: the newest generation of time it has opened.
inline constexpr std::uint64_t label_offset = 112;
/// Where every shard's generation is, in bytes from its start.
inline constexpr std::uint64_t generation_offset = filter_description::header_bytes - 8;

/// What a shard's header says. `description` has no name; its generation is the filter's.
struct shard_header {
    filter_description description;
    bool complete = false;
};

/// The header of every shard of `d`.
[[nodiscard]] std::string encode_header(const filter_description& d, bool complete);

/// The header in `bytes` (a shard's first 128), or nullopt when they are not one: another
/// magic, another format version, or fields no filter has (metadata.hpp's impossible()).
[[nodiscard]] std::optional<shard_header> decode_header(std::string_view bytes);

/// A generation (or label) as a shard stores it: 8 bytes, big-endian.
[[nodiscard]] std::string generation_bytes(std::uint64_t generation);

}  // namespace bloomkit::redis::detail
