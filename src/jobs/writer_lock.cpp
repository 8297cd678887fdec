// src/jobs/writer_lock.cpp — see writer_lock.hpp.
#include "jobs/writer_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <utility>

namespace bloomkit::jobs {
namespace {

/// Whether `file` is still the file `path` names.
bool still_at(const os::file_descriptor& file, const std::string& path) {
    struct stat opened {
    }, now{};
    return ::fstat(file.get(), &opened) == 0 && ::stat(path.c_str(), &now) == 0 && opened.st_dev == now.st_dev &&
           opened.st_ino == now.st_ino;
}

/// The file at `path`, open to be locked (made empty first when `if_missing` says so); closed
/// when there is nothing to lock (no file, or not a regular file).
os::file_descriptor open_to_lock(const std::string& path, writer_lock::missing if_missing) {
    for (;;) {
        // O_NONBLOCK: opening a FIFO must not wait for a writer (replacing one is refused later).
        os::file_descriptor file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
        if (file.get() < 0 && errno == ENOENT && if_missing == writer_lock::missing::create) {
            file = os::file_descriptor(::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
            if (file.get() < 0 && errno == EEXIST) continue;  // another writer made it first: lock theirs
            if (file.get() < 0) os::throw_io("cannot create", path);
        }
        if (file.get() < 0) {
            if (errno == ENOENT) return {};  // a new file: nothing to lock
            os::throw_io("cannot open", path);
        }
        struct stat info {};
        if (::fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode)) return {};  // not a file to lock
        return file;
    }
}

/// Takes the lock on `file`: polls without blocking until a second has gone by since `start`,
/// then calls `waiting` and blocks.
void take_lock(const os::file_descriptor& file, const std::string& path, writer_lock::if_held held,
               std::chrono::steady_clock::time_point start, const std::function<void()>& waiting) {
    while (::flock(file.get(), LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR) continue;
        if (errno != EWOULDBLOCK) os::throw_io("cannot lock", path);
        if (held == writer_lock::if_held::fail) throw file_busy(path);
        if (std::chrono::steady_clock::now() - start >= std::chrono::seconds(1)) {
            if (waiting) waiting();
            while (::flock(file.get(), LOCK_EX) != 0)
                if (errno != EINTR) os::throw_io("cannot lock", path);
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

}  // namespace

writer_lock::writer_lock(const std::string& path, if_held held, missing if_missing,
                         const std::function<void()>& waiting) {
    const auto start = std::chrono::steady_clock::now();
    bool announced = false;
    const std::function<void()> announce_once = [&] {
        if (!std::exchange(announced, true) && waiting) waiting();
    };
    for (;;) {
        os::file_descriptor file = open_to_lock(path, if_missing);
        if (file.get() < 0) return;
        take_lock(file, path, held, start, announce_once);
        if (still_at(file, path)) {
            file_ = std::move(file);
            return;
        }
        // The holder replaced the file while we waited: lock the new one.
    }
}

os::file_descriptor writer_lock::lock_replacement(int descriptor, const std::string& path) {
    os::file_descriptor replacement(::dup(descriptor));
    if (replacement.get() < 0 || ::flock(replacement.get(), LOCK_EX | LOCK_NB) != 0) os::throw_io("cannot lock", path);
    return replacement;
}

}  // namespace bloomkit::jobs
