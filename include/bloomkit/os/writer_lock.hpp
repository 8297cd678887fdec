// bloomkit/os/writer_lock.hpp — one writer at a time per filter file, across programs: save()
// takes it, and so does every bloomkit command that changes a file (build -o over an existing
// filter, add, remove, merge, dedup --state) from before it reads the file until its new
// contents have replaced it. So two writers never both start from the same old file, and
// neither loses the other's keys: a Python save() beside a `bloomkit add` waits for it.
// Readers take no lock: a file is only ever replaced by a rename, and a reader keeps the file it
// opened (an update in place has locks of its own: detail/file_lock.hpp).
//
// The lock is flock(2) on the file itself. Since a writer replaces the file, a waiter may wake
// holding the lock of a file that is no longer at the path: it then locks the new one, so it
// always starts from the latest contents. A writer that replaces the file and goes on writing
// (dedup --state saves again and again) locks the new file before it takes the path
// (lock_replacement, then keep), so no second writer slips in between.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <utility>

#include "bloomkit/error.hpp"
#include "bloomkit/os/file.hpp"

namespace bloomkit::os {

/// Thrown when another process holds the lock and the writer was told not to wait.
class file_busy : public error {
public:
    /// The file at `path` is locked by another writer.
    explicit file_busy(const std::string& path)
        : error("'" + path + "' is being written by another bloomkit process") {}
};

/// The exclusive right to replace the file at a path, held while the object lives.
class writer_lock {
public:
    /// Whether a writer that finds no file creates an empty one to lock.
    enum class missing { leave, create };
    /// What a writer does when another holds the lock.
    enum class if_held { wait, fail };

    /// Locks the file `path` names (following symlinks). If it does not exist yet there is
    /// nothing to lock, unless `if_missing` is create: then an empty file is made and locked, so
    /// that a long-running writer excludes a second one before its first save. A lock held by
    /// another is waited for (`waiting`, if given, is called once a second has gone by, so the
    /// caller can say why it waits), or with if_held::fail refused at once: file_busy. Throws
    /// io_error when the file cannot be opened or locked. `polling`, if given, is called every
    /// few milliseconds for as long as the wait lasts, which then never blocks in the kernel: a
    /// caller whose signals must stop the wait (an interpreter's Ctrl-C) throws from it.
    writer_lock(const std::string& path, if_held held, missing if_missing = missing::leave,
                const std::function<void()>& waiting = {}, const std::function<void()>& polling = {}) {
        const auto start = std::chrono::steady_clock::now();
        bool announced = false;
        const std::function<void()> announce_once = [&] {
            if (!std::exchange(announced, true) && waiting) waiting();
        };
        for (;;) {
            file_descriptor file = open_to_lock(path, if_missing);
            if (file.get() < 0) return;
            take(file, path, held, start, announce_once, polling);
            if (still_at(file, path)) {
                file_ = std::move(file);
                return;
            }
            // The holder replaced the file while we waited: lock the new one.
        }
    }

    /// Locks the open file `descriptor`: the new contents of the locked path, before they
    /// replace it (from the callback of save() or os::replace_file()). Throws io_error.
    [[nodiscard]] static file_descriptor lock_replacement(int descriptor, const std::string& path) {
        file_descriptor replacement(::dup(descriptor));
        if (replacement.get() < 0 || ::flock(replacement.get(), LOCK_EX | LOCK_NB) != 0) throw_io("cannot lock", path);
        return replacement;
    }

    /// Holds `replacement` (from lock_replacement) from now on, the file now at the path; the
    /// replaced file's lock goes with its descriptor.
    void keep(file_descriptor replacement) noexcept { file_ = std::move(replacement); }

private:
    // Whether `file` is still the file `path` names.
    static bool still_at(const file_descriptor& file, const std::string& path) {
        struct stat opened {
        }, now{};
        return ::fstat(file.get(), &opened) == 0 && ::stat(path.c_str(), &now) == 0 && opened.st_dev == now.st_dev &&
               opened.st_ino == now.st_ino;
    }

    // The file at `path`, open to be locked (made empty first when `if_missing` says so); closed
    // when there is nothing to lock (no file, or not a regular file).
    static file_descriptor open_to_lock(const std::string& path, missing if_missing) {
        for (;;) {
            // O_NONBLOCK: opening a FIFO must not wait for a writer (replacing one is refused later).
            file_descriptor file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
            if (file.get() < 0 && errno == ENOENT && if_missing == missing::create) {
                file = file_descriptor(::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
                if (file.get() < 0 && errno == EEXIST) continue;  // another writer made it first: lock theirs
                if (file.get() < 0) throw_io("cannot create", path);
            }
            if (file.get() < 0) {
                if (errno == ENOENT) return {};  // a new file: nothing to lock
                throw_io("cannot open", path);
            }
            struct stat info {};
            if (::fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode)) return {};  // not a file to lock
            return file;
        }
    }

    // Takes the lock on `file`: polls without blocking until a second has gone by since `start`,
    // then calls `waiting` and blocks — or, with `polling`, polls on, calling it every time.
    static void take(const file_descriptor& file, const std::string& path, if_held held,
                     std::chrono::steady_clock::time_point start, const std::function<void()>& waiting,
                     const std::function<void()>& polling) {
        bool announced = false;
        while (::flock(file.get(), LOCK_EX | LOCK_NB) != 0) {
            if (errno == EINTR) continue;
            if (errno != EWOULDBLOCK) throw_io("cannot lock", path);
            if (held == if_held::fail) throw file_busy(path);
            if (polling) polling();
            if (std::chrono::steady_clock::now() - start >= std::chrono::seconds(1)) {
                if (waiting && !std::exchange(announced, true)) waiting();
                if (!polling) {
                    while (::flock(file.get(), LOCK_EX) != 0)
                        if (errno != EINTR) throw_io("cannot lock", path);
                    return;
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }

    file_descriptor file_;
};

}  // namespace bloomkit::os
