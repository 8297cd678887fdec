// src/redis/key_commands.hpp — the commands that add and query keys, for every kind of filter in
// Redis: one BITFIELD (an add) or BITFIELD_RO (a query) per key and shard, which reads the shard's
// generation — and a windowed filter's label — before it sets or gets the key's k bits of one
// block, all in one atomic command; and what a batch does once it has found shards not its own.
//
// Where a key's bits are (docs/design/redis.md): bit i (0–511) of a block is bit i % 64 of its
// word i / 64, so in the words' little-endian bytes (the file format's) byte i / 8, value
// 2^(i % 8). Redis numbers a string's bits from the top of each byte, so BITFIELD reaches that
// bit at offset i ^ 7 from the block's start, and a shard's bytes after its header are the
// blocks' little-endian bytes: push and pull copy bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/layouts/block.hpp"
#include "bloomkit/redis.hpp"
#include "bloomkit/sizing/windowed_bloom.hpp"
#include "command_batch.hpp"
#include "node_router.hpp"
#include "shard_header.hpp"

namespace bloomkit::redis::detail {

/// Where a shard's blocks start, in bits from its start.
inline constexpr std::uint64_t first_block_bit = filter_description::header_bytes * 8;

/// What a key command asks of its shard besides the key's bits.
enum class key_command_reads { generation, generation_and_label };

/// Most groups of probes in one key command: a windowed filter's ring slots.
inline constexpr std::size_t most_probe_groups = windowed_max_generations + 1;

/// Starts `BITFIELD key GET i64 960 [GET i64 896]` (BITFIELD_RO when no group sets bits), to be
/// followed by `groups` groups of a key's probes (append_probes), `sets` of them setting bits.
void start_key_command(command_batch& batch, const std::string& key, std::uint16_t slot, std::uint32_t hashes,
                       key_command_reads reads, std::size_t groups, std::size_t sets);

/// Appends the probes `pattern` of the block whose first bit in the shard is `block_bit`:
/// `SET u1 o 1` each (`set`), or `GET u1 o`.
void append_probes(command_batch& batch, const block_layout& layout, std::uint32_t pattern, std::uint64_t block_bit,
                   bool set);

/// What a reply to a key command says.
struct key_reply {
    std::uint64_t generation = 0;  ///< the filter's, or 0 for a shard that is gone
    std::uint64_t label = 0;       ///< the shard's label (key_command_reads::generation_and_label)
    /// Group g's probes were all set (before the command set them).
    std::array<bool, most_probe_groups> all_set{};
};
/// Reads reply `i` of `batch`, of `groups` groups of `hashes` probes; server_error for a reply
/// of the wrong shape.
[[nodiscard]] key_reply read_key_reply(const command_batch& batch, std::size_t i, const redisReply& r,
                                       std::uint32_t hashes, key_command_reads reads, std::size_t groups);

/// The shards a batch found not ours, reported once every reply is in.
class shard_refusals {
public:
    /// Shard `shard` held generation `found` (0: none, the shard is gone).
    void note(std::uint64_t shard, std::uint64_t found);
    /// Throws filter_replaced (the more telling) or shard_missing if a shard was not ours. After
    /// `writes`, what an add made of a shard that was gone (BITFIELD SET makes its key) is
    /// removed first.
    void raise(client& c, const filter_description& d, const filter_options& o, bool writes);

private:
    std::vector<std::uint64_t> gone_;
    std::optional<std::pair<std::uint64_t, std::uint64_t>> replaced_;  // shard, generation found
};

}  // namespace bloomkit::redis::detail
