// src/cli/main.cpp — the bloomkit command: plan, build, add, remove, check, info.
//
// Data goes to stdout, everything else to stderr. Exit codes follow grep: 0 found / success,
// 1 nothing found (check), 2 any error — with a message that says what is wrong.
#include <fmt/core.h>

#include <cstdio>
#include <exception>
#include <new>
#include <vector>

#include "bloomkit/error.hpp"
#include "command.hpp"

int main(int argc, char** argv) {
    using namespace bloomkit::cli;
    CLI::App app{"bloomkit — Bloom filters for big files: plan sizes, build a filter from lines, check lines against it",
                 "bloomkit"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "bloomkit 0.1.0");

    std::vector<std::pair<CLI::App*, action>> commands;
    for (auto add : {add_plan_command, add_build_command, add_add_command, add_remove_command, add_check_command, add_info_command}) {
        const std::size_t before = app.get_subcommands({}).size();
        action run = add(app);
        commands.emplace_back(app.get_subcommands({}).at(before), std::move(run));
    }

    // CLI11 would only say "A subcommand is required" for a misspelt one.
    const auto is_command = [&](const char* name) {
        for (const auto& entry : commands)
            if (entry.first->get_name() == name) return true;
        return false;
    };
    if (argc > 1 && argv[1][0] != '-' && !is_command(argv[1])) {
        fmt::print(stderr, "bloomkit: unknown command '{}' (choose plan, build, add, remove, check or info; see --help)\n", argv[1]);
        return failure;
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version are "errors" with exit code 0; real ones exit 2, like grep's.
        const int printed = app.exit(e);
        return printed == 0 ? success : failure;
    }

    try {
        for (auto& [command, run] : commands) {
            if (!command->parsed()) continue;
            const int code = run();
            // Output lost to a full disk or a closed pipe is an error, not a success.
            if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw bloomkit::error("cannot write to standard output");
            return code;
        }
    } catch (const bloomkit::error& e) {
        fmt::print(stderr, "bloomkit: {}\n", e.what());
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "bloomkit: out of memory (the filter or a line is larger than the memory available)\n");
    } catch (const std::exception& e) {
        fmt::print(stderr, "bloomkit: {}\n", e.what());
    }
    return failure;
}
