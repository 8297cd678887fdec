// bloomkit/detail/file_lock.hpp — how readers of a filter file and its in-place writer
// (file_update.hpp) keep out of each other's way: a reader never sees half of an update, and a
// reader that finds an update's marks on a file knows its writer died.
//
// An in-place update changes the payload, the chunk table and the header of a file that others
// may be reading. Its writer holds an exclusive lock on the file for the few milliseconds from
// marking the chunks it will change to sealing the header; every reader that needs the bytes
// to agree with their checksums (a load, a verification, a header read) holds a shared lock
// while it reads. So a reader waits out a live update instead of calling the file corrupt, and
// a reader that holds the shared lock and still finds an update marked in the file knows that
// no writer is in the middle of it: the writer stopped (killed, or its machine crashed).
//
// The locks are open file description locks (fcntl F_OFD_SETLKW, Linux 3.15+): owned by the
// open file, not the process, so closing another descriptor of the same file elsewhere in the
// program does not drop them (as it would a classic fcntl lock), and threads with their own
// descriptors exclude each other. They are independent of flock(2), which the command's writer
// lock uses to exclude a second writer for a whole run: a reader waits only for the update
// itself, not for a writer that is still reading its input. Advisory: only bloomkit takes them.
// Where OFD locks do not exist, classic fcntl locks stand in.
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

    /// Waits for and takes the lock on `file` (readable for shared, writable for exclusive).
    /// Throws io_error naming `path` when the file system refuses locks for another reason
    /// than contention. A file system that has no locks at all (ENOLCK, EOPNOTSUPP) is read
    /// and written without them.
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

    /// Whether nobody holds an exclusive lock on `file` at this instant (a shared lock could be
    /// taken without waiting).
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
