// src/jobs/progress.hpp — a progress line on stderr when stderr is a terminal, at most a few
// times a second: the phase ("counting", "adding"...), the bytes done, and with the total known
// (regular files) the percentage and the time left, else the rate. Never in a pipe or a log
// unless asked (`--progress`: then a plain line every second). A job whose data goes to stdout
// draws none when stdout is that same terminal: the line would be drawn into the data.
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

/// Whether the job writes its data to stdout (lines), or only files and a summary.
enum class data_output { standard_output, none };

class progress {
public:
    /// `total`: the bytes the phase will read, 0 when unknown.
    explicit progress(std::string verb, std::uint64_t total = 0, data_output data = data_output::standard_output)
        : verb_(std::move(verb)),
          total_(total),
          terminal_(stderr_is_terminal_for(data)),
          enabled_(terminal_ || forced()) {
        if (!terminal_) last_ = start_;  // in a log, nothing for work done within a second
    }
    ~progress() {
        if (shown_ && terminal_) fmt::print(stderr, "\r\033[K");
    }

    /// Progress whatever stderr is (`--progress`), for a log: a line each second.
    static void force() noexcept { forced() = true; }
    progress(const progress&) = delete;
    progress& operator=(const progress&) = delete;

    void update(std::uint64_t bytes) {
        if (!enabled_) return;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_ < std::chrono::milliseconds(terminal_ ? 250 : 1000)) return;
        last_ = now;
        const double seconds = std::chrono::duration<double>(now - start_).count();
        const double rate = seconds > 0 ? static_cast<double>(bytes) / seconds : 0.0;
        if (total_ > 0 && bytes <= total_) {
            const double left = rate > 0 ? static_cast<double>(total_ - bytes) / rate : 0.0;
            fmt::print(stderr, "{}{} {:.1f} of {:.1f} MB ({:.0f}%), {:.0f} MB/s, {:.0f} s left{}", start_of_line(),
                       verb_, bytes / 1e6, total_ / 1e6,
                       100.0 * static_cast<double>(bytes) / static_cast<double>(total_), rate / 1e6, left,
                       end_of_line());
        } else {
            fmt::print(stderr, "{}{} {:.1f} MB ({:.0f} MB/s){}", start_of_line(), verb_, bytes / 1e6, rate / 1e6,
                       end_of_line());
        }
        shown_ = true;
    }

private:
    static bool& forced() noexcept {
        static bool on = false;
        return on;
    }
    /// On a terminal the line is redrawn in place; in a log each is a line of its own.
    [[nodiscard]] const char* start_of_line() const noexcept { return terminal_ ? "\r" : "bloomkit: "; }
    [[nodiscard]] const char* end_of_line() const noexcept { return terminal_ ? "\033[K" : "\n"; }

    /// Whether stderr is a terminal on which a progress line does not mix with the job's data.
    static bool stderr_is_terminal_for(data_output data) noexcept {
        if (::isatty(STDERR_FILENO) != 1) return false;
        if (data == data_output::none || ::isatty(STDOUT_FILENO) != 1) return true;
        struct stat out {
        }, err{};
        return ::fstat(STDOUT_FILENO, &out) == 0 && ::fstat(STDERR_FILENO, &err) == 0 && out.st_rdev != err.st_rdev;
    }

    std::string verb_;
    std::uint64_t total_;
    bool terminal_;
    bool enabled_;
    bool shown_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_{};
};

}  // namespace bloomkit::jobs
