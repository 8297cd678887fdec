// bloomkit/detail/endian.hpp — little-endian encoding of integers at a byte address, the byte
// order of every bloomkit file whatever the machine's (little_endian() itself is in hash.hpp,
// which needs it for integer keys).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "bloomkit/hash.hpp"

namespace bloomkit::detail {

template <class T>
requires std::is_unsigned_v<T> T load_le(const std::byte* at)
noexcept {
    T value;
    std::memcpy(&value, at, sizeof(T));
    return little_endian(value);
}

template <class T>
requires std::is_unsigned_v<T>
void store_le(std::byte* at, T value) noexcept {
    value = little_endian(value);
    std::memcpy(at, &value, sizeof(T));
}

}  // namespace bloomkit::detail
