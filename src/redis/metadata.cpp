// src/redis/metadata.cpp — see metadata.hpp.
#include "metadata.hpp"

#include <charconv>
#include <cmath>
#include <map>

#include <fmt/core.h>

namespace bloomkit::redis {

// A shard is its blocks and one byte more, whose last bit is the sentinel.
std::uint64_t filter_description::shard_bytes(std::uint64_t s) const noexcept {
    const std::uint64_t first = s * blocks_per_shard;
    const std::uint64_t held = std::min(blocks_per_shard, blocks() - std::min(blocks(), first));
    return held * 64 + 1;
}
std::string filter_description::shard_key(std::uint64_t s) const { return name + ":" + std::to_string(s); }
std::string filter_description::meta_key() const { return name + ":meta"; }

namespace detail {
namespace {

constexpr hash_algorithm known_hashes[] = {hash_algorithm::xxh3_128, hash_algorithm::xxh64, hash_algorithm::xxh3_mix,
                                           hash_algorithm::xxh3_mum};

[[noreturn]] void bad_meta(std::string_view name, const std::string& why) {
    throw filter_mismatch("Redis key " + std::string(name) + ":meta is not a bloomkit filter's metadata: " + why);
}

template <class Number>
Number number_field(std::string_view name, const std::map<std::string, std::string, std::less<>>& fields, std::string_view field) {
    const auto found = fields.find(field);
    if (found == fields.end()) bad_meta(name, "no '" + std::string(field) + "' field");
    Number value{};
    const std::string& text = found->second;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
        bad_meta(name, "field '" + std::string(field) + "' is '" + text + "', not a number");
    return value;
}

// The smallest jemalloc size class holding `bytes`: above 16 KiB the classes are 2^j·{5/4, 6/4,
// 7/4, 2} (four per doubling). Redis adds a small header to a string's bytes (sdshdr32: 9 bytes
// and the final NUL), so a string of exactly 2^j bytes takes the next class, 25% more.
std::uint64_t size_class(std::uint64_t bytes) {
    if (bytes <= 16384) return bytes;
    std::uint64_t power = 16384;
    while (power < bytes) power *= 2;
    const std::uint64_t quarter = power / 8;  // (power/2)/4: the step between classes below `power`
    std::uint64_t size = power / 2;
    while (size < bytes) size += quarter;
    return size;
}
constexpr std::uint64_t string_overhead = 16;

}  // namespace

std::string encode_meta(const filter_description& d, filter_state state) {
    return fmt::format(
        "bloomkit-redis {}\nkind block\nstate {}\nbits {}\nhashes {}\nshards {}\nblocks_per_shard {}\nhash {}\nseed {}\n"
        "expected_keys {}\nfpr {}\n",
        meta_format_version, state == filter_state::ready ? "ready" : "creating", d.geometry.bits, d.geometry.hashes, d.shards,
        d.blocks_per_shard, to_string(d.hash), d.seed, d.target.expected_keys, bloomkit::detail::show_number(d.target.fpr));
}

stored_meta decode_meta(std::string_view name, std::string_view text) {
    std::map<std::string, std::string, std::less<>> fields;
    while (!text.empty()) {
        const auto end = text.find('\n');
        const std::string_view line = text.substr(0, end);
        const auto space = line.find(' ');
        if (space == std::string_view::npos) bad_meta(name, "line '" + std::string(line) + "' has no value");
        fields.emplace(std::string(line.substr(0, space)), std::string(line.substr(space + 1)));
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    if (!fields.contains("bloomkit-redis")) bad_meta(name, "it does not start with 'bloomkit-redis'");
    const int version = number_field<int>(name, fields, "bloomkit-redis");
    if (version > meta_format_version)
        throw filter_mismatch("filter " + std::string(name) + " was written in format " + std::to_string(version) +
                              " by a newer bloomkit; this one reads format " + std::to_string(meta_format_version));
    if (fields["kind"] != "block") bad_meta(name, "kind '" + fields["kind"] + "' is not 'block'");

    stored_meta meta;
    filter_description& d = meta.description;
    d.name = std::string(name);
    meta.state = fields["state"] == "ready" ? filter_state::ready : filter_state::creating;
    d.geometry.bits = number_field<std::uint64_t>(name, fields, "bits");
    d.geometry.hashes = number_field<std::uint32_t>(name, fields, "hashes");
    d.shards = number_field<std::uint64_t>(name, fields, "shards");
    d.blocks_per_shard = number_field<std::uint64_t>(name, fields, "blocks_per_shard");
    d.seed = number_field<std::uint64_t>(name, fields, "seed");
    d.target.expected_keys = number_field<std::uint64_t>(name, fields, "expected_keys");
    d.target.fpr = std::strtod(fields["fpr"].c_str(), nullptr);
    bool hash_known = false;
    for (const hash_algorithm h : known_hashes)
        if (fields["hash"] == to_string(h)) d.hash = h, hash_known = true;
    if (!hash_known) bad_meta(name, "unknown hash '" + fields["hash"] + "'");

    if (d.geometry.bits == 0 || d.geometry.bits % 512 != 0 || d.geometry.hashes == 0 || d.geometry.hashes > bloomkit::max_hashes ||
        d.blocks_per_shard == 0 || d.shards != (d.blocks() + d.blocks_per_shard - 1) / d.blocks_per_shard ||
        d.blocks_per_shard > (std::uint64_t{1} << 23))
        bad_meta(name, "its geometry is impossible (bits " + std::to_string(d.geometry.bits) + ", hashes " +
                           std::to_string(d.geometry.hashes) + ", shards " + std::to_string(d.shards) + " of " +
                           std::to_string(d.blocks_per_shard) + " blocks)");
    return meta;
}

std::string first_difference(const filter_description& stored, const filter_description& wanted) {
    auto differs = [](std::string_view field, const auto& in_redis, const auto& asked) {
        return fmt::format("{} {} in Redis, {} asked", field, in_redis, asked);
    };
    if (stored.target.expected_keys != wanted.target.expected_keys)
        return differs("expected keys", stored.target.expected_keys, wanted.target.expected_keys);
    if (stored.target.fpr != wanted.target.fpr)
        return differs("fpr", bloomkit::detail::show_number(stored.target.fpr), bloomkit::detail::show_number(wanted.target.fpr));
    if (stored.geometry.hashes != wanted.geometry.hashes) return differs("hashes", stored.geometry.hashes, wanted.geometry.hashes);
    if (stored.hash != wanted.hash) return differs("hash", to_string(stored.hash), to_string(wanted.hash));
    if (stored.seed != wanted.seed) return differs("seed", stored.seed, wanted.seed);
    return {};
}

filter_description plan_shards(std::string name, bloom_geometry geometry, std::uint64_t max_shard_bytes, bool round_up) {
    if (max_shard_bytes < (std::uint64_t{64} << 10) || max_shard_bytes > (std::uint64_t{512} << 20))
        throw invalid_argument("a Redis shard's size must be 64 KiB to 512 MiB, not " + std::to_string(max_shard_bytes) + " bytes");
    filter_description d;
    d.name = std::move(name);
    const std::uint64_t blocks = geometry.bits / 512;
    // Blocks and the sentinel's byte, with the string's header, within the size limit's class.
    const std::uint64_t most = (max_shard_bytes - string_overhead - 1) / 64;
    d.shards = (blocks + most - 1) / most;
    d.blocks_per_shard = (blocks + d.shards - 1) / d.shards;
    if (round_up) {
        const std::uint64_t allocated = size_class(d.blocks_per_shard * 64 + 1 + string_overhead);
        d.blocks_per_shard = std::max(d.blocks_per_shard, (allocated - string_overhead - 1) / 64);
        geometry.bits = d.shards * d.blocks_per_shard * 512;
    }
    d.geometry = geometry;
    return d;
}

}  // namespace detail
}  // namespace bloomkit::redis
