// src/redis_module/dump.hpp — a filter's bkf bytes cut into the chunks of BF.SCANDUMP and
// CF.SCANDUMP, the pieces of its RDB value and the BF.LOADCHUNK commands of an AOF rewrite.
//
// Chunk k is bytes [k·C, (k+1)·C) of the file save() writes (docs/FORMAT.md), so a dump loaded
// back through BF.LOADCHUNK is that file, checksums and all, and `bloomkit` or Python read the
// chunks put end to end. The file is produced again for each SCANDUMP call, up to the chunk asked:
// no copy of the filter is kept between calls. Each writer's count is stamped into the iterator,
// so a filter changed between two calls fails the next one instead of yielding a dump whose
// chunks come from different filters (which LOADCHUNK would refuse at the end, by its checksums).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <vector>

namespace bloomkit::redis_module {

/// Writes a whole bkf file to the stream (save(filter, out)).
using bkf_writer = std::function<void(std::ostream&)>;

/// The size of SCANDUMP's chunks (RedisBloom's are at most 16 MiB too).
inline constexpr std::uint64_t dump_chunk_bytes = std::uint64_t{16} << 20;

/// Where a SCANDUMP is: the offset of the next chunk, and the stamp of the filter's writes when
/// the dump began.
struct dump_cursor {
    std::uint64_t offset = 0;
    std::uint64_t stamp = 0;
};

/// The iterator SCANDUMP returns with the chunk ending at `cursor.offset` (never 0: 0 starts and
/// ends a dump).
[[nodiscard]] long long to_iterator(const dump_cursor& cursor) noexcept;
/// The cursor of an iterator; nothing for one SCANDUMP never returned.
[[nodiscard]] std::optional<dump_cursor> from_iterator(long long iterator) noexcept;
/// The part of a stamp an iterator keeps.
[[nodiscard]] std::uint64_t stamp_of(std::uint64_t writes) noexcept;

/// Bytes [offset, offset + length) of what `write` writes (fewer at the end).
[[nodiscard]] std::vector<std::byte> slice(const bkf_writer& write, std::uint64_t offset, std::uint64_t length);

/// Calls `use(offset, bytes)` for each consecutive piece of at most `piece` bytes of what
/// `write` writes.
void for_each_piece(const bkf_writer& write, std::uint64_t piece,
                    const std::function<void(std::uint64_t offset, std::span<const std::byte>)>& use);

}  // namespace bloomkit::redis_module
