// bloomkit/os/file.hpp — the POSIX file operations bloomkit's files are made of, public so that
// programs on the library use the same ones. Each failure is an io_error naming the file as the
// path was given. (Replacing a file atomically: atomic_replace.hpp.)
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "bloomkit/error.hpp"

namespace bloomkit::os {

/// Throws io_error "WHAT 'PATH': the error's text" for the error `err` (errno by default).
[[noreturn]] inline void throw_io(const std::string& what, const std::filesystem::path& path, int err = errno) {
    throw io_error(what + " '" + path.string() + "'", std::error_code(err, std::generic_category()));
}

/// An open file descriptor, closed on destruction.
class file_descriptor {
public:
    file_descriptor() = default;
    /// Takes ownership of `fd` (-1: none).
    explicit file_descriptor(int fd) noexcept : fd_(fd) {}
    /// Takes the descriptor of `other`, which is left with none.
    file_descriptor(file_descriptor&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    /// Swaps, so `other` closes the former descriptor.
    file_descriptor& operator=(file_descriptor&& other) noexcept {
        std::swap(fd_, other.fd_);
        return *this;
    }
    ~file_descriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    /// The descriptor, still owned; -1 when there is none.
    [[nodiscard]] int get() const noexcept { return fd_; }
    /// Gives up the descriptor without closing it.
    [[nodiscard]] int release() noexcept { return std::exchange(fd_, -1); }
    /// Closes now, reporting close()'s error (after a write, a lost write).
    int close() noexcept {
        const int result = ::close(fd_);
        fd_ = -1;
        return result;
    }

private:
    int fd_ = -1;
};

/// Opens `path` for reading. Throws io_error for a file that cannot be opened, or a directory.
inline file_descriptor open_for_reading(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw_io("cannot open", path);
    file_descriptor file(fd);
    struct stat info {};
    if (::fstat(fd, &info) != 0) throw_io("cannot stat", path);
    if (S_ISDIR(info.st_mode)) throw_io("cannot read", path, EISDIR);
    return file;
}

/// The size of the open file in bytes.
inline std::uint64_t file_size(const file_descriptor& file, const std::filesystem::path& path) {
    struct stat info {};
    if (::fstat(file.get(), &info) != 0) throw_io("cannot stat", path);
    return static_cast<std::uint64_t>(info.st_size);
}

/// Reads up to `size` bytes at `offset`; returns how many there were (fewer only at end of file).
inline std::size_t read_at(const file_descriptor& file, const std::filesystem::path& path, void* buffer,
                           std::size_t size, std::uint64_t offset) {
    auto* out = static_cast<char*>(buffer);
    std::size_t done = 0;
    while (done < size) {
        const ::ssize_t got = ::pread(file.get(), out + done, size - done, static_cast<::off_t>(offset + done));
        if (got < 0) {
            if (errno == EINTR) continue;
            throw_io("cannot read", path);
        }
        if (got == 0) break;
        done += static_cast<std::size_t>(got);
    }
    return done;
}

/// Writes all of `data` at the file position (retrying short writes and EINTR).
inline void write_all(const file_descriptor& file, const std::filesystem::path& path, const void* data,
                      std::size_t size) {
    const auto* in = static_cast<const char*>(data);
    while (size > 0) {
        const ::ssize_t put = ::write(file.get(), in, size);
        if (put < 0) {
            if (errno == EINTR) continue;
            throw_io("cannot write", path);
        }
        in += put;
        size -= static_cast<std::size_t>(put);
    }
}

/// Writes all of `data` at `offset`, without moving the file position.
inline void write_all_at(const file_descriptor& file, const std::filesystem::path& path, const void* data,
                         std::size_t size, std::uint64_t offset) {
    const auto* in = static_cast<const char*>(data);
    while (size > 0) {
        const ::ssize_t put = ::pwrite(file.get(), in, size, static_cast<::off_t>(offset));
        if (put < 0) {
            if (errno == EINTR) continue;
            throw_io("cannot write", path);
        }
        in += put;
        offset += static_cast<std::uint64_t>(put);
        size -= static_cast<std::size_t>(put);
    }
}

/// Flushes the file's data (and the size and allocation it needs) to the disk.
inline void sync_data(const file_descriptor& file, const std::filesystem::path& path) {
    if (::fdatasync(file.get()) != 0) throw_io("cannot write", path);
}

/// Whether the first `size` bytes hold a hole; true when the file system cannot tell.
inline bool has_holes(const file_descriptor& file, std::uint64_t size) noexcept {
    const ::off_t hole = ::lseek(file.get(), 0, SEEK_HOLE);
    return hole < 0 || static_cast<std::uint64_t>(hole) < size;
}

/// Allocates [offset, offset + size), so that a full disk fails here with ENOSPC and not as SIGBUS
/// when a hole is written through a map; a no-op where the file system cannot (EOPNOTSUPP).
inline void allocate_range(const file_descriptor& file, const std::filesystem::path& path, std::uint64_t offset,
                           std::uint64_t size) {
    if (size == 0) return;
    int result = 0;
    while ((result = ::posix_fallocate(file.get(), static_cast<::off_t>(offset), static_cast<::off_t>(size))) ==
           EINTR) {}
    if (result != 0 && result != EOPNOTSUPP && result != EINVAL) throw_io("cannot write", path, result);
}

/// From `from`'s start to `to`'s position, by copy_file_range where it can (no pass through user
/// memory, a reflink where the file system shares blocks).
inline void copy_contents(const file_descriptor& from, const file_descriptor& to, const std::filesystem::path& path) {
    const std::uint64_t size = file_size(from, path);
    ::off_t in = 0;
    while (static_cast<std::uint64_t>(in) < size) {
        const ::ssize_t copied = ::copy_file_range(from.get(), &in, to.get(), nullptr,
                                                   static_cast<std::size_t>(size) - static_cast<std::size_t>(in), 0);
        if (copied > 0) continue;
        if (copied < 0 && errno == EINTR) continue;
        if (copied == 0 || errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL) break;
        throw_io("cannot copy", path);
    }
    std::vector<char> buffer(std::size_t{1} << 20);  // what copy_file_range could not do
    while (static_cast<std::uint64_t>(in) < size) {
        const std::size_t got = read_at(from, path, buffer.data(), buffer.size(), static_cast<std::uint64_t>(in));
        if (got == 0) throw_io("cannot copy", path, EIO);
        write_all(to, path, buffer.data(), got);
        in += static_cast<::off_t>(got);
    }
}

}  // namespace bloomkit::os
