// src/redis/shards.hpp — making, writing, clearing, deleting and inspecting a filter's shards,
// each write only where the shard is ours (holds the filter's generation) or is nobody's (does
// not exist), through the scripts of scripts.hpp, pipelined over the nodes that hold them; and
// the errors that say a shard is gone or belongs to another filter now.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis.hpp"
#include "command_batch.hpp"
#include "shard_header.hpp"

namespace bloomkit::redis::detail {

/// Thrown when a key that should become a shard is something else: a key of other data, or a
/// shard of a filter of this name whose record is gone (`header` then says which filter).
class foreign_key : public filter_mismatch {
public:
    foreign_key(const std::string& what, std::uint64_t which, std::optional<shard_header> found)
        : filter_mismatch(what), shard(which), header(std::move(found)) {}
    std::uint64_t shard;
    std::optional<shard_header> header;
};

/// Throws shard_missing when `found` (the generation shard `shard` holds) is 0, else
/// filter_replaced: the shard belongs to a filter made since `d` was opened.
[[noreturn]] void throw_not_ours(const filter_description& d, std::uint64_t shard, std::uint64_t found);

/// A generation from the bytes a script found (shard_header.hpp's order; "" or fewer bytes: 0).
[[nodiscard]] std::uint64_t generation_from(std::string_view bytes) noexcept;

/// Makes shards [first, last) of `d` (zeroed, the header marked `complete` at the start),
/// making anew the shards of generation `reset` (a creation taken over; 0: none). Throws
/// foreign_key for the first key that is neither missing nor ours.
void make_shards(client& c, const filter_description& d, std::uint64_t first, std::uint64_t last, bool complete,
                 std::uint64_t reset, const filter_options& o);

/// Writes to shards of a filter, each only if the shard still holds its generation: gathered,
/// then sent in one pipelined batch.
class shard_writes {
public:
    shard_writes(client& c, const filter_description& d, const filter_options& o) : client_(&c), d_(&d), options_(&o) {}
    /// Writes `bytes` at byte `offset` of shard `shard`.
    void write(std::uint64_t shard, std::uint64_t offset, std::string_view bytes);
    /// Sets every bit of shard `shard`'s blocks to 0 (its header kept).
    void clear(std::uint64_t shard);
    /// A windowed filter's shard `shard`, holding a label older than `label`, moves on to it
    /// (scripts::rotate_if_ours); one holding `label` or a newer one is left alone.
    void rotate(std::uint64_t shard, std::uint64_t label);
    [[nodiscard]] std::size_t size() const noexcept { return shards_.size(); }
    /// Sends them. Returns the first shard that did not hold the generation, with the one it
    /// held (0: none), or nullopt when every write was made.
    struct refusal {
        std::uint64_t shard, found;
    };
    [[nodiscard]] std::optional<refusal> run();

private:
    client* client_;
    const filter_description* d_;
    const filter_options* options_;
    command_batch batch_;
    std::vector<std::uint64_t> shards_;  // of each command
};

/// Deletes each of `shards` of `d` that holds d's generation — and, with `orphans`, that is a
/// string no longer than the shard which starts with no header (what an add wrote after the
/// shard was gone). Returns how many keys it deleted.
std::uint64_t delete_shards(client& c, const filter_description& d, std::span<const std::uint64_t> shards, bool orphans,
                            const filter_options& o);
/// The same for shards [first, last).
std::uint64_t delete_shards(client& c, const filter_description& d, std::uint64_t first, std::uint64_t last,
                            bool orphans, const filter_options& o);

/// What a shard key holds: its type ("none" for no key), its length and its first 128 bytes
/// (strings only).
struct shard_state {
    std::string type;
    std::uint64_t length = 0;
    std::string head;
};
/// The state of keys NAME:first … NAME:last-1.
[[nodiscard]] std::vector<shard_state> inspect_shards(client& c, const std::string& name, std::uint64_t first,
                                                      std::uint64_t last, const filter_options& o);

}  // namespace bloomkit::redis::detail
