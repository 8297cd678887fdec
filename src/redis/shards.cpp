// src/redis/shards.cpp — see shards.hpp.
#include "shards.hpp"

#include <algorithm>

#include <fmt/core.h>

#include "run_options.hpp"
#include "scripts.hpp"

namespace bloomkit::redis::detail {
namespace {

constexpr std::size_t commands_per_batch = 4096;  // bounds a batch's memory when there are many shards

std::string_view text_of(const redisReply& r) { return {r.str, r.len}; }

// The two arguments every conditional script starts with: where a shard's generation is, and
// which it must be.
void generation_arguments(command_batch& batch, const filter_description& d) {
    batch.argument(generation_offset);
    batch.argument(generation_bytes(d.generation));
}

// "a hash", "a string of 12 bytes": what a key holds, for messages.
std::string what_is(const std::string& type, std::uint64_t length) {
    if (type == "string") return fmt::format("a string of {} bytes", length);
    return (type.find_first_of("aeiou") == 0 ? "an " : "a ") + type;
}

[[noreturn]] void refuse_foreign(const filter_description& d, std::uint64_t s, const redisReply& r) {
    const std::string key = d.shard_key(s);
    const std::string type =
        r.elements >= 2 && r.element[0]->type == REDIS_REPLY_STRING && text_of(*r.element[0]) == "type"
            ? std::string(text_of(*r.element[1]))
            : "string";
    const std::uint64_t length = type == "string" && r.elements >= 2 && r.element[1]->type == REDIS_REPLY_INTEGER
                                     ? static_cast<std::uint64_t>(r.element[1]->integer)
                                     : 0;
    std::optional<shard_header> header;
    if (type == "string" && r.elements >= 3 && r.element[2]->type == REDIS_REPLY_STRING)
        header = decode_header(text_of(*r.element[2]));
    if (header)
        throw foreign_key(
            fmt::format("Redis key {} holds a shard of another bloomkit filter named {} (generation {:016x}), "
                        "whose record {} is missing: refusing to overwrite it",
                        key, d.name, header->description.generation, d.meta_key()),
            s, header);
    throw foreign_key(fmt::format("Redis key {} exists and is {}, not a shard of filter {}: refusing to overwrite it. "
                                  "Choose another name, or delete {} if it is yours to delete",
                                  key, what_is(type, length), d.name, key),
                      s, std::nullopt);
}

}  // namespace

std::uint64_t generation_from(std::string_view bytes) noexcept {
    if (bytes.size() != 8) return 0;
    std::uint64_t g = 0;
    for (const char byte : bytes) g = (g << 8) | static_cast<std::uint8_t>(byte);
    return g;
}

void throw_not_ours(const filter_description& d, std::uint64_t shard, std::uint64_t found) {
    const std::string key = d.shard_key(shard);
    if (found == 0)
        throw shard_missing(
            "shard " + key + " of filter " + d.name +
            " is missing from Redis (evicted, flushed or deleted): the keys it held are lost, so no answer "
            "\"absent\" can be trusted. Keep filter keys from eviction (maxmemory-policy noeviction), then "
            "rebuild the filter (drop, create, add) or push a saved copy");
    throw filter_replaced(
        fmt::format("shard {} holds generation {:016x}, not {:016x} of the filter {} this client opened: {} "
                    "was dropped and created again since. Open it again (its parameters may differ)",
                    key, found, d.generation, d.name, d.name));
}

void make_shards(client& c, const filter_description& d, std::uint64_t first, std::uint64_t last, bool complete,
                 std::uint64_t reset, const filter_options& o) {
    const std::string header = encode_header(d, complete);
    const std::string previous = reset == 0 ? std::string() : generation_bytes(reset);
    command_batch batch;
    for (std::uint64_t s = first; s < last; ++s) {
        batch.start_script(scripts::make_shard, d.shard_key(s), 3, true);
        batch.argument(d.shard_bytes(s));
        batch.argument(header);
        batch.argument(previous);
    }
    detail::router_of(c).run(batch, run_options_of(c, o, true), [&](std::size_t i, const redisReply& r) {
        if (r.type != REDIS_REPLY_ARRAY || r.elements == 0 || r.element[0]->type != REDIS_REPLY_STRING)
            throw server_error("making shard " + d.shard_key(first + i) + ": a reply of the wrong shape (" +
                               reply_text(r) + ")");
        const std::string_view outcome = text_of(*r.element[0]);
        if (outcome != "created" && outcome != "ours" && outcome != "reset") refuse_foreign(d, first + i, r);
    });
}

void shard_writes::write(std::uint64_t shard, std::uint64_t offset, std::string_view bytes) {
    batch_.start_script(scripts::write_if_ours, d_->shard_key(shard), 4, true);
    generation_arguments(batch_, *d_);
    batch_.argument(offset);
    batch_.argument(bytes);
    shards_.push_back(shard);
}

void shard_writes::clear(std::uint64_t shard) {
    batch_.start_script(scripts::clear_if_ours, d_->shard_key(shard), 2, true);
    generation_arguments(batch_, *d_);
    shards_.push_back(shard);
}

void shard_writes::rotate(std::uint64_t shard, std::uint64_t label) {
    batch_.start_script(scripts::rotate_if_ours, d_->shard_key(shard), 7, true);
    generation_arguments(batch_, *d_);
    batch_.argument(label_offset);
    batch_.argument(generation_bytes(label));
    batch_.argument(d_->shard_blocks(shard) * 64);
    batch_.argument(d_->slots());
    batch_.argument(filter_description::header_bytes);
    shards_.push_back(shard);
}

std::optional<shard_writes::refusal> shard_writes::run() {
    std::optional<refusal> refused;
    detail::router_of(*client_).run(batch_, run_options_of(*client_, *options_, true),
                                    [&](std::size_t i, const redisReply& r) {
                                        if (r.type == REDIS_REPLY_INTEGER && r.integer == 1) return;
                                        if (r.type != REDIS_REPLY_STRING)
                                            throw server_error("writing to " + d_->shard_key(shards_[i]) +
                                                               ": a reply of the wrong shape (" + reply_text(r) + ")");
                                        if (!refused) refused = refusal{shards_[i], generation_from(text_of(r))};
                                    });
    batch_.clear();
    shards_.clear();
    return refused;
}

std::uint64_t delete_shards(client& c, const filter_description& d, std::span<const std::uint64_t> shards, bool orphans,
                            const filter_options& o) {
    std::uint64_t deleted = 0;
    command_batch batch;
    for (std::size_t begin = 0; begin < shards.size(); begin += commands_per_batch) {
        batch.clear();
        for (const std::uint64_t s : shards.subspan(begin, std::min(commands_per_batch, shards.size() - begin))) {
            batch.start_script(scripts::delete_if_ours, d.shard_key(s), 3, true);
            generation_arguments(batch, d);
            if (orphans) batch.argument(d.shard_bytes(s));
            else batch.argument(std::string_view());
        }
        detail::router_of(c).run(batch, run_options_of(c, o, true), [&](std::size_t, const redisReply& r) {
            if (r.type == REDIS_REPLY_INTEGER) deleted += r.integer == 1 ? 1 : 0;
        });
    }
    return deleted;
}

std::uint64_t delete_shards(client& c, const filter_description& d, std::uint64_t first, std::uint64_t last,
                            bool orphans, const filter_options& o) {
    std::vector<std::uint64_t> shards;
    for (std::uint64_t s = first; s < last; ++s) shards.push_back(s);
    return delete_shards(c, d, shards, orphans, o);
}

std::vector<shard_state> inspect_shards(client& c, const std::string& name, std::uint64_t first, std::uint64_t last,
                                        const filter_options& o) {
    std::vector<shard_state> states;
    states.reserve(last - first);
    command_batch batch;
    for (std::uint64_t begin = first; begin < last; begin += commands_per_batch) {
        batch.clear();
        const std::uint64_t end = std::min(last, begin + commands_per_batch);
        for (std::uint64_t s = begin; s < end; ++s)
            batch.start_script(scripts::inspect_shard, name + ":" + std::to_string(s), 0, false);
        const std::size_t base = states.size();
        states.resize(base + (end - begin));
        detail::router_of(c).run(batch, run_options_of(c, o, false), [&](std::size_t i, const redisReply& r) {
            if (r.type != REDIS_REPLY_ARRAY || r.elements != 3 || r.element[0]->type != REDIS_REPLY_STRING ||
                r.element[1]->type != REDIS_REPLY_INTEGER || r.element[2]->type != REDIS_REPLY_STRING)
                throw server_error("inspecting " + std::string(batch.key(i)) + ": a reply of the wrong shape (" +
                                   reply_text(r) + ")");
            states[base + i] = {std::string(text_of(*r.element[0])), static_cast<std::uint64_t>(r.element[1]->integer),
                                std::string(text_of(*r.element[2]))};
        });
    }
    return states;
}

}  // namespace bloomkit::redis::detail
