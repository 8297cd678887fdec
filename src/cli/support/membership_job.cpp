// src/cli/support/membership_job.cpp — see membership_job.hpp.
#include "membership_job.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "jobs/filter/membership_lines.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/output.hpp"
#include "support/arguments.hpp"
#include "support/common_options.hpp"
#include "support/keys.hpp"
#include "support/overfull.hpp"
#include "support/summary.hpp"

namespace bloomkit::cli {

void add_membership_options(CLI::App& command, membership_options& options, const char* held_input) {
    options.sizing.default_fpr = 0.001;  // a false positive is a line wrongly in (intersect) or out (subtract)
    add_sizing_options(command, options.sizing,
                       fmt::format("Lines the filter of {} is sized for; default: count them", held_input));
    command.add_option("--kind", options.kind, "The filter's kind (bloom, fuse, ...: see bloomkit plan)")
        ->capture_default_str();
    command.add_option("--seed", options.seed, "Hash seed: a number, or 'random'")->capture_default_str();
    command.add_flag("--all", options.all,
                     "Print every occurrence of a line, not only the first (printing each once remembers the lines "
                     "printed: 16 to 32 bytes each)");
    command.add_flag("--line-buffered", options.line_buffered, "Write each line at once (the default on a terminal)");
    command.add_flag("--json", options.json, "Print the summary as JSON (on stderr)");
    add_key_option(command, options.key);
    add_thread_option(command, options.threads);
    add_exact_options(command, options.exact, true, true);
    for (const char* name : {"--keys", "--fpr", "--kind", "--seed", "--all"})
        options.exact.filter_only.push_back(command.get_option(name));
}

namespace {

bool run_exact_membership_job(const char* job, const membership_options& options, bool present) {
    refuse_filter_options(options.exact);
    if (options.held == "-" && options.streamed == "-")
        throw invalid_argument("only one of the two inputs can be standard input");
    const jobs::spill::exact_settings settings =
        exact_settings_of(options.exact, options.sizing.memory, options.threads, options.key);
    // The first input is A: intersect's held one, subtract's streamed one (their order of arguments).
    jobs::line_reader first({present ? options.held : options.streamed});
    jobs::line_reader second({present ? options.streamed : options.held});
    jobs::output out(options.line_buffered ? jobs::output::buffering::line : jobs::output::buffering::block);
    const auto report =
        jobs::spill::shared_lines(first, second, settings, present, [&](std::string_view line) { out.line(line); });
    out.flush();
    summarize_exact(job_summary(job).flag("exact", true), report, exact_counts::pruned_lines,
                    first.bytes_read() + second.bytes_read(), options.json);
    return report.lines_written > 0;
}

}  // namespace

bool run_membership_job(const char* job, const membership_options& options, bool present) {
    if (options.exact.exact) return run_exact_membership_job(job, options, present);
    if (options.held == "-" && options.streamed == "-")
        throw invalid_argument("only one of the two inputs can be standard input");
    jobs::line_reader held({options.held});
    jobs::line_reader streamed({options.streamed});
    jobs::output out(options.line_buffered || ::isatty(STDOUT_FILENO) == 1 ? jobs::output::buffering::line
                                                                           : jobs::output::buffering::block);
    const jobs::membership_report done =
        jobs::membership_lines(held, streamed,
                               {.kind = {options.kind, {}, {}, {}, {}, {}},
                                .sizing = parse_sizing(options.sizing),
                                .hashing = {.seed = parse_seed(options.seed), .keys = key_format_to_build(options.key)},
                                .present = present,
                                .all = options.all,
                                .threads = parse_threads(options.threads)},
                               [&](std::string_view line) { out.line(line); });
    out.flush();
    warn_if_overfull(done.filter);
    // The human line counts the lines streamed, JSON those of both inputs, as the exact jobs do.
    job_summary(job)
        .flag("exact", false)
        .note(fmt::format("{} lines read", done.lines_read))
        .count("lines_read", done.held_lines + done.lines_read)
        .count("lines_written", done.lines_written, "lines written")
        .estimate("expected_false_positives", done.expected_wrong,
                  present ? "written wrongly (false positives)" : "held back wrongly (false positives)")
        .estimate("current_fpr", done.fpr, "filter false-positive rate")
        .bytes_read(held.bytes_read() + streamed.bytes_read())
        .print(options.json, true);
    return done.lines_written > 0;
}

}  // namespace bloomkit::cli
