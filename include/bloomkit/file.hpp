// bloomkit/file.hpp — the portable file format: save, load, map, and open a file of any kind
// by its header. The byte layout is documented, with an annotated hexdump, in docs/FORMAT.md.
//
// In short: a 128-byte little-endian header (magic, version, kind, hash algorithm and seed,
// the kind's parameters, sizing, counts, payload size and checksum, and a checksum of the
// header itself), then the filter's payload, little-endian, from byte 128 — a multiple of 64,
// so a mapped file's blocks are cache-line aligned and can be queried in place. Checksums are
// XXH3-64 (seed 0). A file's bytes depend only on the filter's contents, never on the build.
//
// Loading never trusts the file: every field is checked before it is used, and each failure
// throws a file_format_error whose reason() names the check and whose message names the file
// and the offending value. Saving replaces the destination atomically (temporary file, fsync,
// rename): a crash leaves the old file or the new one, never half of one.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <array>
#include <limits>
#include <optional>
#include <tuple>
#include <variant>

#include "bloomkit/detail/file_codecs.hpp"
#include "bloomkit/detail/file_header.hpp"
#include "bloomkit/detail/posix_file.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit {

/// Every filter type the file format stores.
template <class Filter>
concept storable_filter = requires { detail::file_codec<Filter>::kind; };

namespace detail {

inline file_header read_header(const file_descriptor& file, const std::filesystem::path& path) {
    std::array<std::byte, file_header_size> bytes{};
    const std::size_t got = read_at(file, path, bytes.data(), bytes.size(), 0);
    return decode_header(std::span(bytes.data(), got), file_size(file, path), path.string());
}

/// Throws wrong_kind unless the file holds a Filter.
template <class Filter>
void require_holds(const file_header& h, const std::string& where) {
    if (file_codec<Filter>::holds(h)) return;
    std::string held = std::string(to_string(h.kind)) + " filter";
    if (h.kind == filter_kind::bloom) held = std::string(to_string(h.layout)) + " Bloom filter";
    if (h.kind == filter_kind::binary_fuse)
        held = std::to_string(h.fuse.arity) + "-wise " + std::to_string(h.fuse.fingerprint_bits) + "-bit binary fuse filter";
    reject(format_errc::wrong_kind, where, "holds a " + held + ", not a " + file_codec<Filter>::name());
}

/// The filter `h` describes, from its payload; whatever the assembly rejects (a stage table
/// out of bounds, an inconsistent fuse array...) is reported as an invalid field of `where`.
template <class Filter>
Filter assemble(const file_header& h, payload_source& payload, const std::string& where) {
    try {
        return file_codec<Filter>::assemble(h, payload);
    } catch (const file_format_error& e) {
        reject(e.reason(), where, e.what());
    } catch (const invalid_argument& e) {
        reject_field(where, e.what());
    }
}

inline void require_payload_checksum(const file_header& h, std::uint64_t actual, const std::string& where) {
    if (actual != h.payload_checksum)
        reject(format_errc::payload_checksum, where, "payload checksum mismatch: the filter's contents are corrupt");
}

struct opened_map {
    file_header header;
    std::shared_ptr<const mapped_region> region;
    [[nodiscard]] payload_source payload() const {
        return {region->data() + header.payload_offset, header.payload_size, region};
    }
};

inline opened_map open_map(const std::filesystem::path& path) {
    const file_descriptor file = open_for_reading(path);
    const std::uint64_t size = file_size(file, path);
    auto region = std::make_shared<const mapped_region>(file, path, size);
    const auto head = static_cast<std::size_t>(std::min<std::uint64_t>(size, file_header_size));
    const file_header h = decode_header(std::span(region->data(), head), size, path.string());
    if (std::endian::native != std::endian::little)
        throw error("'" + path.string() + "': mapping needs a little-endian machine; use load()");
    region->advise_random(h.payload_offset, h.payload_size);
    return {h, std::move(region)};
}

}  // namespace detail

/// Writes `filter` to `path` atomically (the old file, if any, survives any failure).
template <storable_filter Filter>
void save(const Filter& filter, const std::filesystem::path& path) {
    using codec = detail::file_codec<Filter>;
    file_header h;
    codec::describe(filter, h);
    // Two passes over the payload's pieces: the checksum goes in the header, before them.
    XXH3_state_t* state = XXH3_createState();
    if (state == nullptr) throw std::bad_alloc();
    const std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> owned(state, &XXH3_freeState);
    XXH3_64bits_reset(state);
    codec::payload(filter, [&](std::span<const std::byte> piece) { XXH3_64bits_update(state, piece.data(), piece.size()); });
    h.payload_checksum = XXH3_64bits_digest(state);
    const detail::header_bytes header = detail::encode_header<Filter>(h);
    detail::replace_file(path, [&](const detail::file_descriptor& file) {
        detail::write_all(file, path, header.bytes.data(), header.bytes.size());
        codec::payload(filter, [&](std::span<const std::byte> piece) { detail::write_all(file, path, piece.data(), piece.size()); });
    });
}

/// The header of a filter file, validated (without reading or verifying the payload).
inline file_header read_header(const std::filesystem::path& path) {
    return detail::read_header(detail::open_for_reading(path), path);
}

/// Reads a filter file into memory, verifying both checksums. Throws io_error when the file
/// cannot be read, file_format_error when it is not a valid file holding a Filter.
template <storable_filter Filter>
Filter load(const std::filesystem::path& path) {
    const detail::file_descriptor file = detail::open_for_reading(path);
    const file_header h = detail::read_header(file, path);
    detail::require_holds<Filter>(h, path.string());
    if (h.payload_size > std::numeric_limits<std::size_t>::max()) throw std::bad_alloc();
    detail::zeroed_block payload(static_cast<std::size_t>(h.payload_size));
    if (detail::read_at(file, path, payload.data(), static_cast<std::size_t>(h.payload_size), h.payload_offset) != h.payload_size)
        detail::reject(format_errc::truncated, path.string(), "truncated while reading");
    detail::require_payload_checksum(h, detail::checksum(payload.data(), static_cast<std::size_t>(h.payload_size)), path.string());
    detail::payload_source source(std::move(payload), h.payload_size);
    return detail::assemble<Filter>(h, source, path.string());
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
            header_, detail::checksum(region_->data() + header_.payload_offset, static_cast<std::size_t>(header_.payload_size)),
            where_);
    }

    mapped_filter(Filter filter, detail::opened_map opened, std::string where)
        : filter_(std::move(filter)), header_(opened.header), region_(std::move(opened.region)), where_(std::move(where)) {}

private:
    Filter filter_;
    file_header header_;
    std::shared_ptr<const detail::mapped_region> region_;
    std::string where_;
};

/// Maps a filter file read-only and queries it in place.
template <storable_filter Filter>
mapped_filter<Filter> map(const std::filesystem::path& path) {
    detail::opened_map opened = detail::open_map(path);
    detail::require_holds<Filter>(opened.header, path.string());
    detail::payload_source source = opened.payload();
    Filter filter = detail::assemble<Filter>(opened.header, source, path.string());
    return mapped_filter<Filter>(std::move(filter), std::move(opened), path.string());
}

/// Any filter, when its kind is known only from a file.
using any_filter = std::variant<classic_bloom_filter, block_bloom_filter, split_block_bloom_filter, counting_bloom_filter,
                                cuckoo_filter, scalable_bloom_filter, binary_fuse8_filter, binary_fuse16_filter,
                                binary_fuse8_4wise_filter, binary_fuse16_4wise_filter>;

namespace detail {
/// Calls make(std::type_identity<F>) for the alternative of any_filter the header describes.
template <class Make>
auto by_kind(const file_header& h, Make make) {
    using result = decltype(make(std::type_identity<block_bloom_filter>{}));
    std::optional<result> made;
    auto try_one = [&](auto type) {
        if (!made && file_codec<typename decltype(type)::type>::holds(h)) made.emplace(make(type));
    };
    std::apply([&](auto... types) { (try_one(types), ...); },
               std::tuple<std::type_identity<classic_bloom_filter>, std::type_identity<block_bloom_filter>,
                          std::type_identity<split_block_bloom_filter>, std::type_identity<counting_bloom_filter>,
                          std::type_identity<cuckoo_filter>, std::type_identity<scalable_bloom_filter>,
                          std::type_identity<binary_fuse8_filter>, std::type_identity<binary_fuse16_filter>,
                          std::type_identity<binary_fuse8_4wise_filter>, std::type_identity<binary_fuse16_4wise_filter>>{});
    if (!made) throw error("no filter type for this header");  // decode_header admits only known kinds
    return std::move(*made);
}
}  // namespace detail

/// Loads a filter of whatever kind the file holds.
inline any_filter load_any(const std::filesystem::path& path) {
    return detail::by_kind(read_header(path), [&](auto type) { return any_filter(load<typename decltype(type)::type>(path)); });
}

/// Maps a filter of whatever kind the file holds.
inline mapped_filter<any_filter> map_any(const std::filesystem::path& path) {
    detail::opened_map opened = detail::open_map(path);
    any_filter filter = detail::by_kind(opened.header, [&](auto type) {
        detail::payload_source source = opened.payload();
        return any_filter(detail::assemble<typename decltype(type)::type>(opened.header, source, path.string()));
    });
    return mapped_filter<any_filter>(std::move(filter), std::move(opened), path.string());
}

/// Saves whichever filter `filter` holds.
inline void save(const any_filter& filter, const std::filesystem::path& path) {
    std::visit([&](const auto& f) { save(f, path); }, filter);
}

}  // namespace bloomkit
