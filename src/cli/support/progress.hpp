// src/cli/support/progress.hpp — a progress line on stderr, only when stderr is a terminal (never
// in a pipe or a log), at most a few times a second. Not when stdout is that same terminal:
// the progress line would be drawn into the data being printed.
#pragma once

#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace bloomkit::cli {

class progress {
public:
    explicit progress(const char* verb) : verb_(verb), enabled_(stderr_is_own_terminal()) {}
    ~progress() {
        if (shown_) fmt::print(stderr, "\r\033[K");
    }
    progress(const progress&) = delete;
    progress& operator=(const progress&) = delete;

    void update(std::uint64_t bytes) {
        if (!enabled_) return;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_ < std::chrono::milliseconds(250)) return;
        last_ = now;
        const double seconds = std::chrono::duration<double>(now - start_).count();
        fmt::print(stderr, "\r{} {:.1f} MB ({:.0f} MB/s)\033[K", verb_, bytes / 1e6,
                   seconds > 0 ? bytes / 1e6 / seconds : 0.0);
        shown_ = true;
    }

private:
    /// Whether stderr is a terminal that stdout is not writing to.
    static bool stderr_is_own_terminal() noexcept {
        if (::isatty(STDERR_FILENO) != 1) return false;
        if (::isatty(STDOUT_FILENO) != 1) return true;
        struct stat out{}, err{};
        return ::fstat(STDOUT_FILENO, &out) == 0 && ::fstat(STDERR_FILENO, &err) == 0 && out.st_rdev != err.st_rdev;
    }

    const char* verb_;
    bool enabled_;
    bool shown_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_{};
};

}  // namespace bloomkit::cli
