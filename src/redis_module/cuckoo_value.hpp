// src/redis_module/cuckoo_value.hpp — what a CF.* key holds: a chain of bloomkit cuckoo filters
// with RedisBloom's meaning of capacity, expansion, "items inserted" and "items deleted"
// (docs/design/redis_module.md §4).
//
// A filter that has no room for a key opens a new one of expansion times the buckets (expansion 0:
// never; at most 32 filters), and lookups ask every filter. bloomkit's buckets hold 4 slots and its
// walks relocate up to 500 fingerprints, so a filter fills to about 95% where RedisBloom's 2-slot
// buckets stop near 84%. Fingerprints are 12 bits for a BUCKETSIZE below 4 and 8 bits from 4 on,
// so the FPR is at most RedisBloom's for the same request (8/2^f against 2·BUCKETSIZE/255).
//
// Its dump (SCANDUMP, the RDB value) is a 64-byte preamble — what the chain was made with, its
// counters, how many filters and the dump's size — then each filter as a bkf file.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "bloomkit/cuckoo_filter.hpp"
#include "redis_module/dump.hpp"
#include "redis_module/restore.hpp"

namespace bloomkit::redis_module {

/// What CF.RESERVE and CF.INSERT ask for.
struct cuckoo_request {
    std::uint64_t capacity = 1024;
    std::uint64_t bucket_size = 2;
    std::uint64_t max_iterations = 20;
    /// Each new filter's buckets over the one before's, rounded up to a power of two; 0: no growth.
    std::uint64_t expansion = 1;
};

/// How an add went.
enum class cuckoo_added { added, exists, full };

class cuckoo_value {
public:
    static constexpr const char* loadchunk_command = "CF.LOADCHUNK";
    /// The most filters a chain grows to (RedisBloom's CF_MAX_EXPANSIONS).
    static constexpr std::size_t max_filters = 32;

    /// A new, empty chain; throws module_error when its first filter would take more than
    /// `max_bytes`.
    cuckoo_value(const cuckoo_request& request, std::uint64_t max_bytes);
    explicit cuckoo_value(restore started) : state_(std::move(started)) {}

    /// Adds one copy of the item (`only_new`: unless it may already be there). `full` when no
    /// filter has room and none may open: `why_full` says why.
    cuckoo_added add(std::string_view item, bool only_new, std::uint64_t max_bytes);
    [[nodiscard]] bool contains(std::string_view item) const;
    /// Copies of the item's fingerprint, over every filter.
    [[nodiscard]] std::uint64_t count(std::string_view item) const;
    /// Removes one copy, when exactly one filter of the chain matches the item; false when none
    /// does, and when several do.
    ///
    /// Within one filter a removal is safe: another item matching the same fingerprint in one of
    /// the item's buckets has the same two buckets, so the copy left serves both. Across filters of
    /// different sizes it is not: a match in a filter the item never went to is another item's
    /// fingerprint, and removing it loses that item. RedisBloom removes from the newest filter that
    /// matches, and so loses an item now and then; here a removal that cannot tell the item's copy
    /// from another's is not done, leaving at worst a false positive.
    bool remove(std::string_view item);
    /// Why the last add answered `full`: RedisBloom's "Filter is full", "Maximum expansions
    /// reached", or the memory limit.
    [[nodiscard]] const std::string& why_full() const noexcept { return why_full_; }

    [[nodiscard]] std::uint64_t items() const;
    [[nodiscard]] std::uint64_t deleted() const;
    [[nodiscard]] std::uint64_t first_buckets() const;
    [[nodiscard]] std::uint64_t filter_count() const;
    [[nodiscard]] std::uint64_t expansion() const;
    [[nodiscard]] std::uint64_t memory_bytes() const;

    /// The dump's size (preamble and files); throws module_error during a restore.
    [[nodiscard]] std::uint64_t file_size() const;
    [[nodiscard]] bkf_writer writer() const;
    [[nodiscard]] std::uint64_t writes() const noexcept { return writes_; }
    [[nodiscard]] restore* restoring() noexcept { return std::get_if<restore>(&state_); }
    [[nodiscard]] const restore* restoring() const noexcept { return std::get_if<restore>(&state_); }
    void finish_restore();

    /// A dump's size, from its first chunk; throws module_error when that is no dump's start.
    static std::uint64_t dump_size(std::span<const std::byte> first_chunk);

private:
    struct chain {
        std::vector<cuckoo_filter> filters;
        std::uint64_t expansion = 1;
        std::uint64_t fingerprint_bits = 12;
        std::uint64_t deleted = 0;
    };
    static chain new_chain(const cuckoo_request& request, std::uint64_t max_bytes);
    [[nodiscard]] const chain& chain_or_throw() const;
    [[nodiscard]] chain& chain_or_throw();
    bool open_filter(chain& c, std::uint64_t max_bytes);

    std::variant<chain, restore> state_;
    std::uint64_t writes_ = 0;
    std::string why_full_;
};

}  // namespace bloomkit::redis_module
