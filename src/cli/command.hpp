// src/cli/command.hpp — how main() and the subcommands meet: each subcommand file registers
// its options on the CLI11 app and returns the action to run once parsing succeeded.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace bloomkit::cli {

/// Exit codes, as grep's: 0 something found (or success), 1 nothing found, 2 error.
enum exit_code : int { found = 0, success = 0, nothing_found = 1, failure = 2 };

using action = std::function<int()>;

action add_plan_command(CLI::App& app);
action add_build_command(CLI::App& app);
action add_add_command(CLI::App& app);
action add_check_command(CLI::App& app);
action add_remove_command(CLI::App& app);
action add_info_command(CLI::App& app);

}  // namespace bloomkit::cli
