#include "line_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "bloomkit/error.hpp"

namespace bloomkit::cli {
namespace {

constexpr std::size_t initial_buffer = std::size_t{1} << 20;  // 1 MiB reads: few syscalls

[[noreturn]] void fail(const std::string& what, const std::string& name, int err) {
    throw io_error(what + " '" + name + "'", std::error_code(err, std::generic_category()));
}

std::string_view without_cr(const char* begin, const char* end) {
    if (end > begin && end[-1] == '\r') --end;
    return {begin, static_cast<std::size_t>(end - begin)};
}

}  // namespace

line_reader::line_reader(const std::vector<std::string>& inputs) : buffer_(initial_buffer) {
    try {
        for (const std::string& name : inputs.empty() ? std::vector<std::string>{"-"} : inputs) {
            if (name == "-") {
                inputs_.push_back({"(standard input)", STDIN_FILENO});
                continue;
            }
            const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) fail("cannot open", name, errno);
            inputs_.push_back({name, fd});
            struct stat info{};
            if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) fail("cannot read", name, EISDIR);
#ifdef POSIX_FADV_SEQUENTIAL
            ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
        }
    } catch (...) {
        for (const input& in : inputs_)
            if (in.fd != STDIN_FILENO) ::close(in.fd);
        throw;
    }
}

line_reader::~line_reader() {
    for (const input& in : inputs_)
        if (in.fd != STDIN_FILENO) ::close(in.fd);
}

void line_reader::read(const batch_handler& handle) {
    for (const input& in : inputs_) read_one(in, handle);
}

void line_reader::read_one(const input& in, const batch_handler& handle) {
    std::size_t filled = 0;  // bytes of buffer_ holding data; [0, filled) starts at a line start
    for (;;) {
        if (filled == buffer_.size()) buffer_.resize(buffer_.size() * 2);  // a line longer than the buffer
        const ::ssize_t got = ::read(in.fd, buffer_.data() + filled, buffer_.size() - filled);
        if (got < 0) {
            if (errno == EINTR) continue;
            fail("cannot read", in.name, errno);
        }
        bytes_ += static_cast<std::uint64_t>(got);
        const char* data = buffer_.data();
        const char* const scanned_from = data + filled;
        filled += static_cast<std::size_t>(got);
        const char* const end = data + filled;

        // Split the complete lines; the newline search starts where the new bytes begin.
        batch_.clear();
        const char* line = data;
        const char* search = scanned_from;
        while (const void* found = std::memchr(search, '\n', static_cast<std::size_t>(end - search))) {
            const char* newline = static_cast<const char*>(found);
            batch_.push_back(without_cr(line, newline));
            line = search = newline + 1;
        }
        if (got == 0 && line < end) batch_.push_back(without_cr(line, end));  // last line, no '\n'
        if (!batch_.empty()) {
            lines_ += batch_.size();
            handle(batch_);
        }
        if (got == 0) return;

        // Keep the incomplete last line at the front of the buffer.
        const auto rest = static_cast<std::size_t>(end - line);
        if (line != data && rest > 0) std::memmove(buffer_.data(), line, rest);
        filled = rest;
    }
}

}  // namespace bloomkit::cli
