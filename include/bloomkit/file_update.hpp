// bloomkit/file_update.hpp — adding keys to a Bloom filter file in place: only the chunks the
// keys touch are written and re-checksummed (the file format's chunk table, io/chunks.hpp), so
// adding a line to a filter of gigabytes costs milliseconds instead of a rewrite.
//
//     bloomkit::in_place_update<bloomkit::bloom_filter> update("seen.bkf");
//     update.insert(new_urls.begin(), new_urls.end());   // hashed and kept, nothing written yet
//     update.commit();                                   // all of them in, or none
//
// All or nothing: insert() only keeps digests; commit() applies them under the file's exclusive
// lock (detail/file_lock.hpp), which every reader checking checksums shares. A commit:
//   1. allocates the disk blocks of the chunks it will change (a full disk fails here, not as a
//      SIGBUS half-way) and verifies each against its checksum, refusing damage;
//   2. sets the header's update flag and marks those chunks' table entries chunk_being_written;
//      flushes;
//   3. ORs the keys' bits into the mapped payload; flushes;
//   4. writes the chunks' and the table's new checksums, and the header with the flag clear;
//      flushes.
// Bits are only ever added, so a crash leaves every key held before. A file left flagged or marked
// reads as interrupted_update; the next in_place_update re-checksums only the marked chunks (they
// were verified before they were marked) after verifying every other one, so damage is never
// covered by a new checksum.
//
// One writer at a time: the caller holds a writer lock for the whole update. Only Bloom filters
// update in place (their operations only set bits); other kinds are rewritten by save(), and adds
// too large to hold until the commit go through update_copy().
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

/// A write or flush failed mid-commit: the file stays marked, keeps every key it held, and the
/// next update seals it.
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

    /// Seals an interrupted update first (recovered()). Throws file_format_error for a file not
    /// holding a filter_type (or of version 1: save() it once) or too damaged to seal, io_error
    /// when it cannot be opened for writing.
    explicit in_place_update(const std::filesystem::path& path) : in_place_update(open_for_update(path), path) {}

    /// On a file already open for reading and writing; `path` names it in messages.
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
        filter_.emplace(kind_parameters<filter_type>(header_).geometry, detail::hasher_of(header_),
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

    /// Keeps the keys' digests for the next commit(); nothing is written yet.
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

    /// Returns how many keys were new. Throws file_format_error (a damaged chunk) or io_error
    /// (disk full) with the file as it was, unfinished_update once writing has begun.
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

    // Only in a file with holes: allocating allocated blocks changes the modification time,
    // which readers watch.
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

    // Steps 2 to 4: the chunks `touched` are verified and held `bits_before` set bits.
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
        std::uint64_t& set_bits = kind_parameters<filter_type>(header_).set_bits;
        set_bits = set_bits - bits_before + bits_after;
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
        kind_parameters<filter_type>(header_).set_bits = set_bits;
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

/// fill(update) on an in_place_update of a private copy (commit as often as you like), then the
/// copy atomically replaces `path`, as save() does; if anything throws, the file is as it was.
/// `before_replacing` gets the copy's descriptor, flushed, before it takes the path.
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
