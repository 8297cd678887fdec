// src/cli/support/file_locking.hpp — the writer lock of a filter file (os/writer_lock.hpp, taken
// by the jobs: jobs::lock_filter_file) as the command asks for it: a wait of more than a second
// said on stderr, --no-wait's refusal naming the option, none for standard output.
#pragma once

#include <optional>
#include <string>

#include "bloomkit/os/writer_lock.hpp"
#include "jobs/filter/filter_files.hpp"

namespace bloomkit::cli {

/// How the command's jobs take the lock of `path`: waiting (and saying so once a second has
/// gone by), or with `no_wait` refusing at once.
jobs::lock_policy lock_policy_of(const std::string& path, bool no_wait);

/// Locks the filter file `path` for writing as lock_policy_of() says.
os::writer_lock lock_for_writing(const std::string& path, bool no_wait,
                                 os::writer_lock::missing if_missing = os::writer_lock::missing::leave);

/// The lock a command writing a filter to `path` holds: none for standard output ("-").
std::optional<os::writer_lock> lock_output(const std::string& path, bool no_wait);

}  // namespace bloomkit::cli
