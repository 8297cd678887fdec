// src/redis/recovery.hpp — rebuilding a lost NAME:meta from the headers of the shards.
//
// NAME:meta is read only when a filter is opened, so under an allkeys-* eviction policy it is
// the first key to go, and `DEL NAME:meta` removes it just as well. Every shard repeats the
// record in its header (shard_header.hpp), so it is written back from them: a filter's record is
// lost only with all of its shards. A filter whose shards are not all complete (a creation or
// push that lost its record half-way) is not restored: its bits may be partial.
#pragma once

#include <cstdint>

#include "meta_store.hpp"

namespace bloomkit::redis::detail {

struct recovery {
    enum outcome {
        none,        ///< no shard looked at holds a header: there is nothing to restore
        restored,    ///< NAME:meta was written back (or written by someone else meanwhile)
        incomplete,  ///< shards of an interrupted creation: `description` says which
    } result = none;
    filter_description description{};
};

/// Restores NAME:meta from the header of shard `hint` (or of one of the few after it: that one
/// may be lost too), in state ready, once every shard of that filter that is there holds its
/// generation and is complete. Needs the rights to run scripts.
[[nodiscard]] recovery restore_meta(const meta_store& store, std::uint64_t hint = 0);

}  // namespace bloomkit::redis::detail
