// src/jobs/writer_lock.hpp — one writer at a time per file.
//
// A job that changes a file (build -o onto an existing filter, add, remove, merge, dedup --state)
// holds an exclusive lock on it from before it reads the file until its new contents have
// replaced it, so two writers never both start from the same old file and lose each other's
// keys. Readers take no lock: a file is only ever replaced by a rename, and a reader keeps the
// file it opened.
//
// The lock is flock(2) on the file itself. Since a writer replaces the file, a waiter may wake
// holding the lock of a file that is no longer at the path: it then locks the new one, so it
// always starts from the latest contents. A writer that replaces the file and goes on writing
// (dedup --state saves again and again) locks the new file before it takes the path
// (lock_replacement, then keep), so no second writer slips in between.
#pragma once

#include <functional>
#include <string>

#include "bloomkit/error.hpp"
#include "bloomkit/os/file.hpp"

namespace bloomkit::jobs {

/// Thrown when another process holds the lock and the writer was told not to wait.
class file_busy : public error {
public:
    explicit file_busy(const std::string& path)
        : error("'" + path + "' is being written by another bloomkit process") {}
};

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
    /// io_error when the file cannot be opened or locked.
    writer_lock(const std::string& path, if_held held, missing if_missing = missing::leave,
                const std::function<void()>& waiting = {});

    /// Locks the open file `descriptor`: the new contents of the locked path, before they
    /// replace it (from the callback of save() or os::replace_file()). Throws io_error.
    [[nodiscard]] static os::file_descriptor lock_replacement(int descriptor, const std::string& path);

    /// Holds `replacement` (from lock_replacement) from now on, the file now at the path; the
    /// replaced file's lock goes with its descriptor.
    void keep(os::file_descriptor replacement) noexcept { file_ = std::move(replacement); }

private:
    os::file_descriptor file_;
};

}  // namespace bloomkit::jobs
