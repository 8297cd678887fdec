// bloomkit/detail/file_header.hpp — the 128-byte header every bloomkit file starts with: its
// byte layout, and the checks that do not depend on the filter kind (docs/FORMAT.md).
//
// Bytes 0..23 and 40..63, 72..95 and 120..127 mean the same for every kind. Bytes 14, 24..39,
// 64..71 and 96..119 are the kind's parameters; file_codecs.hpp reads and checks them.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "bloomkit/detail/endian.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit {

/// The first eight bytes of every bloomkit file. The high-bit first byte and the CR LF / ^Z / LF
/// that follow catch a file mangled by a text-mode transfer, as PNG's signature does.
inline constexpr std::array<unsigned char, 8> file_magic = {0x89, 'B', 'L', 'M', '\r', '\n', 0x1a, '\n'};
inline constexpr std::uint16_t file_format_version = 1;
inline constexpr std::uint16_t file_header_size = 128;

/// What a file holds. The numeric values are stored in files.
enum class filter_kind : std::uint16_t {
    bloom = 1,           ///< basic_bloom_filter, any layout
    counting_bloom = 2,  ///< counting_bloom_filter
    cuckoo = 3,          ///< cuckoo_filter
    scalable_bloom = 4,  ///< scalable_bloom_filter
    binary_fuse = 5,     ///< basic_binary_fuse_filter, any arity and fingerprint
};

[[nodiscard]] constexpr std::string_view to_string(filter_kind kind) noexcept {
    switch (kind) {
        case filter_kind::bloom: return "bloom";
        case filter_kind::counting_bloom: return "counting";
        case filter_kind::cuckoo: return "cuckoo";
        case filter_kind::scalable_bloom: return "scalable";
        case filter_kind::binary_fuse: return "fuse";
    }
    return "unknown";
}

namespace detail {

/// Byte offsets of the header fields.
namespace header_field {
inline constexpr std::size_t magic = 0, version = 8, header_size = 10, kind = 12, variant = 14, hash = 15, seed = 16,
                             parameter64 = 24, parameter32a = 32, parameter32b = 36, expected_keys = 40,
                             target_fpp = 48, inserted_count = 56, parameter_aux = 64, payload_offset = 72,
                             payload_size = 80, payload_checksum = 88, extra = 96, header_checksum = 120;
// The historical names of the Bloom filter's parameters.
inline constexpr std::size_t layout = variant, bits = parameter64, hashes = parameter32a, block_bits = parameter32b,
                             set_bits = parameter_aux, reserved = extra;
}  // namespace header_field

inline std::uint64_t checksum(const void* data, std::size_t size) noexcept { return XXH3_64bits(data, size); }

/// The header's bytes, with little-endian accessors by offset.
struct header_bytes {
    std::array<std::byte, file_header_size> bytes{};

    template <class T>
    [[nodiscard]] T get(std::size_t offset) const noexcept {
        if constexpr (std::is_same_v<T, double>) return std::bit_cast<double>(load_le<std::uint64_t>(bytes.data() + offset));
        else if constexpr (sizeof(T) == 1) return static_cast<T>(bytes[offset]);
        else return load_le<T>(bytes.data() + offset);
    }
    template <class T>
    void set(std::size_t offset, T value) noexcept {
        if constexpr (std::is_same_v<T, double>) store_le<std::uint64_t>(bytes.data() + offset, std::bit_cast<std::uint64_t>(value));
        else if constexpr (sizeof(T) == 1) bytes[offset] = static_cast<std::byte>(value);
        else store_le<T>(bytes.data() + offset, value);
    }
};

/// Throws file_format_error(reason) about the file `where`.
[[noreturn]] inline void reject(format_errc reason, const std::string& where, const std::string& why) {
    throw file_format_error(reason, "'" + where + "': " + why);
}
[[noreturn]] inline void reject_field(const std::string& where, const std::string& why) {
    reject(format_errc::invalid_field, where, why);
}

/// The checks every file passes before its kind is even looked at, in the order that gives
/// the most useful message: signature, version (before the checksum, so that a newer format
/// reads as newer, not corrupt), completeness, checksum, then the kind-independent fields.
/// `seen` holds the file's first min(file size, 128) bytes.
inline header_bytes check_common_header(std::span<const std::byte> seen, std::uint64_t file_size, const std::string& where) {
    namespace f = header_field;
    const std::size_t magic_seen = std::min(seen.size(), file_magic.size());
    if (magic_seen > 0 && std::memcmp(seen.data(), file_magic.data(), magic_seen) != 0)  // an empty map has no data()
        reject(format_errc::bad_magic, where, "not a bloomkit filter file (its first bytes are not the bloomkit signature)");
    if (seen.size() < f::version + 2)
        reject(format_errc::truncated, where, "truncated: " + std::to_string(file_size) + " bytes, not even a whole header");
    const auto version = load_le<std::uint16_t>(seen.data() + f::version);
    if (version != file_format_version)
        reject(format_errc::unsupported_version, where,
               "written in file format version " + std::to_string(version) + "; this bloomkit reads version " +
                   std::to_string(file_format_version) + (version > file_format_version ? " (upgrade bloomkit to read it)" : ""));
    if (seen.size() < file_header_size)
        reject(format_errc::truncated, where,
               "truncated: " + std::to_string(file_size) + " bytes, but the header alone is " + std::to_string(file_header_size));
    header_bytes h;
    std::memcpy(h.bytes.data(), seen.data(), file_header_size);
    if (h.get<std::uint64_t>(f::header_checksum) != checksum(h.bytes.data(), f::header_checksum))
        reject(format_errc::header_checksum, where, "header checksum mismatch: the header is corrupt");
    if (const auto size = h.get<std::uint16_t>(f::header_size); size != file_header_size)
        reject_field(where, "header size is " + std::to_string(size) + ", expected " + std::to_string(file_header_size));
    if (const auto kind = h.get<std::uint16_t>(f::kind); kind < 1 || kind > 5)
        reject_field(where, "unknown filter kind " + std::to_string(kind));
    if (const auto hash = h.get<std::uint8_t>(f::hash); hash < 1 || hash > 2)
        reject_field(where, "unknown hash algorithm " + std::to_string(hash));
    if (const double fpp = h.get<double>(f::target_fpp); !(fpp == 0 || (fpp > 0 && fpp < 1)))
        reject_field(where, "target false-positive rate " + std::to_string(fpp) + " is not in (0, 1)");
    if (const auto offset = h.get<std::uint64_t>(f::payload_offset); offset != file_header_size)
        reject_field(where, "payload offset " + std::to_string(offset) + ", expected " + std::to_string(file_header_size));
    return h;
}

/// The file must end exactly where the payload does.
inline void check_file_size(std::uint64_t payload_size, std::uint64_t file_size, const std::string& where) {
    const std::uint64_t expected = file_header_size + payload_size;
    if (payload_size > UINT64_MAX - file_header_size || file_size < expected)
        reject(format_errc::truncated, where,
               "truncated: " + std::to_string(file_size) + " bytes, but the header announces " + std::to_string(expected));
    if (file_size > expected) reject_field(where, std::to_string(file_size - expected) + " unexpected bytes after the payload");
}

/// Requires the extra bytes [from, 120) to be zero (reserved for later versions).
inline void check_reserved(const header_bytes& h, std::size_t from, const std::string& where) {
    for (std::size_t i = from; i < header_field::header_checksum; ++i)
        if (h.bytes[i] != std::byte{0}) reject_field(where, "reserved byte " + std::to_string(i) + " is not zero");
}

/// Seals a header: magic, version, size and the checksum over everything before it.
inline void seal(header_bytes& h) noexcept {
    namespace f = header_field;
    std::memcpy(h.bytes.data() + f::magic, file_magic.data(), file_magic.size());
    h.set<std::uint16_t>(f::version, file_format_version);
    h.set<std::uint16_t>(f::header_size, file_header_size);
    h.set<std::uint64_t>(f::payload_offset, file_header_size);
    h.set<std::uint64_t>(f::header_checksum, checksum(h.bytes.data(), f::header_checksum));
}

}  // namespace detail
}  // namespace bloomkit
