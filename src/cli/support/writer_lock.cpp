// src/cli/support/writer_lock.cpp — see writer_lock.hpp.
#include "writer_lock.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"

namespace bloomkit::cli {
namespace {

/// Whether `file` is still the file `path` names.
bool still_at(const detail::file_descriptor& file, const std::string& path) {
    struct stat opened{}, now{};
    return ::fstat(file.get(), &opened) == 0 && ::stat(path.c_str(), &now) == 0 && opened.st_dev == now.st_dev &&
           opened.st_ino == now.st_ino;
}

}  // namespace

writer_lock::writer_lock(const std::string& path, bool no_wait, missing if_missing) {
    bool announced = false;
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        // O_NONBLOCK: opening a FIFO must not wait for a writer (replacing one is refused later).
        detail::file_descriptor file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
        if (file.get() < 0 && errno == ENOENT && if_missing == missing::create) {
            file = detail::file_descriptor(::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
            if (file.get() < 0 && errno == EEXIST) continue;  // another writer made it first: lock theirs
            if (file.get() < 0) detail::throw_io("cannot create", path);
        }
        if (file.get() < 0) {
            if (errno == ENOENT) return;  // a new file: nothing to lock
            detail::throw_io("cannot open", path);
        }
        struct stat info{};
        if (::fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode)) return;  // not a file to lock
        // Poll without blocking for a second, then block: a second's wait is announced first.
        while (::flock(file.get(), LOCK_EX | LOCK_NB) != 0) {
            if (errno == EINTR) continue;
            if (errno != EWOULDBLOCK) detail::throw_io("cannot lock", path);
            if (no_wait)
                throw error(fmt::format("'{}' is being written by another bloomkit process (--no-wait: not waiting)", path));
            if (announced || std::chrono::steady_clock::now() - start >= std::chrono::seconds(1)) {
                if (!announced)
                    fmt::print(stderr, "bloomkit: waiting for another bloomkit process to finish writing '{}'...\n", path);
                announced = true;
                while (::flock(file.get(), LOCK_EX) != 0)
                    if (errno != EINTR) detail::throw_io("cannot lock", path);
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (still_at(file, path)) {
            file_ = std::move(file);
            return;
        }
        // The holder replaced the file while we waited: lock the new one.
    }
}

void writer_lock::save_keeping_lock(const any_filter& filter, const std::string& path) {
    detail::file_descriptor replacement;
    save(filter, path, [&](int descriptor) {
        replacement = detail::file_descriptor(::dup(descriptor));
        if (replacement.get() < 0 || ::flock(replacement.get(), LOCK_EX | LOCK_NB) != 0) detail::throw_io("cannot lock", path);
    });
    file_ = std::move(replacement);  // the old file's lock goes with its descriptor
}

std::optional<writer_lock> lock_output(const std::string& path, bool no_wait) {
    if (path == "-") return std::nullopt;
    return std::optional<writer_lock>(std::in_place, path, no_wait);
}

}  // namespace bloomkit::cli
