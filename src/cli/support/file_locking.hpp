// src/cli/support/file_locking.hpp — the writer lock (jobs/writer_lock.hpp) as the command takes
// it: a wait of more than a second said on stderr, --no-wait's refusal naming the option, none
// for standard output, and a filter saved again and again under one lock (dedup --state).
#pragma once

#include <optional>
#include <string>

#include "bloomkit/any_filter.hpp"
#include "jobs/writer_lock.hpp"

namespace bloomkit::cli {

/// Locks the filter file `path` for writing: waits for another writer (saying so once a second
/// has gone by), or with `no_wait` refuses at once.
jobs::writer_lock lock_for_writing(const std::string& path, bool no_wait,
                                   jobs::writer_lock::missing if_missing = jobs::writer_lock::missing::leave);

/// The lock a command writing a filter to `path` holds: none for standard output ("-").
std::optional<jobs::writer_lock> lock_output(const std::string& path, bool no_wait);

/// Saves `filter` to the path `lock` holds and keeps the lock: the new file is locked before it
/// replaces the old one.
void save_keeping_lock(jobs::writer_lock& lock, const any_filter& filter, const std::string& path);

}  // namespace bloomkit::cli
