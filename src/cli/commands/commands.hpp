// src/cli/commands/commands.hpp — the table of subcommands: main() registers and dispatches
// every subcommand from it. A new subcommand is a file in commands/ and one line here.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
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
    std::string_view exit_status;  ///< what its exit codes mean, for its man page
};

inline constexpr std::string_view exits_on_error = "0 on success; 2 on an error, with a message on standard error.";

/// The exit status of a subcommand that prints lines of its input.
inline constexpr std::string_view printing_exit_status =
    "0 when a line was printed; 1 when none was (as grep); 2 on an error.";

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
    {"plan", "Show the memory each kind of filter needs for N keys at rate P", plan_command, exits_on_error},
    {"build", "Build a filter from lines (one key per line) of files or stdin", build_command, exits_on_error},
    {"add", "Add lines to an existing filter file", add_command, exits_on_error},
    {"remove", "Remove lines from a counting Bloom or cuckoo filter file", remove_command,
     "0 when every line was removed; 1 when a line was certainly not in the filter (nothing is removed then, "
     "unless --partial); 2 on an error."},
    {"check", "Print the lines that may be in the filter", check_command,
     "0 when a line may be in the filter; 1 when none is (as grep); 2 on an error."},
    {"info", "Describe a filter file: kind, parameters, fill, estimated keys, FPR", info_command, exits_on_error},
    {"dedup", "Print each line the first time it is seen (across runs with --state; exactly with --exact)",
     dedup_command, printing_exit_status},
    {"intersect", "Print the lines of B that are probably in A (exactly with --exact)", intersect_command,
     printing_exit_status},
    {"subtract", "Print the lines of A that are certainly not in B (all of them with --exact)", subtract_command,
     printing_exit_status},
    {"once", "Print the lines that appear exactly once (or, --repeated, more than once), exactly", once_command,
     printing_exit_status},
    {"top", "Print the K most frequent lines with their counts, exactly (or --approx in one pass)", top_command,
     printing_exit_status},
    {"merge", "Combine filters into one: union (or intersection) of their keys", merge_command, exits_on_error},
    {"convert", "Rewrite a filter in another format (bkf, Guava stream, DCSO bloom file) where that is exact",
     convert_command, exits_on_error},
#ifdef BLOOMKIT_WITH_REDIS
    {"redis",
     "A filter shared through Redis or a Redis Cluster: create, add, check, info, push, pull, drop; load, dump (a BF "
     "key "
     "of the module bloomkit.so)",
     redis_command,
     "0 on success (redis check: when a line may be in the filter); 1 when redis check finds no line in the "
     "filter, or redis drop no filter of that name; 2 on an error, a lost shard or an unreachable server "
     "included: never an answer of \"absent\"."},
#endif
};

/// The line of a subcommand's --help that says what its exit status means, as its man page does.
inline std::string exit_status_footer(std::string_view name) {
    for (const command& c : command_table)
        if (c.name == name) return "Exit status: " + std::string(c.exit_status);
    return {};
}

}  // namespace bloomkit::cli
