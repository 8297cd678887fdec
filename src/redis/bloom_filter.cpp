// src/redis/bloom_filter.cpp — using a Redis-backed block Bloom filter (bloomkit/redis.hpp):
// adding and querying keys, pull, clear, counts, recording the key format. How a filter is
// made and removed (create, open, push, drop) is lifecycle.cpp.
//
// Where a key's bits are: the digest picks a block and a bit pattern exactly as for a local
// block_bloom_filter (layouts/block.hpp); block b lives in shard b / blocks_per_shard at block
// b % blocks_per_shard, after the shard's 128-byte header (shard_header.hpp). Bit i (0–511) of
// a block is bit i % 64 of its word i / 64: in the words' little-endian bytes (the file
// format's), byte i / 8, the bit of value 2^(i % 8). Redis numbers a string's bits from the
// most significant of each byte, so BITFIELD reaches that very bit at offset (i / 8)·8 + 7 −
// i % 8 = i ^ 7 from the block's start. With that offset, a shard's bytes after its header are
// exactly the little-endian bytes of its blocks' words: push and pull copy bytes, converting
// nothing but the words' byte order on a big-endian machine.
#include <algorithm>
#include <bit>
#include <optional>

#include <fmt/core.h>

#include "bloomkit/redis.hpp"
#include "byte_order.hpp"
#include "meta_store.hpp"
#include "metadata.hpp"
#include "node_router.hpp"
#include "run_options.hpp"
#include "shards.hpp"

namespace bloomkit::redis {
namespace {

using detail::command_batch;

constexpr std::uint64_t transfer_chunk = std::uint64_t{1} << 20;  // bytes per GETRANGE

// Where BITFIELD's `GET i64` reads a shard's generation, and where its blocks start, in bits.
constexpr std::uint64_t generation_bit = detail::generation_offset * 8;
constexpr std::uint64_t first_block_bit = filter_description::header_bytes * 8;

// The generation a BITFIELD reply's first element holds (the bits of an i64).
std::uint64_t generation_of(const redisReply& r) { return static_cast<std::uint64_t>(r.integer); }

}  // namespace

bloom_filter::bloom_filter(client& c, filter_description description, filter_options options)
    : client_(&c),
      description_(std::move(description)),
      options_(options),
      hasher_(description_.hash, description_.seed),
      layout_(description_.geometry) {
    shard_keys_.reserve(description_.shards);
    for (std::uint64_t s = 0; s < description_.shards; ++s) {
        shard_keys_.push_back(description_.shard_key(s));
        shard_slots_.push_back(key_slot(shard_keys_.back()));
    }
}

block_bloom_filter bloom_filter::pull() const {
    const filter_description& d = description_;
    block_bloom_filter::storage_type storage(d.blocks() * 8);
    std::uint64_t* words = storage.mutable_data();
    for (std::uint64_t s = 0; s < d.shards; ++s) {
        // The generation first, then the blocks a chunk at a time.
        const std::uint64_t bytes = d.shard_blocks(s) * 64;
        command_batch batch;
        batch.start(4, "GETRANGE", shard_keys_[s], false);
        batch.argument(detail::generation_offset);
        batch.argument(detail::generation_offset + 7);
        for (std::uint64_t offset = 0; offset < bytes; offset += transfer_chunk) {
            batch.start(4, "GETRANGE", shard_keys_[s], false);
            batch.argument(filter_description::header_bytes + offset);
            batch.argument(filter_description::header_bytes + std::min(offset + transfer_chunk, bytes) - 1);
        }
        std::uint64_t* shard_words = words + s * d.blocks_per_shard * 8;
        detail::router_of(*client_).run(
            batch, detail::run_options_of(*client_, options_, false), [&](std::size_t i, const redisReply& r) {
                if (r.type != REDIS_REPLY_STRING)
                    throw server_error("GETRANGE " + shard_keys_[s] + ": not a string reply");
                if (i == 0) {
                    if (const std::uint64_t found = detail::generation_from({r.str, r.len}); found != d.generation)
                        detail::throw_not_ours(d, s, found);
                    return;
                }
                const std::uint64_t offset = (i - 1) * transfer_chunk;
                const std::uint64_t expected = std::min(transfer_chunk, bytes - offset);
                if (r.len != expected) detail::throw_not_ours(d, s, 0);  // gone since its generation was read
                detail::redis_to_words(r.str, expected / 8, shard_words + offset / 8);
            });
    }
    block_bloom_filter local(d.geometry, hasher_, std::move(storage), d.target, d.inserted);
    local.record_key_format(d.keys);
    return local;
}

void bloom_filter::record_key_format(key_format keys) {
    if (keys == description_.keys || keys == key_format::unrecorded) return;
    const detail::meta_store store(*client_, description_.name, options_);
    while (true) {
        const detail::meta_snapshot now = store.read();
        if (!now.text)
            throw filter_mismatch("filter " + name() + " has no record " + description_.meta_key() + " any more");
        const detail::stored_meta stored = detail::decode_meta(name(), *now.text);
        if (stored.description.generation != description_.generation || stored.state != detail::filter_state::ready)
            throw filter_replaced("filter " + name() +
                                  " was dropped (and perhaps created again) since this client opened it");
        if (stored.description.keys != key_format::unrecorded) {
            if (!same_keys(stored.description.keys, keys))
                throw filter_mismatch(fmt::format("filter {} records {} keys, not {}", name(),
                                                  to_string(stored.description.keys), to_string(keys)));
            description_.keys = stored.description.keys;
            return;
        }
        filter_description next = stored.description;
        next.keys = keys;
        if (!store.swap(*now.text, detail::encode_meta(next, detail::filter_state::ready, ""))) continue;
        description_.keys = keys;
        break;
    }
    // The shards' headers too, so that a record restored from them says the same.
    detail::shard_writes writes(*client_, description_, options_);
    const char byte = static_cast<char>(keys);
    for (std::uint64_t s = 0; s < description_.shards; ++s) writes.write(s, detail::header_keys_offset, {&byte, 1});
    if (const auto refused = writes.run()) detail::throw_not_ours(description_, refused->shard, refused->found);
}

key_format bloom_filter::refresh_key_format() {
    if (description_.keys != key_format::unrecorded) return description_.keys;
    const detail::meta_snapshot now = detail::meta_store(*client_, description_.name, options_).read();
    if (!now.text)
        throw filter_mismatch("filter " + name() + " has no record " + description_.meta_key() + " any more");
    const detail::stored_meta stored = detail::decode_meta(name(), *now.text);
    if (stored.description.generation != description_.generation)
        throw filter_replaced("filter " + name() +
                              " was dropped (and perhaps created again) since this client opened it");
    description_.keys = stored.description.keys;
    return description_.keys;
}

void bloom_filter::record_first_keys(key_format keys) {
    if (keys == key_format::unrecorded || refresh_key_format() != key_format::unrecorded) return;
    if (set_bit_count() == 0) record_key_format(keys);
}

void bloom_filter::run_key_commands(std::span<const digest> digests, bool write, bool* answers) const {
    const filter_description& d = description_;
    const std::uint32_t k = d.geometry.hashes;
    // One buffer per thread, kept from batch to batch: a batch of 4096 keys is ~1 MB of
    // commands, which a new buffer would grow (and page-fault) through every time.
    thread_local command_batch batch;
    thread_local std::vector<std::uint64_t> shard_of;
    batch.clear();
    shard_of.clear();
    for (const digest& key : digests) {
        const auto p = layout_.locate(key);
        const std::uint64_t shard = p.block / d.blocks_per_shard;
        const std::uint64_t base = first_block_bit + (p.block - shard * d.blocks_per_shard) * 512;
        batch.start(2 + 3 + (write ? 4 : 3) * std::size_t{k}, write ? "BITFIELD" : "BITFIELD_RO", shard_keys_[shard],
                    write, shard_slots_[shard]);
        batch.argument("GET");
        batch.argument("i64");
        batch.argument(generation_bit);
        layout_.for_each_bit(p.pattern, [&](std::uint32_t word, std::uint64_t mask) {
            const auto bit = static_cast<std::uint64_t>(word * 64 + std::countr_zero(mask));
            batch.argument(write ? "SET" : "GET");
            batch.argument("u1");
            batch.argument(base + (bit ^ 7));
            if (write) batch.argument("1");
        });
        shard_of.push_back(shard);
    }
    // A shard that is not ours fails the batch once every reply is in: an add to a shard that
    // was gone made the key (BITFIELD SET does), and what it made is removed first.
    std::vector<std::uint64_t> gone;
    std::optional<std::pair<std::uint64_t, std::uint64_t>> replaced;  // shard, generation found
    detail::router_of(*client_).run(
        batch, detail::run_options_of(*client_, options_, write), [&](std::size_t i, const redisReply& r) {
            if (r.type != REDIS_REPLY_ARRAY || r.elements != std::size_t{k} + 1)
                throw server_error(std::string(batch.name(i)) + " " + std::string(batch.key(i)) +
                                   ": a reply of the wrong shape (" + detail::reply_text(r) + ")");
            bool all_set = true;
            for (std::size_t b = 0; b <= k; ++b) {
                if (r.element[b]->type != REDIS_REPLY_INTEGER)
                    throw server_error(std::string(batch.name(i)) + " " + std::string(batch.key(i)) +
                                       ": a bit that is not an integer");
                if (b > 0) all_set &= r.element[b]->integer != 0;
            }
            if (const std::uint64_t found = generation_of(*r.element[0]); found != d.generation) {
                if (found == 0) gone.push_back(shard_of[i]);
                else if (!replaced) replaced.emplace(shard_of[i], found);
                return;
            }
            answers[i] = write ? !all_set : all_set;  // an add is new if any of its bits was clear
        });
    if (!gone.empty() && write) {
        std::sort(gone.begin(), gone.end());
        gone.erase(std::unique(gone.begin(), gone.end()), gone.end());
        try {
            (void)detail::delete_shards(*client_, d, gone, true, options_);
        } catch (const error&) {
            // The error that matters is the lost shard's.
        }
    }
    if (replaced) detail::throw_not_ours(d, replaced->first, replaced->second);  // the more telling of the two
    if (!gone.empty()) detail::throw_not_ours(d, gone.front(), 0);
}

void bloom_filter::insert_digests(std::span<const digest> digests, bool* answers) {
    run_key_commands(digests, true, answers);
}

void bloom_filter::contains_digests(std::span<const digest> digests, bool* answers) const {
    run_key_commands(digests, false, answers);
}

void bloom_filter::clear() {
    require_shards();  // a lost shard is reported before anything is cleared, and never made anew
    for (std::uint64_t s = 0; s < description_.shards; ++s) {  // one at a time: each may be 512 MiB to allocate
        detail::shard_writes writes(*client_, description_, options_);
        writes.clear(s);
        if (const auto refused = writes.run()) detail::throw_not_ours(description_, refused->shard, refused->found);
    }
}

namespace {

// Appends the read of a shard's generation: `BITFIELD_RO NAME:s GET i64 960`.
void read_generation(command_batch& batch, const std::string& key) {
    batch.start(5, "BITFIELD_RO", key, false);
    batch.argument("GET");
    batch.argument("i64");
    batch.argument(generation_bit);
}

// The generation a reply to read_generation gives.
std::uint64_t generation_read(const command_batch& batch, std::size_t i, const redisReply& r) {
    if (r.type != REDIS_REPLY_ARRAY || r.elements != 1 || r.element[0]->type != REDIS_REPLY_INTEGER)
        throw server_error("BITFIELD_RO " + std::string(batch.key(i)) + ": a reply of the wrong shape");
    return generation_of(*r.element[0]);
}

}  // namespace

void bloom_filter::require_shards() const {
    command_batch batch;
    for (const std::string& key : shard_keys_) read_generation(batch, key);
    std::optional<std::pair<std::uint64_t, std::uint64_t>> refused;  // shard, generation found
    detail::router_of(*client_).run(
        batch, detail::run_options_of(*client_, options_, false), [&](std::size_t i, const redisReply& r) {
            if (const std::uint64_t found = generation_read(batch, i, r); found != description_.generation && !refused)
                refused.emplace(i, found);
        });
    if (refused) detail::throw_not_ours(description_, refused->first, refused->second);
}

std::uint64_t bloom_filter::set_bit_count() const {
    command_batch batch;
    for (std::uint64_t s = 0; s < description_.shards; ++s) {
        batch.start(4, "BITCOUNT", shard_keys_[s], false);
        batch.argument(filter_description::header_bytes);
        batch.argument(description_.shard_bytes(s) - 1);
        read_generation(batch, shard_keys_[s]);
    }
    std::uint64_t set = 0;
    std::optional<std::pair<std::uint64_t, std::uint64_t>> refused;  // shard, generation found
    detail::router_of(*client_).run(
        batch, detail::run_options_of(*client_, options_, false), [&](std::size_t i, const redisReply& r) {
            if (i % 2 == 0) {
                if (r.type != REDIS_REPLY_INTEGER)
                    throw server_error("BITCOUNT " + std::string(batch.key(i)) + ": not an integer reply");
                set += static_cast<std::uint64_t>(r.integer);
            } else if (const std::uint64_t found = generation_read(batch, i, r);
                       found != description_.generation && !refused) {
                refused.emplace(i / 2, found);
            }
        });
    if (refused) detail::throw_not_ours(description_, refused->first, refused->second);
    return set;
}

double bloom_filter::approximate_count() const {
    return estimate_keys(bloom_layout::block, description_.geometry, set_bit_count());
}

double bloom_filter::current_fpr() const {
    return bloomkit::current_fpr(bloom_layout::block, description_.geometry, set_bit_count());
}

}  // namespace bloomkit::redis
