// src/cli/support/membership_job.cpp — see membership_job.hpp.
#include "membership_job.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <vector>

#include "support/arguments.hpp"
#include "support/common_options.hpp"
#include "support/digest_set.hpp"
#include "support/filter_build.hpp"
#include "support/keys.hpp"
#include "support/output.hpp"
#include "support/progress.hpp"
#include "support/summary.hpp"

namespace bloomkit::cli {

void add_membership_options(CLI::App& command, membership_options& options) {
    add_sizing_options(command, options.sizing, "Lines the filter of the first input is sized for; default: count them");
    command.add_option("--kind", options.kind, "The filter's kind (bloom, fuse, ...: see bloomkit plan)")->capture_default_str();
    command.add_option("--seed", options.seed, "Hash seed: a number, or 'random'")->capture_default_str();
    command.add_flag("--all", options.all, "Print every occurrence of a line, not only the first");
    command.add_flag("--line-buffered", options.line_buffered, "Write each line at once (the default on a terminal)");
    command.add_flag("--json", options.json, "Print the summary as JSON (on stderr)");
    add_key_option(command, options.key);
    add_thread_option(command, options.threads);
}

bool run_membership_job(const char* job, const membership_options& options, bool present) {
    const sizing_request sizing = parse_sizing(options.sizing);
    const key_format keys = parse_key_format(options.key);
    const filter_options hashing{.seed = parse_seed(options.seed)};
    const kind_request request{options.kind, {}, {}, {}};
    if (options.held == "-" && options.streamed == "-")
        throw invalid_argument("only one of the two inputs can be standard input");
    line_reader held({options.held});
    line_reader streamed({options.streamed});
    const any_filter filter = with_requested_type(request, sizing.choice_fpr(), [&](auto type) {
        return build_filter<typename decltype(type)::type>(request, held, keys, sizing, hashing, parse_threads(options.threads));
    });
    const double fpr = std::visit(
        [](const auto& f) {
            if constexpr (requires { f.current_fpr(); }) return f.current_fpr();
            else return f.expected_fpr();
        },
        filter);

    output out(options.line_buffered || ::isatty(STDOUT_FILENO) == 1 ? output::buffering::line : output::buffering::block);
    progress shown(job, streamed.total_bytes());
    digest_set printed;
    const hasher identity(hash_algorithm::xxh3_mix, 0x5eed);
    std::uint64_t read = 0, written = 0, other = 0;
    std::vector<char> answers;
    std::visit(
        [&](const auto& f) {
            streamed.read([&](std::span<const std::string_view> batch, const line_origin& origin) {
                answers.resize(batch.size());
                with_keys(batch, keys, origin, [&](auto keyed) {
                    f.contains(keyed.begin(), keyed.end(), answers.begin());
                    for (std::size_t i = 0; i < batch.size(); ++i) {
                        if ((answers[i] != 0) != present) {
                            ++other;
                            continue;
                        }
                        if (!options.all && !printed.insert(identity(keyed[i]))) continue;
                        out.line(batch[i]);
                        ++written;
                    }
                });
                read += batch.size();
                shown.update(streamed.bytes_read());
            });
        },
        filter);
    out.flush();
    // intersect: lines not in the held input pass with probability fpr, and `other` counts those
    // that did not; subtract: lines not in it are held back with probability fpr, and `written`
    // counts those that were not.
    const double wrong = static_cast<double>(present ? other : written) * fpr / (1 - fpr);
    job_summary(job)
        .count("lines read", read)
        .count("lines written", written)
        .estimate(present ? "written wrongly (false positives)" : "held back wrongly (false positives)", wrong)
        .estimate("filter false-positive rate", fpr)
        .bytes_read(streamed.bytes_read())
        .print(options.json, true);
    return written > 0;
}

}  // namespace bloomkit::cli
