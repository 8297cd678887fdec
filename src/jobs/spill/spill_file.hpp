// src/jobs/spill/spill_file.hpp — a scratch file of an exact job: written once from start to end,
// then read once from start to end, both in large sequential pieces (never a system call per
// record). Unnamed (temporary_file.hpp): gone with the process, however it ends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/os/file.hpp"

namespace bloomkit::jobs::spill {

class spill_file {
public:
    /// A new empty file in `directory`, written through a buffer of `buffer_size` bytes (taken
    /// when the first byte is written, given back by finish_writing()).
    spill_file(const std::string& directory, std::size_t buffer_size);

    /// Appends bytes. Throws io_error naming the directory (a full disk says so).
    void append(const void* data, std::size_t size);

    /// Writes what the buffer holds and frees it: the file is complete.
    void finish_writing();

    /// Bytes appended so far.
    [[nodiscard]] std::uint64_t size() const noexcept { return size_; }

    /// Reads up to `size` bytes at `offset`; fewer only at the end.
    std::size_t read_at(std::uint64_t offset, char* into, std::size_t size) const;

    /// The directory, for messages.
    [[nodiscard]] const std::string& directory() const noexcept { return directory_; }

private:
    void flush();
    void write_out(const char* bytes, std::size_t size);

    std::string directory_;
    os::file_descriptor file_;
    std::size_t buffer_size_;
    std::vector<char> buffer_;
    std::uint64_t size_ = 0;
};

/// Reads a spill_file sequentially through a buffer; hands out views of the next `size` bytes,
/// valid until the next call. A piece longer than the buffer grows it for as long as it lasts.
class spill_reader {
public:
    spill_reader(const spill_file& file, std::size_t buffer_size);

    /// The next `size` bytes, or an empty view at the end of the file (a piece cut short by the
    /// end is an error: the file was written whole).
    const char* take(std::size_t size);

    /// Whether every byte has been taken.
    [[nodiscard]] bool at_end() const noexcept { return consumed_ == file_.size(); }
    /// How many bytes have been taken.
    [[nodiscard]] std::uint64_t consumed() const noexcept { return consumed_; }

    /// The next byte, without taking it (at_end() must be false).
    unsigned char peek();

    /// The bytes read from the file and not yet taken, as far as they go: what a caller may
    /// look ahead into without reading more.
    [[nodiscard]] std::string_view buffered() const noexcept { return {buffer_.data() + begin_, end_ - begin_}; }

private:
    void fill(std::size_t need);

    const spill_file& file_;
    std::vector<char> buffer_;
    std::size_t begin_ = 0, end_ = 0;  // the bytes of buffer_ read and not taken
    std::uint64_t offset_ = 0;         // the file offset of buffer_[end_]
    std::uint64_t consumed_ = 0;
    std::size_t buffer_size_;
};

}  // namespace bloomkit::jobs::spill
