// src/redis_module/restore.hpp — a bkf file arriving in chunks (BF.LOADCHUNK, CF.LOADCHUNK,
// and the AOF's rewrite of a filter, which replays them): the bytes so far, in order, until the
// file is whole and becomes a filter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bloomkit::redis_module {

class restore {
public:
    /// A file of `total` bytes, of which `first` came first. Throws module_error when `first` is
    /// longer than the file.
    restore(std::uint64_t total, std::vector<std::byte> first);

    /// Appends the chunk that starts at byte `offset` of the file. Throws module_error unless it
    /// starts where the bytes so far end and stays within the file (chunks come in order: a
    /// missing, repeated or foreign chunk is an error, never a hole in a filter).
    void append(std::uint64_t offset, std::span<const std::byte> chunk);

    [[nodiscard]] bool complete() const noexcept { return bytes_.size() == total_; }
    [[nodiscard]] std::uint64_t total() const noexcept { return total_; }
    [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bytes_; }
    [[nodiscard]] std::uint64_t memory_bytes() const noexcept { return sizeof *this + bytes_.capacity(); }

private:
    std::vector<std::byte> bytes_;
    std::uint64_t total_;
};

}  // namespace bloomkit::redis_module
