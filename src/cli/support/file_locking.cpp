// src/cli/support/file_locking.cpp — see file_locking.hpp.
#include "file_locking.hpp"

#include <fmt/core.h>

#include <cstdio>

namespace bloomkit::cli {

jobs::lock_policy lock_policy_of(const std::string& path, bool no_wait) {
    return {!no_wait, [path] {
                fmt::print(stderr, "bloomkit: waiting for another bloomkit process to finish writing '{}'...\n", path);
            }};
}

os::writer_lock lock_for_writing(const std::string& path, bool no_wait, os::writer_lock::missing if_missing) {
    return jobs::lock_filter_file(path, lock_policy_of(path, no_wait), if_missing);
}

std::optional<os::writer_lock> lock_output(const std::string& path, bool no_wait) {
    if (path == "-") return std::nullopt;
    return lock_for_writing(path, no_wait);
}

}  // namespace bloomkit::cli
