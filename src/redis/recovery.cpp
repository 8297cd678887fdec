// src/redis/recovery.cpp — see recovery.hpp.
#include "recovery.hpp"

#include "metadata.hpp"
#include "shards.hpp"

namespace bloomkit::redis::detail {
namespace {

// The trailer of a shard that is a string of the right length for its own description.
std::optional<shard_trailer> trailer_of(const shard_state& state) {
    if (state.type != "string") return std::nullopt;
    return decode_trailer(state.tail);
}

}  // namespace

recovery restore_meta(const meta_store& store, std::uint64_t hint) {
    client& c = store.connection();
    const std::optional<shard_trailer> seen = trailer_of(inspect_shards(c, store.name(), hint, hint + 1, store.options()).at(0));
    if (!seen) return {};
    filter_description d = seen->description;
    d.name = store.name();
    if (hint >= d.shards) return {};

    bool complete = true, found = false;
    const std::vector<shard_state> shards = inspect_shards(c, d.name, 0, d.shards, store.options());
    for (std::uint64_t s = 0; s < d.shards; ++s) {
        const std::optional<shard_trailer> t = trailer_of(shards[s]);
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
