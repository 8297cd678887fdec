// bloomkit/io/dcso.hpp — the files of DCSO's bloom tool (github.com/DCSO/bloom v0.2.4, Debian's
// golang-github-dcso-bloom-cli; also flor, fleur and Tenzir's matcher), read and written byte
// for byte, attached data included (docs/FORMAT.md, "DCSO bloom files"):
//
//     offset 0   u64 LE   flags: the low byte is the version, 1
//            8   u64 LE   n, the capacity it was sized for
//           16   f64 LE   p, the false-positive rate it was sized for
//           24   u64 LE   k, the number of hash functions
//           32   u64 LE   m, the number of bits
//           40   u64 LE   N, the keys that set a bit when inserted ("elements present")
//           48   ⌈m/64⌉ × u64 LE  the bits: bit i is bit i mod 64 of word i / 64
//           ...  any bytes to the end: data attached with `bloom set-data`
//
// The tool may gzip the whole file (`bloom --gzip`); these functions take the bytes as they
// are and say so when given gzip (the command decompresses; a library user can with zlib).
// Every field is checked before anything is allocated.
//
//     std::vector<std::byte> attached;
//     auto filter = bloomkit::io::dcso::from_bytes(bytes, &attached);
//     bool maybe = filter.contains("198.51.100.7");         // what `bloom check` answers
//     auto out = bloomkit::io::dcso::to_bytes(filter, attached);
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <istream>
#include <iterator>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash/endian.hpp"
#include "bloomkit/io/filter_contents.hpp"
#include "bloomkit/io/header.hpp"
#include "bloomkit/io/streams.hpp"
#include "bloomkit/kinds.hpp"

namespace bloomkit::io::dcso {

/// Bytes before the words.
inline constexpr std::size_t header_size = 48;
/// The version DCSO's bloom writes and reads (the low byte of the flags).
inline constexpr std::uint64_t version = 1;

/// A file's first 48 bytes, decoded and checked.
struct file_header {
    /// The low byte is the version, 1.
    std::uint64_t flags = version;
    std::uint64_t capacity = 0;  ///< n
    double fpr = 0;              ///< p
    std::uint64_t hashes = 0;    ///< k
    std::uint64_t bits = 0;      ///< m
    std::uint64_t present = 0;   ///< N
    /// Bytes of the words after the header: m bits in whole 64-bit words.
    [[nodiscard]] std::uint64_t payload_size() const noexcept { return (bits / 64 + (bits % 64 != 0)) * 8; }
};

/// Whether `first_bytes` start like a gzip stream (RFC 1952: 1f 8b).
[[nodiscard]] inline bool is_gzip(std::span<const std::byte> first_bytes) noexcept {
    return first_bytes.size() >= 2 && first_bytes[0] == std::byte{0x1f} && first_bytes[1] == std::byte{0x8b};
}

namespace detail {

using bloomkit::detail::load_le;
using bloomkit::detail::reject;

/// Decodes and checks the header in `seen` (the input's first bytes, up to 48).
inline file_header decode_header(std::span<const std::byte> seen, const std::string& where) {
    if (is_gzip(seen))
        reject(format_errc::bad_magic, where, "gzip-compressed: decompress it first (a DCSO file made with --gzip)");
    if (seen.size() < header_size)
        reject(format_errc::truncated, where,
               "truncated: " + bloomkit::detail::byte_count(seen.size()) +
                   ", not even a DCSO bloom file's 48-byte header");
    file_header h;
    h.flags = load_le<std::uint64_t>(seen.data());
    h.capacity = load_le<std::uint64_t>(seen.data() + 8);
    h.fpr = std::bit_cast<double>(load_le<std::uint64_t>(seen.data() + 16));
    h.hashes = load_le<std::uint64_t>(seen.data() + 24);
    h.bits = load_le<std::uint64_t>(seen.data() + 32);
    h.present = load_le<std::uint64_t>(seen.data() + 40);
    if ((h.flags & 0xff) != version)
        reject(format_errc::bad_magic, where,
               "not a DCSO bloom file: version " + std::to_string(h.flags & 0xff) + " (DCSO's bloom writes 1)");
    const auto field = [&](const std::string& why) { reject(format_errc::invalid_field, where, why); };
    if (!(h.fpr >= 0 && h.fpr < 1)) field("false-positive rate " + show_number(h.fpr) + " is not in [0, 1)");
    if (h.bits == 0 || h.bits > (std::uint64_t{1} << 62)) field(std::to_string(h.bits) + " bits: no such filter");
    if (h.hashes == 0 || h.hashes > max_hashes_of(bloom_layout::dcso))
        field(std::to_string(h.hashes) + " hash functions (1 to " + std::to_string(max_hashes_of(bloom_layout::dcso)) +
              " are read)");
    return h;
}

/// Writes `filter` and `data` as a DCSO bloom file through write(span of bytes).
template <class Write>
void write_file(const dcso_bloom_filter& filter, std::span<const std::byte> data, Write write) {
    std::byte head[header_size];
    const auto put = [&](std::size_t at, std::uint64_t value) { bloomkit::detail::store_le(head + at, value); };
    put(0, version);
    put(8, filter.expected_keys());
    put(16, std::bit_cast<std::uint64_t>(filter.target_fpr()));
    put(24, filter.hash_count());
    put(32, filter.bit_count());
    put(40, filter.inserted_count());
    write(std::span<const std::byte>(head));
    if constexpr (std::endian::native == std::endian::little) {
        write(std::as_bytes(filter.words()));
    } else {
        std::byte word[8];
        for (const std::uint64_t w : filter.words()) bloomkit::detail::store_le(word, w), write(std::span(word));
    }
    if (!data.empty()) write(data);
}

}  // namespace detail

/// Why `filter` cannot be written as a DCSO bloom file (it is not a DCSO filter: its bits mean
/// nothing to DCSO's bloom, which places them itself), or empty when it can.
inline std::string refusal(const any_filter& filter) {
    if (const auto* dcso = std::get_if<dcso_bloom_filter>(&filter)) {
        // DCSO's tools read lines as bytes, and its file records nothing else: a file of integer
        // keys would be read as text by every reader that is not told otherwise.
        if (is_integer(dcso->recorded_key_format()))
            return "a DCSO bloom file holds text keys (DCSO's bloom and flor read lines as bytes), not " +
                   std::string(to_string(dcso->recorded_key_format())) + " integers: keep integer keys in a bkf file";
        return {};
    }
    return "a " + kind_name(filter) +
           " cannot be written as a DCSO bloom file: DCSO's bloom places a key's bits itself, so only a DCSO filter "
           "converts; build one from the keys (--format dcso)";
}

namespace detail {

/// The DCSO filter `filter` holds; throws invalid_argument with refusal()'s reason otherwise.
inline const dcso_bloom_filter& dcso_filter_of(const any_filter& filter) {
    if (const auto* f = std::get_if<dcso_bloom_filter>(&filter)) return *f;
    throw invalid_argument(refusal(filter));
}

inline dcso_bloom_filter assemble(const file_header& h, bloomkit::detail::zeroed_block payload,
                                  const std::string& where) {
    const std::uint64_t words = h.payload_size() / 8;
    auto storage = bloomkit::detail::word_storage<std::uint64_t>::adopt(std::move(payload), words);
    if constexpr (std::endian::native != std::endian::little)
        for (std::uint64_t i = 0; i < words; ++i)
            storage.mutable_data()[i] = bloomkit::detail::little_endian(storage.data()[i]);
    try {
        dcso_bloom_filter filter({h.bits, static_cast<std::uint32_t>(h.hashes)}, hasher(hash_algorithm::fnv1_64),
                                 std::move(storage), {h.capacity, h.fpr}, h.present);
        filter.record_key_format(key_format::text);
        return filter;
    } catch (const invalid_argument& e) {
        reject(format_errc::invalid_field, where, e.what());
    }
}

}  // namespace detail

// --- Byte buffers ---------------------------------------------------------------------------

/// The filter as DCSO's bloom writes it, followed by `data` (what `bloom get-data` prints).
inline std::vector<std::byte> to_bytes(const dcso_bloom_filter& filter, std::span<const std::byte> data = {}) {
    std::vector<std::byte> bytes;
    bytes.reserve(header_size + filter.size_in_bytes() + data.size());
    detail::write_file(filter, data,
                       [&](std::span<const std::byte> p) { bytes.insert(bytes.end(), p.begin(), p.end()); });
    return bytes;
}
/// The DCSO filter `filter` holds, as a DCSO file; throws invalid_argument for another kind.
inline std::vector<std::byte> to_bytes(const any_filter& filter, std::span<const std::byte> data = {}) {
    return dcso::to_bytes(detail::dcso_filter_of(filter), data);
}

/// Decodes and checks the header of a DCSO file (its first 48 bytes or more).
inline file_header read_header(std::span<const std::byte> bytes, const std::string& name = "buffer") {
    return detail::decode_header(bytes.first(std::min(bytes.size(), header_size)), name);
}

/// The filter a DCSO bloom file in `bytes` holds; what follows its bits (attached data) goes
/// to `data` when given. Throws file_format_error naming what is wrong.
inline dcso_bloom_filter from_bytes(std::span<const std::byte> bytes, std::vector<std::byte>* data = nullptr,
                                    const std::string& name = "buffer") {
    const file_header h = read_header(bytes, name);
    if (bytes.size() - header_size < h.payload_size())
        bloomkit::detail::reject(format_errc::truncated, name,
                                 "truncated: " + bloomkit::detail::byte_count(bytes.size()) +
                                     ", but its header announces " + std::to_string(h.bits) + " bits, " +
                                     std::to_string(header_size + h.payload_size()) + " bytes with the header");
    auto payload = bloomkit::detail::payload_memory(h.payload_size());
    std::memcpy(payload.data(), bytes.data() + header_size, static_cast<std::size_t>(h.payload_size()));
    if (data) data->assign(bytes.begin() + static_cast<std::ptrdiff_t>(header_size + h.payload_size()), bytes.end());
    return detail::assemble(h, std::move(payload), name);
}

// --- Streams --------------------------------------------------------------------------------

/// Writes the filter and `data` to `out` as DCSO's bloom does. Throws io_error when it fails.
inline void save(const dcso_bloom_filter& filter, std::ostream& out, std::span<const std::byte> data = {}) {
    bloomkit::detail::write_to(out, [&](const auto& write) { detail::write_file(filter, data, write); });
}
/// save() of the DCSO filter `filter` holds; throws invalid_argument when it holds another kind.
inline void save(const any_filter& filter, std::ostream& out, std::span<const std::byte> data = {}) {
    dcso::save(detail::dcso_filter_of(filter), out, data);
}

/// Reads a DCSO filter from `in`, and the rest of the stream as its attached data (into `data`
/// when given): a DCSO file ends only where its input does.
inline dcso_bloom_filter load(std::istream& in, std::vector<std::byte>* data = nullptr,
                              const std::string& name = "stream") {
    std::byte head[header_size];
    const file_header h = detail::decode_header(
        std::span<const std::byte>(head, bloomkit::detail::read_some(in, head, sizeof head)), name);
    auto payload = bloomkit::detail::read_payload(in, h.payload_size(), [&](std::uint64_t got) {
        bloomkit::detail::reject(format_errc::truncated, name,
                                 "truncated: the DCSO filter's " + std::to_string(h.bits) + " bits are " +
                                     std::to_string(h.payload_size()) + " bytes, but the input ends after " +
                                     std::to_string(got));
    });
    std::vector<std::byte> rest;
    char piece[1 << 14];
    for (std::size_t got; (got = bloomkit::detail::read_some(in, piece, sizeof piece)) > 0;)
        rest.insert(rest.end(), reinterpret_cast<const std::byte*>(piece),
                    reinterpret_cast<const std::byte*>(piece) + got);
    if (data) *data = std::move(rest);
    return detail::assemble(h, std::move(payload), name);
}

// --- The format, for formats.hpp -----------------------------------------------------------

/// Whether the whole input `bytes` is a DCSO bloom file: a valid header, and at least the words
/// it announces after it.
[[nodiscard]] inline bool recognizes(std::span<const std::byte> bytes) noexcept {
    try {
        return bytes.size() - std::min(bytes.size(), header_size) >= read_header(bytes).payload_size();
    } catch (const error&) {
        return false;
    }
}

/// DCSO's bloom file as a format of formats.hpp.
struct format {
    /// The format's word, as the command's --format takes it.
    static constexpr std::string_view word = "dcso";
    /// The format's name in messages.
    static constexpr std::string_view name = "DCSO bloom file";
    /// The one layout it holds.
    static constexpr std::optional<bloom_layout> layout = bloom_layout::dcso;
    ///@{
    /// A DCSO file keeps its count (N), has no funnel to lose (its hash takes none), and
    /// carries attached data after its bits.
    static constexpr bool records_count = true, records_funnel = true, keeps_attached_data = true;
    ///@}
    /// Whether the whole input `bytes` is a DCSO bloom file.
    static bool recognizes(std::span<const std::byte> bytes) noexcept { return dcso::recognizes(bytes); }
    /// The filter in `bytes` and the data attached after its bits; `where` names the input in
    /// messages.
    static filter_contents read(std::span<const std::byte> bytes, const read_options& options,
                                const std::string& where) {
        std::vector<std::byte> attached;
        any_filter filter = dcso::from_bytes(bytes, &attached, where);
        if (is_integer(options.keys))  // what a DCSO file holds is text, whatever the reader says
            throw key_format_mismatch(key_format::text, options.keys, where);
        return {std::move(filter), word, std::move(attached)};
    }
    /// Why a DCSO file cannot hold `filter` exactly, or empty when it can.
    static std::string refusal(const any_filter& filter) { return dcso::refusal(filter); }
    /// The file DCSO's bloom reads, `attached` after the bits.
    static std::vector<std::byte> write(const any_filter& filter, std::span<const std::byte> attached) {
        return dcso::to_bytes(filter, attached);
    }
};

}  // namespace bloomkit::io::dcso
