// src/redis/run_options.hpp — how a filter's options (bloomkit/redis.hpp) become the options
// of the batches it runs, and the one-liners that run a batch whose replies need no more than
// "not an error".
#pragma once

#include <algorithm>

#include "bloomkit/redis.hpp"
#include "node_router.hpp"

namespace bloomkit::redis::detail {

/// Pipeline depth; for writes, the replicas to WAIT for and for how long (by default the
/// client's command timeout).
[[nodiscard]] inline node_router::run_options run_options_of(const client& c, const filter_options& o, bool writes) {
    if (o.replica_timeout)
        check_timeout("filter_options::replica_timeout", *o.replica_timeout, std::chrono::milliseconds(1));
    return {.depth = std::max<std::size_t>(o.pipeline_depth, 1),
            .replicas = writes ? o.replicas : 0,
            .replica_timeout = o.replica_timeout.value_or(c.options().command_timeout)};
}

/// Runs `batch`, checking only that no reply is an error.
inline void run_all(client& c, const command_batch& batch, const filter_options& o, bool writes) {
    detail::router_of(c).run(batch, run_options_of(c, o, writes), [](std::size_t, const redisReply&) {});
}

}  // namespace bloomkit::redis::detail
