// bloomkit/file_update.hpp — adding keys to a Bloom filter file in place: only the chunks the
// keys touch are written and re-checksummed (the file format's chunk table, io/chunks.hpp), so
// adding a line to a filter of gigabytes costs milliseconds instead of a rewrite.
//
//     bloomkit::in_place_update<bloomkit::bloom_filter> update("seen.bkf");
//     update.insert(new_urls.begin(), new_urls.end());   // hashed and kept, nothing written yet
//     update.commit();                                   // all of them in, or none
//
// All or nothing. insert() only hashes the keys and keeps their digests; commit() applies them
// all in one short step, which readers never see half of: it holds the file's exclusive lock
// (detail/file_lock.hpp) while it works, and every reader that needs the bytes to agree with
// their checksums holds the shared one. A commit that is never made changes nothing.
//
// Crash-safe and never re-sealing damage. A commit, under the lock:
//   1. makes sure the disk blocks of the chunks it will change exist (in a sparse file a full
//      disk then fails here, not as a SIGBUS half-way), and checks each against its checksum (a
//      damaged one is refused, and the file is left as it was);
//   2. sets the header's update flag and writes, over the table entry of each of those chunks,
//      the record that it is being written (chunk_being_written); flushes;
//   3. ORs the keys' bits into the mapped payload; flushes;
//   4. writes those chunks' new checksums and the table's, and the header with the new counts
//      and the flag clear; flushes.
// A Bloom filter's bits are only ever added, so a crash at any moment leaves every key the file
// held before. A file left with its flag set or chunks marked says so when read
// (interrupted_update), and the next in_place_update seals it again: it recomputes the
// checksums of the marked chunks only — they were verified just before the update marked them —
// after checking every other chunk against its checksum, and refuses (changing nothing) if one
// does not match: damage is never covered by a new checksum. (The durable states between the
// flushes all read this way: after 2 a chunk is either unchanged or marked, after 3 marked, and
// after 4 sealed, or marked with its new bits, which the recovery re-checksums.)
//
// Not for concurrent writers: the caller holds a lock for the whole update (the command's
// writer lock), as for any writer. Only the Bloom filters (every layout) update in place: their
// operations only set bits. The other kinds are rewritten by save(). For adds too large to
// keep in memory before the commit, update_copy() applies them to a copy of the file that then
// replaces it, as save() does — all or nothing as well.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/file_lock.hpp"
#include "bloomkit/detail/mapped_region.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/io/bkf.hpp"
#include "bloomkit/io/chunks.hpp"
#include "bloomkit/os/atomic_replace.hpp"
#include "bloomkit/os/file.hpp"

namespace bloomkit {

/// A commit failed after it began to write (a write or a flush failed): the file stays marked
/// as being updated, holds every key it held before, and is sealed again by the next update.
class unfinished_update : public io_error {
public:
    using io_error::io_error;
};

template <class Filter>
class in_place_update;

/// An update in place of a Bloom filter file: open it, insert keys, commit.
template <class Layout>
class in_place_update<basic_bloom_filter<Layout>> {
public:
    /// The type of the filter the file holds.
    using filter_type = basic_bloom_filter<Layout>;
    /// Counts of keys.
    using size_type = std::uint64_t;

    /// Opens `path` for an update in place. Throws file_format_error for a file that is not a
    /// valid file holding a filter_type (a version 1 file cannot be updated in place: save() it
    /// once) or whose interrupted update cannot be sealed because another chunk is damaged,
    /// io_error when it cannot be opened for writing. A file whose previous update was
    /// interrupted is sealed again first (recovered() then says so).
    explicit in_place_update(const std::filesystem::path& path) : in_place_update(open_for_update(path), path) {}

    /// The same, on a file already open for reading and writing (a private copy, as
    /// update_copy() makes); `path` names it in messages.
    in_place_update(os::file_descriptor file, const std::filesystem::path& path) : path_(path), where_(path.string()) {
        region_ = std::make_shared<detail::mapped_region>(std::move(file), path, true);
        std::byte* bytes = region_->writable_data();
        const auto head = static_cast<std::size_t>(std::min<std::uint64_t>(region_->size(), file_header_size));
        header_ = detail::decode_header(std::span<const std::byte>(bytes, head), region_->size(), where_);
        detail::require_holds<filter_type>(header_, where_);
        if (header_.version < 2)
            detail::reject(format_errc::unsupported_version, where_,
                           "a version 1 file cannot be updated in place (it has no chunk table): rewrite it once");
        payload_ = bytes + header_.payload_offset;
        table_ = payload_ + header_.payload_size;
        chunks_ = (detail::trailer_bytes(header_.version, header_.payload_size, header_.chunk_shift) - 8) / 8;
        if ((header_.flags & update_in_progress) || detail::marks_chunks_being_written(trailer())) {
            recover();
        } else if (detail::load_le<std::uint64_t>(table_ + 8 * chunks_) != table_checksum()) {
            detail::reject(format_errc::payload_checksum, where_,
                           "the chunk table does not match its checksum: the file is corrupt");
        }
        using word = typename filter_type::word_type;
        const auto words = static_cast<std::uint64_t>(header_.payload_size / sizeof(word));
        filter_.emplace(header_.geometry, detail::hasher_of(header_),
                        detail::word_storage<word>::writable_view(reinterpret_cast<word*>(payload_), words, region_),
                        detail::sizing_of(header_), header_.inserted_count);
        filter_->record_key_format(header_.keys);
    }

    in_place_update(const in_place_update&) = delete;
    in_place_update& operator=(const in_place_update&) = delete;

    /// The filter as the file holds it: without the keys inserted since the last commit.
    [[nodiscard]] const filter_type& filter() const noexcept { return *filter_; }
    /// The file's header as it stands.
    [[nodiscard]] const file_header& header() const noexcept { return header_; }
    /// Whether opening found an interrupted update and sealed the file again.
    [[nodiscard]] bool recovered() const noexcept { return recovered_; }

    /// Hashes every key of [first, last) once and keeps its digest for the next commit();
    /// nothing is written yet.
    template <std::input_iterator It, std::sentinel_for<It> Sentinel>
    requires hashable_key<std::iter_value_t<It>>
    void insert(It first, Sentinel last) {
        for (; first != last; ++first) staged_.push_back(filter_->hash_function()(*first));
    }
    /// The same for keys already hashed by filter().hash_function().
    void insert_digests(std::span<const digest> digests) {
        staged_.insert(staged_.end(), digests.begin(), digests.end());
    }

    /// Keys inserted since the last commit.
    [[nodiscard]] size_type pending() const noexcept { return staged_.size(); }
    /// Gives up the keys inserted since the last commit, as digests (to apply elsewhere).
    [[nodiscard]] std::vector<digest> take_pending() noexcept { return std::exchange(staged_, {}); }

    /// Records what the keys are at the next commit (for a file that does not record it yet).
    void record_key_format(key_format keys) noexcept { keys_ = keys; }

    /// Applies every key inserted since the last commit, all at once (see the top of this
    /// file), and returns how many were new. Throws file_format_error (payload_checksum) when
    /// a chunk the keys fall in is damaged, io_error when the disk is full: the file is then as
    /// it was. Throws unfinished_update when a write or flush fails once the update has begun.
    size_type commit() {
        const bool new_format = keys_ && *keys_ != header_.keys;
        if (staged_.empty() && !new_format) return 0;
        const std::vector<std::uint64_t> touched = touched_chunks();
        const detail::file_lock writing(region_->file(), path_, detail::file_lock::mode::exclusive);
        reserve_disk_blocks(touched);  // before even reading them: tmpfs allocates on a read of a hole too
        std::uint64_t bits_before = 0;
        for (const std::uint64_t chunk : touched) {
            verify_chunk(chunk);
            bits_before += popcount(chunk);
        }
        try {
            const size_type added = apply(touched, bits_before);
            staged_.clear();
            return added;
        } catch (const io_error& e) {
            throw unfinished_update(
                "cannot finish updating '" + where_ +
                    "' in place, which stays marked as being updated "
                    "(every key it held before is in it; the next update checks it and seals it again)",
                e.code());
        }
    }

private:
    static os::file_descriptor open_for_update(const std::filesystem::path& path) {
        os::file_descriptor file(::open(path.c_str(), O_RDWR | O_CLOEXEC));
        if (file.get() < 0) os::throw_io("cannot open for writing", path);
        return file;
    }

    [[nodiscard]] std::span<const std::byte> trailer() const noexcept {
        return {table_, static_cast<std::size_t>(8 * chunks_ + 8)};
    }
    [[nodiscard]] std::uint64_t chunk_bytes(std::uint64_t chunk) const noexcept {
        const std::uint64_t size = std::uint64_t{1} << header_.chunk_shift;
        return std::min(size, header_.payload_size - chunk * size);
    }
    [[nodiscard]] std::uint64_t popcount(std::uint64_t chunk) const noexcept {
        return detail::count_ones(payload_ + (chunk << header_.chunk_shift),
                                  static_cast<std::size_t>(chunk_bytes(chunk)));
    }
    [[nodiscard]] std::uint64_t chunk_checksum(std::uint64_t chunk) const noexcept {
        return detail::checksum(payload_ + (chunk << header_.chunk_shift),
                                static_cast<std::size_t>(chunk_bytes(chunk)));
    }
    [[nodiscard]] std::uint64_t stored_checksum(std::uint64_t chunk) const noexcept {
        return detail::load_le<std::uint64_t>(table_ + 8 * chunk);
    }
    [[nodiscard]] std::uint64_t table_checksum() const noexcept {
        return detail::checksum(table_, static_cast<std::size_t>(8 * chunks_));
    }
    void store_chunk_checksum(std::uint64_t chunk) {
        detail::store_le<std::uint64_t>(table_ + 8 * chunk, chunk_checksum(chunk));
    }
    void seal_table() { detail::store_le<std::uint64_t>(table_ + 8 * chunks_, table_checksum()); }

    // The chunks the pending keys' bits fall in, in order, each once.
    [[nodiscard]] std::vector<std::uint64_t> touched_chunks() const {
        constexpr std::uint64_t word_bytes = sizeof(typename filter_type::word_type);
        std::vector<std::uint64_t> chunks;
        for (const digest& d : staged_)
            filter_->for_each_word_range(d, [&](std::uint64_t word, std::uint64_t count) {
                const std::uint64_t first = word * word_bytes, last = (word + count) * word_bytes - 1;
                for (std::uint64_t chunk = first >> header_.chunk_shift; chunk <= last >> header_.chunk_shift; ++chunk)
                    chunks.push_back(chunk);
            });
        std::sort(chunks.begin(), chunks.end());  // std::ranges::unique trips Clang 14 on libstdc++ 12
        chunks.erase(std::unique(chunks.begin(), chunks.end()), chunks.end());
        return chunks;
    }

    // Allocates the disk blocks of the chunks and of the table, runs of adjacent chunks at once,
    // in a file that has holes (a file save() wrote has none, and is left alone: allocating
    // even allocated blocks changes a file's modification time, which readers watch).
    void reserve_disk_blocks(const std::vector<std::uint64_t>& chunks) const {
        const std::uint64_t payload_start = header_.payload_offset;
        if (!os::has_holes(region_->file(), region_->size())) return;
        for (std::size_t i = 0; i < chunks.size();) {
            std::size_t j = i + 1;
            while (j < chunks.size() && chunks[j] == chunks[j - 1] + 1) ++j;
            const std::uint64_t start = chunks[i] << header_.chunk_shift;
            const std::uint64_t end = (chunks[j - 1] << header_.chunk_shift) + chunk_bytes(chunks[j - 1]);
            os::allocate_range(region_->file(), path_, payload_start + start, end - start);
            i = j;
        }
        os::allocate_range(region_->file(), path_, 0, file_header_size);
        os::allocate_range(region_->file(), path_, payload_start + header_.payload_size, 8 * chunks_ + 8);
    }

    // Steps 2 to 4 of a commit: the chunks `touched` are verified and held `bits_before` set
    // bits. Returns how many keys were new.
    size_type apply(const std::vector<std::uint64_t>& touched, std::uint64_t bits_before) {
        header_.flags |= update_in_progress;  // 2. the flag and the marks
        write_header();
        for (const std::uint64_t chunk : touched)
            detail::store_le<std::uint64_t>(table_ + 8 * chunk, detail::chunk_being_written);
        os::sync_data(region_->file(), path_);
        size_type added = 0;  // 3. the bits
        for (const digest& d : staged_) added += filter_->insert_digest(d) ? 1 : 0;
        os::sync_data(region_->file(), path_);
        std::uint64_t bits_after = 0;  // 4. the checksums and the header
        for (const std::uint64_t chunk : touched) {
            store_chunk_checksum(chunk);
            bits_after += popcount(chunk);
        }
        seal_table();
        header_.set_bits = header_.set_bits - bits_before + bits_after;
        header_.inserted_count = filter_->inserted_count();
        if (keys_) header_.keys = *keys_, filter_->record_key_format(*keys_);
        header_.flags &= ~std::uint32_t{update_in_progress};
        write_header();
        os::sync_data(region_->file(), path_);
        return added;
    }

    void verify_chunk(std::uint64_t chunk) const {
        if (chunk_checksum(chunk) != stored_checksum(chunk))
            detail::reject(format_errc::payload_checksum, where_,
                           "payload checksum mismatch in chunk " + std::to_string(chunk) +
                               ": the filter's contents are "
                               "corrupt, and it was not changed");
    }

    void write_header() {
        const detail::header_bytes bytes = detail::encode_header<filter_type>(header_);
        os::write_all_at(region_->file(), path_, bytes.bytes.data(), bytes.bytes.size(), 0);
    }

    // A previous update was interrupted. The chunks it marked were verified before it changed
    // them, and hold a superset of their old bits: their checksums are recomputed. Every other
    // chunk must match its checksum, or the file is damaged, and it is left as it is.
    void recover() {
        const detail::file_lock writing(region_->file(), path_, detail::file_lock::mode::exclusive);
        std::vector<std::uint64_t> marked;
        std::uint64_t set_bits = 0;
        for (std::uint64_t chunk = 0; chunk < chunks_; ++chunk) {
            set_bits += popcount(chunk);
            if (stored_checksum(chunk) == detail::chunk_being_written) marked.push_back(chunk);
            else if (chunk_checksum(chunk) != stored_checksum(chunk))
                detail::reject(
                    format_errc::payload_checksum, where_,
                    "an update in place was interrupted, and chunk " + std::to_string(chunk) +
                        ", which it was not writing, does not match its checksum: the file is damaged, and it "
                        "was not changed (restore it from a copy, or rebuild it)");
        }
        for (const std::uint64_t chunk : marked) store_chunk_checksum(chunk);
        seal_table();
        os::sync_data(region_->file(), path_);
        header_.set_bits = set_bits;
        header_.flags &= ~std::uint32_t{update_in_progress};
        write_header();
        os::sync_data(region_->file(), path_);
        recovered_ = true;
    }

    std::filesystem::path path_;
    std::string where_;
    file_header header_;
    std::shared_ptr<detail::mapped_region> region_;
    std::byte* payload_ = nullptr;
    std::byte* table_ = nullptr;
    std::uint64_t chunks_ = 0;
    std::vector<digest> staged_;
    std::optional<key_format> keys_;
    bool recovered_ = false;
    std::optional<filter_type> filter_;
};

/// Applies an update too large to keep in memory until its commit: copies the Bloom filter
/// file at `path` (in the kernel where it can), calls fill(update) with an in_place_update of
/// the copy — which may commit() as often as it likes, nobody else sees the copy — commits
/// what is left, and replaces the file with the copy atomically, as save() does. If fill (or
/// anything else) throws, the file is left as it was and the copy is removed. `before_replacing`
/// is called with the copy's descriptor, complete and flushed, before it takes the path (to
/// lock it, as save() allows).
template <class Filter, class Fill>
void update_copy(const std::filesystem::path& path, Fill&& fill,
                 const std::function<void(int descriptor)>& before_replacing = {}) {
    const os::file_descriptor original = os::open_for_reading(path);
    os::replace_file(path, [&](const os::file_descriptor& copy) {
        {
            const detail::file_lock reading(original, path, detail::file_lock::mode::shared);
            os::copy_contents(original, copy, path);
        }
        os::file_descriptor own(::dup(copy.get()));
        if (own.get() < 0) os::throw_io("cannot write", path);
        in_place_update<Filter> update(std::move(own), path);
        fill(update);
        update.commit();
        if (before_replacing) before_replacing(copy.get());
    });
}

}  // namespace bloomkit
