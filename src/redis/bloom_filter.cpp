// src/redis/bloom_filter.cpp — the Redis-backed block Bloom filter (bloomkit/redis.hpp).
//
// Where a key's bits are: the digest picks a block and a bit pattern exactly as for a local
// block_bloom_filter (layouts/block.hpp); block b lives in shard b / blocks_per_shard at block
// b % blocks_per_shard. Bit i (0–511) of a block is bit i % 64 of its word i / 64: in the
// words' little-endian bytes (the file format's), byte i / 8, the bit of value 2^(i % 8).
// Redis numbers a string's bits from the most significant of each byte, so BITFIELD reaches
// that very bit at offset (i / 8)·8 + 7 − i % 8 = i ^ 7. With that offset, a shard's bytes are
// exactly the little-endian bytes of its blocks' words: push and pull copy bytes, converting
// nothing but the words' byte order on a big-endian machine.
#include <array>
#include <bit>
#include <cstring>

#include "bloomkit/redis.hpp"
#include "metadata.hpp"
#include "node_router.hpp"

namespace bloomkit::redis {
namespace {

using detail::command_batch;
using detail::filter_state;

constexpr std::uint64_t transfer_chunk = std::uint64_t{1} << 20;  // bytes per SETRANGE / GETRANGE

// Redis's bytes of `count` words: their little-endian bytes.
void words_to_redis(const std::uint64_t* words, std::uint64_t count, char* out) {
    for (std::uint64_t w = 0; w < count; ++w)
        for (int byte = 0; byte < 8; ++byte) *out++ = static_cast<char>((words[w] >> (8 * byte)) & 0xff);
}
void redis_to_words(const char* bytes, std::uint64_t count, std::uint64_t* words) {
    for (std::uint64_t w = 0; w < count; ++w) {
        std::uint64_t word = 0;
        for (int byte = 0; byte < 8; ++byte) word |= std::uint64_t{static_cast<std::uint8_t>(*bytes++)} << (8 * byte);
        words[w] = word;
    }
}

// The sentinel: the last bit of the shard's string (the low bit of its last byte).
std::uint64_t sentinel_offset(const filter_description& d, std::uint64_t shard) { return d.shard_bytes(shard) * 8 - 1; }

[[noreturn]] void throw_shard_missing(std::string_view shard_key, std::string_view name) {
    throw shard_missing("shard " + std::string(shard_key) + " of filter " + std::string(name) +
                        " is missing from Redis (evicted, flushed or deleted): the keys it held are lost, so no answer "
                        "\"absent\" can be trusted. Keep filter keys from eviction (maxmemory-policy noeviction), then "
                        "rebuild the filter (drop, create, add) or push a saved copy");
}

detail::node_router::run_options run_options_of(const filter_options& o, bool writes) {
    return {.depth = std::max<std::size_t>(o.pipeline_depth, 1),
            .replicas = writes ? o.replicas : 0,
            .replica_timeout = o.replica_timeout};
}

// Runs a batch of commands whose replies need no more than "not an error".
void run_all(client& c, const command_batch& batch, const filter_options& o, bool writes) {
    c.router().run(batch, run_options_of(o, writes), [](std::size_t, const redisReply&) {});
}

// NAME:meta's text, or nullopt if there is no such key.
std::optional<std::string> read_meta(client& c, const std::string& meta_key) {
    command_batch get;
    get.start(2, "GET", meta_key, false);
    std::optional<std::string> text;
    c.router().run(get, {}, [&](std::size_t, const redisReply& r) {
        if (r.type == REDIS_REPLY_STRING) text = std::string(r.str, r.len);
        else if (r.type != REDIS_REPLY_NIL) throw server_error("GET " + meta_key + ": not a string reply");
    });
    return text;
}

// SET NAME:meta text NX (only if absent) or XX (only if present); true if it was set.
bool write_meta(client& c, const filter_description& d, filter_state state, std::string_view condition) {
    command_batch set;
    set.start(4, "SET", d.meta_key(), true);
    set.argument(detail::encode_meta(d, state));
    set.argument(condition);
    bool written = false;
    c.router().run(set, {}, [&](std::size_t, const redisReply& r) { written = r.type == REDIS_REPLY_STATUS; });
    return written;
}

std::string where(client& c) {
    std::string text;
    for (const std::string& node : c.nodes()) text += (text.empty() ? "" : ", ") + node;
    return text;
}

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

bloom_filter bloom_filter::create(client& c, std::string name, size_type expected_keys, double fpr, filter_options options) {
    const bloom_plan plan = plan_bloom(bloom_layout::block, static_cast<double>(expected_keys), fpr);
    filter_description wanted = detail::plan_shards(std::move(name), plan.geometry, options.max_shard_bytes, true);
    wanted.seed = options.hashing.seed;
    wanted.hash = options.hashing.hash.value_or(block_layout::default_hash);
    wanted.target = {expected_keys, fpr};

    // Claim the name (every instance of a service may be doing this at once: one wins), then
    // make the shards and declare the filter ready. A creator that died half-way leaves
    // "creating": the next create with the same parameters finishes the job.
    const bool fresh = write_meta(c, wanted, filter_state::creating, "NX");
    filter_description d = wanted;
    if (!fresh) {
        const std::optional<std::string> text = read_meta(c, wanted.meta_key());
        if (!text) return create(c, std::move(wanted.name), expected_keys, fpr, options);  // dropped meanwhile
        const detail::stored_meta stored = detail::decode_meta(wanted.name, *text);
        if (const std::string difference = detail::first_difference(stored.description, wanted); !difference.empty())
            throw filter_mismatch("filter " + wanted.name + " exists in Redis with other parameters (" + difference +
                                  "): open it as it is, or drop it first");
        d = stored.description;
        if (stored.state == filter_state::ready) return bloom_filter(c, d, options);
    }
    command_batch shards;
    for (std::uint64_t s = 0; s < d.shards; ++s) {
        if (fresh) {  // leftovers of an earlier filter of this name; nobody can have used the new one yet
            shards.start(2, "UNLINK", d.shard_key(s), true);
        }
        // Setting the last bit allocates the whole string at once, zeroed, with its sentinel.
        shards.start(6, "BITFIELD", d.shard_key(s), true);
        shards.argument("SET");
        shards.argument("u1");
        shards.argument(sentinel_offset(d, s));
        shards.argument("1");
    }
    run_all(c, shards, options, true);
    write_meta(c, d, filter_state::ready, "XX");
    return bloom_filter(c, d, options);
}

bloom_filter bloom_filter::open(client& c, std::string name, filter_options options) {
    const std::string meta_key = filter_description{.name = name}.meta_key();
    const std::optional<std::string> text = read_meta(c, meta_key);
    if (!text)
        throw filter_mismatch("no filter named " + name + " in Redis at " + where(c) + " (no key " + meta_key +
                              "): create it first");
    const detail::stored_meta stored = detail::decode_meta(name, *text);
    if (stored.state != filter_state::ready)
        throw filter_mismatch("filter " + name + " is still being created, or its creation was interrupted: run create "
                              "again with the same parameters (or push again after drop)");
    return bloom_filter(c, stored.description, options);
}

bloom_filter bloom_filter::push(client& c, std::string name, const block_bloom_filter& local, filter_options options) {
    filter_description d = detail::plan_shards(std::move(name), local.geometry(), options.max_shard_bytes, false);
    d.seed = local.hash_function().seed();
    d.hash = local.hash_function().algorithm();
    d.target = {local.expected_keys(), local.target_fpr()};
    if (!write_meta(c, d, filter_state::creating, "NX"))
        throw filter_mismatch("filter " + d.name + " already exists in Redis: drop it first (bloomkit redis drop " + d.name + ")");
    try {
        const std::uint64_t* words = local.words().data();
        std::string chunk;
        for (std::uint64_t s = 0; s < d.shards; ++s) {
            // The whole string at once (its last byte holds the sentinel), then the bits a
            // chunk at a time: one command never carries more than transfer_chunk bytes.
            command_batch batch;
            const std::string key = d.shard_key(s);
            batch.start(2, "UNLINK", key, true);
            batch.start(4, "SETRANGE", key, true);
            batch.argument(d.shard_bytes(s) - 1);
            batch.argument(std::string_view("\x01", 1));
            const std::uint64_t bytes = d.shard_bytes(s) - 1;
            const std::uint64_t* shard_words = words + s * d.blocks_per_shard * 8;
            for (std::uint64_t offset = 0; offset < bytes; offset += transfer_chunk) {
                const std::uint64_t size = std::min(transfer_chunk, bytes - offset);
                chunk.resize(size);
                words_to_redis(shard_words + offset / 8, size / 8, chunk.data());
                batch.start(4, "SETRANGE", key, true);
                batch.argument(offset);
                batch.argument(chunk);
            }
            run_all(c, batch, options, true);
        }
        write_meta(c, d, filter_state::ready, "XX");
    } catch (...) {
        try {
            drop(c, d.name);  // not a half-copied filter under this name
        } catch (const error&) {
        }
        throw;
    }
    return bloom_filter(c, d, options);
}

bool bloom_filter::drop(client& c, std::string_view name_view) {
    const std::string name(name_view);
    const std::optional<std::string> text = read_meta(c, filter_description{.name = name}.meta_key());
    if (!text) return false;
    const detail::stored_meta stored = detail::decode_meta(name, *text);
    // The metadata first: from then on nobody opens the filter, and those who have it open
    // fail on its missing shards rather than answer from a half-deleted filter.
    command_batch batch;
    batch.start(2, "DEL", stored.description.meta_key(), true);
    run_all(c, batch, {}, true);
    batch.clear();
    for (std::uint64_t s = 0; s < stored.description.shards; ++s) batch.start(2, "UNLINK", stored.description.shard_key(s), true);
    run_all(c, batch, {}, true);
    return true;
}

block_bloom_filter bloom_filter::pull() const {
    const filter_description& d = description_;
    block_bloom_filter::storage_type storage(d.blocks() * 8);
    std::uint64_t* words = storage.mutable_data();
    for (std::uint64_t s = 0; s < d.shards; ++s) {
        const std::uint64_t bytes = d.shard_bytes(s);
        command_batch batch;
        for (std::uint64_t offset = 0; offset < bytes; offset += transfer_chunk) {
            batch.start(4, "GETRANGE", shard_keys_[s], false);
            batch.argument(offset);
            batch.argument(std::min(offset + transfer_chunk, bytes) - 1);
        }
        std::uint64_t* shard_words = words + s * d.blocks_per_shard * 8;
        client_->router().run(batch, run_options_of(options_, false), [&](std::size_t i, const redisReply& r) {
            const std::uint64_t offset = i * transfer_chunk;
            const std::uint64_t expected = std::min(transfer_chunk, bytes - offset);
            if (r.type != REDIS_REPLY_STRING) throw server_error("GETRANGE " + shard_keys_[s] + ": not a string reply");
            if (r.len != expected || (offset + expected == bytes && (r.str[r.len - 1] & 1) == 0))
                throw_shard_missing(shard_keys_[s], d.name);
            const std::uint64_t data = std::min(expected, bytes - 1 - offset);  // without the sentinel's byte
            redis_to_words(r.str, data / 8, shard_words + offset / 8);
        });
    }
    return block_bloom_filter(d.geometry, hasher_, std::move(storage), d.target);
}

void bloom_filter::run_key_commands(std::span<const digest> digests, bool write, bool* answers) const {
    const filter_description& d = description_;
    const std::uint32_t k = d.geometry.hashes;
    // One buffer per thread, kept from batch to batch: a batch of 4096 keys is ~1 MB of
    // commands, which a new buffer would grow (and page-fault) through every time.
    thread_local command_batch batch;
    batch.clear();
    for (const digest& key : digests) {
        const auto p = layout_.locate(key);
        const std::uint64_t shard = p.block / d.blocks_per_shard;
        const std::uint64_t base = (p.block - shard * d.blocks_per_shard) * 512;
        batch.start(2 + 3 + (write ? 4 : 3) * std::size_t{k}, write ? "BITFIELD" : "BITFIELD_RO", shard_keys_[shard], write,
                    shard_slots_[shard]);
        batch.argument("GET");
        batch.argument("u1");
        batch.argument(sentinel_offset(d, shard));
        layout_.for_each_bit(p.pattern, [&](std::uint32_t word, std::uint64_t mask) {
            const auto bit = static_cast<std::uint64_t>(word * 64 + std::countr_zero(mask));
            batch.argument(write ? "SET" : "GET");
            batch.argument("u1");
            batch.argument(base + (bit ^ 7));
            if (write) batch.argument("1");
        });
    }
    client_->router().run(batch, run_options_of(options_, write), [&](std::size_t i, const redisReply& r) {
        if (r.type != REDIS_REPLY_ARRAY || r.elements != std::size_t{k} + 1)
            throw server_error(std::string(batch.name(i)) + " " + std::string(batch.key(i)) + ": a reply of the wrong shape (" +
                               detail::reply_text(r) + ")");
        bool all_set = true;
        for (std::size_t b = 0; b <= k; ++b) {
            const redisReply& bit = *r.element[b];
            if (bit.type != REDIS_REPLY_INTEGER)
                throw server_error(std::string(batch.name(i)) + " " + std::string(batch.key(i)) + ": a bit that is not an integer");
            if (b == 0 && bit.integer == 0) throw_shard_missing(batch.key(i), d.name);
            all_set &= bit.integer != 0;
        }
        answers[i] = write ? !all_set : all_set;  // an add is new if any of its bits was clear
    });
}

void bloom_filter::insert_digests(std::span<const digest> digests, bool* answers) {
    run_key_commands(digests, true, answers);
}

void bloom_filter::contains_digests(std::span<const digest> digests, bool* answers) const {
    run_key_commands(digests, false, answers);
}

void bloom_filter::clear() {
    require_sentinels();  // a lost shard is reported, not silently recreated
    for (std::uint64_t s = 0; s < description_.shards; ++s) {
        std::string empty(description_.shard_bytes(s), '\0');
        empty.back() = '\x01';
        command_batch set;
        set.start(3, "SET", shard_keys_[s], true);
        set.argument(empty);
        run_all(*client_, set, options_, true);
    }
}

void bloom_filter::require_sentinels() const { (void)set_bit_count(); }

std::uint64_t bloom_filter::set_bit_count() const {
    command_batch batch;
    for (std::uint64_t s = 0; s < description_.shards; ++s) {
        batch.start(2, "BITCOUNT", shard_keys_[s], false);
        batch.start(5, "BITFIELD_RO", shard_keys_[s], false);
        batch.argument("GET");
        batch.argument("u1");
        batch.argument(sentinel_offset(description_, s));
    }
    std::uint64_t set = 0;
    client_->router().run(batch, run_options_of(options_, false), [&](std::size_t i, const redisReply& r) {
        if (i % 2 == 0) {
            if (r.type != REDIS_REPLY_INTEGER) throw server_error("BITCOUNT " + std::string(batch.key(i)) + ": not an integer reply");
            set += static_cast<std::uint64_t>(r.integer);
        } else if (r.type != REDIS_REPLY_ARRAY || r.elements != 1 || r.element[0]->integer == 0) {
            throw_shard_missing(batch.key(i), description_.name);
        }
    });
    return set - description_.shards;  // the sentinels
}

double bloom_filter::approximate_count() const {
    return estimate_keys(bloom_layout::block, description_.geometry, set_bit_count());
}

double bloom_filter::current_fpr() const {
    return bloomkit::current_fpr(bloom_layout::block, description_.geometry, set_bit_count());
}

}  // namespace bloomkit::redis
