// python/src/redis_filter.hpp — bloomkit._bloomkit.RedisFilter: a filter shared through Redis or
// a Redis Cluster, a block Bloom filter (bloomkit/redis.hpp) or a windowed one
// (redis_windowed.hpp), from Python. One client per filter, its calls serialised (a client is
// not thread-safe), the GIL released while Redis answers.
#pragma once

#include <pybind11/pybind11.h>

namespace bloomkit::python {

/// Adds RedisFilter (create, open, push, drop) to `m`.
void bind_redis_filter(pybind11::module_& m);

}  // namespace bloomkit::python
