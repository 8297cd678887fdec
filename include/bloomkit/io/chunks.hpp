// bloomkit/io/chunks.hpp — how a version 2 file vouches for its payload: by chunks.
//
// The payload is cut into chunks of 2^chunk_shift bytes (64 KiB; the last one may be shorter),
// and after the payload comes the chunk table: the XXH3-64 (seed 0) of each chunk, then the
// XXH3-64 of the table itself, all little-endian u64. A whole-payload checksum would make adding
// one key to a 1 GB filter rewrite (or at least re-read) the gigabyte; with chunks, an update in
// place re-checksums only the chunks it touched, and the table (8 bytes per chunk).
//
// The checksums are computed as the payload streams out (payload_sink), so a filter is written
// in one pass, header first, to a pipe as well as to a file.
#pragma once

#include <xxhash.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/hash/endian.hpp"
#include "bloomkit/io/header.hpp"

namespace bloomkit::detail {

/// The chunk checksums of a payload, built as its bytes stream by.
class chunk_checksums {
public:
    explicit chunk_checksums(std::uint32_t shift) : chunk_(std::uint64_t{1} << shift) { XXH3_64bits_reset(&state_); }

    void update(std::span<const std::byte> bytes) {
        while (!bytes.empty()) {
            const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(bytes.size(), chunk_ - filled_));
            XXH3_64bits_update(&state_, bytes.data(), take);
            filled_ += take;
            bytes = bytes.subspan(take);
            if (filled_ == chunk_) close_chunk();
        }
    }

    /// The table's bytes: every chunk's checksum, then the table's own.
    [[nodiscard]] std::vector<std::byte> table() {
        if (filled_ > 0) close_chunk();
        std::vector<std::byte> bytes(8 * sums_.size() + 8);
        for (std::size_t i = 0; i < sums_.size(); ++i) store_le<std::uint64_t>(bytes.data() + 8 * i, sums_[i]);
        store_le<std::uint64_t>(bytes.data() + 8 * sums_.size(), checksum(bytes.data(), 8 * sums_.size()));
        return bytes;
    }

private:
    void close_chunk() {
        sums_.push_back(XXH3_64bits_digest(&state_));
        XXH3_64bits_reset(&state_);
        filled_ = 0;
    }

    std::uint64_t chunk_;
    std::uint64_t filled_ = 0;
    XXH3_state_t state_{};
    std::vector<std::uint64_t> sums_;
};

/// What an in-place update writes into a chunk's table entry, durably, before it changes the
/// chunk (file_update.hpp): the record that this chunk is being written, so that whoever finds
/// the update interrupted knows which chunks may not match their checksums because of it, and
/// checks every other chunk as usual. A real XXH3-64 equals it with probability 2^-64; damage,
/// which writes zeros, ones or copies of other bytes, does not produce it.
inline constexpr std::uint64_t chunk_being_written = 0xc3a5'6e1d'0b9f'4d27;

/// The message of a file whose in-place update did not finish.
[[noreturn]] inline void reject_interrupted(const std::string& where) {
    reject(format_errc::interrupted_update, where,
           "an update in place was interrupted (its writer stopped before it finished): every key the file held before "
           "is still in it, but the chunks the update was writing cannot be vouched for until it is sealed again; "
           "the next update in place checks every other chunk and seals it");
}

/// Whether a chunk table (entries, then the table's checksum) records chunks being written.
[[nodiscard]] inline bool marks_chunks_being_written(std::span<const std::byte> trailer) noexcept {
    for (std::size_t i = 0; i + 8 < trailer.size(); i += 8)
        if (load_le<std::uint64_t>(trailer.data() + i) == chunk_being_written) return true;
    return false;
}

/// Checks a version 2 payload against its trailer (the chunk table). Throws file_format_error:
/// interrupted_update when an update in place did not finish (the header's flag, or chunks
/// marked as being written), payload_checksum when the table or a chunk does not match (naming
/// the chunk and its bytes).
inline void verify_chunks(const file_header& h, std::span<const std::byte> payload, std::span<const std::byte> trailer,
                          const std::string& where) {
    if ((h.flags & update_in_progress) || marks_chunks_being_written(trailer)) reject_interrupted(where);
    const std::size_t entries = (trailer.size() - 8) / 8;
    if (load_le<std::uint64_t>(trailer.data() + 8 * entries) != checksum(trailer.data(), 8 * entries))
        reject(format_errc::payload_checksum, where,
               "the chunk table does not match its checksum: the file is corrupt");
    const std::uint64_t chunk = std::uint64_t{1} << h.chunk_shift;
    for (std::size_t i = 0; i < entries; ++i) {
        const std::uint64_t offset = i * chunk;
        const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, payload.size() - offset));
        if (checksum(payload.data() + offset, size) != load_le<std::uint64_t>(trailer.data() + 8 * i))
            reject(format_errc::payload_checksum, where,
                   "payload checksum mismatch in chunk " + std::to_string(i) + " of " + std::to_string(entries) +
                       " (bytes " + std::to_string(file_header_size + offset) + " to " +
                       std::to_string(file_header_size + offset + size) + "): the filter's contents are corrupt");
    }
}

}  // namespace bloomkit::detail
