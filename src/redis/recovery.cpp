// src/redis/recovery.cpp — see recovery.hpp.
#include "recovery.hpp"

#include "metadata.hpp"
#include "shards.hpp"

namespace bloomkit::redis::detail {
namespace {

constexpr std::uint64_t shards_looked_at = 16;  // from the hint on, for a header to start from

// The header of a shard, if it is a string that starts with one.
std::optional<shard_header> header_of(const shard_state& state) {
    if (state.type != "string") return std::nullopt;
    return decode_header(state.head);
}

}  // namespace

recovery restore_meta(const meta_store& store, std::uint64_t hint) {
    client& c = store.connection();
    // The first header among a few shards from `hint` on: shard 0 may be lost too.
    std::optional<shard_header> seen;
    const std::vector<shard_state> first =
        inspect_shards(c, store.name(), hint, hint + shards_looked_at, store.options());
    for (std::uint64_t i = 0; i < first.size() && !seen; ++i)
        if (auto t = header_of(first[i]); t && hint + i < t->description.shards) seen = std::move(t);
    if (!seen) return {};
    filter_description d = seen->description;
    d.name = store.name();

    bool complete = true, found = false;
    const std::vector<shard_state> shards = inspect_shards(c, d.name, 0, d.shards, store.options());
    for (std::uint64_t s = 0; s < d.shards; ++s) {
        const std::optional<shard_header> t = header_of(shards[s]);
        if (!t || t->description.generation != d.generation || shards[s].length != d.shard_bytes(s)) continue;
        found = true;
        complete &= t->complete;
    }
    if (!found) return {};
    if (!complete) return {recovery::incomplete, d};
    (void)store.swap("", encode_meta(d, filter_state::ready, ""));
    return {recovery::restored, d};
}

}  // namespace bloomkit::redis::detail
