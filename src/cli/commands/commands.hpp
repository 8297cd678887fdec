// src/cli/commands/commands.hpp — the table of subcommands: main() registers and dispatches
// every subcommand from it. A new subcommand is a file in commands/ and one line here.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string_view>

namespace bloomkit::cli {

/// Exit codes, as grep's: 0 something found (or success), 1 nothing found, 2 error.
enum exit_code : int { found = 0, success = 0, nothing_found = 1, failure = 2 };

/// What a subcommand runs once its arguments are parsed; returns the exit code.
using action = std::function<int()>;

/// Registers a subcommand's options on `command` (already named and described) and returns
/// the action to run when it is the one chosen.
using setup = action (*)(CLI::App& command);

struct command {
    std::string_view name;
    std::string_view summary;
    setup add;
};

action plan_command(CLI::App& command);
action build_command(CLI::App& command);
action add_command(CLI::App& command);
action remove_command(CLI::App& command);
action check_command(CLI::App& command);
action info_command(CLI::App& command);
action dedup_command(CLI::App& command);
action intersect_command(CLI::App& command);
action subtract_command(CLI::App& command);
action once_command(CLI::App& command);
action top_command(CLI::App& command);
action merge_command(CLI::App& command);
action convert_command(CLI::App& command);
action redis_command(CLI::App& command);

inline constexpr command command_table[] = {
    {"plan", "Show the memory each kind of filter needs for N keys at rate P", plan_command},
    {"build", "Build a filter from lines (one key per line) of files or stdin", build_command},
    {"add", "Add lines to an existing filter file", add_command},
    {"remove", "Remove lines from a counting Bloom or cuckoo filter file", remove_command},
    {"check", "Print the lines that may be in the filter", check_command},
    {"info", "Describe a filter file: kind, parameters, fill, estimated keys, FPR", info_command},
    {"dedup", "Print each line the first time it is seen (across runs with --state; exactly with --exact)",
     dedup_command},
    {"intersect", "Print the lines of B that are probably in A (exactly with --exact)", intersect_command},
    {"subtract", "Print the lines of A that are certainly not in B (all of them with --exact)", subtract_command},
    {"once", "Print the lines that appear exactly once (or, --repeated, more than once), exactly", once_command},
    {"top", "Print the K most frequent lines with their counts, exactly (or --approx in one pass)", top_command},
    {"merge", "Combine filters into one: union (or intersection) of their keys", merge_command},
    {"convert", "Rewrite a filter in another format (bkf, Guava stream, DCSO bloom file) where that is exact",
     convert_command},
#ifdef BLOOMKIT_WITH_REDIS
    {"redis", "A filter shared through Redis or a Redis Cluster: create, add, check, info, push, pull, drop",
     redis_command},
#endif
};

}  // namespace bloomkit::cli
