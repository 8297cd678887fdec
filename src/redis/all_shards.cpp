// src/redis/all_shards.cpp — see all_shards.hpp.
#include "all_shards.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/core.h>

#include "byte_order.hpp"
#include "meta_store.hpp"
#include "metadata.hpp"
#include "node_router.hpp"
#include "run_options.hpp"
#include "shards.hpp"

namespace bloomkit::redis::detail {
namespace {

constexpr std::uint64_t transfer_chunk = std::uint64_t{1} << 20;  // bytes per GETRANGE

// Where BITFIELD's `GET i64` reads a shard's generation and its label, in bits.
constexpr std::uint64_t generation_bit = generation_offset * 8;
constexpr std::uint64_t label_bit = label_offset * 8;

// Appends `BITFIELD_RO NAME:s GET i64 960 GET i64 896`: the shard's generation and label.
void read_generation(command_batch& batch, const std::string& key) {
    batch.start(8, "BITFIELD_RO", key, false);
    for (const std::uint64_t bit : {generation_bit, label_bit}) {
        batch.argument("GET");
        batch.argument("i64");
        batch.argument(bit);
    }
}

// The generation and label a reply to read_generation gives.
std::pair<std::uint64_t, std::uint64_t> generation_read(const command_batch& batch, std::size_t i,
                                                        const redisReply& r) {
    if (r.type != REDIS_REPLY_ARRAY || r.elements != 2 || r.element[0]->type != REDIS_REPLY_INTEGER ||
        r.element[1]->type != REDIS_REPLY_INTEGER)
        throw server_error("BITFIELD_RO " + std::string(batch.key(i)) + ": a reply of the wrong shape");
    return {static_cast<std::uint64_t>(r.element[0]->integer), static_cast<std::uint64_t>(r.element[1]->integer)};
}

// The record as it is now, which must still be the filter `d` opened.
stored_meta current_record(client& c, const filter_description& d, const filter_options& o) {
    const meta_snapshot now = meta_store(c, d.name, o).read();
    if (!now.text) throw filter_mismatch("filter " + d.name + " has no record " + d.meta_key() + " any more");
    stored_meta stored = decode_meta(d.name, *now.text);
    if (stored.description.generation != d.generation)
        throw filter_replaced("filter " + d.name +
                              " was dropped (and perhaps created again) since this client opened it");
    return stored;
}

}  // namespace

shard_names::shard_names(const filter_description& d) {
    keys.reserve(d.shards);
    slots.reserve(d.shards);
    for (std::uint64_t s = 0; s < d.shards; ++s) {
        keys.push_back(d.shard_key(s));
        slots.push_back(key_slot(keys.back()));
    }
}

void require_shards(client& c, const filter_description& d, const filter_options& o) {
    command_batch batch;
    for (std::uint64_t s = 0; s < d.shards; ++s) read_generation(batch, d.shard_key(s));
    std::optional<std::pair<std::uint64_t, std::uint64_t>> refused;  // shard, generation found
    router_of(c).run(batch, run_options_of(c, o, false), [&](std::size_t i, const redisReply& r) {
        if (const std::uint64_t found = generation_read(batch, i, r).first; found != d.generation && !refused)
            refused.emplace(i, found);
    });
    if (refused) throw_not_ours(d, refused->first, refused->second);
}

std::uint64_t shard_fill::set_bits() const noexcept {
    std::uint64_t sum = 0;
    for (const std::uint64_t bits : region_bits) sum += bits;
    return sum;
}

std::vector<shard_fill> shard_fills(client& c, const filter_description& d, const filter_options& o) {
    const std::uint64_t regions = d.slots();
    command_batch batch;
    for (std::uint64_t s = 0; s < d.shards; ++s) {
        read_generation(batch, d.shard_key(s));
        const std::uint64_t region_bytes = d.shard_blocks(s) * 64;
        for (std::uint64_t j = 0; j < regions; ++j) {
            batch.start(4, "BITCOUNT", d.shard_key(s), false);
            batch.argument(filter_description::header_bytes + j * region_bytes);
            batch.argument(filter_description::header_bytes + (j + 1) * region_bytes - 1);
        }
    }
    std::vector<shard_fill> fills(d.shards);
    std::optional<std::pair<std::uint64_t, std::uint64_t>> refused;  // shard, generation found
    router_of(c).run(batch, run_options_of(c, o, false), [&](std::size_t i, const redisReply& r) {
        shard_fill& fill = fills[i / (regions + 1)];
        if (i % (regions + 1) == 0) {
            const auto [found, label] = generation_read(batch, i, r);
            fill.label = label;
            if (found != d.generation && !refused) refused.emplace(i / (regions + 1), found);
            return;
        }
        if (r.type != REDIS_REPLY_INTEGER)
            throw server_error("BITCOUNT " + std::string(batch.key(i)) + ": not an integer reply");
        fill.region_bits.push_back(static_cast<std::uint64_t>(r.integer));
    });
    if (refused) throw_not_ours(d, refused->first, refused->second);
    return fills;
}

std::vector<std::uint64_t> read_shards(
    client& c, const filter_description& d, const filter_options& o,
    const std::function<std::uint64_t*(std::uint64_t shard, std::uint64_t region)>& words_of) {
    std::vector<std::uint64_t> labels(d.shards);
    for (std::uint64_t s = 0; s < d.shards; ++s) {
        // Its label and generation first (bytes 112–127), then each region a chunk at a time.
        const std::string key = d.shard_key(s);
        const std::uint64_t bytes = d.shard_blocks(s) * 64;
        command_batch batch;
        batch.start(4, "GETRANGE", key, false);
        batch.argument(label_offset);
        batch.argument(generation_offset + 7);
        std::vector<std::pair<std::uint64_t, std::uint64_t>> chunks;  // region, offset in it
        for (std::uint64_t j = 0; j < d.slots(); ++j)
            for (std::uint64_t offset = 0; offset < bytes; offset += transfer_chunk) {
                const std::uint64_t start = filter_description::header_bytes + j * bytes + offset;
                batch.start(4, "GETRANGE", key, false);
                batch.argument(start);
                batch.argument(start + std::min(transfer_chunk, bytes - offset) - 1);
                chunks.emplace_back(j, offset);
            }
        router_of(c).run(batch, run_options_of(c, o, false), [&](std::size_t i, const redisReply& r) {
            if (r.type != REDIS_REPLY_STRING) throw server_error("GETRANGE " + key + ": not a string reply");
            if (i == 0) {
                const std::string_view tail(r.str, r.len);
                const std::uint64_t found = tail.size() == 16 ? generation_from(tail.substr(8)) : 0;
                if (found != d.generation) throw_not_ours(d, s, found);
                labels[s] = generation_from(tail.substr(0, 8));
                return;
            }
            const auto [region, offset] = chunks[i - 1];
            const std::uint64_t expected = std::min(transfer_chunk, bytes - offset);
            if (r.len != expected) throw_not_ours(d, s, 0);  // gone since its generation was read
            redis_to_words(r.str, expected / 8, words_of(s, region) + offset / 8);
        });
    }
    return labels;
}

void clear_shards(client& c, const filter_description& d, const filter_options& o) {
    require_shards(c, d, o);  // a lost shard is reported before anything is cleared, and never made anew
    for (std::uint64_t s = 0; s < d.shards; ++s) {  // one at a time: each may be 512 MiB to allocate
        shard_writes writes(c, d, o);
        writes.clear(s);
        if (const auto refused = writes.run()) throw_not_ours(d, refused->shard, refused->found);
    }
}

void record_key_format(client& c, filter_description& d, const filter_options& o, key_format keys) {
    if (keys == d.keys || keys == key_format::unrecorded) return;
    const meta_store store(c, d.name, o);
    while (true) {
        const meta_snapshot now = store.read();
        if (!now.text) throw filter_mismatch("filter " + d.name + " has no record " + d.meta_key() + " any more");
        const stored_meta stored = decode_meta(d.name, *now.text);
        if (stored.description.generation != d.generation || stored.state != filter_state::ready)
            throw filter_replaced("filter " + d.name +
                                  " was dropped (and perhaps created again) since this client opened it");
        if (stored.description.keys != key_format::unrecorded) {
            if (!same_keys(stored.description.keys, keys))
                throw filter_mismatch(fmt::format("filter {} records {} keys, not {}", d.name,
                                                  to_string(stored.description.keys), to_string(keys)));
            d.keys = stored.description.keys;
            return;
        }
        filter_description next = stored.description;
        next.keys = keys;
        if (!store.swap(*now.text, encode_meta(next, filter_state::ready, ""))) continue;
        d.keys = keys;
        break;
    }
    // The shards' headers too, so that a record restored from them says the same.
    shard_writes writes(c, d, o);
    const char byte = static_cast<char>(keys);
    for (std::uint64_t s = 0; s < d.shards; ++s) writes.write(s, header_keys_offset, {&byte, 1});
    if (const auto refused = writes.run()) throw_not_ours(d, refused->shard, refused->found);
}

key_format refresh_key_format(client& c, filter_description& d, const filter_options& o) {
    if (d.keys != key_format::unrecorded) return d.keys;
    d.keys = current_record(c, d, o).description.keys;
    return d.keys;
}

}  // namespace bloomkit::redis::detail
