// src/redis/shard_header.cpp — see shard_header.hpp.
#include "shard_header.hpp"

#include <bit>
#include <cstring>

#include "metadata.hpp"

namespace bloomkit::redis::detail {
namespace {

constexpr std::string_view block_magic = "BKRS";
// Another magic for a windowed filter's shards: an older bloomkit, which knows no windowed
// filter, takes them for keys not its own rather than for a block filter's.
constexpr std::string_view windowed_magic = "BKRW";

template <class Number>
void put(std::string& bytes, std::size_t offset, Number value) {
    for (std::size_t i = 0; i < sizeof(Number); ++i)
        bytes[offset + i] = static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xff);
}

template <class Number>
Number get(std::string_view bytes, std::size_t offset) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < sizeof(Number); ++i)
        value |= std::uint64_t{static_cast<std::uint8_t>(bytes[offset + i])} << (8 * i);
    return static_cast<Number>(value);
}

}  // namespace

std::string generation_bytes(std::uint64_t generation) {
    std::string bytes(8, '\0');
    for (std::size_t i = 0; i < 8; ++i) bytes[i] = static_cast<char>((generation >> (8 * (7 - i))) & 0xff);
    return bytes;
}

std::string encode_header(const filter_description& d, bool complete) {
    std::string bytes(filter_description::header_bytes, '\0');
    bytes.replace(0, 4, d.generations != 0 ? windowed_magic : block_magic);
    put<std::uint8_t>(bytes, 4, static_cast<std::uint8_t>(meta_format_version));
    put<std::uint8_t>(bytes, header_complete_offset, complete ? 1 : 0);
    put<std::uint8_t>(bytes, 6, static_cast<std::uint8_t>(d.hash));
    put<std::uint8_t>(bytes, header_keys_offset, static_cast<std::uint8_t>(d.keys));
    put<std::uint32_t>(bytes, 8, d.geometry.hashes);
    put<std::uint64_t>(bytes, 16, d.geometry.bits);
    put<std::uint64_t>(bytes, 24, d.blocks_per_shard);
    put<std::uint64_t>(bytes, 32, d.seed);
    put<std::uint64_t>(bytes, 40, d.target.expected_keys);
    put<std::uint64_t>(bytes, 48, std::bit_cast<std::uint64_t>(d.target.fpr));
    put<std::uint64_t>(bytes, 56, d.inserted);
    put<std::int64_t>(bytes, 64, d.window_ms);
    put<std::uint32_t>(bytes, 72, d.generations);
    bytes.replace(generation_offset, 8, generation_bytes(d.generation));
    return bytes;
}

std::optional<shard_header> decode_header(std::string_view bytes) {
    if (bytes.size() != filter_description::header_bytes ||
        !(bytes.starts_with(block_magic) || bytes.starts_with(windowed_magic)) ||
        get<std::uint8_t>(bytes, 4) != meta_format_version)
        return std::nullopt;
    const bool windowed = bytes.starts_with(windowed_magic);
    const auto hash = get<std::uint8_t>(bytes, 6);
    const auto keys = get<std::uint8_t>(bytes, header_keys_offset);
    const auto complete = get<std::uint8_t>(bytes, header_complete_offset);
    if (hash < static_cast<std::uint8_t>(hash_algorithm::xxh3_128) ||
        hash > static_cast<std::uint8_t>(last_hash_algorithm) || is_foreign(static_cast<hash_algorithm>(hash)) ||
        keys > static_cast<std::uint8_t>(last_key_format) || complete > 1)
        return std::nullopt;
    shard_header t;
    filter_description& d = t.description;
    t.complete = complete == 1;
    d.hash = static_cast<hash_algorithm>(hash);
    d.keys = static_cast<key_format>(keys);
    d.geometry.hashes = get<std::uint32_t>(bytes, 8);
    d.geometry.bits = get<std::uint64_t>(bytes, 16);
    d.blocks_per_shard = get<std::uint64_t>(bytes, 24);
    d.seed = get<std::uint64_t>(bytes, 32);
    d.target.expected_keys = get<std::uint64_t>(bytes, 40);
    d.target.fpr = std::bit_cast<double>(get<std::uint64_t>(bytes, 48));
    d.inserted = get<std::uint64_t>(bytes, 56);
    d.window_ms = get<std::int64_t>(bytes, 64);
    d.generations = get<std::uint32_t>(bytes, 72);
    if (windowed != (d.generations != 0)) return std::nullopt;
    for (std::size_t i = 0; i < 8; ++i)
        d.generation = (d.generation << 8) | static_cast<std::uint8_t>(bytes[generation_offset + i]);
    if (d.blocks_per_shard == 0) return std::nullopt;
    d.shards = (d.blocks() + d.blocks_per_shard - 1) / d.blocks_per_shard;
    if (!impossible(d).empty()) return std::nullopt;
    return t;
}

}  // namespace bloomkit::redis::detail
