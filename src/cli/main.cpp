// src/cli/main.cpp — the bloomkit command: parses the arguments and runs the subcommand chosen,
// from the table in commands/commands.hpp.
//
// Data goes to stdout, everything else to stderr. Exit codes follow grep: 0 found / success,
// 1 nothing found, 2 any error — with a message that says what is wrong, prefixed "bloomkit:".
#include <fmt/core.h>
#include <sys/resource.h>

#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/version.hpp"
#include "commands/commands.hpp"
#include "jobs/progress.hpp"
#include "jobs/signals.hpp"
#include "support/messages.hpp"
#include "support/reference.hpp"

namespace {

using namespace bloomkit::cli;

/// "plan, build, add, remove, check or info".
std::string command_names() {
    std::string names;
    const std::size_t count = std::size(command_table);
    for (std::size_t i = 0; i < count; ++i)
        names += std::string(i == 0 ? "" : i + 1 == count ? " or " : ", ") + std::string(command_table[i].name);
    return names;
}

/// The EXIT STATUS of a man page: bloomkit's own, or a subcommand's from the table.
std::string exit_status_of(std::string_view name) {
    for (const command& c : command_table)
        if (c.name == name) return std::string(c.exit_status);
    return "0 on success (the commands that print lines: check, dedup, intersect, subtract, once, top, redis check: "
           "when they printed one); 1 when such a command printed none, as grep (remove: when a line was refused; "
           "redis drop: when there was no such filter); 2 on an error, with a message on standard error.";
}

bool is_command(std::string_view name) {
    for (const command& c : command_table)
        if (c.name == name) return true;
    return false;
}

/// An option given an empty value ("--state ''", often an unset shell variable) is refused:
/// taken as not given, it would silently drop what the option asks for.
void refuse_empty_values(const CLI::App& command) {
    for (const CLI::Option* option : command.get_options()) {
        if (option->get_type_size_max() == 0) continue;  // a flag takes no value
        for (const std::string& value : option->results()) {
            if (!value.empty()) continue;
            if (option->get_positional())
                throw bloomkit::invalid_argument(option->get_name() == "name" ? "an empty filter name was given"
                                                                              : "an empty file name was given");
            throw bloomkit::invalid_argument(fmt::format("{} was given an empty value", option->get_name()));
        }
    }
    for (const CLI::App* sub : command.get_subcommands()) refuse_empty_values(*sub);  // bloomkit redis add…
}

int run(int argc, char** argv) {
    CLI::App app{
        "bloomkit — Bloom filters for big files: plan sizes, build a filter from lines, check lines against it",
        "bloomkit"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("bloomkit ") + bloomkit::version);
    // Given anywhere on the line: the subcommands, made after this, pass it up to here.
    app.fallthrough();
    bool progress_anyway = false;
    app.add_flag("--progress", progress_anyway,
                 "Show the progress of long work on standard error even when it is not a terminal (then one "
                 "line a second, for a log); on a terminal it is always shown");
    std::vector<std::pair<CLI::App*, action>> chosen;
    for (const command& c : command_table) {
        CLI::App* sub = app.add_subcommand(std::string(c.name), std::string(c.summary));
        chosen.emplace_back(sub, c.add(*sub));
    }

    if (argc < 2) {
        fmt::print(stderr, "{}", app.help());
        return failure;
    }
    // For the build and packagers, not listed in --help: the man pages and completions, from this
    // very description of the options.
    if (argc == 3 && std::string_view(argv[1]) == "--generate-reference") {
        write_reference(app, {bloomkit::version, exit_status_of}, argv[2]);
        return success;
    }
    // CLI11 would only say "A subcommand is required" for a misspelt one.
    if (argv[1][0] != '-' && !is_command(argv[1])) {
        fmt::print(stderr, "bloomkit: unknown command '{}' (choose {}; see bloomkit --help)\n", argv[1],
                   command_names());
        return failure;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e) == 0 ? success : failure;
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e) == 0 ? success : failure;
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "bloomkit: {}\n", e.what());
        return failure;
    }
    if (progress_anyway) bloomkit::jobs::progress::force();
    for (auto& [sub, action] : chosen) {
        if (!sub->parsed()) continue;
        refuse_empty_values(*sub);
        const int code = action();
        // Output lost to a full disk or a closed pipe is an error, not a success.
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw bloomkit::error("cannot write to standard output");
        return code;
    }
    return failure;
}

/// An exact job over a big input holds a few hundred partition and run files open at once:
/// more than the usual soft limit of 1024 descriptors allows with several threads. The soft
/// limit is raised to the hard one, as far as the system lets.
void raise_open_file_limit() noexcept {
    struct rlimit files {};
    if (::getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur == files.rlim_max) return;
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
}

}  // namespace

int main(int argc, char** argv) {
    bloomkit::jobs::install_signal_handlers("bloomkit");
    raise_open_file_limit();
    try {
        return run(argc, argv);
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "bloomkit: out of memory (the filter or a line is larger than the memory available)\n");
    } catch (const std::exception& e) {
        fmt::print(stderr, "bloomkit: {}\n", command_message(e));
    }
    return failure;
}
