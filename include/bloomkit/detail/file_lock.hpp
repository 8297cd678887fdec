// bloomkit/detail/file_lock.hpp — how readers of a filter file and its in-place writer
// (file_update.hpp) keep out of each other's way: a reader never sees half of an update, and a
// reader that finds an update's marks on a file knows its writer died.
//
// The writer holds an exclusive lock from marking the chunks to sealing the header; a reader that
// needs bytes to match their checksums holds a shared one. So a reader waits out a live update
// instead of calling the file corrupt, and one that finds marks under its shared lock knows the
// writer died.
//
// Open file description locks (F_OFD_SETLKW, Linux 3.15+; classic fcntl locks where missing): owned
// by the open file, so closing another descriptor of it does not drop them, and threads with their
// own descriptors exclude each other. Independent of the writer lock's flock(2), so a reader waits
// for the update only, not for a writer still reading its input. Advisory.
#pragma once

#include <fcntl.h>

#include <cerrno>
#include <filesystem>

#include "bloomkit/os/file.hpp"

namespace bloomkit::detail {

/// A lock on a whole open file, held while the object lives.
class file_lock {
public:
    enum class mode { shared, exclusive };

    /// Waits; throws io_error naming `path` when locks are refused other than by contention (none
    /// on a file system without locks: ENOLCK, EOPNOTSUPP).
    file_lock(const os::file_descriptor& file, const std::filesystem::path& path, mode how) : fd_(file.get()) {
        if (!apply(how == mode::shared ? F_RDLCK : F_WRLCK, true)) {
            if (errno == ENOLCK || errno == EOPNOTSUPP || errno == EINVAL) {
                fd_ = -1;
                return;
            }
            os::throw_io("cannot lock", path);
        }
    }
    file_lock(const file_lock&) = delete;
    file_lock& operator=(const file_lock&) = delete;
    ~file_lock() {
        if (fd_ >= 0) apply(F_UNLCK, false);
    }

    /// Whether a shared lock could be taken now without waiting.
    [[nodiscard]] static bool free_of_writers(const os::file_descriptor& file) noexcept {
        struct flock probe = whole_file(F_RDLCK);
        if (::fcntl(file.get(), get_command(), &probe) != 0) return true;
        return probe.l_type == F_UNLCK;
    }

private:
    static struct flock whole_file(short type) noexcept {
        struct flock lock {};
        lock.l_type = type;
        lock.l_whence = SEEK_SET;  // l_start = l_len = 0: the whole file, however it grows
        return lock;
    }
#ifdef F_OFD_SETLKW
    static int set_command() noexcept { return F_OFD_SETLKW; }
    static int get_command() noexcept { return F_OFD_GETLK; }
#else
    static int set_command() noexcept { return F_SETLKW; }
    static int get_command() noexcept { return F_GETLK; }
#endif

    bool apply(short type, bool retry) const noexcept {
        struct flock lock = whole_file(type);
        while (::fcntl(fd_, set_command(), &lock) != 0)
            if (errno != EINTR || !retry) return false;
        return true;
    }

    int fd_;
};

}  // namespace bloomkit::detail
