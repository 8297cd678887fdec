// tests/file_test_support.hpp — what the bkf format tests share: a temporary directory per test
// (temp_dir.hpp), raw bytes with little-endian field access, the format's offsets spelled out
// (docs/FORMAT.md), forging helpers, stream buffers that behave like pipes, and readable
// rejection reasons.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <span>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "bloomkit/error.hpp"
#include "temp_dir.hpp"

namespace bloomkit {
// Lets GoogleTest print a rejection reason by name.
inline void PrintTo(format_errc reason, std::ostream* os) {
    switch (reason) {
        case format_errc::bad_magic: *os << "bad_magic"; return;
        case format_errc::unsupported_version: *os << "unsupported_version"; return;
        case format_errc::truncated: *os << "truncated"; return;
        case format_errc::header_checksum: *os << "header_checksum"; return;
        case format_errc::payload_checksum: *os << "payload_checksum"; return;
        case format_errc::invalid_field: *os << "invalid_field"; return;
        case format_errc::wrong_kind: *os << "wrong_kind"; return;
        case format_errc::interrupted_update: *os << "interrupted_update"; return;
    }
    *os << "format_errc(" << static_cast<int>(reason) << ")";
}
}  // namespace bloomkit

namespace bloomkit_test {

namespace fs = std::filesystem;
using bytes = std::vector<unsigned char>;

// --- The format, spelled out ----------------------------------------------------------------
// The offsets of docs/FORMAT.md, written here rather than taken from the library so that a
// change to the format breaks the tests (io/bkf_suite.hpp checks them against the library's names).

constexpr std::size_t header_size = 128;

/// The version written (3), the one before it (2), and the oldest still read (1).
constexpr std::uint16_t format_version = 3, version_2 = 2, version_1 = 1;
/// Version 2 checksums the payload by chunks of 2^16 bytes (64 KiB), and reads 2^12 to 2^30.
constexpr std::uint32_t default_chunk_shift = 16, min_chunk_shift = 12, max_chunk_shift = 30;

/// The header fields every kind shares, and the kind-specific slots by their generic names.
/// Version 3: the key format at 88 (89..95 zero), the kind's extra bytes are [96, 112), then the
/// flags and the chunk shift. Version 2: the same, but 88..95 are all zero. Version 1: the
/// payload's checksum at 88, the extra bytes [96, 120).
namespace field {
constexpr std::size_t version = 8, header_size = 10, kind = 12, variant = 14, hash = 15, seed = 16, parameter64 = 24,
                      parameter32a = 32, parameter32b = 36, expected_keys = 40, target_fpr = 48, inserted_count = 56,
                      parameter_aux = 64, payload_offset = 72, payload_size = 80, payload_checksum = 88,
                      key_format = 88, funnel = 89, extra = 96, flags = 112, chunk_shift = 116, header_checksum = 120;
/// Where the kind's extra bytes end: version 2, and version 1.
constexpr std::size_t extra_end = flags, extra_end_v1 = header_checksum;
}  // namespace field
/// The bits of the flags (version 2).
namespace flag {
constexpr std::uint32_t interrupted_update = 1;
}
/// The key formats (version 3).
namespace key_code {
constexpr std::uint8_t unrecorded = 0, text = 1, u64 = 2, i64 = 3, u32 = 4;
}
/// What an in-place update writes into the table entry of a chunk it is writing (io/chunks.hpp).
constexpr std::uint64_t chunk_being_written = 0xc3a5'6e1d'0b9f'4d27;
// What each kind keeps in the kind-specific bytes.
namespace bloom_field {
constexpr std::size_t layout = 14, bits = 24, hashes = 32, block_bits = 36, set_bits = 64;
}
namespace counting_field {
constexpr std::size_t layout = 14, counters = 24, hashes = 32, counters_per_block = 36, nonzero = 64, counter_bits = 96;
}
namespace cuckoo_field {
constexpr std::size_t layout = 14, buckets = 24, fingerprint_bits = 32, bucket_size = 36, stored = 56,
                      stash_bucket = 64, stash_fingerprint = 96;
}
namespace scalable_field {
constexpr std::size_t stage_layout = 14, initial_capacity = 24, stages = 32, reserved32 = 36, reserved64 = 64,
                      growth = 96, tightening = 104;
}
namespace fuse_field {
constexpr std::size_t arity = 14, array_length = 24, fingerprint_bits = 32, segment_length = 36, keys = 56,
                      construction_seed = 64, segment_count = 96, hashing = 104;
}
/// A scalable filter's payload starts with one 64-byte entry per stage.
namespace stage_entry {
constexpr std::size_t size = 64, bits = 0, hashes = 8, expected_keys = 16, target_fpr = 24, inserted_count = 32,
                      set_bits = 40, offset = 48;
}

inline bytes read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const fs::path& path, const bytes& data) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    ASSERT_TRUE(out.flush()) << "cannot write " << path;
}

// --- Bytes ----------------------------------------------------------------------------------

/// The bytes as the library's buffer functions take them.
inline std::span<const std::byte> as_span(const bytes& data) { return std::as_bytes(std::span(data)); }

/// The library's bytes (to_bytes) as the tests handle them.
inline bytes from_library(const std::vector<std::byte>& data) {
    bytes out(data.size());
    if (!data.empty()) std::memcpy(out.data(), data.data(), data.size());
    return out;
}

inline std::string as_string(const bytes& data) { return {data.begin(), data.end()}; }
inline bytes from_string(const std::string& data) { return {data.begin(), data.end()}; }

inline bytes concatenated(bytes a, const bytes& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

inline void put_le(bytes& data, std::size_t offset, std::uint64_t value, std::size_t width) {
    for (std::size_t i = 0; i < width; ++i) data.at(offset + i) = static_cast<unsigned char>(value >> (8 * i));
}

inline std::uint64_t get_le(const bytes& data, std::size_t offset, std::size_t width) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < width; ++i) value |= std::uint64_t{data.at(offset + i)} << (8 * i);
    return value;
}

inline void put_double(bytes& data, std::size_t offset, double value) {
    put_le(data, offset, std::bit_cast<std::uint64_t>(value), 8);
}
inline double get_double(const bytes& data, std::size_t offset) {
    return std::bit_cast<double>(get_le(data, offset, 8));
}

/// Recomputes the header checksum, as a forger would: XXH3-64 of bytes 0..119, little-endian at 120.
inline void reseal(bytes& data) {
    put_le(data, field::header_checksum, XXH3_64bits(data.data(), field::header_checksum), 8);
}

// --- Chunks and versions ----------------------------------------------------------------------

/// How many chunks of 2^shift bytes a payload has (the last may be shorter; none if empty).
constexpr std::uint64_t chunk_count(std::uint64_t payload_size, std::uint32_t shift = default_chunk_shift) {
    return (payload_size + (std::uint64_t{1} << shift) - 1) >> shift;
}

/// The bytes after a version 2 payload: one checksum per chunk, and the table's own.
constexpr std::uint64_t trailer_size(std::uint64_t payload_size, std::uint32_t shift = default_chunk_shift) {
    return 8 * chunk_count(payload_size, shift) + 8;
}

/// The payload size the header announces.
inline std::uint64_t announced_payload(const bytes& file) { return get_le(file, field::payload_size, 8); }

/// The chunk table of `payload` as docs/FORMAT.md spells it: XXH3-64 (seed 0) of each chunk of
/// 2^shift bytes, little-endian, then XXH3-64 of those entries.
inline bytes chunk_table(const unsigned char* payload, std::size_t size, std::uint32_t shift = default_chunk_shift) {
    const std::size_t chunk = std::size_t{1} << shift;
    bytes table;
    for (std::size_t at = 0; at < size; at += chunk) {
        table.resize(table.size() + 8);
        put_le(table, table.size() - 8, XXH3_64bits(payload + at, std::min(chunk, size - at)), 8);
    }
    const std::uint64_t own = XXH3_64bits(table.data(), table.size());
    table.resize(table.size() + 8);
    put_le(table, table.size() - 8, own, 8);
    return table;
}

/// Rewrites what vouches for the payload (the first `payload_size` bytes after the header, as
/// the header announces it), as a forger would: in version 2 the chunk table, at the header's
/// chunk shift, replacing whatever followed the payload; in version 1 the payload checksum at 88
/// (of all the bytes after the header). The header checksum must be recomputed after it.
inline void reseal_payload(bytes& data) {
    if (get_le(data, field::version, 2) == version_1) {
        put_le(data, field::payload_checksum, XXH3_64bits(data.data() + header_size, data.size() - header_size), 8);
        return;
    }
    const auto payload = static_cast<std::size_t>(announced_payload(data));
    data.resize(header_size + payload);
    const bytes table = chunk_table(data.data() + header_size, payload,
                                    static_cast<std::uint32_t>(get_le(data, field::chunk_shift, 4)));
    data.insert(data.end(), table.begin(), table.end());
}

/// A version 2 file made a version 1 file of the same filter, as bloomkit 0.1 wrote it: version
/// 1, the payload's XXH3-64 at 88, bytes 112..119 (flags, chunk shift) cleared, no chunk table,
/// the header resealed. Version 1 knows hash algorithms 1 and 2 only: the caller sees to that.
inline bytes to_version_1(const bytes& v2) {
    bytes v1 = v2;
    const auto payload = static_cast<std::size_t>(announced_payload(v2));
    v1.resize(header_size + payload);
    put_le(v1, field::version, version_1, 2);
    put_le(v1, field::payload_checksum, XXH3_64bits(v1.data() + header_size, payload), 8);
    put_le(v1, field::flags, 0, 4);
    put_le(v1, field::chunk_shift, 0, 4);
    reseal(v1);
    return v1;
}

/// A version 3 file made a version 2 file of the same filter, as bloomkit wrote it before key
/// formats were recorded: version 2, byte 88 cleared, the header resealed.
inline bytes to_version_2(bytes v3) {
    put_le(v3, field::version, version_2, 2);
    put_le(v3, field::key_format, 0, 1);
    reseal(v3);
    return v3;
}

/// The same version 2 file, its payload checksummed by chunks of 2^shift bytes instead.
inline bytes rechunked(bytes file, std::uint32_t shift) {
    put_le(file, field::chunk_shift, shift, 4);
    reseal_payload(file);
    reseal(file);
    return file;
}

/// Bytes [from, to) are all zero.
inline ::testing::AssertionResult zero_bytes(const bytes& data, std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i)
        if (data.at(i) != 0) return ::testing::AssertionFailure() << "byte " << i << " is " << int{data[i]};
    return ::testing::AssertionSuccess();
}

/// The words of a filter, little-endian, from `offset` bytes into the file: how many differ.
template <class Word>
std::size_t mismatched_words(const bytes& file, std::size_t offset, std::span<const Word> words) {
    if (file.size() < offset + words.size() * sizeof(Word)) return words.size() + 1;
    std::size_t mismatched = 0;
    for (std::size_t i = 0; i < words.size(); ++i)
        mismatched += get_le(file, offset + i * sizeof(Word), sizeof(Word)) != words[i] ? 1 : 0;
    return mismatched;
}

inline ::testing::AssertionResult mentions(std::string_view text, std::string_view part) {
    if (text.find(part) != std::string_view::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << text << "\" does not mention \"" << part << "\"";
}

// --- Streams --------------------------------------------------------------------------------

/// A pipe, as far as a std::iostream can tell: a stream buffer that cannot seek or tell its
/// position, hands out its input a few bytes at a time (as a pipe or a socket does), and
/// collects its output. Counts the attempts to move (asking for the position is not one).
class pipe_buf : public std::streambuf {
public:
    explicit pipe_buf(bytes input = {}, std::size_t chunk = 7) : input_(std::move(input)), chunk_(chunk) {}

    [[nodiscard]] const bytes& output() const noexcept { return output_; }
    [[nodiscard]] int seeks() const noexcept { return seeks_; }
    /// The input not read yet (what a reader left in the pipe).
    [[nodiscard]] bytes unread() const {
        bytes rest(gptr(), egptr());
        rest.insert(rest.end(), input_.begin() + static_cast<std::ptrdiff_t>(next_), input_.end());
        return rest;
    }

protected:
    int_type overflow(int_type c) override {
        if (!traits_type::eq_int_type(c, traits_type::eof())) output_.push_back(static_cast<unsigned char>(c));
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        output_.insert(output_.end(), s, s + n);
        return n;
    }
    int_type underflow() override {
        if (next_ == input_.size()) return traits_type::eof();
        const std::size_t n = std::min(chunk_, std::min(input_.size() - next_, sizeof window_));
        std::memcpy(window_, input_.data() + next_, n);
        next_ += n;
        setg(window_, window_, window_ + n);
        return traits_type::to_int_type(window_[0]);
    }
    pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode) override {
        if (off != 0 || dir != std::ios_base::cur) ++seeks_;
        return pos_type(off_type(-1));
    }
    pos_type seekpos(pos_type, std::ios_base::openmode) override {
        ++seeks_;
        return pos_type(off_type(-1));
    }

private:
    bytes input_;
    std::size_t next_ = 0;
    std::size_t chunk_;
    char window_[64] = {};
    bytes output_;
    int seeks_ = 0;
};

/// A device that fails: it takes `capacity` bytes of output and then refuses more, and gives
/// `readable` bytes of its input and then throws (a read error, which std::istream turns into
/// badbit). It cannot seek.
class broken_buf : public std::streambuf {
public:
    broken_buf(std::size_t capacity, bytes input = {}, std::size_t readable = 0)
        : capacity_(capacity), input_(std::move(input)), readable_(readable) {}

protected:
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        const auto room = static_cast<std::streamsize>(capacity_ - std::min(capacity_, written_));
        const std::streamsize taken = std::min(n, room);
        written_ += static_cast<std::size_t>(taken);
        (void)s;
        return taken;
    }
    int_type overflow(int_type c) override {
        if (written_ >= capacity_) return traits_type::eof();
        ++written_;
        return traits_type::not_eof(c);
    }
    int_type underflow() override {
        if (next_ >= readable_ || next_ >= input_.size()) throw std::runtime_error("the device failed");
        window_ = static_cast<char>(input_[next_++]);
        setg(&window_, &window_, &window_ + 1);
        return traits_type::to_int_type(window_);
    }

private:
    std::size_t capacity_;
    std::size_t written_ = 0;
    bytes input_;
    std::size_t readable_;
    std::size_t next_ = 0;
    char window_ = 0;
};

}  // namespace bloomkit_test
