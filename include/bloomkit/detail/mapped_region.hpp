// bloomkit/detail/mapped_region.hpp — a whole file mapped into memory: read-only, for filters
// queried in place (file.hpp's map()), or writable, for filters updated in place
// (file_update.hpp).
#pragma once

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <utility>

#include "bloomkit/os/file.hpp"

namespace bloomkit::detail {

/// Keeps the file open, to tell whether it was modified in place since it was mapped.
class mapped_region {
public:
    /// Shared: writes through a writable map go to the file.
    mapped_region(os::file_descriptor file, const std::filesystem::path& path, bool writable = false)
        : file_(std::move(file)), size_(os::file_size(file_, path)) {
        if (::fstat(file_.get(), &mapped_) != 0) os::throw_io("cannot stat", path);
        if (size_ == 0) return;
        void* p = ::mmap(nullptr, size_, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, file_.get(), 0);
        if (p == MAP_FAILED) os::throw_io("cannot map", path);
        data_ = static_cast<std::byte*>(p);
    }
    mapped_region(const mapped_region&) = delete;
    mapped_region& operator=(const mapped_region&) = delete;
    ~mapped_region() {
        if (data_ != nullptr) ::munmap(data_, size_);
    }
    [[nodiscard]] const std::byte* data() const noexcept { return data_; }
    /// The bytes, for writing: only for a region mapped writable.
    [[nodiscard]] std::byte* writable_data() const noexcept { return data_; }
    [[nodiscard]] const os::file_descriptor& file() const noexcept { return file_; }
    [[nodiscard]] std::uint64_t size() const noexcept { return size_; }

    /// Size or modification time differ since mapping or acknowledge() (a rename is no change).
    [[nodiscard]] bool changed() const noexcept {
        struct stat now {};
        if (::fstat(file_.get(), &now) != 0) return true;
        return now.st_size != mapped_.st_size || now.st_mtim.tv_sec != mapped_.st_mtim.tv_sec ||
               now.st_mtim.tv_nsec != mapped_.st_mtim.tv_nsec;
    }

    /// The file as it is now becomes changed()'s reference.
    void acknowledge() const noexcept { ::fstat(file_.get(), &mapped_); }

    /// Tells the kernel lookups will hit [offset, offset + length) at random: no read-ahead.
    void advise_random(std::uint64_t offset, std::uint64_t length) const noexcept {
        const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
        const std::uint64_t start = offset / page * page;
        if (length > 0) ::madvise(data_ + start, offset + length - start, MADV_RANDOM);
    }

private:
    os::file_descriptor file_;
    mutable struct stat mapped_ {};
    std::byte* data_ = nullptr;
    std::uint64_t size_;
};

}  // namespace bloomkit::detail
