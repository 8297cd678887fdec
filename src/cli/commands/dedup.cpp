// bloomkit dedup [INPUT...|-] [--state FILE] [-n N] [-p P | --memory SIZE] [--kind bloom|scalable]
//                [--invert] [--line-buffered] [--checkpoint SECONDS] — prints each line the first
// time it is (probably) seen, in input order: the crawler's "have I fetched this URL?" as a
// pipe stage.
//
// A line is printed when inserting its key sets a bit that was clear, so a line is never
// printed twice; a line never seen before is wrongly held back with the filter's current FPR
// (the summary estimates how many). Without -n the filter is a scalable one that grows as the
// lines come.
//
// With --state FILE the filter persists: loaded if FILE exists, saved atomically every
// --checkpoint seconds, at the end, and on SIGINT/SIGTERM/SIGHUP, under the writer lock for the
// whole run. Before each save the output is flushed, so every line the saved filter holds has
// been printed: a crawler killed and restarted never prints again a line it printed before the
// last checkpoint (lines printed after it may come again).
#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "support/arguments.hpp"
#include "support/common_options.hpp"
#include "support/filter_files.hpp"
#include "support/filter_work.hpp"
#include "support/keys.hpp"
#include "support/output.hpp"
#include "support/progress.hpp"
#include "support/signals.hpp"
#include "support/sizing_options.hpp"
#include "support/summary.hpp"
#include "support/writer_lock.hpp"

namespace bloomkit::cli {
namespace {

struct dedup_options {
    std::vector<std::string> inputs;
    std::string state;
    sizing_options sizing;
    std::string kind;  // empty: bloom with -n, scalable without
    std::string seed = "0";
    std::string checkpoint = "60";
    std::string key = "text";
    bool invert = false;
    bool line_buffered = false;
    bool json = false;
    bool no_wait = false;
};

/// The initial capacity of a scalable filter without -n.
constexpr std::uint64_t default_capacity = 100'000;

/// The filter a dedup starts from: the state file's, or a new one as the options ask.
any_filter starting_filter(const dedup_options& options, const sizing_request& sizing) {
    if (!options.state.empty() && std::filesystem::exists(options.state)) {
        any_filter loaded = load<any_filter>(options.state);
        const bool usable = std::holds_alternative<scalable_bloom_filter>(loaded) || std::visit([](const auto& f) {
            return mergeable_by_twins<std::decay_t<decltype(f)>> && !std::is_same_v<std::decay_t<decltype(f)>, counting_bloom_filter>;
        }, loaded);
        if (!usable)
            throw error(fmt::format("'{}' holds a {}: dedup keeps its state in a Bloom or scalable Bloom filter",
                                    options.state, header_of(loaded).filter_name()));
        return loaded;
    }
    const std::string kind = !options.kind.empty() ? options.kind : sizing.keys || sizing.memory ? "bloom" : "scalable";
    const filter_options hashing{.seed = parse_seed(options.seed)};
    if (kind == "scalable") {
        if (sizing.memory) throw invalid_argument("--memory needs a filter of fixed size: use --kind bloom");
        return scalable_bloom_filter(sizing.keys.value_or(default_capacity), sizing.choice_fpr(),
                                     {.seed = hashing.seed, .hash = hashing.hash});
    }
    if (kind != "bloom") throw invalid_argument(fmt::format("dedup keeps a bloom or scalable filter, not '{}'", kind));
    if (!sizing.keys && !(sizing.memory && sizing.fpr))
        throw invalid_argument("a Bloom filter for dedup needs its size: give -n (or --memory with -p), or use the scalable "
                               "filter that grows (no -n)");
    const auto [n, p] = resolve_sizing<bloom_filter>(sizing, {}, [] { return std::uint64_t{0}; });
    return bloom_filter(n, p, hashing);
}

/// What the run has done, for the summary and the wrongly-dropped estimate.
struct dedup_counts {
    std::uint64_t read = 0, written = 0, fresh = 0;
    double expected_wrong = 0;  // Σ over new lines of the FPR when they came
};

int run_dedup(const dedup_options& options) {
    const sizing_request sizing = parse_sizing(options.sizing);
    const key_format keys = parse_key_format(options.key);
    const double checkpoint_seconds = std::stod(options.checkpoint);
    if (!(checkpoint_seconds > 0)) throw invalid_argument("--checkpoint is a number of seconds above 0");
    line_reader lines(options.inputs);
    std::optional<writer_lock> lock;
    if (!options.state.empty()) {
        defer_termination();  // a signal stops the reading; the state is then saved
        lock.emplace(options.state, options.no_wait);
    }
    any_filter filter = starting_filter(options, sizing);
    output out(options.line_buffered || ::isatty(STDOUT_FILENO) == 1 ? output::buffering::line : output::buffering::block);
    progress shown("deduplicating", lines.total_bytes());
    dedup_counts counts;
    auto last_checkpoint = std::chrono::steady_clock::now();
    const auto save_state = [&] {
        out.flush();  // every key in the saved filter is a line already printed
        lock->save_keeping_lock(filter, options.state);
        last_checkpoint = std::chrono::steady_clock::now();
    };
    double fpr_now = 0;  // the filter's FPR, refreshed every so many new keys (a model evaluation)
    std::uint64_t fresh_at_refresh = 0;
    std::vector<char> answers;
    int signal = 0;
    try {
        std::visit(
            [&](auto& f) {
                using F = std::decay_t<decltype(f)>;
                if constexpr (requires(F g, std::span<const std::string_view> k, char* o) { g.insert(k.begin(), k.end(), o); }) {
                    fpr_now = f.current_fpr();
                    lines.read([&](std::span<const std::string_view> batch, const line_origin& origin) {
                        answers.resize(batch.size());
                        with_keys(batch, keys, origin, [&](auto keyed) { f.insert(keyed.begin(), keyed.end(), answers.data()); });
                        for (std::size_t i = 0; i < batch.size(); ++i) {
                            const bool fresh = answers[i] != 0;
                            counts.fresh += fresh ? 1 : 0;
                            if (fresh) counts.expected_wrong += fpr_now;
                            if (fresh != options.invert) {
                                out.line(batch[i]);
                                ++counts.written;
                            }
                        }
                        counts.read += batch.size();
                        if (counts.fresh - fresh_at_refresh >= 1'000'000) {
                            fpr_now = f.current_fpr();
                            fresh_at_refresh = counts.fresh;
                        }
                        shown.update(lines.bytes_read());
                        if (termination_signal() != 0) throw termination_requested{termination_signal()};
                        if (lock && std::chrono::steady_clock::now() - last_checkpoint >=
                                        std::chrono::duration<double>(checkpoint_seconds))
                            save_state();
                    });
                } else {
                    throw error("dedup needs a Bloom or scalable Bloom filter");
                }
            },
            filter);
    } catch (const termination_requested& stop) {
        signal = stop.signal;
    }
    out.flush();
    if (lock) save_state();
    job_summary summary("dedup");
    summary.count("lines read", counts.read)
        .count("lines written", counts.written)
        .count("first seen", counts.fresh)
        .estimate("new lines wrongly taken for repeats", counts.expected_wrong)
        .count("filter bytes", std::visit([](const auto& f) { return f.size_in_bytes(); }, filter))
        .bytes_read(lines.bytes_read());
    if (signal != 0) summary.text("stopped by", fmt::format("stopped by signal {}", signal));
    summary.print(options.json, true);
    return signal != 0 ? 128 + signal : success;
}

}  // namespace

action dedup_command(CLI::App& command) {
    auto options = std::make_shared<dedup_options>();
    command.add_option("inputs", options->inputs, "Input files; '-' or none reads stdin");
    command.add_option("--state", options->state,
                       "Filter file that remembers the lines across runs: loaded if it exists, saved at checkpoints, at the "
                       "end and on SIGINT/SIGTERM")
        ->type_name("FILE");
    add_sizing_options(command, options->sizing,
                       "Lines the filter is sized for (a Bloom filter); without it a scalable filter grows as needed");
    command.add_option("--kind", options->kind, "bloom (fixed size, with -n) or scalable (grows; the default without -n)");
    command.add_option("--seed", options->seed, "Hash seed: a number, or 'random'")->capture_default_str();
    command.add_option("--checkpoint", options->checkpoint, "With --state: save it every SECONDS")
        ->type_name("SECONDS")
        ->capture_default_str();
    command.add_flag("--invert", options->invert, "Print only the repeats (the lines seen before)");
    command.add_flag("--line-buffered", options->line_buffered,
                     "Write each line at once (the default on a terminal), for a consumer at the other end of a pipe");
    command.add_flag("--json", options->json, "Print the summary as JSON (on stderr)");
    add_key_option(command, options->key);
    add_no_wait_option(command, options->no_wait);
    command.footer(
        "Examples:\n"
        "  crawler | bloomkit dedup --state seen.bkf --line-buffered | fetcher      # each URL once, across restarts\n"
        "  bloomkit dedup -n 10M -p 0.1% urls.txt > unique.txt                      # a fixed 10M-line filter\n"
        "  bloomkit dedup --invert access.log.gz | sort | uniq -c                   # only the repeats");
    return [options] { return run_dedup(*options); };
}

}  // namespace bloomkit::cli
