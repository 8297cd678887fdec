// src/cli/support/writer_lock.hpp — one writer at a time per filter file.
//
// Every command that changes a filter file (build -o onto an existing file, add, remove, and
// later merge and dedup --state) holds an exclusive lock on it from before it reads the file
// until its new contents have replaced it, so two writers never both start from the same old
// file and lose each other's keys. Readers take no lock: a file is only ever replaced by a
// rename, and a reader keeps the file it opened.
//
// The lock is flock(2) on the file itself. Since a writer replaces the file, a waiter may wake
// holding the lock of a file that is no longer at the path: it then locks the new one, so it
// always starts from the latest contents. A wait of more than a second is announced on stderr;
// with no_wait the command fails at once instead of waiting.
#pragma once

#include <optional>
#include <string>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/detail/posix_file.hpp"

namespace bloomkit::cli {

class writer_lock {
public:
    /// Whether a writer that finds no file creates an empty one to lock.
    enum class missing { leave, create };

    /// Locks the file `path` names (following symlinks). If it does not exist yet there is
    /// nothing to lock, unless `if_missing` is create: then an empty file is made and locked, so
    /// that a long-running writer (dedup --state) excludes a second one before its first save.
    /// Throws bloomkit::error when no_wait is set and another process holds the lock.
    writer_lock(const std::string& path, bool no_wait, missing if_missing = missing::leave);

    /// Saves `filter` to the locked path and keeps the lock: the new file is locked before it
    /// replaces the old one (a long-running writer — dedup --state — saves again and again).
    void save_keeping_lock(const any_filter& filter, const std::string& path);

private:
    detail::file_descriptor file_;
};

/// The lock a command writing a filter to `path` holds: none for standard output ("-").
std::optional<writer_lock> lock_output(const std::string& path, bool no_wait);

}  // namespace bloomkit::cli
