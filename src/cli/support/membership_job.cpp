// src/cli/support/membership_job.cpp — see membership_job.hpp.
#include "membership_job.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "jobs/digest_set.hpp"
#include "jobs/filter/line_filters.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/ordered_pipeline.hpp"
#include "jobs/output.hpp"
#include "jobs/progress.hpp"
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

double wrongly_placed(std::uint64_t kept_right, std::uint64_t placed, double fpr) {
    if (!(fpr < 1)) return static_cast<double>(placed);
    return std::min(static_cast<double>(kept_right) * fpr / (1 - fpr), static_cast<double>(placed));
}

namespace {

/// A block of streamed lines, hashed once, and the filter's answers for them.
struct hashed_answers {
    std::vector<digest> digests;
    jobs::answer_buffer answers;
};

}  // namespace

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
    const jobs::sizing_request sizing = parse_sizing(options.sizing);
    const key_format keys = key_format_to_build(options.key);
    const filter_options hashing{.seed = parse_seed(options.seed), .keys = keys};
    const unsigned threads = parse_threads(options.threads);
    const kind_request request{options.kind, {}, {}, {}};
    if (options.held == "-" && options.streamed == "-")
        throw invalid_argument("only one of the two inputs can be standard input");
    jobs::line_reader held({options.held});
    jobs::line_reader streamed({options.streamed});
    const any_filter filter = with_requested_type(request, sizing.choice_fpr(), [&](auto type) {
        return jobs::build_filter<typename decltype(type)::type>(request, held, keys, sizing, hashing, threads,
                                                                 jobs::filter_use::held_by_job);
    });
    warn_if_overfull(filter);
    const double fpr = current_fpr(filter);

    jobs::output out(options.line_buffered || ::isatty(STDOUT_FILENO) == 1 ? jobs::output::buffering::line
                                                                           : jobs::output::buffering::block);
    jobs::progress shown(job, streamed.total_bytes());
    jobs::digest_set printed;  // of the lines printed, by the digests the filter was asked with
    std::uint64_t read = 0, written = 0, other = 0;
    std::vector<digest> wanted_digests;
    std::vector<char> first_time;
    const hasher& hash = hash_function(filter);
    jobs::for_each_block_in_order<hashed_answers>(
        streamed, threads,
        [&](std::span<const std::string_view> batch, const jobs::line_origin& origin, hashed_answers& block) {
            block.digests.resize(batch.size());
            jobs::with_keys(
                batch, keys, origin, [&](auto keyed) {  // hashed once: the filter and the printed set both use it
                    std::ranges::transform(keyed, block.digests.begin(), [&](const auto& key) { return hash(key); });
                });
            bloomkit::contains(filter, std::span<const digest>(block.digests), block.answers.resize(batch.size()));
        },
        [&](std::span<const std::string_view> batch, const jobs::line_origin&, const hashed_answers& block) {
            const std::span<const bool> answers = block.answers.answers();
            wanted_digests.clear();
            for (std::size_t i = 0; i < batch.size(); ++i)
                if (answers[i] == present) wanted_digests.push_back(block.digests[i]);
            other += batch.size() - wanted_digests.size();
            read += batch.size();
            if (!options.all) {  // once per key: with --key u64, 007 is 7
                first_time.resize(wanted_digests.size());
                printed.insert(wanted_digests, first_time);
            }
            std::size_t wanted = 0;
            for (std::size_t i = 0; i < batch.size(); ++i) {
                if (answers[i] != present) continue;
                if (options.all || first_time[wanted] != 0) {
                    out.line(batch[i]);
                    ++written;
                }
                ++wanted;
            }
            shown.update(streamed.bytes_read());
        });
    out.flush();
    // intersect: lines not in the held input pass with probability fpr, and `other` counts those
    // that did not; subtract: lines not in it are held back with probability fpr, and `written`
    // counts those that were not. No more can be wrong than the lines the answer put on the
    // wrong side could be: all of them, when the filter answers "present" to everything.
    const double wrong = wrongly_placed(present ? other : written, present ? written : other, fpr);
    // The human line counts the lines streamed, JSON those of both inputs, as the exact jobs do.
    job_summary(job)
        .flag("exact", false)
        .note(fmt::format("{} lines read", read))
        .count("lines_read", held.lines_read() + read)
        .count("lines_written", written, "lines written")
        .estimate("expected_false_positives", wrong,
                  present ? "written wrongly (false positives)" : "held back wrongly (false positives)")
        .estimate("current_fpr", fpr, "filter false-positive rate")
        .bytes_read(held.bytes_read() + streamed.bytes_read())
        .print(options.json, true);
    return written > 0;
}

}  // namespace bloomkit::cli
