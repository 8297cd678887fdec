// bloomkit/os/writer_lock.hpp — one writer at a time per filter file, across programs: save() and
// every command that changes a file hold it from before they read the file until the new contents
// replace it, so two writers never start from the same old file and lose each other's keys.
// Readers take no lock: files are replaced by rename, and a reader keeps the file it opened.
//
// flock(2) on the file itself. A waiter may wake holding the lock of a file no longer at the path:
// it then locks the new one. A writer that goes on writing after a replacement locks the new file
// before it takes the path (lock_replacement, then keep), so no second writer slips in between.
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

    /// Follows symlinks; a missing file is not locked unless `if_missing` creates it. A held lock
    /// is waited for (`waiting` called after a second) or refused (file_busy). `polling`, called
    /// every few milliseconds, keeps the wait out of the kernel so a caller's signals can stop it
    /// by throwing. Throws io_error when the file cannot be opened or locked.
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

    /// The new contents of the locked path, before they replace it (from save()'s callback).
    [[nodiscard]] static file_descriptor lock_replacement(int descriptor, const std::string& path) {
        file_descriptor replacement(::dup(descriptor));
        if (replacement.get() < 0 || ::flock(replacement.get(), LOCK_EX | LOCK_NB) != 0) throw_io("cannot lock", path);
        return replacement;
    }

    /// Holds `replacement`, now at the path; the replaced file's lock goes.
    void keep(file_descriptor replacement) noexcept { file_ = std::move(replacement); }

private:
    // Whether `file` is still the file `path` names.
    static bool still_at(const file_descriptor& file, const std::string& path) {
        struct stat opened {
        }, now{};
        return ::fstat(file.get(), &opened) == 0 && ::stat(path.c_str(), &now) == 0 && opened.st_dev == now.st_dev &&
               opened.st_ino == now.st_ino;
    }

    // Closed when there is nothing to lock (no file, or not a regular file).
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
