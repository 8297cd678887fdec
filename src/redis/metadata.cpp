// src/redis/metadata.cpp — see metadata.hpp.
#include "metadata.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include <fmt/core.h>

#include "bloomkit/sizing/windowed_bloom.hpp"

namespace bloomkit::redis {

std::uint64_t filter_description::shard_blocks(std::uint64_t s) const noexcept {
    const std::uint64_t first = s * blocks_per_shard;
    return std::min(blocks_per_shard, blocks() - std::min(blocks(), first));
}
std::uint64_t filter_description::shard_bytes(std::uint64_t s) const noexcept {
    return header_bytes + slots() * shard_blocks(s) * 64;
}
std::string filter_description::shard_key(std::uint64_t s) const { return name + ":" + std::to_string(s); }
std::string filter_description::meta_key() const { return name + ":meta"; }

namespace detail {
namespace {

constexpr hash_algorithm known_hashes[] = {hash_algorithm::xxh3_128, hash_algorithm::xxh64, hash_algorithm::xxh3_mix,
                                           hash_algorithm::xxh3_mum, hash_algorithm::xxh3_64_mum};
constexpr key_format known_key_formats[] = {key_format::unrecorded, key_format::text, key_format::u64, key_format::i64,
                                            key_format::u32};
constexpr filter_state known_states[] = {filter_state::creating, filter_state::ready, filter_state::dropping};
constexpr std::string_view known_fields[] = {
    "bloomkit-redis", "kind", "state", "owner",    "generation",    "bits", "hashes",  "shards",    "blocks_per_shard",
    "hash",           "seed", "keys",  "inserted", "expected_keys", "fpr",  "written", "window_ms", "generations"};

// Redis adds a small header to a string's bytes (sdshdr32: 9 bytes and the final NUL).
constexpr std::uint64_t string_overhead = 16;
constexpr std::uint64_t largest_shard = std::uint64_t{512} << 20;  // Redis's default string limit
constexpr std::uint64_t smallest_shard = std::uint64_t{64} << 10;
// The most blocks a shard of at most largest_shard bytes holds, with both headers (Redis's, ours).
constexpr std::uint64_t most_blocks_per_shard =
    (largest_shard - string_overhead - filter_description::header_bytes) / 64;

[[noreturn]] void bad_meta(std::string_view name, const std::string& why) {
    throw filter_mismatch("Redis key " + std::string(name) + ":meta is not a bloomkit filter's metadata: " + why);
}

using field_map = std::map<std::string, std::string, std::less<>>;

const std::string& field(std::string_view name, const field_map& fields, std::string_view key) {
    const auto found = fields.find(key);
    if (found == fields.end()) bad_meta(name, "no '" + std::string(key) + "' field");
    return found->second;
}

template <class Number>
Number number_field(std::string_view name, const field_map& fields, std::string_view key, int base = 10) {
    const std::string& text = field(name, fields, key);
    Number value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        bad_meta(name, "field '" + std::string(key) + "' is '" + text + "', not a number");
    return value;
}

// A field that is one of `known` (spelt as to_string spells it).
template <class Enum, std::size_t N>
Enum enum_field(std::string_view name, const field_map& fields, std::string_view key, const Enum (&known)[N]) {
    const std::string& text = field(name, fields, key);
    for (const Enum e : known)
        if (text == to_string(e)) return e;
    bad_meta(name, "unknown " + std::string(key) + " '" + text + "'");
}

// A token of exactly `digits` lowercase hex digits.
std::string hex_field(std::string_view name, const field_map& fields, std::string_view key, std::size_t digits) {
    const std::string& text = field(name, fields, key);
    if (text.size() != digits || text.find_first_not_of("0123456789abcdef") != std::string::npos)
        bad_meta(name, "field '" + std::string(key) + "' is not " + std::to_string(digits) + " hex digits");
    return text;
}

// "field value" lines; refuses a line without a value and a field given twice.
field_map parse_fields(std::string_view name, std::string_view text) {
    field_map fields;
    while (!text.empty()) {
        const auto end = text.find('\n');
        const std::string_view line = text.substr(0, end);
        const auto space = line.find(' ');
        if (space == std::string_view::npos)
            bad_meta(name, "line '" + std::string(line.substr(0, 60)) + "' has no value");
        if (!fields.emplace(std::string(line.substr(0, space)), std::string(line.substr(space + 1))).second)
            bad_meta(name, "field '" + std::string(line.substr(0, space)) + "' appears twice");
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return fields;
}

void require_version(std::string_view name, const field_map& fields) {
    if (!fields.contains("bloomkit-redis")) bad_meta(name, "it does not start with 'bloomkit-redis'");
    const int version = number_field<int>(name, fields, "bloomkit-redis");
    if (version < 1) bad_meta(name, "format version " + std::to_string(version) + " does not exist");
    if (version == 1)
        throw filter_mismatch(
            "filter " + std::string(name) + " was written in format 1 by an older bloomkit, whose shards " +
                "carry no generation; this one reads format " + std::to_string(meta_format_version) +
                ". Copy it over: pull it with the older bloomkit, drop it, then push it with this one",
            error_remedy::copy_from_older_format);
    if (version > meta_format_version)
        throw filter_mismatch("filter " + std::string(name) + " was written in format " + std::to_string(version) +
                              " by a newer bloomkit; this one reads format " + std::to_string(meta_format_version));
}

// The smallest jemalloc size class holding `bytes`: above 16 KiB the classes are 2^j·{5/4, 6/4,
// 7/4, 2} (four per doubling), so a string of exactly 2^j bytes (and its header) takes the
// next class, 25% more.
std::uint64_t size_class(std::uint64_t bytes) {
    if (bytes <= 16384) return bytes;
    std::uint64_t power = 16384;
    while (power < bytes) power *= 2;
    const std::uint64_t quarter = power / 8;  // (power/2)/4: the step between classes below `power`
    std::uint64_t size = power / 2;
    while (size < bytes) size += quarter;
    return size;
}

}  // namespace

std::string_view to_string(filter_state state) noexcept {
    switch (state) {
        case filter_state::creating: return "creating";
        case filter_state::ready: return "ready";
        case filter_state::dropping: return "dropping";
    }
    return "unknown";
}

std::string encode_meta(const filter_description& d, filter_state state, std::string_view owner) {
    const bool windowed = d.generations != 0;
    return fmt::format(
        "bloomkit-redis {}\nkind {}\nstate {}\n{}generation {:016x}\n{}bits {}\nhashes {}\nshards "
        "{}\nblocks_per_shard {}\n"
        "hash {}\nseed {}\nkeys {}\ninserted {}\nexpected_keys {}\nfpr {}\n",
        meta_format_version, windowed ? "windowed" : "block", to_string(state),
        owner.empty() ? std::string() : fmt::format("owner {}\n", owner), d.generation,
        windowed ? fmt::format("window_ms {}\ngenerations {}\n", d.window_ms, d.generations) : std::string(),
        d.geometry.bits, d.geometry.hashes, d.shards, d.blocks_per_shard, to_string(d.hash), d.seed, to_string(d.keys),
        d.inserted, d.target.expected_keys, show_number(d.target.fpr));
}

stored_meta decode_meta(std::string_view name, std::string_view text) {
    field_map fields = parse_fields(name, text);
    require_version(name, fields);
    const std::string& kind = field(name, fields, "kind");
    if (kind != "block" && kind != "windowed")
        bad_meta(name, "kind '" + kind.substr(0, 40) + "' is not 'block' or 'windowed'");
    const bool windowed = kind == "windowed";

    stored_meta meta;
    filter_description& d = meta.description;
    d.name = std::string(name);
    if (windowed) {
        d.window_ms = number_field<std::int64_t>(name, fields, "window_ms");
        d.generations = number_field<std::uint32_t>(name, fields, "generations");
    }
    meta.state = enum_field(name, fields, "state", known_states);
    const bool owned = meta.state != filter_state::ready;
    if (owned) meta.owner = hex_field(name, fields, "owner", 32);
    d.generation = std::stoull(hex_field(name, fields, "generation", 16), nullptr, 16);
    d.geometry.bits = number_field<std::uint64_t>(name, fields, "bits");
    d.geometry.hashes = number_field<std::uint32_t>(name, fields, "hashes");
    d.shards = number_field<std::uint64_t>(name, fields, "shards");
    d.blocks_per_shard = number_field<std::uint64_t>(name, fields, "blocks_per_shard");
    d.hash = enum_field(name, fields, "hash", known_hashes);
    d.seed = number_field<std::uint64_t>(name, fields, "seed");
    d.keys = enum_field(name, fields, "keys", known_key_formats);
    d.inserted = number_field<std::uint64_t>(name, fields, "inserted");
    d.target.expected_keys = number_field<std::uint64_t>(name, fields, "expected_keys");
    const std::string& fpr = field(name, fields, "fpr");
    char* end = nullptr;
    d.target.fpr = std::strtod(fpr.c_str(), &end);
    if (fpr.empty() || end != fpr.c_str() + fpr.size()) bad_meta(name, "field 'fpr' is '" + fpr + "', not a number");
    meta.written_ms = number_field<std::int64_t>(name, fields, "written");

    for (const auto& [key, value] : fields) {
        if (std::find(std::begin(known_fields), std::end(known_fields), key) == std::end(known_fields))
            bad_meta(name, "unknown field '" + key.substr(0, 40) + "'");
        if (key == "owner" && !owned) bad_meta(name, "an owner in state " + std::string(to_string(meta.state)));
        if ((key == "window_ms" || key == "generations") && !windowed)
            bad_meta(name, "a " + key + " in a block filter");
    }
    if (const std::string problem = impossible(d); !problem.empty()) bad_meta(name, problem);
    return meta;
}

std::string impossible(const filter_description& d) {
    const bloom_geometry& g = d.geometry;
    if (g.bits == 0 || g.bits % 512 != 0 || g.hashes == 0 || g.hashes > bloomkit::max_hashes)
        return fmt::format("its geometry is impossible (bits {}, hashes {})", g.bits, g.hashes);
    if (d.blocks_per_shard == 0 || d.blocks_per_shard > most_blocks_per_shard / d.slots())
        return fmt::format("{} blocks per shard is not 1 to {} (a shard of at most 512 MiB)", d.blocks_per_shard,
                           most_blocks_per_shard / d.slots());
    if (d.shards == 0 || d.shards > filter_description::max_shards)
        return fmt::format("{} shards is not 1 to {}", d.shards, filter_description::max_shards);
    if (d.generations != 0) {
        if (d.generations > windowed_max_generations || d.window_ms < static_cast<std::int64_t>(d.generations))
            return fmt::format("its window ({} ms in {} generations) is impossible", d.window_ms, d.generations);
    }
    if (d.shards != (d.blocks() + d.blocks_per_shard - 1) / d.blocks_per_shard)
        return fmt::format("{} shards of {} blocks do not hold its {} blocks", d.shards, d.blocks_per_shard,
                           d.blocks());
    if (d.generation % 2 == 0)
        return fmt::format("generation {:016x} is even (its last bit is the sentinel, 1)", d.generation);
    if (!(d.target.fpr >= 0 && d.target.fpr < 1)) return "fpr " + show_number(d.target.fpr) + " is not in [0, 1)";
    return {};
}

std::string first_difference(const filter_description& stored, const filter_description& wanted) {
    auto differs = [](std::string_view field, const auto& in_redis, const auto& asked) {
        return fmt::format("{} {} in Redis, {} asked", field, in_redis, asked);
    };
    if (stored.target.expected_keys != wanted.target.expected_keys)
        return differs("expected keys", stored.target.expected_keys, wanted.target.expected_keys);
    if (stored.target.fpr != wanted.target.fpr)
        return differs("fpr", show_number(stored.target.fpr), show_number(wanted.target.fpr));
    if (stored.geometry.hashes != wanted.geometry.hashes)
        return differs("hashes", stored.geometry.hashes, wanted.geometry.hashes);
    if (stored.hash != wanted.hash) return differs("hash", to_string(stored.hash), to_string(wanted.hash));
    if (stored.seed != wanted.seed) return differs("seed", stored.seed, wanted.seed);
    if (stored.window_ms != wanted.window_ms) return differs("window (ms)", stored.window_ms, wanted.window_ms);
    if (stored.generations != wanted.generations) return differs("generations", stored.generations, wanted.generations);
    // A key format asked of a filter that records another is another filter (u64 and i64 hold
    // different keys); one that records none takes it (bloom_filter::create).
    if (stored.keys != wanted.keys && stored.keys != key_format::unrecorded && wanted.keys != key_format::unrecorded)
        return differs("keys", to_string(stored.keys), to_string(wanted.keys));
    return {};
}

filter_description plan_shards(std::string name, bloom_geometry geometry, std::uint64_t max_shard_bytes, bool round_up,
                               std::uint64_t slots) {
    if (max_shard_bytes < smallest_shard || max_shard_bytes > largest_shard)
        throw invalid_argument("a Redis shard's size must be 64 KiB to 512 MiB, not " +
                               std::to_string(max_shard_bytes) + " bytes");
    filter_description d;
    d.name = std::move(name);
    const std::uint64_t blocks = geometry.bits / 512;
    // Our header and the blocks of every slot, with the string's own header, within the size
    // limit's class.
    const std::uint64_t most = (max_shard_bytes - string_overhead - filter_description::header_bytes) / 64 / slots;
    if (most == 0)
        throw invalid_argument(
            fmt::format("a shard of {} bytes cannot hold a block for each of {} ring slots: choose "
                        "larger shards",
                        max_shard_bytes, slots));
    d.shards = (blocks + most - 1) / most;
    if (d.shards > filter_description::max_shards)
        throw invalid_argument(
            fmt::format("a filter of {} bytes in shards of at most {} bytes would need {} shards, more "
                        "than the {} allowed: choose larger shards",
                        blocks * 64 * slots, max_shard_bytes, d.shards, filter_description::max_shards));
    d.blocks_per_shard = (blocks + d.shards - 1) / d.shards;
    if (round_up) {
        const std::uint64_t allocated =
            size_class(filter_description::header_bytes + slots * d.blocks_per_shard * 64 + string_overhead);
        d.blocks_per_shard =
            std::max(d.blocks_per_shard, (allocated - string_overhead - filter_description::header_bytes) / 64 / slots);
        geometry.bits = d.shards * d.blocks_per_shard * 512;
    }
    d.geometry = geometry;
    return d;
}

void require_untagged_name(std::string_view name) {
    if (name.empty())
        throw invalid_argument(
            "a filter's name is not empty: its keys would be ':meta', ':0', ... of no name of its own");
    const std::string shard = std::string(name) + ":0";
    const auto open = shard.find('{');
    if (open == std::string::npos) return;
    const auto close = shard.find('}', open + 1);
    if (close != std::string::npos && close > open + 1)
        throw invalid_argument(
            "the filter name '" + std::string(name) + "' holds a hash tag ('" + shard.substr(open, close - open + 1) +
            "'): on a Redis Cluster all its shards would hash to one slot, on one node. Choose a name "
            "without '{…}'");
}

}  // namespace detail
}  // namespace bloomkit::redis
