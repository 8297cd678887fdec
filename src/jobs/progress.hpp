// src/jobs/progress.hpp — a progress line on stderr, only when stderr is a terminal (never
// in a pipe or a log), at most a few times a second: the phase ("counting", "adding"...), the
// bytes done, and with the total known (regular files) the percentage and the time left, else
// the rate. Not when stdout is that same terminal: the line would be drawn into the data.
#pragma once

#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

namespace bloomkit::jobs {

class progress {
public:
    /// `total`: the bytes the phase will read, 0 when unknown.
    explicit progress(std::string verb, std::uint64_t total = 0)
        : verb_(std::move(verb)), total_(total), enabled_(stderr_is_own_terminal()) {}
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
        const double rate = seconds > 0 ? static_cast<double>(bytes) / seconds : 0.0;
        if (total_ > 0 && bytes <= total_) {
            const double left = rate > 0 ? static_cast<double>(total_ - bytes) / rate : 0.0;
            fmt::print(stderr, "\r{} {:.1f} of {:.1f} MB ({:.0f}%), {:.0f} MB/s, {:.0f} s left\033[K", verb_,
                       bytes / 1e6, total_ / 1e6, 100.0 * static_cast<double>(bytes) / static_cast<double>(total_),
                       rate / 1e6, left);
        } else {
            fmt::print(stderr, "\r{} {:.1f} MB ({:.0f} MB/s)\033[K", verb_, bytes / 1e6, rate / 1e6);
        }
        shown_ = true;
    }

private:
    /// Whether stderr is a terminal that stdout is not writing to.
    static bool stderr_is_own_terminal() noexcept {
        if (::isatty(STDERR_FILENO) != 1) return false;
        if (::isatty(STDOUT_FILENO) != 1) return true;
        struct stat out {
        }, err{};
        return ::fstat(STDOUT_FILENO, &out) == 0 && ::fstat(STDERR_FILENO, &err) == 0 && out.st_rdev != err.st_rdev;
    }

    std::string verb_;
    std::uint64_t total_;
    bool enabled_;
    bool shown_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_{};
};

}  // namespace bloomkit::jobs
