// src/redis/slot.cpp — the hash slot of a key, as Redis Cluster computes it (cluster spec,
// "Keys distribution model"): CRC16/XMODEM (polynomial 0x1021, initial value 0, no
// reflection; CRC of "123456789" = 0x31C3) of the key modulo 16384 — or, when the key holds a
// hash tag "{…}" with at least one byte inside, of the bytes between the first '{' and the
// first '}' after it.
#include <array>
#include <cstdint>
#include <string_view>

#include "bloomkit/redis.hpp"

namespace bloomkit::redis {
namespace {

constexpr std::array<std::uint16_t, 256> crc16_table = [] {
    std::array<std::uint16_t, 256> table{};
    for (unsigned byte = 0; byte < 256; ++byte) {
        std::uint16_t crc = static_cast<std::uint16_t>(byte << 8);
        for (int bit = 0; bit < 8; ++bit)
            crc = static_cast<std::uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
        table[byte] = crc;
    }
    return table;
}();

constexpr std::uint16_t crc16(std::string_view bytes) noexcept {
    std::uint16_t crc = 0;
    for (const char c : bytes)
        crc = static_cast<std::uint16_t>((crc << 8) ^ crc16_table[((crc >> 8) ^ static_cast<unsigned char>(c)) & 0xff]);
    return crc;
}
static_assert(crc16("123456789") == 0x31C3);

}  // namespace

std::uint16_t key_slot(std::string_view key) noexcept {
    const auto open = key.find('{');
    if (open != std::string_view::npos) {
        const auto close = key.find('}', open + 1);
        if (close != std::string_view::npos && close > open + 1) key = key.substr(open + 1, close - open - 1);
    }
    return crc16(key) & 16383;
}

}  // namespace bloomkit::redis
