// src/cli/support/common_options.hpp — options several subcommands take, declared once so they
// read and behave the same everywhere.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "jobs/filter/filter_files.hpp"
#include "support/arguments.hpp"
#include "support/keys.hpp"

namespace bloomkit::cli {

/// -t, --threads N (parse_threads(): 0 is one per core, at most 4 per core).
inline void add_thread_option(CLI::App& command, std::string& threads) {
    command.add_option("-t,--threads", threads, "Threads hashing and inserting (0: one per core)")
        ->type_name("N")
        ->capture_default_str();
}

/// --no-wait: fail instead of waiting for another process writing the same filter file.
inline void add_no_wait_option(CLI::App& command, bool& no_wait) {
    command.add_flag("--no-wait", no_wait,
                     "If another bloomkit process is writing the filter file, fail at once instead of waiting for it");
}

/// --format, --funnel and --key as given (empty when not): how a filter file is read, and what its
/// keys are where the file does not record them.
/// --now's time, or nothing (the system clock) when it is not given.
inline std::optional<std::chrono::system_clock::time_point> parse_now(const std::string& text) {
    if (text.empty()) return std::nullopt;
    return parse_time("--now", text);
}

struct filter_reading {
    std::string format = "auto";
    std::string funnel;
    std::string key;
    std::string now;  // empty: the system clock
    /// What the library's readers take (jobs::filter_reading). Throws invalid_argument for an
    /// unknown funnel or key format, or a time that is none.
    [[nodiscard]] jobs::filter_reading parsed() const {
        return {format,
                {funnel.empty() ? guava_funnel::none : parse_guava_funnel(funnel),
                 key.empty() ? key_format::unrecorded : parse_key_format(key)},
                parse_now(now)};
    }
};

/// --now: the time a windowed filter goes by.
inline void add_now_option(CLI::App& command, std::string& now, std::string_view by_default = "the system clock") {
    command
        .add_option("--now", now,
                    "For a windowed filter, the time to take as now: Unix seconds or ISO 8601 (2026-12-07T19:00:00Z), "
                    "to replay old logs; default: " +
                        std::string(by_default))
        ->type_name("TIME");
}

/// --format, --funnel, --key and --now (filter_reading).
inline void add_filter_reading_options(CLI::App& command, filter_reading& reading) {
    command
        .add_option("--format", reading.format,
                    "The filter file's format: auto (told by its bytes), bkf, guava (a Guava BloomFilter stream) or "
                    "dcso (a DCSO bloom file, gzipped or not)")
        ->type_name("FORMAT")
        ->capture_default_str();
    command
        .add_option("--funnel", reading.funnel,
                    "For a Guava stream, the funnel its Java writer used (not recorded in the stream): utf8 "
                    "(Funnels.stringFunnel(UTF_8), the default), chars (unencodedCharsFunnel), int, long (the default "
                    "with --key u64, i64 or u32) or bytes")
        ->type_name("FUNNEL");
    add_key_option(command, reading.key);
    add_now_option(command, reading.now);
}

}  // namespace bloomkit::cli
