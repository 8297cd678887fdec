// src/jobs/output.hpp — a job's standard output: lines collected and written in large blocks
// (never a write per line), or, line-buffered, each line as soon as it is complete, for a
// consumer at the other end of a pipe that must see it at once.
//
// Whatever a failed run leaves unflushed is dropped: the job fails, and its caller says why.
#pragma once

#include <cerrno>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>

#include "bloomkit/error.hpp"

namespace bloomkit::jobs {

class output {
public:
    enum class buffering { block, line };

    explicit output(buffering mode = buffering::block) : mode_(mode) {}
    output(const output&) = delete;
    output& operator=(const output&) = delete;

    /// Writes `text` and a newline.
    void line(std::string_view text) {
        buffer_.append(text);
        buffer_.push_back('\n');
        if (mode_ == buffering::line || buffer_.size() >= block_size) flush();
    }

    /// Writes everything collected so far, through stdio's buffer too: what was flushed is out
    /// of the process (dedup saves its state only after the lines it holds are). Throws
    /// bloomkit::io_error when standard output fails.
    void flush() {
        const std::size_t size = buffer_.size();
        const std::size_t written = size == 0 ? 0 : std::fwrite(buffer_.data(), 1, size, stdout);
        buffer_.clear();
        if (written != size || std::fflush(stdout) != 0)
            throw io_error("cannot write to standard output", std::error_code(errno, std::generic_category()));
    }

private:
    static constexpr std::size_t block_size = std::size_t{1} << 20;

    buffering mode_;
    std::string buffer_;
};

}  // namespace bloomkit::jobs
