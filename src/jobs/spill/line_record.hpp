// src/jobs/spill/line_record.hpp — what an exact job knows of a distinct line, and how it is
// written to a spill file and read back.
//
// A record folds any number of occurrences of one line: how many (`count`), the earliest
// position among them (`position`, a line number over all inputs; no_position when none of them
// is on the side whose order the output follows), and which inputs they came from (`tags`, one
// bit per input). Two records of the same line fold into one by adding counts, taking the
// smaller position and OR-ing tags, in any order: so partial answers can be spilled at any time
// and folded later, and a line repeated a billion times costs one record per spill, not a
// billion.
//
// On disk: the 64-bit hash (8 bytes, little-endian), then position + 1 (0: none), count, tags and
// the text's length as LEB128 varints, then the text. About 12 bytes beyond the text for a
// typical line.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "jobs/spill/spill_file.hpp"

namespace bloomkit::jobs::spill {

inline constexpr std::uint64_t no_position = std::numeric_limits<std::uint64_t>::max();

struct line_record {
    std::uint64_t hash = 0;  // of the text, as the job's hasher made it (the digest's low half)
    std::uint64_t position = no_position;
    std::uint64_t count = 1;
    std::uint8_t tags = 0;
    std::string_view text;
};

/// A 64-bit value as 8 little-endian bytes, and back: the fixed-width fields of spill files.
inline void store_le64(char* at, std::uint64_t value) noexcept {
    for (std::size_t i = 0; i < 8; ++i, value >>= 8) at[i] = static_cast<char>(value);
}
inline std::uint64_t load_le64(const char* at) noexcept {
    std::uint64_t value = 0;
    for (std::size_t i = 8; i-- > 0;) value = value << 8 | static_cast<std::uint8_t>(at[i]);
    return value;
}

/// Appends `record` to `file`.
void write_record(spill_file& file, const line_record& record);

/// Reads the records of a spill file in order.
class record_reader {
public:
    record_reader(const spill_file& file, std::size_t buffer_size) : bytes_(file, buffer_size) {}

    /// The next record (its text valid until the next call); false at the end.
    bool next(line_record& record);

    /// The hash of the record `distance` records after the one next() will give, when the reader
    /// holds it already (it never reads ahead for it): for a caller that prefetches what that
    /// record will touch. Each call scans only records it has not scanned before.
    std::optional<std::uint64_t> hash_ahead(std::size_t distance) noexcept;

private:
    std::uint64_t varint();
    spill_reader bytes_;
    std::size_t ahead_offset_ = 0;   // where the record hash_ahead() reached starts, in buffered()
    std::size_t ahead_records_ = 0;  // records between the next one and that one
};

}  // namespace bloomkit::jobs::spill
