// src/redis_module/server_memory.hpp — filters' arrays from the server's allocator
// (RedisModule_Calloc), so that Redis counts every filter in used_memory and maxmemory applies to
// it: a write flagged deny-oom is refused once filters have filled the limit, as it is for
// RedisBloom's filters, which come from the same allocator.
#pragma once

#include <cstddef>

#include "bloomkit/memory.hpp"

namespace bloomkit::redis_module {

class server_memory final : public filter_memory_resource {
public:
    /// calloc's zeroed pages, 64-byte aligned by allocating 64 bytes more; throws std::bad_alloc.
    void* allocate_zeroed(std::size_t bytes) override;
    void deallocate(void* p, std::size_t bytes) noexcept override;
};

/// The one the module installs when it loads.
inline server_memory filter_memory;

}  // namespace bloomkit::redis_module
