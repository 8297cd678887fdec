// bloomkit dedup [INPUT...|-] [--state FILE] [-n N] [-p P | --memory SIZE] [--kind bloom|scalable|windowed]
//                [--window W [--generations G]] [--now T] [--invert] [--line-buffered] [--checkpoint SECONDS] — prints
//                each line the first
// time it is (probably) seen, in input order (jobs/filter/dedup_lines.hpp: the state file, its
// checkpoints, the estimate of new lines wrongly taken for repeats).
// bloomkit dedup --exact [INPUT...|-] [--memory SIZE] [--tmpdir DIR] — each distinct line once,
// exactly, in order of first appearance (awk '!seen[$0]++' in bounded memory: exact_jobs.hpp);
// its output comes once the input is read.
//
// Exits as grep: 0 when a line was printed, 1 when none was (an empty input, only repeats).
#include <fmt/core.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "jobs/filter/dedup_lines.hpp"
#include "jobs/output.hpp"
#include "support/arguments.hpp"
#include "support/common_options.hpp"
#include "support/exact_job.hpp"
#include "support/file_locking.hpp"
#include "support/keys.hpp"
#include "support/overfull.hpp"
#include "support/sizing_options.hpp"
#include "support/summary.hpp"

namespace bloomkit::cli {
namespace {

struct dedup_options {
    std::vector<std::string> inputs;
    std::string state;
    sizing_options sizing;
    std::string kind;  // empty: windowed with --window, else bloom with -n, scalable without
    std::string window;
    std::string generations;
    std::string now;
    std::string seed = "0";
    std::string checkpoint = "60";
    std::string key;  // empty: as the state records, text for a new one
    std::string threads = "0";
    bool invert = false;
    bool line_buffered = false;
    bool json = false;
    bool no_wait = false;
    exact_options exact;
};

int run_exact_dedup(const dedup_options& options) {
    refuse_filter_options(options.exact);
    const jobs::spill::exact_settings settings =
        exact_settings_of(options.exact, options.sizing.memory, options.threads, options.key);
    jobs::line_reader lines(options.inputs);
    jobs::output out;
    const auto report = jobs::spill::distinct_in_order(lines, settings, [&](std::string_view line) { out.line(line); });
    out.flush();
    summarize_exact(job_summary("dedup").flag("exact", true), report, exact_counts::distinct_lines, lines.bytes_read(),
                    options.json);
    return report.lines_written > 0 ? found : nothing_found;
}

int run_dedup(const dedup_options& options) {
    if (options.exact.exact) return run_exact_dedup(options);
    jobs::line_reader lines(options.inputs);
    jobs::output out(options.line_buffered || ::isatty(STDOUT_FILENO) == 1 ? jobs::output::buffering::line
                                                                           : jobs::output::buffering::block);
    const jobs::dedup_report done = jobs::dedup_lines(
        lines,
        {.state = options.state,
         .checkpoint = std::chrono::duration<double>(parse_seconds("--checkpoint", options.checkpoint)),
         .kind = options.kind,
         .window = options.window.empty() ? std::nullopt : std::optional(parse_duration("--window", options.window)),
         .generations = options.generations.empty()
                            ? std::nullopt
                            : std::optional(parse_small_number("--generations", options.generations)),
         .now = parse_now(options.now),
         .sizing = parse_sizing(options.sizing),
         .seed = parse_seed(options.seed),
         .keys = asked_key_format(options.key),
         .invert = options.invert,
         .threads = parse_threads(options.threads),
         .lock = lock_policy_of(options.state, options.no_wait)},
        out);
    warn_if_overfull(done.filter);
    job_summary summary("dedup");
    summary.flag("exact", false)
        .count("lines_read", done.lines_read, "lines read")
        .count("lines_written", done.lines_written, "lines written")
        .count("new_keys", done.new_keys, "first seen")
        .estimate("expected_false_positives", done.expected_wrong_drops, "new lines wrongly taken for repeats")
        .count("filter_bytes", done.filter_bytes, "filter bytes")
        .count("signal", static_cast<std::uint64_t>(done.signal))
        .bytes_read(lines.bytes_read());
    if (done.signal != 0) summary.note(fmt::format("stopped by signal {}", done.signal));
    summary.print(options.json, true);
    if (done.signal != 0) return 128 + done.signal;
    return done.lines_written > 0 ? found : nothing_found;
}

}  // namespace

action dedup_command(CLI::App& command) {
    auto options = std::make_shared<dedup_options>();
    command.add_option("inputs", options->inputs, "Input files; '-' or none reads stdin")->type_name("FILE");
    command
        .add_option(
            "--state", options->state,
            "Filter file that remembers the lines across runs: loaded if it exists, saved at checkpoints, at the "
            "end and on SIGINT/SIGTERM")
        ->type_name("FILE");
    options->sizing.default_fpr = 0.001;  // a false positive is a new line lost
    add_sizing_options(command, options->sizing,
                       "Lines the filter is sized for (a Bloom filter); without it a scalable filter grows as needed");
    command.add_option("--kind", options->kind,
                       "bloom (fixed size, with -n), scalable (grows; the default without -n) or windowed (forgets; "
                       "the default with --window)");
    command
        .add_option("--window", options->window,
                    "Forget: let a line through again once it was last let through this long ago (24h, 90m, 7d); "
                    "-n is then the lines a window brings")
        ->type_name("DURATION");
    command.add_option("--generations", options->generations,
                       "With --window: generations per window, 1 to 64 (default 4); a line comes back by window x "
                       "(1 + 1/generations)");
    add_now_option(command, options->now);
    command.add_option("--seed", options->seed, "Hash seed: a number, or 'random'")->capture_default_str();
    command
        .add_option("--checkpoint", options->checkpoint,
                    "With --state: save it at most SECONDS after a line changed it, while the input is idle too")
        ->type_name("SECONDS")
        ->capture_default_str();
    command.add_flag("--invert", options->invert, "Print only the repeats (the lines seen before)");
    command.add_flag("--line-buffered", options->line_buffered,
                     "Write each line at once (the default on a terminal), for a consumer at the other end of a pipe");
    command.add_flag("--json", options->json, "Print the summary as JSON (on stderr)");
    add_key_option(command, options->key);
    add_thread_option(command, options->threads);
    add_no_wait_option(command, options->no_wait);
    add_exact_options(command, options->exact, true, false);
    for (const char* name : {"--keys", "--fpr", "--kind", "--seed", "--state", "--checkpoint", "--invert", "--no-wait",
                             "--line-buffered", "--window", "--generations", "--now"})
        options->exact.filter_only.push_back(command.get_option(name));
    command.footer(
        "Examples:\n"
        "  crawler | bloomkit dedup --state seen.bkf --line-buffered | fetcher      # each URL once, across restarts\n"
        "  bloomkit dedup -n 10M -p 0.1% urls.txt > unique.txt                      # a fixed 10M-line filter\n"
        "  feed | bloomkit dedup --window 7d -n 5M --state shown.bkf --line-buffered # not twice in a week\n"
        "  bloomkit dedup --invert access.log.gz | sort | uniq -c                   # only the repeats\n"
        "  bloomkit dedup --exact --memory 2G frontier.txt > unique.txt             # exactly, whatever the size\n" +
        exit_status_footer(command.get_name()));
    return [options] { return run_dedup(*options); };
}

}  // namespace bloomkit::cli
