// src/jobs/fd_stream.hpp — a std::streambuf over a file descriptor (standard input or output, a
// pipe, a FIFO), so the library's stream functions (load / save of a filter) read and write a
// program's standard streams directly, in large blocks.
//
// It seeks where the descriptor can (standard output redirected to a file: save() then writes
// the payload in one pass and the header last) and reports that it cannot anywhere else (a
// pipe: save() holds the payload until its checksum is known). A failed read or write
// remembers its errno, so the caller can say why (error()).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <streambuf>
#include <vector>

namespace bloomkit::jobs {

class fd_streambuf : public std::streambuf {
public:
    explicit fd_streambuf(int fd) : fd_(fd), in_(buffer_size), out_(buffer_size) {
        setg(in_.data(), in_.data(), in_.data());
        setp(out_.data(), out_.data() + out_.size());
    }
    ~fd_streambuf() override { flush_output(); }
    fd_streambuf(const fd_streambuf&) = delete;
    fd_streambuf& operator=(const fd_streambuf&) = delete;

    /// The errno of the last failed read, write or seek; 0 if none failed.
    [[nodiscard]] int error() const noexcept { return error_; }

protected:
    int_type underflow() override {
        const ::ssize_t got = read_some(in_.data(), in_.size());
        if (got <= 0) return traits_type::eof();
        setg(in_.data(), in_.data(), in_.data() + got);
        return traits_type::to_int_type(in_[0]);
    }

    // Large reads bypass the buffer.
    std::streamsize xsgetn(char* s, std::streamsize count) override {
        std::streamsize done = 0;
        while (done < count) {
            if (gptr() < egptr()) {
                const std::streamsize take = std::min<std::streamsize>(count - done, egptr() - gptr());
                traits_type::copy(s + done, gptr(), static_cast<std::size_t>(take));
                gbump(static_cast<int>(take));
                done += take;
                continue;
            }
            const ::ssize_t got = read_some(s + done, static_cast<std::size_t>(count - done));
            if (got <= 0) break;
            done += got;
        }
        return done;
    }

    int_type overflow(int_type c) override {
        if (!flush_output()) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }

    // Large writes bypass the buffer.
    std::streamsize xsputn(const char* s, std::streamsize count) override {
        if (count < static_cast<std::streamsize>(out_.size()) / 2) return std::streambuf::xsputn(s, count);
        if (!flush_output() || !write_all(s, static_cast<std::size_t>(count))) return 0;
        return count;
    }

    int sync() override { return flush_output() ? 0 : -1; }

    pos_type seekoff(off_type offset, std::ios_base::seekdir dir, std::ios_base::openmode) override {
        if (!flush_output()) return pos_type(off_type(-1));
        const int whence = dir == std::ios_base::beg ? SEEK_SET : dir == std::ios_base::cur ? SEEK_CUR : SEEK_END;
        if (dir == std::ios_base::cur) offset -= egptr() - gptr();  // what was read ahead is not consumed
        const ::off_t at = ::lseek(fd_, static_cast<::off_t>(offset), whence);
        if (at < 0) {
            error_ = errno;
            return pos_type(off_type(-1));
        }
        setg(in_.data(), in_.data(), in_.data());
        return pos_type(static_cast<off_type>(at));
    }
    pos_type seekpos(pos_type position, std::ios_base::openmode which) override {
        return seekoff(off_type(position), std::ios_base::beg, which);
    }

private:
    static constexpr std::size_t buffer_size = std::size_t{1} << 20;

    ::ssize_t read_some(char* to, std::size_t size) {
        for (;;) {
            const ::ssize_t got = ::read(fd_, to, size);
            if (got >= 0) return got;
            if (errno == EINTR) continue;
            error_ = errno;
            return -1;
        }
    }

    bool write_all(const char* from, std::size_t size) {
        while (size > 0) {
            const ::ssize_t put = ::write(fd_, from, size);
            if (put < 0) {
                if (errno == EINTR) continue;
                error_ = errno;
                return false;
            }
            from += put;
            size -= static_cast<std::size_t>(put);
        }
        return true;
    }

    bool flush_output() {
        const auto pending = static_cast<std::size_t>(pptr() - pbase());
        setp(out_.data(), out_.data() + out_.size());
        return pending == 0 || write_all(out_.data(), pending);
    }

    int fd_;
    std::vector<char> in_, out_;
    int error_ = 0;
};

}  // namespace bloomkit::jobs
