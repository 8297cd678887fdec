// bloomkit/hash/endian.hpp — integers to and from little-endian (bloomkit files, integer keys'
// bytes) and big-endian (Guava's streams) bytes, whatever the machine's order.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace bloomkit::detail {

template <class T>
requires std::is_unsigned_v<T>
constexpr T byteswap(T value) noexcept {
    T result = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
        result = static_cast<T>((result << 8) | (value & 0xffU));
        if constexpr (sizeof(T) > 1) value >>= 8;
    }
    return result;
}

/// Converts between the machine's byte order and little-endian (the same operation both ways).
template <class T>
requires std::is_unsigned_v<T>
constexpr T little_endian(T value) noexcept {
    if constexpr (std::endian::native == std::endian::little) return value;
    else return byteswap(value);
}

/// Converts between the machine's byte order and big-endian.
template <class T>
requires std::is_unsigned_v<T>
constexpr T big_endian(T value) noexcept {
    if constexpr (std::endian::native == std::endian::big) return value;
    else return byteswap(value);
}

/// The integer stored at `at` in byte order `Order` (unaligned).
template <std::endian Order, class T>
requires std::is_unsigned_v<T> T load_ordered(const std::byte* at)
noexcept {
    T value;
    std::memcpy(&value, at, sizeof(T));
    if constexpr (Order != std::endian::native) value = byteswap(value);
    return value;
}

/// Stores `value` at `at` in byte order `Order` (unaligned).
template <std::endian Order, class T>
requires std::is_unsigned_v<T>
void store_ordered(std::byte* at, T value) noexcept {
    if constexpr (Order != std::endian::native) value = byteswap(value);
    std::memcpy(at, &value, sizeof(T));
}

template <class T>
T load_le(const std::byte* at) noexcept {
    return load_ordered<std::endian::little, T>(at);
}
template <class T>
void store_le(std::byte* at, T value) noexcept {
    store_ordered<std::endian::little>(at, value);
}
template <class T>
T load_be(const std::byte* at) noexcept {
    return load_ordered<std::endian::big, T>(at);
}
template <class T>
void store_be(std::byte* at, T value) noexcept {
    store_ordered<std::endian::big>(at, value);
}

}  // namespace bloomkit::detail
