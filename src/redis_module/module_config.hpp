// src/redis_module/module_config.hpp — what the module's load arguments set, and the data types
// it registered: read by every command, written once, by RedisModule_OnLoad.
#pragma once

#include <cstdint>

#include "redis_module/module_api.hpp"

namespace bloomkit::redis_module {

struct module_config {
    /// BF.ADD's capacity and error rate for a filter it creates (RedisBloom's INITIAL_SIZE,
    /// ERROR_RATE).
    std::uint64_t initial_size = 100;
    double error_rate = 0.01;
    /// The most bytes one filter may take (MAX_FILTER_BYTES): BF.RESERVE refuses a larger
    /// filter before allocating it, and a filter refuses to grow past it.
    std::uint64_t max_filter_bytes = std::uint64_t{1} << 30;
};

inline module_config config;

/// The data types of BF.* and CF.* keys.
inline data_type* bloom_type = nullptr;
inline data_type* cuckoo_type = nullptr;

}  // namespace bloomkit::redis_module
