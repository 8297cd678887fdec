// bloomkit/file.hpp — filters in files: save, load, map, and read a header, on paths. The byte
// layout (the bkf format) is in docs/FORMAT.md and io/; this file adds what only files have:
// atomic replacement and memory maps.
//
//     bloomkit::save(filter, "seen.bkf");                              // atomic
//     auto loaded = bloomkit::load<bloomkit::bloom_filter>("seen.bkf"); // checks both checksums
//     auto mapped = bloomkit::map<bloomkit::any_filter>("seen.bkf");    // queried in place
//
// Saving replaces the destination atomically (a temporary file beside it, fsync, rename): a
// crash leaves the old file or the new one, never half of one. Loading checks every field and
// both checksums; mapping checks the header and leaves the payload checksum to verify(), so
// opening a 60 GB filter costs nothing.
//
// A Bloom filter file may also be updated in place (file_update.hpp) while others read it.
// Reading the header, loading and verifying take the file's shared lock (detail/file_lock.hpp),
// so they wait out an update in progress rather than see half of it; a mapped filter queried
// meanwhile sees keys appear, never disappear, and changed() tells such updates apart from any
// other change to the file.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/detail/file_lock.hpp"
#include "bloomkit/detail/mapped_region.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/io/bkf.hpp"
#include "bloomkit/os/atomic_replace.hpp"
#include "bloomkit/os/file.hpp"
#include "bloomkit/os/writer_lock.hpp"

namespace bloomkit {

namespace detail {

/// The validated header of an open file, of a type of Registry's. The caller holds the file's
/// shared lock.
template <filter_registry Registry = any_filter>
file_header read_header(const os::file_descriptor& file, const std::filesystem::path& path) {
    std::array<std::byte, file_header_size> bytes{};
    const std::size_t got = os::read_at(file, path, bytes.data(), bytes.size(), 0);
    return decode_header<Registry>(std::span(bytes.data(), got), os::file_size(file, path), path.string());
}

/// A file mapped read-only, with its validated header.
struct opened_map {
    file_header header;
    std::shared_ptr<const mapped_region> region;
    [[nodiscard]] payload_source payload() const {
        return {region->data() + header.payload_offset, header.payload_size, region};
    }
};

template <filter_registry Registry>
opened_map open_map(const std::filesystem::path& path) {
    os::file_descriptor file = os::open_for_reading(path);
    // The map, its size and modification time and the header are taken together, between
    // updates in place.
    const file_lock reading(file, path, file_lock::mode::shared);
    auto region = std::make_shared<const mapped_region>(std::move(file), path);
    const std::uint64_t size = region->size();
    const auto head = static_cast<std::size_t>(std::min<std::uint64_t>(size, file_header_size));
    const file_header h = decode_header<Registry>(std::span(region->data(), head), size, path.string());
    if (std::endian::native != std::endian::little)
        throw error("'" + path.string() + "': mapping needs a little-endian machine; use load()");
    region->advise_random(h.payload_offset, h.payload_size);
    return {h, std::move(region)};
}

}  // namespace detail

/// Writes `filter` to `path` atomically (the old file, if any, survives any failure), in one
/// pass over the payload, under the file's writer lock (os/writer_lock.hpp): a save waits for
/// a bloomkit command (or another save) that is changing the file, rather than replace it under
/// that writer and lose its keys.
template <storable_filter Filter>
void save(const Filter& filter, const std::filesystem::path& path) {
    const os::writer_lock lock(path.string(), os::writer_lock::if_held::wait);
    os::replace_file(path, [&](const os::file_descriptor& file) {
        detail::write_bkf(
            filter, [&](std::span<const std::byte> piece) { os::write_all(file, path, piece.data(), piece.size()); });
    });
}

/// save(), for a writer that holds the file's writer lock already (os::writer_lock: taken
/// before it read the file) and may need to keep holding one on what replaces it:
/// `before_replacing` is called with the descriptor of the new file, complete and flushed,
/// before it takes the path — time to lock it (a lock taken after the rename could be beaten to
/// by another writer).
template <storable_filter Filter>
void save(const Filter& filter, const std::filesystem::path& path,
          const std::function<void(int descriptor)>& before_replacing) {
    os::replace_file(path, [&](const os::file_descriptor& file) {
        detail::write_bkf(
            filter, [&](std::span<const std::byte> piece) { os::write_all(file, path, piece.data(), piece.size()); });
        before_replacing(file.get());
    });
}

/// Throws io_error unless save() could replace `path` (a regular file, or a new path, that the
/// process may write, in a directory where it may create files): a job that saves at its end, or
/// now and then, finds out before it starts.
inline void require_saveable(const std::filesystem::path& path) { os::require_replaceable(path); }

/// Saves whichever filter `filter` holds.
inline void save(const any_filter& filter, const std::filesystem::path& path) {
    std::visit([&](const auto& f) { save(f, path); }, filter);
}
/// save(filter, path, before_replacing) of whichever filter `filter` holds.
inline void save(const any_filter& filter, const std::filesystem::path& path,
                 const std::function<void(int descriptor)>& before_replacing) {
    std::visit([&](const auto& f) { save(f, path, before_replacing); }, filter);
}

/// The header of a filter file, validated (without reading or verifying the payload).
inline file_header read_header(const std::filesystem::path& path) {
    const os::file_descriptor file = os::open_for_reading(path);
    const detail::file_lock reading(file, path, detail::file_lock::mode::shared);
    return detail::read_header(file, path);
}

/// Reads a filter file into memory, verifying both checksums. Throws io_error when the file
/// cannot be read, file_format_error when it is not a valid file holding a Target (any kind
/// for Target = any_filter).
template <loadable_filter Target>
Target load(const std::filesystem::path& path) {
    const os::file_descriptor file = os::open_for_reading(path);
    std::optional<detail::file_lock> reading(std::in_place, file, path, detail::file_lock::mode::shared);
    const file_header h = detail::read_header<registry_for<Target>>(file, path);
    detail::require_holds<Target>(h, path.string());
    detail::zeroed_block payload = detail::payload_memory(h.payload_size);
    std::vector<std::byte> trailer(detail::trailer_size(h));
    if (os::read_at(file, path, payload.data(), static_cast<std::size_t>(h.payload_size), h.payload_offset) !=
            h.payload_size ||
        os::read_at(file, path, trailer.data(), trailer.size(), h.payload_offset + h.payload_size) != trailer.size())
        detail::reject(format_errc::truncated, path.string(), "truncated while reading");
    reading.reset();  // every byte is in memory: an update may go on
    return detail::finish_read<Target>(h, std::move(payload), trailer, path.string());
}

/// A filter queried in place in a read-only memory map of its file: opening costs no read of
/// the payload, however large. The header is validated on opening; the payload checksum only
/// when verify() is called (it reads every byte).
template <class Filter>
class mapped_filter {
public:
    /// The filter, its bits in the map: queries only.
    [[nodiscard]] const Filter& filter() const noexcept { return filter_; }
    /// The same, for what leaves its bits alone (a windowed filter's clock): every writer throws
    /// read_only_filter.
    [[nodiscard]] Filter& filter() noexcept { return filter_; }
    /// The filter, as filter().
    const Filter& operator*() const noexcept { return filter_; }
    /// The filter's members: `mapped->contains(key)`.
    const Filter* operator->() const noexcept { return &filter_; }
    /// The file's header, as validated when it was mapped.
    [[nodiscard]] const file_header& header() const noexcept { return header_; }
    /// The whole file as mapped: where a read of the filter can fault (SIGBUS) when another
    /// program truncates the file, for a program that guards its reads (the command names the
    /// file; the Python bindings raise an exception).
    [[nodiscard]] std::span<const std::byte> mapped_bytes() const noexcept {
        return {region_->data(), static_cast<std::size_t>(region_->size())};
    }

    /// Whether the file was written or truncated in place since it was mapped, other than by
    /// completed in-place updates (file_update.hpp): answers given meanwhile may be wrong (and
    /// reading a truncated map raises SIGBUS). An in-place update only adds keys, so answers
    /// given while one ran are those of the filter before it or with some of its keys added,
    /// and never miss a key the file held when it was mapped: such a change is not reported.
    /// To tell one from another program's writing, a file that changed is checked again, whole:
    /// the same filter with more keys, every chunk matching its checksum. (A writer that forges
    /// the checksums as well cannot be told from an update.) Files replaced by a rename, as
    /// save() replaces them, are not changed: the map keeps the file it opened.
    [[nodiscard]] bool changed() const noexcept {
        if (!region_->changed()) return false;
        try {
            if (!grown_by_updates()) return true;
            region_->acknowledge();
            return false;
        } catch (...) {
            return true;  // unreadable now: certainly not a completed update
        }
    }

    /// Reads the whole payload and throws file_format_error (payload_checksum, or
    /// interrupted_update) if it does not match what vouches for it. Waits for an in-place
    /// update in progress to finish, and checks the file as it then is.
    void verify() const {
        const detail::file_lock reading(region_->file(), where_, detail::file_lock::mode::shared);
        const std::byte* payload = region_->data() + header_.payload_offset;
        const auto size = static_cast<std::size_t>(header_.payload_size);
        const file_header now = current_header();
        detail::verify_payload(now, std::span(payload, size), std::span(payload + size, detail::trailer_size(now)),
                               where_);
    }

    /// Made by map(): the filter over the map, the map itself, and the path for messages.
    mapped_filter(Filter filter, detail::opened_map opened, std::string where)
        : filter_(std::move(filter)),
          header_(opened.header),
          last_seen_(opened.header),
          region_(std::move(opened.region)),
          where_(std::move(where)) {}

private:
    // The header as the file holds it now (the map shows the file's current bytes). The caller
    // holds the shared lock.
    [[nodiscard]] file_header current_header() const {
        const std::uint64_t size = os::file_size(region_->file(), where_);
        if (size != region_->size())
            detail::reject(format_errc::truncated, where_, "its size changed while it was mapped");
        return detail::decode_header<registry_for<Filter>>(
            std::span(region_->data(), static_cast<std::size_t>(file_header_size)), size, where_);
    }

    // Whether the file, changed since it was mapped (or last found grown), is the same filter
    // with keys added by completed in-place updates (file_update.hpp; its codec's grown()): the
    // same hashing and size, no update left unfinished, and every chunk verified.
    [[nodiscard]] bool grown_by_updates() const {
        if (!grows_in_place(header_)) return false;
        const detail::file_lock reading(region_->file(), where_, detail::file_lock::mode::shared);
        const file_header now = current_header();
        const file_header& then = last_seen_;
        const bool grown = now.kind == then.kind && now.hash == then.hash && now.seed == then.seed &&
                           now.payload_size == then.payload_size && now.chunk_shift == then.chunk_shift &&
                           now.expected_keys == then.expected_keys && now.target_fpr == then.target_fpr &&
                           now.flags == 0 && same_keys(now.keys, then.keys) && same_filter_grown(then, now);
        if (!grown) return false;
        const std::byte* payload = region_->data() + now.payload_offset;
        const auto size = static_cast<std::size_t>(now.payload_size);
        detail::verify_payload(now, std::span(payload, size), std::span(payload + size, detail::trailer_size(now)),
                               where_);
        last_seen_ = now;
        return true;
    }

    // Whether a file of the filter `h` describes can take keys in place.
    static bool grows_in_place(const file_header& h) {
        return visit_kind<registry_for<Filter>>(
            h, [](auto type) { return capabilities_of<typename decltype(type)::type>().updates_in_place; });
    }
    // Whether `now` is the filter `then` with keys added, as its codec tells.
    static bool same_filter_grown(const file_header& then, const file_header& now) {
        return visit_kind<registry_for<Filter>>(then, [&](auto type) {
            using F = typename decltype(type)::type;
            if constexpr (requires { file_codec<F>::grown(then, now); }) return file_codec<F>::grown(then, now);
            else return false;
        });
    }

    Filter filter_;
    file_header header_;
    mutable file_header last_seen_;  // as the last completed update left it
    std::shared_ptr<const detail::mapped_region> region_;
    std::string where_;
};

/// Maps a filter file read-only and queries it in place (any kind for Target = any_filter).
template <loadable_filter Target>
mapped_filter<Target> map(const std::filesystem::path& path) {
    detail::opened_map opened = detail::open_map<registry_for<Target>>(path);
    detail::require_holds<Target>(opened.header, path.string());
    detail::payload_source source = opened.payload();
    Target filter = detail::assemble<Target>(opened.header, source, path.string());
    return mapped_filter<Target>(std::move(filter), std::move(opened), path.string());
}

/// load<any_filter> and map<any_filter>, by their older names.
inline any_filter load_any(const std::filesystem::path& path) { return load<any_filter>(path); }
/// The same as map<any_filter>(path).
inline mapped_filter<any_filter> map_any(const std::filesystem::path& path) { return map<any_filter>(path); }

}  // namespace bloomkit
