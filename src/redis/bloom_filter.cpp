// src/redis/bloom_filter.cpp — using a Redis-backed block Bloom filter (bloomkit/redis.hpp):
// adding and querying keys, pull, clear, counts, recording the key format. How a filter is
// made and removed (create, open, push, drop) is lifecycle.cpp.
//
// Where a key's bits are: the digest picks a block and a bit pattern exactly as for a local
// block_bloom_filter (layouts/block.hpp); block b lives in shard b / blocks_per_shard at block
// b % blocks_per_shard, after the shard's 128-byte header (shard_header.hpp), its bits where
// key_commands.hpp says.
#include "all_shards.hpp"
#include "bloomkit/redis.hpp"
#include "key_commands.hpp"
#include "run_options.hpp"

namespace bloomkit::redis {

using detail::command_batch;

bloom_filter::bloom_filter(client& c, filter_description description, filter_options options)
    : client_(&c),
      description_(std::move(description)),
      options_(options),
      hasher_(description_.hash, description_.seed),
      layout_(description_.geometry),
      shards_(description_) {}

block_bloom_filter bloom_filter::pull() const {
    const filter_description& d = description_;
    block_bloom_filter::storage_type storage(d.blocks() * 8);
    std::uint64_t* words = storage.mutable_data();
    (void)detail::read_shards(*client_, d, options_,
                              [&](std::uint64_t s, std::uint64_t) { return words + s * d.blocks_per_shard * 8; });
    block_bloom_filter local(d.geometry, hasher_, std::move(storage), d.target, d.inserted);
    local.record_key_format(d.keys);
    return local;
}

void bloom_filter::record_key_format(key_format keys) {
    detail::record_key_format(*client_, description_, options_, keys);
}

key_format bloom_filter::refresh_key_format() { return detail::refresh_key_format(*client_, description_, options_); }

void bloom_filter::record_first_keys(key_format keys) {
    if (keys == key_format::unrecorded || refresh_key_format() != key_format::unrecorded) return;
    if (set_bit_count() == 0) record_key_format(keys);
}

void bloom_filter::run_key_commands(std::span<const digest> digests, bool write, bool* answers) const {
    const filter_description& d = description_;
    // One buffer per thread, kept from batch to batch: a batch of 4096 keys is ~1 MB of
    // commands, which a new buffer would grow (and page-fault) through every time.
    thread_local command_batch batch;
    thread_local std::vector<std::uint64_t> shard_of;
    batch.clear();
    shard_of.clear();
    for (const digest& key : digests) {
        const auto p = layout_.locate(key);
        const std::uint64_t shard = p.block / d.blocks_per_shard;
        detail::start_key_command(batch, shards_.keys[shard], shards_.slots[shard], d.geometry.hashes,
                                  detail::key_command_reads::generation, 1, write ? 1 : 0);
        detail::append_probes(batch, layout_, p.pattern,
                              detail::first_block_bit + (p.block - shard * d.blocks_per_shard) * 512, write);
        shard_of.push_back(shard);
    }
    detail::shard_refusals refusals;
    detail::router_of(*client_).run(
        batch, detail::run_options_of(*client_, options_, write), [&](std::size_t i, const redisReply& r) {
            const detail::key_reply read =
                detail::read_key_reply(batch, i, r, d.geometry.hashes, detail::key_command_reads::generation, 1);
            if (read.generation != d.generation) return refusals.note(shard_of[i], read.generation);
            answers[i] = write ? !read.all_set[0] : read.all_set[0];  // an add is new if any of its bits was clear
        });
    refusals.raise(*client_, d, options_, write);
}

void bloom_filter::insert_digests(std::span<const digest> digests, bool* answers) {
    run_key_commands(digests, true, answers);
}

void bloom_filter::contains_digests(std::span<const digest> digests, bool* answers) const {
    run_key_commands(digests, false, answers);
}

void bloom_filter::clear() { detail::clear_shards(*client_, description_, options_); }

void bloom_filter::require_shards() const { detail::require_shards(*client_, description_, options_); }

std::uint64_t bloom_filter::set_bit_count() const {
    std::uint64_t set = 0;
    for (const detail::shard_fill& fill : detail::shard_fills(*client_, description_, options_)) set += fill.set_bits();
    return set;
}

double bloom_filter::approximate_count() const {
    return estimate_keys(bloom_layout::block, description_.geometry, set_bit_count());
}

double bloom_filter::current_fpr() const {
    return bloomkit::current_fpr(bloom_layout::block, description_.geometry, set_bit_count());
}

}  // namespace bloomkit::redis
