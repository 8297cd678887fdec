// src/redis_module/bloom_value.hpp — what a BF.* key holds: a bloomkit Bloom filter, with
// RedisBloom's meaning of capacity, expansion and "items inserted" (docs/design/redis_module.md §3).
//
// A scaling filter is bloomkit's scalable Bloom filter: stage i holds capacity·expansion^i keys at
// error·2^-(i+1), so the whole chain stays below the error asked however far it grows — the chain
// RedisBloom builds, with cache-blocked stages (one cache line per key and stage, where RedisBloom
// touches k). A non-scaling filter is one block Bloom filter that refuses new keys past its
// capacity. A key whose filter is being restored by BF.LOADCHUNK holds the bytes received so far.
//
// Both answer "added" only for a key no stage holds, so "items inserted" (BF.CARD) counts the adds
// that answered 1, as RedisBloom's does, and is the filters' inserted_count(), kept by the file.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"
#include "redis_module/dump.hpp"
#include "redis_module/restore.hpp"

namespace bloomkit::redis_module {

/// What BF.RESERVE and BF.INSERT ask for.
struct bloom_request {
    std::uint64_t capacity = 100;
    double error_rate = 0.01;
    /// Each new stage's capacity over the one before's; 0 for a non-scaling filter.
    std::uint64_t expansion = 2;
};

/// The Bloom filters a BF key can hold: what the module makes (scalable, or block when
/// non-scaling), and the other one-stage kinds a bkf file loaded by BF.LOADCHUNK may carry.
using bloom_filters =
    std::variant<scalable_bloom_filter, block_bloom_filter, split_block_bloom_filter, classic_bloom_filter>;

class bloom_value {
public:
    /// The command that loads a dump's chunk (an AOF rewrite replays them).
    static constexpr const char* loadchunk_command = "BF.LOADCHUNK";

    /// A new, empty filter; throws module_error when it cannot exist or would take more than
    /// `max_bytes`.
    bloom_value(const bloom_request& request, std::uint64_t max_bytes);
    explicit bloom_value(bloom_filters filter) : state_(std::move(filter)) {}
    explicit bloom_value(restore started) : state_(std::move(started)) {}

    /// Adds an item: true if no stage held it. Throws module_error when a non-scaling filter is
    /// full, or growing would pass `max_bytes`, and for an item the filter's key format refuses.
    bool add(std::string_view item, std::uint64_t max_bytes);
    /// False: never added. Throws module_error for an item the key format refuses.
    [[nodiscard]] bool contains(std::string_view item) const;

    /// Keys the filter holds before it grows again (Σ of the stages').
    [[nodiscard]] std::uint64_t capacity() const;
    /// The adds that answered 1.
    [[nodiscard]] std::uint64_t items() const;
    [[nodiscard]] std::uint64_t filter_count() const;
    /// The expansion, or nothing for a non-scaling filter.
    [[nodiscard]] std::optional<std::uint64_t> expansion() const;
    /// BF.DEBUG's lines, as RedisBloom writes them: "size:N", then one per stage ("bytes:B bits:M
    /// hashes:K hashwidth:64 capacity:C size:N ratio:P").
    [[nodiscard]] std::vector<std::string> debug_lines() const;
    /// Bytes of memory held (bits and bookkeeping): MEMORY USAGE and BF.INFO SIZE.
    [[nodiscard]] std::uint64_t memory_bytes() const;

    /// The filter, or nullptr while a restore is under way.
    [[nodiscard]] const bloom_filters* filter() const noexcept { return std::get_if<bloom_filters>(&state_); }
    [[nodiscard]] restore* restoring() noexcept { return std::get_if<restore>(&state_); }
    [[nodiscard]] const restore* restoring() const noexcept { return std::get_if<restore>(&state_); }

    /// A dump's size, from its first chunk (a bkf header); throws module_error when that is no
    /// Bloom filter's header.
    static std::uint64_t dump_size(std::span<const std::byte> first_chunk);

    /// Replaces a finished restore with the filter its bytes hold; throws module_error when they
    /// are not a valid Bloom filter.
    void finish_restore();

    /// The size of the filter's bkf file; throws module_error during a restore.
    [[nodiscard]] std::uint64_t file_size() const;
    /// Writes the filter's bkf file (or the bytes a restore has so far): the dump, the RDB value.
    [[nodiscard]] bkf_writer writer() const;

    /// How many writes changed the value: SCANDUMP's iterators carry it.
    [[nodiscard]] std::uint64_t writes() const noexcept { return writes_; }

private:
    [[nodiscard]] const bloom_filters& filter_or_throw() const;
    [[nodiscard]] bloom_filters& filter_or_throw();

    std::variant<bloom_filters, restore> state_;
    std::uint64_t writes_ = 0;
};

}  // namespace bloomkit::redis_module
