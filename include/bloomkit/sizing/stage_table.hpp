// bloomkit/sizing/stage_table.hpp — the size of a payload made of several block Bloom filters
// (a scalable filter's stages, a windowed filter's generations): a table of 64-byte entries, one
// per filter, then each filter's words at a 64-byte aligned offset, so a mapped file's filters
// start on cache lines (docs/FORMAT.md; io/stage_table.hpp reads and writes it).
#pragma once

#include <cstddef>
#include <cstdint>

namespace bloomkit::detail {

/// A filter's entry in the table.
inline constexpr std::uint64_t stage_entry_bytes = 64;

/// The next 64-byte boundary at or after `end`.
inline std::uint64_t stage_offset(std::uint64_t end) noexcept { return (end + 63) / 64 * 64; }

/// The table, then each filter's words; bytes_of(i) is filter i's size (a callable: Clang 14
/// cannot compile libstdc++ 12's views).
template <class BytesOf>
std::uint64_t stage_table_payload_size(std::size_t stages, const BytesOf& bytes_of) {
    std::uint64_t size = stages * stage_entry_bytes;
    for (std::size_t i = 0; i < stages; ++i) size = stage_offset(size) + bytes_of(i);
    return size;
}

}  // namespace bloomkit::detail
