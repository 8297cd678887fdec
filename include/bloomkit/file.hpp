// bloomkit/file.hpp — the portable file format: save, load, map, and open a file of any kind
// by its header. The byte layout is documented, with an annotated hexdump, in docs/FORMAT.md.
//
// In short: a 128-byte little-endian header (magic, version, kind, layout, hash algorithm and
// seed, geometry, sizing, counts, payload offset/size/checksum, and a checksum of the header
// itself), then the filter's words, little-endian, starting at byte 128 — a multiple of 64,
// so a mapped file's blocks are cache-line aligned and can be queried in place. Checksums are
// XXH3-64 (seed 0). A file's bytes depend only on the filter's contents, never on the build.
//
// Loading never trusts the file: every field is checked before it is used, and each failure
// throws a file_format_error whose reason() names the check and whose message names the file
// and the offending value. Saving replaces the destination atomically (temporary file, fsync,
// rename): a crash leaves the old file or the new one, never half of one.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/detail/endian.hpp"
#include "bloomkit/detail/posix_file.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit {

/// The first eight bytes of every bloomkit file. The high-bit first byte and the CR LF / ^Z / LF
/// that follow catch a file mangled by a text-mode transfer, as PNG's signature does.
inline constexpr std::array<unsigned char, 8> file_magic = {0x89, 'B', 'L', 'M', '\r', '\n', 0x1a, '\n'};
inline constexpr std::uint16_t file_format_version = 1;
inline constexpr std::uint16_t file_header_size = 128;

/// What a file holds. The numeric values are stored in files.
enum class filter_kind : std::uint16_t {
    bloom = 1,
};

/// Every field of a file's header, decoded and validated.
struct file_header {
    std::uint16_t version = file_format_version;
    filter_kind kind = filter_kind::bloom;
    bloom_layout layout = bloom_layout::block;
    hash_algorithm hash = hash_algorithm::xxh3_128;
    std::uint64_t seed = default_seed;
    bloom_geometry geometry{};
    std::uint64_t expected_keys = 0;  ///< 0 when built from an explicit geometry
    double target_fpp = 0;            ///< 0 when built from an explicit geometry
    std::uint64_t inserted_count = 0;
    std::uint64_t set_bits = 0;       ///< bits set when saved: info needs no pass over the payload
    std::uint64_t payload_offset = file_header_size;
    std::uint64_t payload_size = 0;
    std::uint64_t payload_checksum = 0;

    /// Keys held, from set_bits (sizing.hpp's estimate); +infinity when every bit is set.
    [[nodiscard]] double approximate_count() const noexcept { return estimate_keys(layout, geometry, set_bits); }
    /// FPR from set_bits.
    [[nodiscard]] double current_fpr() const { return bloomkit::current_fpr(layout, geometry, set_bits); }
};

namespace detail {

// Byte offsets of the header fields (docs/FORMAT.md).
namespace header_field {
inline constexpr std::size_t magic = 0, version = 8, header_size = 10, kind = 12, layout = 14, hash = 15, seed = 16,
                             bits = 24, hashes = 32, block_bits = 36, expected_keys = 40, target_fpp = 48,
                             inserted_count = 56, set_bits = 64, payload_offset = 72, payload_size = 80,
                             payload_checksum = 88, reserved = 96, header_checksum = 120;
}

inline std::uint64_t checksum(const void* data, std::size_t size) noexcept { return XXH3_64bits(data, size); }


/// Payload bytes of a filter of this layout and geometry: whole words (the blocked layouts'
/// blocks are whole words already; classic rounds up to a 64-bit word).
inline std::uint64_t payload_bytes(bloom_layout layout, bloom_geometry g) noexcept {
    return layout == bloom_layout::classic ? (g.bits / 64 + (g.bits % 64 != 0)) * 8 : g.bits / 8;
}

inline std::array<std::byte, file_header_size> encode_header(const file_header& h) {
    namespace f = header_field;
    std::array<std::byte, file_header_size> bytes{};
    std::memcpy(bytes.data() + f::magic, file_magic.data(), file_magic.size());
    store_le<std::uint16_t>(bytes.data() + f::version, h.version);
    store_le<std::uint16_t>(bytes.data() + f::header_size, file_header_size);
    store_le<std::uint16_t>(bytes.data() + f::kind, static_cast<std::uint16_t>(h.kind));
    bytes[f::layout] = static_cast<std::byte>(h.layout);
    bytes[f::hash] = static_cast<std::byte>(h.hash);
    store_le<std::uint64_t>(bytes.data() + f::seed, h.seed);
    store_le<std::uint64_t>(bytes.data() + f::bits, h.geometry.bits);
    store_le<std::uint32_t>(bytes.data() + f::hashes, h.geometry.hashes);
    store_le<std::uint32_t>(bytes.data() + f::block_bits, static_cast<std::uint32_t>(block_bits(h.layout)));
    store_le<std::uint64_t>(bytes.data() + f::expected_keys, h.expected_keys);
    store_le<std::uint64_t>(bytes.data() + f::target_fpp, std::bit_cast<std::uint64_t>(h.target_fpp));
    store_le<std::uint64_t>(bytes.data() + f::inserted_count, h.inserted_count);
    store_le<std::uint64_t>(bytes.data() + f::set_bits, h.set_bits);
    store_le<std::uint64_t>(bytes.data() + f::payload_offset, h.payload_offset);
    store_le<std::uint64_t>(bytes.data() + f::payload_size, h.payload_size);
    store_le<std::uint64_t>(bytes.data() + f::payload_checksum, h.payload_checksum);
    store_le<std::uint64_t>(bytes.data() + f::header_checksum, checksum(bytes.data(), f::header_checksum));
    return bytes;
}

/// Decodes and validates a header read from a file of `file_size` bytes. `bytes` holds the
/// file's first min(file_size, 128) bytes. Throws file_format_error naming `where`.
inline file_header decode_header(std::span<const std::byte> bytes, std::uint64_t file_size, const std::string& where) {
    namespace f = header_field;
    auto fail = [&](format_errc reason, const std::string& why) -> void {
        throw file_format_error(reason, "'" + where + "': " + why);
    };
    auto bad_field = [&](const std::string& why) { fail(format_errc::invalid_field, why); };

    const std::size_t magic_seen = std::min(bytes.size(), file_magic.size());
    if (magic_seen > 0 && std::memcmp(bytes.data(), file_magic.data(), magic_seen) != 0)  // an empty map has no data()
        fail(format_errc::bad_magic, "not a bloomkit filter file (its first bytes are not the bloomkit signature)");
    if (bytes.size() < f::version + 2)
        fail(format_errc::truncated, "truncated: " + std::to_string(file_size) + " bytes, not even a whole header");
    const auto version = load_le<std::uint16_t>(bytes.data() + f::version);
    if (version != file_format_version)
        fail(format_errc::unsupported_version,
             "written in file format version " + std::to_string(version) + "; this bloomkit reads version " +
                 std::to_string(file_format_version) + (version > file_format_version ? " (upgrade bloomkit to read it)" : ""));
    if (bytes.size() < file_header_size)
        fail(format_errc::truncated, "truncated: " + std::to_string(file_size) + " bytes, but the header alone is " +
                                         std::to_string(file_header_size));
    const auto header_size = load_le<std::uint16_t>(bytes.data() + f::header_size);
    const auto stored_checksum = load_le<std::uint64_t>(bytes.data() + f::header_checksum);
    if (stored_checksum != checksum(bytes.data(), f::header_checksum))
        fail(format_errc::header_checksum, "header checksum mismatch: the header is corrupt");
    if (header_size != file_header_size)
        bad_field("header size is " + std::to_string(header_size) + ", expected " + std::to_string(file_header_size));

    file_header h;
    h.version = version;
    const auto kind = load_le<std::uint16_t>(bytes.data() + f::kind);
    if (kind != static_cast<std::uint16_t>(filter_kind::bloom)) bad_field("unknown filter kind " + std::to_string(kind));
    h.kind = static_cast<filter_kind>(kind);
    const auto layout = static_cast<std::uint8_t>(bytes[f::layout]);
    if (layout < 1 || layout > 3) bad_field("unknown Bloom filter layout " + std::to_string(layout));
    h.layout = static_cast<bloom_layout>(layout);
    const auto hash = static_cast<std::uint8_t>(bytes[f::hash]);
    if (hash < 1 || hash > 2) bad_field("unknown hash algorithm " + std::to_string(hash));
    h.hash = static_cast<hash_algorithm>(hash);
    h.seed = load_le<std::uint64_t>(bytes.data() + f::seed);
    h.geometry = {load_le<std::uint64_t>(bytes.data() + f::bits), load_le<std::uint32_t>(bytes.data() + f::hashes)};
    try {
        check_geometry(h.layout, h.geometry);
    } catch (const invalid_argument& e) {
        bad_field(e.what());
    }
    const auto stored_block_bits = load_le<std::uint32_t>(bytes.data() + f::block_bits);
    if (stored_block_bits != block_bits(h.layout))
        bad_field("block size " + std::to_string(stored_block_bits) + " bits does not match the " +
                  std::string(to_string(h.layout)) + " layout");
    h.expected_keys = load_le<std::uint64_t>(bytes.data() + f::expected_keys);
    h.target_fpp = std::bit_cast<double>(load_le<std::uint64_t>(bytes.data() + f::target_fpp));
    if (!(h.target_fpp == 0 || (h.target_fpp > 0 && h.target_fpp < 1)))
        bad_field("target false-positive rate " + std::to_string(h.target_fpp) + " is not in (0, 1)");
    h.inserted_count = load_le<std::uint64_t>(bytes.data() + f::inserted_count);
    h.set_bits = load_le<std::uint64_t>(bytes.data() + f::set_bits);
    if (h.set_bits > h.geometry.bits)
        bad_field(std::to_string(h.set_bits) + " bits set out of only " + std::to_string(h.geometry.bits));
    for (std::size_t i = f::reserved; i < f::header_checksum; ++i)
        if (bytes[i] != std::byte{0}) bad_field("reserved byte " + std::to_string(i) + " is not zero");
    h.payload_offset = load_le<std::uint64_t>(bytes.data() + f::payload_offset);
    if (h.payload_offset != file_header_size)
        bad_field("payload offset " + std::to_string(h.payload_offset) + ", expected " + std::to_string(file_header_size));
    h.payload_size = load_le<std::uint64_t>(bytes.data() + f::payload_size);
    const std::uint64_t expected_payload = payload_bytes(h.layout, h.geometry);
    if (h.payload_size != expected_payload)
        bad_field("payload size " + std::to_string(h.payload_size) + " bytes, but " + std::to_string(h.geometry.bits) +
                  " bits need " + std::to_string(expected_payload));
    h.payload_checksum = load_le<std::uint64_t>(bytes.data() + f::payload_checksum);
    const std::uint64_t expected_size = h.payload_offset + h.payload_size;
    if (file_size < expected_size)
        fail(format_errc::truncated, "truncated: " + std::to_string(file_size) + " bytes, but the header announces " +
                                         std::to_string(expected_size));
    if (file_size > expected_size)
        bad_field(std::to_string(file_size - expected_size) + " unexpected bytes after the payload");
    return h;
}

template <class Filter>
inline constexpr bool is_bloom_filter_v = false;
template <class Layout>
inline constexpr bool is_bloom_filter_v<basic_bloom_filter<Layout>> = true;

/// The filter classes' private door for the file format.
struct bloom_file_access {
    template <class Layout>
    static file_header header_of(const basic_bloom_filter<Layout>& filter) {
        file_header h;
        h.layout = Layout::id;
        h.hash = filter.hash_function().algorithm();
        h.seed = filter.hash_function().seed();
        h.geometry = filter.geometry();
        h.expected_keys = filter.expected_keys();
        h.target_fpp = filter.target_fpp();
        h.inserted_count = filter.inserted_count();
        h.set_bits = filter.set_bit_count();
        h.payload_size = filter.size_in_bytes();
        return h;
    }

    template <class Filter>
    static Filter assemble(const file_header& h, detail::word_storage<typename Filter::word_type> words) {
        Filter filter(h.geometry, hasher(h.hash, h.seed), std::move(words));
        filter.expected_keys_ = h.expected_keys;
        filter.target_fpp_ = h.target_fpp;
        filter.inserted_ = h.inserted_count;
        return filter;
    }
};

/// Throws wrong_kind unless the file holds a Filter.
template <class Filter>
void require_layout(const file_header& h, const std::string& where) {
    if (h.layout != Filter::layout())
        throw file_format_error(format_errc::wrong_kind, "'" + where + "': holds a " + std::string(to_string(h.layout)) +
                                                             " Bloom filter, not a " +
                                                             std::string(to_string(Filter::layout())) + " one");
}

/// Byte-swaps a word array on big-endian machines (a no-op, compiled away, on little-endian).
template <class Word>
void words_to_little_endian(Word* words, std::uint64_t count) noexcept {
    if constexpr (std::endian::native != std::endian::little)
        for (std::uint64_t i = 0; i < count; ++i) words[i] = little_endian(words[i]);
}

inline std::uint64_t payload_checksum_of(const void* payload, std::uint64_t size) noexcept {
    return checksum(payload, static_cast<std::size_t>(size));
}

inline void require_payload_checksum(const file_header& h, std::uint64_t actual, const std::string& where) {
    if (actual != h.payload_checksum)
        throw file_format_error(format_errc::payload_checksum,
                                "'" + where + "': payload checksum mismatch: the filter's bits are corrupt");
}

inline file_header read_header(const file_descriptor& file, const std::filesystem::path& path) {
    std::array<std::byte, file_header_size> bytes{};
    const std::size_t got = read_at(file, path, bytes.data(), bytes.size(), 0);
    return decode_header(std::span(bytes.data(), got), file_size(file, path), path.string());
}

}  // namespace detail

/// Writes `filter` to `path` atomically (the old file, if any, survives any failure).
template <class Filter>
    requires detail::is_bloom_filter_v<Filter>
void save(const Filter& filter, const std::filesystem::path& path) {
    file_header h = detail::bloom_file_access::header_of(filter);
    const auto words = filter.words();
    std::vector<typename Filter::word_type> swapped;  // only used on big-endian machines
    const void* payload = words.data();
    if constexpr (std::endian::native != std::endian::little) {
        swapped.assign(words.begin(), words.end());
        detail::words_to_little_endian(swapped.data(), swapped.size());
        payload = swapped.data();
    }
    h.payload_checksum = detail::payload_checksum_of(payload, h.payload_size);
    const auto header = detail::encode_header(h);
    detail::replace_file(path, [&](const detail::file_descriptor& file) {
        detail::write_all(file, path, header.data(), header.size());
        detail::write_all(file, path, payload, static_cast<std::size_t>(h.payload_size));
    });
}

/// The header of a filter file, validated (without reading or verifying the payload).
inline file_header read_header(const std::filesystem::path& path) {
    return detail::read_header(detail::open_for_reading(path), path);
}

/// Reads a filter file into memory, verifying both checksums. Throws io_error when the file
/// cannot be read, file_format_error when it is not a valid file holding a Filter.
template <class Filter>
    requires detail::is_bloom_filter_v<Filter>
Filter load(const std::filesystem::path& path) {
    const detail::file_descriptor file = detail::open_for_reading(path);
    const file_header h = detail::read_header(file, path);
    detail::require_layout<Filter>(h, path.string());
    detail::word_storage<typename Filter::word_type> words(h.payload_size / sizeof(typename Filter::word_type));
    auto* data = const_cast<typename Filter::word_type*>(words.data());
    if (detail::read_at(file, path, data, static_cast<std::size_t>(h.payload_size), h.payload_offset) != h.payload_size)
        throw file_format_error(format_errc::truncated, "'" + path.string() + "': truncated while reading");
    detail::require_payload_checksum(h, detail::payload_checksum_of(data, h.payload_size), path.string());
    detail::words_to_little_endian(data, words.size());
    return detail::bloom_file_access::assemble<Filter>(h, std::move(words));
}

/// A filter queried in place in a read-only memory map of its file: opening costs no read of
/// the payload, however large. The header is validated on opening; the payload checksum only
/// when verify() is called (it reads every byte).
template <class Filter>
class mapped_filter {
public:
    [[nodiscard]] const Filter& filter() const noexcept { return filter_; }
    const Filter& operator*() const noexcept { return filter_; }
    const Filter* operator->() const noexcept { return &filter_; }
    [[nodiscard]] const file_header& header() const noexcept { return header_; }

    /// Reads the whole payload and throws file_format_error (payload_checksum) if it does not
    /// match the checksum in the header.
    void verify() const {
        detail::require_payload_checksum(
            header_, detail::payload_checksum_of(region_->data() + header_.payload_offset, header_.payload_size), where_);
    }

private:
    template <class F>
    friend mapped_filter<F> map(const std::filesystem::path& path);
    friend mapped_filter<std::variant<classic_bloom_filter, block_bloom_filter, split_block_bloom_filter>> map_any(
        const std::filesystem::path& path);

    mapped_filter(Filter filter, file_header header, std::shared_ptr<const detail::mapped_region> region, std::string where)
        : filter_(std::move(filter)), header_(header), region_(std::move(region)), where_(std::move(where)) {}

    Filter filter_;
    file_header header_;
    std::shared_ptr<const detail::mapped_region> region_;
    std::string where_;
};

namespace detail {

struct opened_map {
    file_header header;
    std::shared_ptr<const mapped_region> region;
};

inline opened_map open_map(const std::filesystem::path& path) {
    const file_descriptor file = open_for_reading(path);
    const std::uint64_t size = file_size(file, path);
    auto region = std::make_shared<const mapped_region>(file, path, size);
    const std::size_t head = static_cast<std::size_t>(std::min<std::uint64_t>(size, file_header_size));
    const file_header h = decode_header(std::span(region->data(), head), size, path.string());
    if (std::endian::native != std::endian::little)
        throw error("'" + path.string() + "': mapping needs a little-endian machine; use load()");
    region->advise_random(h.payload_offset, h.payload_size);
    return {h, std::move(region)};
}

template <class Filter>
Filter view_of(const opened_map& opened) {
    using word = typename Filter::word_type;
    const auto* words = reinterpret_cast<const word*>(opened.region->data() + opened.header.payload_offset);
    return bloom_file_access::assemble<Filter>(
        opened.header, word_storage<word>::view(words, opened.header.payload_size / sizeof(word), opened.region));
}

}  // namespace detail

/// Maps a filter file read-only and queries it in place.
template <class Filter>
mapped_filter<Filter> map(const std::filesystem::path& path) {
    detail::opened_map opened = detail::open_map(path);
    detail::require_layout<Filter>(opened.header, path.string());
    Filter filter = detail::view_of<Filter>(opened);
    return mapped_filter<Filter>(std::move(filter), opened.header, std::move(opened.region), path.string());
}

/// Any Bloom filter, when the layout is known only from a file.
using any_bloom_filter = std::variant<classic_bloom_filter, block_bloom_filter, split_block_bloom_filter>;

namespace detail {
template <class Make>
any_bloom_filter by_layout(bloom_layout layout, Make make) {
    switch (layout) {
        case bloom_layout::classic: return make(std::type_identity<classic_bloom_filter>{});
        case bloom_layout::block: return make(std::type_identity<block_bloom_filter>{});
        case bloom_layout::split_block: return make(std::type_identity<split_block_bloom_filter>{});
    }
    throw error("unknown Bloom filter layout");
}
}  // namespace detail

/// Loads a filter of whatever layout the file holds.
inline any_bloom_filter load_any(const std::filesystem::path& path) {
    return detail::by_layout(read_header(path).layout, [&](auto type) { return any_bloom_filter(load<typename decltype(type)::type>(path)); });
}

/// Maps a filter of whatever layout the file holds.
inline mapped_filter<any_bloom_filter> map_any(const std::filesystem::path& path) {
    detail::opened_map opened = detail::open_map(path);
    any_bloom_filter filter = detail::by_layout(opened.header.layout, [&](auto type) {
        return any_bloom_filter(detail::view_of<typename decltype(type)::type>(opened));
    });
    return mapped_filter<any_bloom_filter>(std::move(filter), opened.header, std::move(opened.region), path.string());
}

/// Saves whichever filter `filter` holds.
inline void save(const any_bloom_filter& filter, const std::filesystem::path& path) {
    std::visit([&](const auto& f) { save(f, path); }, filter);
}

}  // namespace bloomkit
