// src/cli/line_reader.hpp — reads keys, one per line, from files or stdin, in large blocks and
// without copying lines: each batch is a list of views into the read buffer.
//
// A line is everything up to '\n', less one trailing '\r' (files from Windows). Lines may be
// empty, hold NUL or non-UTF-8 bytes, or be longer than the buffer (which then grows to hold
// them): every line is a key. A last line without '\n' is a line too.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bloomkit::cli {

class line_reader {
public:
    /// Opens every input now ("-" or no inputs at all means stdin), so that a missing file
    /// is reported before any work is done. Throws bloomkit::io_error.
    explicit line_reader(const std::vector<std::string>& inputs);
    ~line_reader();
    line_reader(const line_reader&) = delete;
    line_reader& operator=(const line_reader&) = delete;

    using batch_handler = std::function<void(std::span<const std::string_view> lines)>;

    /// Calls `handle` with consecutive batches of lines until every input is read. The views
    /// are valid only during the call.
    void read(const batch_handler& handle);

    [[nodiscard]] std::uint64_t lines_read() const noexcept { return lines_; }
    [[nodiscard]] std::uint64_t bytes_read() const noexcept { return bytes_; }

private:
    struct input {
        std::string name;
        int fd;
    };
    void read_one(const input& in, const batch_handler& handle);

    std::vector<input> inputs_;
    std::vector<char> buffer_;
    std::vector<std::string_view> batch_;
    std::uint64_t lines_ = 0;
    std::uint64_t bytes_ = 0;
};

}  // namespace bloomkit::cli
