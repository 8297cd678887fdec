// tests/jobs/jobs_testing.hpp — what the tests of bloomkit::jobs (src/jobs) share: files and real
// pipes to read lines from, every line a reader hands out, and TMPDIR set for a while.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/os/file.hpp"
#include "jobs/line_reader.hpp"
#include "temp_dir.hpp"

namespace bloomkit_test {

inline void write_file(const fs::path& path, std::string_view text) {
    std::ofstream out(path, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

/// "1\n2\n...\ncount\n".
inline std::string numbered_lines(std::uint64_t count) {
    std::string text;
    for (std::uint64_t i = 1; i <= count; ++i) text.append(std::to_string(i)).push_back('\n');
    return text;
}

/// A pipe; both ends are closed when it goes (the write end sooner by close_write()).
struct pipe_ends {
    bloomkit::os::file_descriptor read, write;

    pipe_ends() {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("cannot make a pipe");
        read = bloomkit::os::file_descriptor(fds[0]);
        write = bloomkit::os::file_descriptor(fds[1]);
    }

    /// Writes all of `text` to the pipe (at most the pipe's buffer, 64 KiB, without a reader).
    void put(std::string_view text) const { bloomkit::os::write_all(write, "a pipe", text.data(), text.size()); }

    void close_write() { write = bloomkit::os::file_descriptor(); }

    /// The name a reader opens the read end by, as it opens /dev/stdin.
    [[nodiscard]] std::string read_path() const { return "/proc/self/fd/" + std::to_string(read.get()); }
};

/// Sets TMPDIR while it lives.
class tmpdir_set {
public:
    explicit tmpdir_set(const fs::path& path) {
        if (const char* now = std::getenv("TMPDIR")) previous_ = now;
        ::setenv("TMPDIR", path.c_str(), 1);
    }
    ~tmpdir_set() {
        if (previous_.empty()) ::unsetenv("TMPDIR");
        else ::setenv("TMPDIR", previous_.c_str(), 1);
    }
    tmpdir_set(const tmpdir_set&) = delete;
    tmpdir_set& operator=(const tmpdir_set&) = delete;

private:
    std::string previous_;
};

/// Every line `reader` hands out, in order.
inline std::vector<std::string> all_lines(bloomkit::jobs::line_reader& reader) {
    std::vector<std::string> lines;
    reader.read([&](std::span<const std::string_view> batch, const bloomkit::jobs::line_origin&) {
        lines.insert(lines.end(), batch.begin(), batch.end());
    });
    return lines;
}

/// Every line of the file `path` holding `text`.
inline std::vector<std::string> lines_of_file(const temp_dir& dir, std::string_view text) {
    const fs::path path = dir / "input.txt";
    write_file(path, text);
    bloomkit::jobs::line_reader reader({path.string()});
    return all_lines(reader);
}

}  // namespace bloomkit_test
