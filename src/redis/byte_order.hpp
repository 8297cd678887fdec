// src/redis/byte_order.hpp — a filter's words as a shard stores them: their little-endian bytes
// (the file format's), whatever the machine's byte order, so that push and pull copy bytes.
#pragma once

#include <cstdint>

namespace bloomkit::redis::detail {

/// Redis's bytes of `count` words.
inline void words_to_redis(const std::uint64_t* words, std::uint64_t count, char* out) {
    for (std::uint64_t w = 0; w < count; ++w)
        for (int byte = 0; byte < 8; ++byte) *out++ = static_cast<char>((words[w] >> (8 * byte)) & 0xff);
}

/// The words of `count` × 8 of Redis's bytes.
inline void redis_to_words(const char* bytes, std::uint64_t count, std::uint64_t* words) {
    for (std::uint64_t w = 0; w < count; ++w) {
        std::uint64_t word = 0;
        for (int byte = 0; byte < 8; ++byte) word |= std::uint64_t{static_cast<std::uint8_t>(*bytes++)} << (8 * byte);
        words[w] = word;
    }
}

}  // namespace bloomkit::redis::detail
