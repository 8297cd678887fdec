// src/redis/key_commands.cpp — see key_commands.hpp.
#include "key_commands.hpp"

#include <algorithm>
#include <bit>

#include "shards.hpp"

namespace bloomkit::redis::detail {

namespace {

std::size_t header_reads_of(key_command_reads reads) { return reads == key_command_reads::generation ? 1 : 2; }

}  // namespace

void start_key_command(command_batch& batch, const std::string& key, std::uint16_t slot, std::uint32_t hashes,
                       key_command_reads reads, std::size_t groups, std::size_t sets) {
    const std::size_t header_reads = header_reads_of(reads);
    const bool write = sets > 0;
    batch.start(2 + 3 * header_reads + (4 * sets + 3 * (groups - sets)) * hashes, write ? "BITFIELD" : "BITFIELD_RO",
                key, write, slot);
    for (std::size_t i = 0; i < header_reads; ++i) {
        batch.argument("GET");
        batch.argument("i64");
        batch.argument(i == 0 ? generation_offset * 8 : label_offset * 8);
    }
}

void append_probes(command_batch& batch, const block_layout& layout, std::uint32_t pattern, std::uint64_t block_bit,
                   bool set) {
    layout.for_each_bit(pattern, [&](std::uint32_t word, std::uint64_t mask) {
        const auto bit = static_cast<std::uint64_t>(word * 64 + std::countr_zero(mask));
        batch.argument(set ? "SET" : "GET");
        batch.argument("u1");
        batch.argument(block_bit + (bit ^ 7));
        if (set) batch.argument("1");
    });
}

key_reply read_key_reply(const command_batch& batch, std::size_t i, const redisReply& r, std::uint32_t hashes,
                         key_command_reads reads, std::size_t groups) {
    const std::size_t header_reads = header_reads_of(reads);
    if (r.type != REDIS_REPLY_ARRAY || r.elements != header_reads + groups * hashes)
        throw server_error(std::string(batch.name(i)) + " " + std::string(batch.key(i)) +
                           ": a reply of the wrong shape (" + reply_text(r) + ")");
    key_reply read;
    std::fill_n(read.all_set.begin(), groups, true);
    for (std::size_t b = 0; b < r.elements; ++b) {
        if (r.element[b]->type != REDIS_REPLY_INTEGER)
            throw server_error(std::string(batch.name(i)) + " " + std::string(batch.key(i)) +
                               ": a bit that is not an integer");
        const auto value = static_cast<std::uint64_t>(r.element[b]->integer);  // the bits of an i64
        if (b == 0) read.generation = value;
        else if (b < header_reads) read.label = value;
        else read.all_set[(b - header_reads) / hashes] &= value != 0;
    }
    return read;
}

void shard_refusals::note(std::uint64_t shard, std::uint64_t found) {
    if (found == 0) gone_.push_back(shard);
    else if (!replaced_) replaced_.emplace(shard, found);
}

void shard_refusals::raise(client& c, const filter_description& d, const filter_options& o, bool writes) {
    if (!gone_.empty() && writes) {
        std::sort(gone_.begin(), gone_.end());
        gone_.erase(std::unique(gone_.begin(), gone_.end()), gone_.end());
        try {
            (void)delete_shards(c, d, gone_, true, o);
        } catch (const error&) {
            // The error that matters is the lost shard's.
        }
    }
    if (replaced_) throw_not_ours(d, replaced_->first, replaced_->second);
    if (!gone_.empty()) throw_not_ours(d, gone_.front(), 0);
}

}  // namespace bloomkit::redis::detail
