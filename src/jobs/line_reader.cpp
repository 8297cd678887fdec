// src/jobs/line_reader.cpp — see line_reader.hpp.
#include "jobs/line_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/io/header.hpp"
#include "bloomkit/os/file.hpp"
#include "jobs/temporary_file.hpp"

namespace bloomkit::jobs {
namespace {

// Blocks grow from 64 KiB to 4 MiB: a small input costs no large buffer to allocate and zero
// (a job on a few lines starts in a millisecond), and a large one is read in 4 MiB reads —
// few system calls, and a block big enough to keep a worker thread busy for a millisecond or
// more, so that handing blocks between threads costs nothing measurable.
// A block also holds about 128Ki lines at most: what a job keeps per line of a block in flight
// (its view, digest, key: ~50 bytes) would otherwise make a block of 4 MiB of numbers cost
// 20 MiB, and the memory a job states beside --memory would depend on the lines' length.
constexpr std::size_t first_block_bytes = std::size_t{64} << 10;
constexpr std::size_t block_bytes = std::size_t{4} << 20;
constexpr std::uint64_t block_lines = std::uint64_t{1} << 17;

/// The bytes the next block is read up to, after a block of `bytes` holding `lines` lines:
/// double the last (`limit`), within 4 MiB and about block_lines lines of that length.
std::size_t next_block_limit(std::size_t limit, std::size_t bytes, std::uint64_t lines) noexcept {
    const std::uint64_t by_lines = lines == 0 ? block_bytes : bytes / lines * block_lines;
    return static_cast<std::size_t>(
        std::clamp<std::uint64_t>(std::min<std::uint64_t>(limit * 2, by_lines), first_block_bytes, block_bytes));
}

[[noreturn]] void fail(const std::string& what, const std::string& name, int err) {
    throw io_error(what + " '" + name + "'", std::error_code(err, std::generic_category()));
}

}  // namespace

void split_lines(std::string_view text, std::vector<std::string_view>& lines) {
    const char* line = text.data();
    const char* const end = text.data() + text.size();
    while (line < end) {
        const auto* newline = static_cast<const char*>(std::memchr(line, '\n', static_cast<std::size_t>(end - line)));
        const char* stop = newline != nullptr ? newline : end;
        const char* content_end = stop > line && stop[-1] == '\r' ? stop - 1 : stop;
        lines.emplace_back(line, static_cast<std::size_t>(content_end - line));
        if (newline == nullptr) break;
        line = newline + 1;
    }
}

line_reader::line_reader(const std::vector<std::string>& inputs) {
    for (const std::string& name : inputs.empty() ? std::vector<std::string>{"-"} : inputs) {
        struct stat info {};
        input in;
        if (name == "-") {
            in.name = "standard input";
            in.fd = STDIN_FILENO;
            in.source = std::make_unique<input_source>(in.fd, in.name);
            if (::fstat(STDIN_FILENO, &info) == 0) in.regular = S_ISREG(info.st_mode);
        } else {
            in.name = name;
            in.owned = true;
            if (::stat(name.c_str(), &info) != 0) fail("cannot open", name, errno);
            if (S_ISDIR(info.st_mode)) fail("cannot read", name, EISDIR);
            if (::access(name.c_str(), R_OK) != 0) fail("cannot open", name, errno);
            in.regular = S_ISREG(info.st_mode);
        }
        in.device = info.st_dev;
        in.inode = info.st_ino;
        if (!in.source) in.source = std::make_unique<input_source>(-1, in.name);
        inputs_.push_back(std::move(in));
    }
    measure_total();
}

void line_reader::open(input& in) {
    if (in.fd >= 0) return;
    in.fd = ::open(in.name.c_str(), O_RDONLY | O_CLOEXEC);
    if (in.fd < 0) fail("cannot open", in.name, errno);
#ifdef POSIX_FADV_SEQUENTIAL
    if (in.regular) ::posix_fadvise(in.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    in.source->open_on(in.fd);
}

void line_reader::close(input& in) {
    if (!in.owned || !in.regular || in.fd < 0) return;  // stdin, and spooled copies, stay open
    ::close(in.fd);
    in.fd = -1;
    in.source->open_on(-1);
}

std::string line_reader::input_at(const std::string& path) const {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return {};
    for (const input& in : inputs_)
        if (in.device == info.st_dev && in.inode == info.st_ino) return in.name;
    return {};
}

void line_reader::measure_total() {
    total_ = 0;
    for (const input& in : inputs_) {
        struct stat info {};
        const int status = in.fd >= 0 ? ::fstat(in.fd, &info) : ::stat(in.name.c_str(), &info);
        if (status != 0 || !S_ISREG(info.st_mode)) {
            total_ = 0;
            return;
        }
        total_ += static_cast<std::uint64_t>(info.st_size);
    }
}

std::uint64_t line_reader::bytes_read() const noexcept {
    std::uint64_t read = 0;
    for (const input& in : inputs_) read += in.source->raw_bytes();
    return read;
}

line_reader::~line_reader() {
    for (const input& in : inputs_)
        if (in.owned && in.fd >= 0) ::close(in.fd);
}

void line_reader::read_and_keep(const block_handler& see, const std::string& scratch_directory) {
    for (input& in : inputs_) {
        open(in);
        if (in.regular) {
            read_one(in, see, {}, {});
            close(in);
            continue;
        }
        os::file_descriptor spool =
            scratch_directory.empty() ? unnamed_temporary_file() : unnamed_temporary_file(scratch_directory);
        read_one(in,
                 [&](line_block&& block) {
                     const std::string_view text = block.text();
                     os::write_all(spool, "a temporary copy of '" + in.name + "'", text.data(), text.size());
                     see(std::move(block));
                 },
                 {}, {});
        if (in.owned) ::close(in.fd);
        in.fd = spool.release();
        in.owned = true;
        in.source->open_on(in.fd);
    }
    measure_total();
    rewind();
}

void line_reader::rewind() {
    for (input& in : inputs_) in.source->rewind();
    lines_read_ = 0;
}

std::uint64_t count_newlines(std::string_view text) noexcept {
    // In runs of 255 bytes into an 8-bit count, which compilers turn into vector compares and
    // byte adds: 29 GB/s where std::count's 64-bit count made of each byte ran at 4.7 (and took
    // a fifth of a job's time, numbering the lines of every block).
    std::uint64_t total = 0;
    const char* at = text.data();
    std::size_t left = text.size();
    for (; left >= 255; at += 255, left -= 255) {
        std::uint8_t run = 0;
        for (std::size_t i = 0; i < 255; ++i) run = static_cast<std::uint8_t>(run + (at[i] == '\n' ? 1 : 0));
        total += run;
    }
    for (std::size_t i = 0; i < left; ++i) total += at[i] == '\n' ? 1 : 0;
    return total;
}

void line_reader::read(const batch_handler& handle, const idle_work& idle) {
    std::vector<std::string_view> lines;
    std::vector<char> spare;  // the last block's buffer, reused: no fresh 4 MiB (and page faults) per block
    read_blocks(
        [&](line_block&& block) {
            lines.clear();
            split_lines(block.text(), lines);
            handle(lines, block.origin);
            spare = std::move(block.buffer);
        },
        [&] { return std::move(spare); }, idle);
}

void line_reader::read_blocks(const block_handler& handle, const std::function<std::vector<char>()>& recycle,
                              const idle_work& idle) {
    for (input& in : inputs_) {
        open(in);
        read_one(in, handle, recycle, idle);
        close(in);
    }
}

void line_reader::read_one(input& in, const block_handler& handle, const std::function<std::vector<char>()>& recycle,
                           const idle_work& idle) {
    std::size_t limit = first_block_bytes;  // a block is read up to this many bytes (more for a long line)
    auto fresh_buffer = [&] {
        std::vector<char> buffer = recycle ? recycle() : std::vector<char>{};
        buffer.resize(std::max(buffer.size(), limit));
        return buffer;
    };
    line_block block{fresh_buffer(), 0, {&in.name, 1}};  // [0, size) read, starting at a line start
    std::size_t read_end = limit;                        // this block is read up to here
    std::size_t scanned = 0;                             // [0, scanned) holds no '\n'
    bool first = true;                                   // the first bytes are not yet checked for a filter's signature
    for (;;) {
        if (block.size == read_end) {  // a very long line
            read_end *= 2;
            if (block.buffer.size() < read_end) block.buffer.resize(read_end);
        }
        const std::size_t got = in.source->read(block.buffer.data() + block.size, read_end - block.size, idle);
        block.size += got;
        // Decided once the signature's length has come, or the input has ended or strayed from
        // it: a short first line on a slow pipe ("42\n") is not held back for more bytes.
        const bool could_be_a_filter =
            std::memcmp(block.buffer.data(), file_magic.data(), std::min(block.size, file_magic.size())) == 0;
        if (first && (got == 0 || block.size >= file_magic.size() || !could_be_a_filter)) {
            first = false;
            if (starts_with_magic(std::as_bytes(std::span(block.buffer.data(), block.size))))
                throw filter_file_as_lines(in.name);
        }
        if (got == 0) {  // end of input: what is left is a last line without '\n'
            if (block.size > 0) {
                lines_read_ += count_newlines(block.text()) + (block.text().back() == '\n' ? 0 : 1);
                handle(std::move(block));
            }
            return;
        }
        if (first) continue;  // fewer bytes than a signature so far
        // Hand over everything up to the last '\n'; carry the incomplete line to a new block.
        const char* data = block.buffer.data();
        const auto* last_newline = static_cast<const char*>(::memrchr(data + scanned, '\n', block.size - scanned));
        if (last_newline == nullptr) {
            scanned = block.size;
            continue;
        }
        const auto complete = static_cast<std::size_t>(last_newline - data) + 1;
        const std::uint64_t lines = count_newlines({data, complete});
        limit = next_block_limit(limit, complete, lines);
        line_block next{fresh_buffer(), block.size - complete, {&in.name, block.origin.first_line + lines}};
        read_end = std::max(limit, next.size * 2);
        if (next.buffer.size() < read_end) next.buffer.resize(read_end);
        std::memcpy(next.buffer.data(), data + complete, next.size);
        block.size = complete;
        lines_read_ += lines;
        handle(std::move(block));
        block = std::move(next);
        scanned = block.size;  // the carried part of a line holds no '\n'
    }
}

}  // namespace bloomkit::jobs
