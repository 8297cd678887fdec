// bloomkit/io/header.hpp — the 128-byte header every bloomkit file (bkf) starts with: its byte
// layout, the decoded form (file_header), and the checks that do not depend on the filter kind
// (docs/FORMAT.md).
//
// Bytes 0..23 and 40..63, 72..95 and 120..127 mean the same for every kind. Bytes 14, 24..39,
// 64..71 and 96..119 are the kind's parameters; each kind's codec (io/*_codec.hpp) reads and
// checks them, and says what they mean (io/any_codec.hpp: a header's name, keys, rate).
#pragma once

#include <any>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>

#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/hash/endian.hpp"

namespace bloomkit {

/// The first eight bytes of every bloomkit file. The high-bit first byte and the CR LF / ^Z / LF
/// that follow catch a file mangled by a text-mode transfer, as PNG's signature does.
inline constexpr std::array<unsigned char, 8> file_magic = {0x89, 'B', 'L', 'M', '\r', '\n', 0x1a, '\n'};

/// Whether `first_bytes` (at least the first eight bytes of a file or stream, or all of a
/// shorter one) start with the bloomkit signature: how a reader of other data (lines of keys)
/// tells that it was given a filter file instead.
[[nodiscard]] inline bool starts_with_magic(std::span<const std::byte> first_bytes) noexcept {
    return first_bytes.size() >= file_magic.size() &&
           std::memcmp(first_bytes.data(), file_magic.data(), file_magic.size()) == 0;
}

/// The format version bloomkit writes. Version 3 (docs/FORMAT.md) records what the keys are
/// (text or integers); version 2 added the chunk table that lets a filter be updated in place.
/// Versions 1 and 2 are still read.
inline constexpr std::uint16_t file_format_version = 3;
/// The oldest format version bloomkit still reads.
inline constexpr std::uint16_t oldest_readable_version = 1;
/// Bytes of a file's header, in every version: the payload follows it.
inline constexpr std::uint16_t file_header_size = 128;

/// Version 2 checksums the payload by chunks of 2^chunk_shift bytes; 64 KiB by default.
inline constexpr std::uint32_t default_chunk_shift = 16;
///@{
/// The chunk sizes a file may declare: 4 KiB to 1 GiB.
inline constexpr std::uint32_t min_chunk_shift = 12, max_chunk_shift = 30;
///@}

/// The bits of a version-2 header's flags.
enum file_flags : std::uint32_t {
    /// An update in place began and did not finish (its writer was killed): the payload holds
    /// every key it held before, but its chunk checksums may not match.
    update_in_progress = 1,
};

/// What a file holds: its kind code. Each kind's codec names its own (file_codec<F>::kind,
/// io/*_codec.hpp); every type of a kind (a Bloom filter's layouts, a binary fuse filter's
/// widths) shares it, and the kind's parameters tell them apart. The values are stored in files.
enum class filter_kind : std::uint16_t {};

namespace detail {
/// Bytes after the payload: a version 2 file's chunk table and the table's checksum (8 bytes
/// per chunk of the payload, and 8 more); nothing in version 1.
[[nodiscard]] constexpr std::uint64_t trailer_bytes(std::uint16_t version, std::uint64_t payload_size,
                                                    std::uint32_t chunk_shift) noexcept {
    if (version < 2) return 0;
    const std::uint64_t chunks =
        (payload_size >> chunk_shift) + ((payload_size & ((std::uint64_t{1} << chunk_shift) - 1)) != 0);
    return 8 * chunks + 8;
}
}  // namespace detail

/// Every field of a file's header, decoded and validated: the fields every kind has, and the
/// kind's own parameters as its codec decodes them.
struct file_header {
    /// The format version the file is written in.
    std::uint16_t version = file_format_version;
    /// The kind of filter it holds.
    filter_kind kind{};
    /// The filter's hash algorithm.
    hash_algorithm hash = default_hash_algorithm;
    /// The filter's hash seed.
    std::uint64_t seed = default_seed;
    std::uint64_t expected_keys = 0;   ///< what the filter was sized for; 0 if built from a geometry
    double target_fpr = 0;             ///< likewise
    std::uint64_t inserted_count = 0;  ///< the keys it was given, as its codec counts them
    /// Where the payload starts: right after the header.
    std::uint64_t payload_offset = file_header_size;
    /// The payload's bytes.
    std::uint64_t payload_size = 0;
    std::uint64_t payload_checksum = 0;               ///< version 1 only: of the whole payload
    key_format keys = key_format::unrecorded;         ///< version 3: what the keys are (hash.hpp)
    guava_funnel funnel = guava_funnel::none;         ///< version 3: a murmur3_128 hasher's Guava funnel
    std::uint32_t flags = 0;                          ///< version 2: file_flags
    std::uint32_t chunk_shift = default_chunk_shift;  ///< version 2: the payload's chunks are 2^shift bytes

    /// The kind's parameters, as its codec decodes them: kind_parameters<F>(h) (io/codec.hpp).
    std::any parameters;

    /// The whole file's size: header, payload and (version 2) chunk table.
    [[nodiscard]] constexpr std::uint64_t file_size() const noexcept {
        return payload_offset + payload_size + detail::trailer_bytes(version, payload_size, chunk_shift);
    }
};

namespace detail {

/// Byte offsets of the header fields.
namespace header_field {
inline constexpr std::size_t magic = 0, version = 8, header_size = 10, kind = 12, variant = 14, hash = 15, seed = 16,
                             parameter64 = 24, parameter32a = 32, parameter32b = 36, expected_keys = 40,
                             target_fpr = 48, inserted_count = 56, parameter_aux = 64, payload_offset = 72,
                             payload_size = 80, payload_checksum = 88, key_format = 88, funnel = 89, extra = 96,
                             flags = 112, chunk_shift = 116, header_checksum = 120;
}  // namespace header_field

inline std::uint64_t checksum(const void* data, std::size_t size) noexcept { return XXH3_64bits(data, size); }

/// The header's bytes, with little-endian accessors by offset.
struct header_bytes {
    std::array<std::byte, file_header_size> bytes{};

    template <class T>
    [[nodiscard]] T get(std::size_t offset) const noexcept {
        if constexpr (std::is_same_v<T, double>)
            return std::bit_cast<double>(load_le<std::uint64_t>(bytes.data() + offset));
        else if constexpr (sizeof(T) == 1) return static_cast<T>(bytes[offset]);
        else return load_le<T>(bytes.data() + offset);
    }
    template <class T>
    void set(std::size_t offset, T value) noexcept {
        if constexpr (std::is_same_v<T, double>)
            store_le<std::uint64_t>(bytes.data() + offset, std::bit_cast<std::uint64_t>(value));
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

/// "N bytes", or "nothing at all" for an empty input: how a short input is described.
inline std::string byte_count(std::uint64_t size) {
    return size == 0 ? std::string("empty (0 bytes)") : std::to_string(size) + (size == 1 ? " byte" : " bytes");
}

/// The checks every file passes before its kind is even looked at, in the order that gives
/// the most useful message: signature, version (before the checksum, so that a newer format
/// reads as newer, not corrupt), completeness, checksum, then the kind-independent fields.
/// `seen` holds the input's first min(size, 128) bytes; `size` is the whole input's size,
/// when known (a stream's is not).
inline header_bytes check_common_header(std::span<const std::byte> seen, std::optional<std::uint64_t> size,
                                        const std::string& where) {
    namespace f = header_field;
    const std::uint64_t total = size.value_or(seen.size());
    if (seen.empty()) reject(format_errc::truncated, where, "empty (0 bytes): not a bloomkit filter file");
    const std::size_t magic_seen = std::min(seen.size(), file_magic.size());
    if (std::memcmp(seen.data(), file_magic.data(), magic_seen) != 0)
        reject(format_errc::bad_magic, where,
               "not a bloomkit filter file (its first bytes are not the bloomkit signature)");
    if (seen.size() < f::version + 2)
        reject(format_errc::truncated, where, "truncated: " + byte_count(total) + ", not even a whole header");
    const auto version = load_le<std::uint16_t>(seen.data() + f::version);
    if (version < oldest_readable_version || version > file_format_version)
        reject(format_errc::unsupported_version, where,
               "written in file format version " + std::to_string(version) + "; this bloomkit reads versions " +
                   std::to_string(oldest_readable_version) + " to " + std::to_string(file_format_version) +
                   (version > file_format_version ? " (upgrade bloomkit to read it)" : ""));
    if (seen.size() < file_header_size)
        reject(format_errc::truncated, where,
               "truncated: " + byte_count(total) + ", but the header alone is " + std::to_string(file_header_size));
    header_bytes h;
    std::memcpy(h.bytes.data(), seen.data(), file_header_size);
    if (h.get<std::uint64_t>(f::header_checksum) != checksum(h.bytes.data(), f::header_checksum))
        reject(format_errc::header_checksum, where, "header checksum mismatch: the header is corrupt");
    if (const auto declared = h.get<std::uint16_t>(f::header_size); declared != file_header_size)
        reject_field(where,
                     "header size is " + std::to_string(declared) + ", expected " + std::to_string(file_header_size));
    const auto last_hash = version == 1 ? 2 : version == 2 ? 4 : static_cast<int>(last_hash_algorithm);
    if (const auto hash = h.get<std::uint8_t>(f::hash); hash < 1 || hash > last_hash)
        reject_field(where, "unknown hash algorithm " + std::to_string(hash));
    if (const double fpr = h.get<double>(f::target_fpr); !(fpr == 0 || (fpr > 0 && fpr < 1)))
        reject_field(where, "target false-positive rate " + show_number(fpr) + " is not in (0, 1)");
    if (const auto offset = h.get<std::uint64_t>(f::payload_offset); offset != file_header_size)
        reject_field(where,
                     "payload offset " + std::to_string(offset) + ", expected " + std::to_string(file_header_size));
    if (version == 2) {
        if (const auto checksum_field = h.get<std::uint64_t>(f::payload_checksum); checksum_field != 0)
            reject_field(where, "payload checksum field is " + std::to_string(checksum_field) +
                                    ": version 2 checks the payload by chunks, and keeps 0 there");
    }
    if (version >= 3) {
        if (const auto keys = h.get<std::uint8_t>(f::key_format); keys > static_cast<std::uint8_t>(last_key_format))
            reject_field(where, "unknown key format " + std::to_string(keys));
        const auto funnel = h.get<std::uint8_t>(f::funnel);
        const bool guava_hash = h.get<std::uint8_t>(f::hash) == static_cast<std::uint8_t>(hash_algorithm::murmur3_128);
        if (funnel > static_cast<std::uint8_t>(last_guava_funnel) || (funnel != 0) != guava_hash)
            reject_field(where, "Guava funnel code " + std::to_string(funnel) +
                                    (guava_hash ? " is not one of Guava's funnels" : " with a hash that has none"));
        const bool dcso_hash = h.get<std::uint8_t>(f::hash) == static_cast<std::uint8_t>(hash_algorithm::fnv1_64);
        if ((guava_hash || dcso_hash) && h.get<std::uint64_t>(f::seed) != 0)
            reject_field(where, std::string(guava_hash ? "Guava's hash (murmur3-128)" : "DCSO's hash (fnv1-64)") +
                                    " has no seed, not " + std::to_string(h.get<std::uint64_t>(f::seed)));
        for (std::size_t i = f::funnel + 1; i < f::extra; ++i)
            if (h.bytes[i] != std::byte{0}) reject_field(where, "reserved byte " + std::to_string(i) + " is not zero");
    }
    if (version >= 2) {
        if (const auto flags = h.get<std::uint32_t>(f::flags); (flags & ~std::uint32_t{update_in_progress}) != 0)
            reject_field(where, "unknown flags " + std::to_string(flags));
        if (const auto shift = h.get<std::uint32_t>(f::chunk_shift); shift < min_chunk_shift || shift > max_chunk_shift)
            reject_field(where, "chunks of 2^" + std::to_string(shift) + " bytes (this bloomkit reads 2^" +
                                    std::to_string(min_chunk_shift) + " to 2^" + std::to_string(max_chunk_shift) + ")");
    }
    return h;
}

/// A file (or byte buffer) must end exactly where the payload (and its trailer) does.
inline void check_file_size(const file_header& h, std::uint64_t file_size, const std::string& where) {
    const std::uint64_t trailer = trailer_bytes(h.version, h.payload_size, h.chunk_shift);
    if (h.payload_size > UINT64_MAX - file_header_size - trailer ||
        file_size < file_header_size + h.payload_size + trailer)
        reject(format_errc::truncated, where,
               "truncated: " + byte_count(file_size) + ", but the header announces " +
                   std::to_string(file_header_size + h.payload_size + trailer));
    const std::uint64_t expected = file_header_size + h.payload_size + trailer;
    if (file_size > expected)
        reject_field(where, std::to_string(file_size - expected) + " unexpected bytes after the filter");
}

/// Requires the kind's unused extra bytes, from `from` on, to be zero (reserved for later
/// versions): up to the header checksum in version 1, up to the flags in version 2.
inline void check_reserved(const header_bytes& h, std::size_t from, const std::string& where) {
    const std::size_t end =
        h.get<std::uint16_t>(header_field::version) >= 2 ? header_field::flags : header_field::header_checksum;
    for (std::size_t i = from; i < end; ++i)
        if (h.bytes[i] != std::byte{0}) reject_field(where, "reserved byte " + std::to_string(i) + " is not zero");
}

/// Seals a header in the current version: magic, version, size and the checksum over
/// everything before it.
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
