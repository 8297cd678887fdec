// bloomkit/file_update.hpp — adding keys to a Bloom filter file in place: only the chunks the
// keys touch are written and re-checksummed (the file format's chunk table, io/chunks.hpp), so
// adding a line to a filter of gigabytes costs milliseconds instead of a rewrite.
//
//     bloomkit::in_place_update<bloomkit::bloom_filter> update("seen.bkf");
//     update.insert(new_urls.begin(), new_urls.end());
//     update.commit();
//
// Crash-safe, in this order (docs/FORMAT.md): the header's update flag is set and flushed; the
// keys' bits are ORed into the mapped payload; the touched chunks' checksums and the table's
// are rewritten and flushed; the header, with the new counts and the flag clear, is written and
// flushed. A Bloom filter's bits are only ever added, so a crash at any moment leaves every key
// the file held before; a file left with its flag set says so when verified, and the next
// in_place_update reseals it (re-checksums it whole) before it adds anything.
//
// Not for concurrent writers: the caller holds a lock (the command's writer lock), as for any
// writer. Readers that mapped the file meanwhile see bits appear; the command's readers notice
// the change and say so. Only the Bloom filters (every layout) update in place: their
// operations only set bits. The other kinds are rewritten by save().
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/bulk_pipeline.hpp"
#include "bloomkit/detail/mapped_region.hpp"
#include "bloomkit/detail/posix_file.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/io/bkf.hpp"
#include "bloomkit/io/chunks.hpp"

namespace bloomkit {

template <class Filter>
class in_place_update;

/// An update in place of a Bloom filter file: open it, insert keys, commit. Destroyed without
/// commit(), the file keeps the keys inserted so far but its flag stays set (the next update
/// reseals it).
template <class Layout>
class in_place_update<basic_bloom_filter<Layout>> {
public:
    using filter_type = basic_bloom_filter<Layout>;
    using size_type = std::uint64_t;

    /// Opens `path` for an update in place. Throws file_format_error for a file that is not a
    /// valid version 2 file holding a filter_type (a version 1 file cannot be updated in place:
    /// save() it once), io_error when it cannot be opened for writing. A file whose previous
    /// update was interrupted is resealed first.
    explicit in_place_update(const std::filesystem::path& path) : path_(path), where_(path.string()) {
        auto region = std::make_shared<detail::mapped_region>(open_for_update(path), path, true);
        std::byte* bytes = region->writable_data();
        const auto head = static_cast<std::size_t>(std::min<std::uint64_t>(region->size(), file_header_size));
        header_ = detail::decode_header(std::span<const std::byte>(bytes, head), region->size(), where_);
        detail::require_holds<filter_type>(header_, where_);
        if (header_.version < 2)
            detail::reject(format_errc::unsupported_version, where_,
                           "a version 1 file cannot be updated in place (it has no chunk table): rewrite it once");
        payload_ = bytes + header_.payload_offset;
        table_ = payload_ + header_.payload_size;
        chunks_ = (detail::trailer_bytes(header_.version, header_.payload_size, header_.chunk_shift) - 8) / 8;
        dirty_.assign(static_cast<std::size_t>(chunks_), false);
        region_ = region;
        if (header_.flags & update_in_progress) {
            reseal();
        } else if (detail::load_le<std::uint64_t>(table_ + 8 * chunks_) != detail::checksum(table_, static_cast<std::size_t>(8 * chunks_))) {
            detail::reject(format_errc::payload_checksum, where_, "the chunk table does not match its checksum: the file is corrupt");
        }
        using word = typename filter_type::word_type;
        const auto words = static_cast<std::uint64_t>(header_.payload_size / sizeof(word));
        filter_.emplace(header_.geometry, detail::hasher_of(header_),
                        detail::word_storage<word>::writable_view(reinterpret_cast<word*>(payload_), words, region),
                        detail::sizing_of(header_), header_.inserted_count);
    }

    in_place_update(const in_place_update&) = delete;
    in_place_update& operator=(const in_place_update&) = delete;

    /// The filter as it stands, new keys included (queries only: insert through insert()).
    [[nodiscard]] const filter_type& filter() const noexcept { return *filter_; }

    /// Inserts every key of [first, last); returns how many were new. Each key is hashed once.
    /// A chunk is checked against its checksum before its first change (a damaged one is
    /// refused, file_format_error payload_checksum), and counted, which brings it into cache.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel>
        requires hashable_key<std::iter_value_t<It>>
    size_type insert(It first, Sentinel last) {
        constexpr std::uint64_t word_bytes = sizeof(typename filter_type::word_type);
        size_type added = 0;
        digest batch[detail::pipeline_batch];
        std::vector<std::uint64_t> fresh_chunks;
        while (first != last) {
            std::size_t size = 0;
            fresh_chunks.clear();
            for (; size < std::size(batch) && first != last; ++first, ++size) {
                batch[size] = filter_->hash_function()(*first);
                filter_->for_each_word_range(batch[size], [&](std::uint64_t word, std::uint64_t count) {
                    touch(word * word_bytes, count * word_bytes, fresh_chunks);
                });
            }
            for (const std::uint64_t chunk : fresh_chunks) verify_chunk(chunk);  // before anything changes
            mark_in_progress();
            for (const std::uint64_t chunk : fresh_chunks) bits_before_ += popcount(chunk);
            for (std::size_t i = 0; i < size; ++i) added += filter_->insert_digest(batch[i]) ? 1 : 0;
        }
        return added;
    }

    /// Makes the update durable: the touched chunks' checksums, the table's, then the header
    /// with the new counts and the flag clear, each flushed to disk.
    void commit() {
        if (!in_progress_) return;
        for (std::uint64_t chunk = 0; chunk < chunks_; ++chunk) {
            if (!dirty_[static_cast<std::size_t>(chunk)]) continue;
            header_.set_bits += popcount(chunk);
            store_chunk_checksum(chunk);
        }
        header_.set_bits -= bits_before_;  // the touched chunks' bits before the update
        seal_table();
        sync();
        header_.inserted_count = filter_->inserted_count();
        header_.flags &= ~std::uint32_t{update_in_progress};
        write_header();
        in_progress_ = false;
    }

private:
    static detail::file_descriptor open_for_update(const std::filesystem::path& path) {
        detail::file_descriptor file(::open(path.c_str(), O_RDWR | O_CLOEXEC));
        if (file.get() < 0) detail::throw_io("cannot open for writing", path);
        return file;
    }

    [[nodiscard]] std::uint64_t chunk_bytes(std::uint64_t chunk) const noexcept {
        const std::uint64_t size = std::uint64_t{1} << header_.chunk_shift;
        return std::min(size, header_.payload_size - chunk * size);
    }

    [[nodiscard]] std::uint64_t popcount(std::uint64_t chunk) const noexcept {
        return detail::count_ones(payload_ + (chunk << header_.chunk_shift), chunk_bytes(chunk));
    }

    // Marks the chunks of payload bytes [offset, offset + size) as touched, listing those
    // touched for the first time in `fresh`.
    void touch(std::uint64_t offset, std::uint64_t size, std::vector<std::uint64_t>& fresh) {
        for (std::uint64_t chunk = offset >> header_.chunk_shift; chunk <= (offset + size - 1) >> header_.chunk_shift; ++chunk) {
            if (dirty_[static_cast<std::size_t>(chunk)]) continue;
            dirty_[static_cast<std::size_t>(chunk)] = true;
            fresh.push_back(chunk);
        }
    }

    [[nodiscard]] std::uint64_t chunk_checksum(std::uint64_t chunk) const noexcept {
        return detail::checksum(payload_ + (chunk << header_.chunk_shift), static_cast<std::size_t>(chunk_bytes(chunk)));
    }

    void verify_chunk(std::uint64_t chunk) const {
        if (chunk_checksum(chunk) != detail::load_le<std::uint64_t>(table_ + 8 * chunk))
            detail::reject(format_errc::payload_checksum, where_,
                           "payload checksum mismatch in chunk " + std::to_string(chunk) + ": the filter's contents are "
                           "corrupt, and it was not changed");
    }

    void store_chunk_checksum(std::uint64_t chunk) { detail::store_le<std::uint64_t>(table_ + 8 * chunk, chunk_checksum(chunk)); }

    void seal_table() {
        detail::store_le<std::uint64_t>(table_ + 8 * chunks_, detail::checksum(table_, static_cast<std::size_t>(8 * chunks_)));
    }

    void sync() {
        if (::fdatasync(region_->file().get()) != 0) detail::throw_io("cannot write", path_);
    }

    void write_header() {
        const detail::header_bytes bytes = detail::encode_header<filter_type>(header_);
        detail::write_all_at(region_->file(), path_, bytes.bytes.data(), bytes.bytes.size(), 0);
        sync();
    }

    // Before the first bit changes: the flag, durably.
    void mark_in_progress() {
        if (in_progress_) return;
        header_.flags |= update_in_progress;
        write_header();
        in_progress_ = true;
    }

    // A previous update was interrupted: its bits are a superset of what the file held, so
    // re-checksumming the whole payload and recounting its bits makes it whole again.
    void reseal() {
        header_.set_bits = 0;
        for (std::uint64_t chunk = 0; chunk < chunks_; ++chunk) {
            header_.set_bits += popcount(chunk);
            store_chunk_checksum(chunk);
        }
        seal_table();
        sync();
        header_.flags &= ~std::uint32_t{update_in_progress};
        write_header();
    }

    std::filesystem::path path_;
    std::string where_;
    file_header header_;
    std::shared_ptr<detail::mapped_region> region_;
    std::byte* payload_ = nullptr;
    std::byte* table_ = nullptr;
    std::uint64_t chunks_ = 0;
    std::vector<bool> dirty_;
    std::uint64_t bits_before_ = 0;
    bool in_progress_ = false;
    std::optional<filter_type> filter_;
};

}  // namespace bloomkit
