// src/cli/support/file_locking.cpp — see file_locking.hpp.
#include "file_locking.hpp"

#include <fmt/core.h>

#include <cstdio>

#include "bloomkit/file.hpp"

namespace bloomkit::cli {

jobs::writer_lock lock_for_writing(const std::string& path, bool no_wait, jobs::writer_lock::missing if_missing) {
    const auto say_waiting = [&] {
        fmt::print(stderr, "bloomkit: waiting for another bloomkit process to finish writing '{}'...\n", path);
    };
    try {
        jobs::writer_lock lock(path, no_wait ? jobs::writer_lock::if_held::fail : jobs::writer_lock::if_held::wait,
                               if_missing, say_waiting);
        // Under the lock no other bloomkit writes `path`: a temporary of it beside it is what a
        // writer killed by SIGKILL between naming its finished file and renaming it left.
        try {
            os::remove_stale_temporaries(path);
        } catch (const std::exception&) {  // best effort: what the write itself says of the path is the message
        }
        return lock;
    } catch (const jobs::file_busy& e) {
        throw error(std::string(e.what()) + " (--no-wait: not waiting)");
    }
}

std::optional<jobs::writer_lock> lock_output(const std::string& path, bool no_wait) {
    if (path == "-") return std::nullopt;
    return lock_for_writing(path, no_wait);
}

void save_keeping_lock(jobs::writer_lock& lock, const any_filter& filter, const std::string& path) {
    os::file_descriptor replacement;
    save(filter, path, [&](int descriptor) { replacement = jobs::writer_lock::lock_replacement(descriptor, path); });
    lock.keep(std::move(replacement));
}

}  // namespace bloomkit::cli
