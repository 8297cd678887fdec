// bloomkit/detail/posix_file.hpp — the few POSIX file operations the file format needs, each
// turning a failure into an io_error that names the file: reading exactly, writing fully,
// replacing a file atomically, and mapping one read-only.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <system_error>

#include "bloomkit/error.hpp"

namespace bloomkit::detail {

[[noreturn]] inline void throw_io(const std::string& what, const std::filesystem::path& path, int err = errno) {
    throw io_error(what + " '" + path.string() + "'", std::error_code(err, std::generic_category()));
}

/// An open file descriptor, closed on destruction.
class file_descriptor {
public:
    file_descriptor() = default;
    explicit file_descriptor(int fd) noexcept : fd_(fd) {}
    file_descriptor(file_descriptor&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    file_descriptor& operator=(file_descriptor&& other) noexcept {
        std::swap(fd_, other.fd_);
        return *this;
    }
    ~file_descriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    [[nodiscard]] int get() const noexcept { return fd_; }
    /// Closes now, reporting the error close() can return (after a write, a lost write).
    int close() noexcept {
        const int result = ::close(fd_);
        fd_ = -1;
        return result;
    }

private:
    int fd_ = -1;
};

inline file_descriptor open_for_reading(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw_io("cannot open", path);
    file_descriptor file(fd);
    struct stat info{};
    if (::fstat(fd, &info) != 0) throw_io("cannot stat", path);
    if (S_ISDIR(info.st_mode)) throw_io("cannot read", path, EISDIR);
    return file;
}

inline std::uint64_t file_size(const file_descriptor& file, const std::filesystem::path& path) {
    struct stat info{};
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

inline void write_all(const file_descriptor& file, const std::filesystem::path& path, const void* data, std::size_t size) {
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
inline void write_all_at(const file_descriptor& file, const std::filesystem::path& path, const void* data, std::size_t size,
                         std::uint64_t offset) {
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

/// Replaces `path` with what `write` puts into a file, so that at every moment `path` holds
/// either its old contents or the complete new ones: write a temporary file beside it, fsync
/// it, rename it over `path`, fsync the directory. On any failure the temporary is removed and
/// `path` is untouched.
inline void replace_file(const std::filesystem::path& path, const std::function<void(const file_descriptor&)>& write) {
    const std::filesystem::path directory = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    std::string temp = (directory / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) throw_io("cannot create a temporary file in", directory);
    file_descriptor file(fd);
    try {
        // mkstemp creates the file 0600; give it the permissions of the file it replaces, or
        // the usual 0644 for a new one.
        struct stat existing{};
        const ::mode_t mode = ::stat(path.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : 0644;
        if (::fchmod(fd, mode) != 0) throw_io("cannot set permissions of", temp);
        write(file);
        if (::fsync(fd) != 0) throw_io("cannot flush", temp);
        if (file.close() != 0) throw_io("cannot close", temp);
        if (::rename(temp.c_str(), path.c_str()) != 0) throw_io("cannot rename the temporary file to", path);
    } catch (...) {
        ::unlink(temp.c_str());
        throw;
    }
    file_descriptor dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() >= 0) ::fsync(dir.get());  // makes the rename durable; best effort
}

/// A whole file mapped read-only into memory; unmapped on destruction.
class mapped_region {
public:
    mapped_region(const file_descriptor& file, const std::filesystem::path& path, std::uint64_t size) : size_(size) {
        if (size == 0) return;
        void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, file.get(), 0);
        if (p == MAP_FAILED) throw_io("cannot map", path);
        data_ = static_cast<const std::byte*>(p);
    }
    mapped_region(const mapped_region&) = delete;
    mapped_region& operator=(const mapped_region&) = delete;
    ~mapped_region() {
        if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
    }
    [[nodiscard]] const std::byte* data() const noexcept { return data_; }
    [[nodiscard]] std::uint64_t size() const noexcept { return size_; }

    /// Tells the kernel lookups will hit [offset, offset + length) at random: no read-ahead.
    void advise_random(std::uint64_t offset, std::uint64_t length) const noexcept {
        const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
        const std::uint64_t start = offset / page * page;
        if (length > 0) ::madvise(const_cast<std::byte*>(data_) + start, offset + length - start, MADV_RANDOM);
    }

private:
    const std::byte* data_ = nullptr;
    std::uint64_t size_;
};

}  // namespace bloomkit::detail
