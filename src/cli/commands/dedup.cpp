// bloomkit dedup [INPUT...|-] [--state FILE] [-n N] [-p P | --memory SIZE] [--kind bloom|scalable]
//                [--invert] [--line-buffered] [--checkpoint SECONDS] — prints each line the first
// time it is (probably) seen, in input order: the crawler's "have I fetched this URL?" as a
// pipe stage.
// bloomkit dedup --exact [INPUT...|-] [--memory SIZE] [--tmpdir DIR] — each distinct line once,
// exactly, in order of first appearance (awk '!seen[$0]++' in bounded memory: exact_jobs.hpp);
// its output comes once the input is read.
//
// A line is printed when inserting its key sets a bit that was clear, so a line is never
// printed twice; a line never seen before is wrongly held back with the filter's current FPR
// (the summary estimates how many). Without -n the filter is a scalable one that grows as the
// lines come.
//
// With --state FILE the filter persists: loaded if FILE exists (an empty FILE, which a run
// creates to hold the lock until its first save, means nothing seen yet), saved atomically at
// most --checkpoint seconds after a line changed it, while the input is idle too (the thread that
// owns the filter saves it between two blocks: jobs::idle_work), and at the end and on
// SIGINT/SIGTERM/SIGHUP, under the writer lock for the whole run. Before each save the output is
// flushed, so every line the saved filter holds has been printed: a crawler killed and restarted
// never prints again a line it printed before the last checkpoint (lines printed after it may
// come again).
//
// Exits as grep: 0 when a line was printed, 1 when none was (an empty input, only jobs::repeats).
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "jobs/filter/filter_files.hpp"
#include "jobs/filter/line_filters.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/ordered_pipeline.hpp"
#include "jobs/output.hpp"
#include "jobs/progress.hpp"
#include "jobs/signals.hpp"
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
    std::string kind;  // empty: bloom with -n, scalable without
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

/// The initial capacity of a scalable filter without -n.
constexpr std::uint64_t default_capacity = 100'000;

/// Whether the state file holds a filter. An empty one is one a run created to lock and never
/// saved into: nothing seen yet.
bool has_saved_state(const std::string& state) {
    if (state.empty()) return false;
    std::error_code failed;
    const auto status = std::filesystem::status(state, failed);
    if (!std::filesystem::exists(status)) return false;
    if (!std::filesystem::is_regular_file(status)) {
        namespace fs = std::filesystem;
        const char* what = fs::is_directory(status)                                     ? "a directory"
                           : fs::is_fifo(status)                                        ? "a FIFO"
                           : fs::is_block_file(status) || fs::is_character_file(status) ? "a device"
                                                                                        : "not a regular file";
        throw error(
            fmt::format("'{}' is {}: --state needs a regular file, or a new name, to save the filter to", state, what));
    }
    return std::filesystem::file_size(state) > 0;
}

/// The filter a dedup starts from: the state file's, or a new one as the options ask; `count`
/// counts the input's lines when the options size the filter by them (--memory alone).
any_filter starting_filter(const dedup_options& options, const jobs::sizing_request& sizing,
                           const std::function<std::uint64_t()>& count) {
    if (has_saved_state(options.state)) {
        any_filter loaded = load<any_filter>(options.state);
        const kind_capabilities can = capabilities(loaded);
        if (!can.inserts || can.removes)  // a set that only grows: Bloom (any layout) or scalable Bloom
            throw error(fmt::format("'{}' holds a {}: dedup keeps its state in a Bloom or scalable Bloom filter",
                                    options.state, filter_name(header_of(loaded))));
        (void)key_format_to_add(recorded_key_format(loaded), options.key, options.state,
                                inserted_count(loaded) > 0);  // refuses a contradiction, or a guess
        return loaded;
    }
    const std::string kind = !options.kind.empty() ? options.kind : sizing.keys || sizing.memory ? "bloom" : "scalable";
    const filter_options hashing{.seed = parse_seed(options.seed), .keys = key_format_to_build(options.key)};
    if (kind == "scalable") {
        if (sizing.memory) throw invalid_argument("--memory needs a filter of fixed size: use --kind bloom");
        return scalable_bloom_filter(sizing.keys.value_or(default_capacity), sizing.choice_fpr(),
                                     {.seed = hashing.seed, .hash = hashing.hash, .keys = hashing.keys});
    }
    if (kind != "bloom") throw invalid_argument(fmt::format("dedup keeps a bloom or scalable filter, not '{}'", kind));
    if (!sizing.keys && !sizing.memory)
        throw invalid_argument(
            "a Bloom filter for dedup needs its size: give -n or --memory, or use the scalable filter that "
            "grows (no -n)");
    const auto [n, p] = jobs::resolve_sizing<bloom_filter>(sizing, {}, count);
    return bloom_filter(n, p, hashing);
}

/// The expected number of new lines wrongly taken for jobs::repeats, over stretches of the run. A
/// new line is taken for a repeat with the filter's false-positive rate p at the time, so in a
/// stretch where F new lines were let through and D lines dropped, F · p / (1 - p) of the
/// dropped ones are expected to have been new — and no more than D. Where p reaches 1 (every
/// bit set), nothing is let through any more and nothing tells jobs::repeats from new lines: all D
/// may be wrong, and the estimate says so. The rate is measured from the fill, which reads the
/// whole filter, so a stretch is as many lines as 1/32 of the filter's bytes, at least 64 (a few
/// percent of the run's time, and short enough to follow a small filter filling up); within one
/// it is integrated as if it grew geometrically, as a Bloom filter's rate (a power of its fill)
/// nearly does.
class wrong_drop_estimate {
public:
    explicit wrong_drop_estimate(const any_filter& filter)
        : filter_(filter),
          stretch_(std::max<std::uint64_t>(64, size_in_bytes(filter) / 32)),
          rate_(current_fpr(filter)) {}

    /// Lines tested in a stretch, at most.
    [[nodiscard]] std::uint64_t stretch() const noexcept { return stretch_; }

    /// `tested` lines went through the filter, `fresh` of them let through as new.
    void tested(std::uint64_t tested, std::uint64_t fresh) {
        fresh_ += fresh;
        dropped_ += tested - fresh;
        if (fresh_ + dropped_ >= stretch_) settle();
    }

    [[nodiscard]] double expected() {
        settle();
        return sum_;
    }

private:
    void settle() {
        if (fresh_ + dropped_ == 0) return;
        const double now = current_fpr(filter_);
        const double mean =
            rate_ > 0 && now > rate_ * (1 + 1e-9) ? (now - rate_) / std::log(now / rate_) : (rate_ + now) / 2;
        const auto dropped = static_cast<double>(dropped_);
        sum_ += mean < 1 ? std::min(static_cast<double>(fresh_) * mean / (1 - mean), dropped) : dropped;
        rate_ = now;
        fresh_ = dropped_ = 0;
    }

    const any_filter& filter_;
    const std::uint64_t stretch_;
    double rate_;
    std::uint64_t fresh_ = 0, dropped_ = 0;
    double sum_ = 0;
};

/// A block of lines hashed by a worker, and which of them were new, found by the inserter.
struct hashed_lines {
    std::vector<digest> digests;
    jobs::answer_buffer fresh;
};

/// A dedup run: the filter, the output, the state file and what has been done so far.
class dedup_run {
public:
    dedup_run(const dedup_options& options, double checkpoint_seconds, any_filter&& filter,
              std::optional<jobs::writer_lock>& lock)
        : options_(options),
          filter_(std::move(filter)),
          lock_(lock),
          out_(options.line_buffered || ::isatty(STDOUT_FILENO) == 1 ? jobs::output::buffering::line
                                                                     : jobs::output::buffering::block),
          checkpoint_(std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(checkpoint_seconds))) {}

    /// Reads every line (until a deferred signal, whose number it returns), printing the new
    /// ones, with `threads` threads hashing: the lines go in and out in input order.
    int read(jobs::line_reader& lines, key_format keys, unsigned threads) {
        jobs::progress shown("deduplicating", lines.total_bytes());
        int signal = 0;
        wrong_drop_estimate wrong(filter_);
        const hasher& hash = hash_function(filter_);
        // Checkpoints fall due while the input is idle too; this thread, which owns the filter,
        // saves it between two blocks.
        const jobs::idle_work checkpoints =
            lock_ ? jobs::idle_work{[this] { return checkpoint_due(); }, [this] { save_state(); }} : jobs::idle_work{};
        try {
            jobs::for_each_block_in_order<hashed_lines>(
                lines, threads,
                [&](std::span<const std::string_view> batch, const jobs::line_origin& origin, hashed_lines& block) {
                    block.digests.resize(batch.size());
                    jobs::with_keys(batch, keys, origin, [&](auto keyed) {
                        for (std::size_t i = 0; i < batch.size(); ++i) block.digests[i] = hash(keyed[i]);
                    });
                },
                [&](std::span<const std::string_view> batch, const jobs::line_origin&, hashed_lines& block) {
                    const std::span<bool> fresh = block.fresh.resize(batch.size());
                    for (std::size_t at = 0; at < batch.size(); at += wrong.stretch()) {  // a stretch at a time
                        const std::size_t size = std::min<std::size_t>(wrong.stretch(), batch.size() - at);
                        const std::uint64_t added = bloomkit::insert(
                            filter_, std::span<const digest>(block.digests).subspan(at, size), fresh.subspan(at, size));
                        wrong.tested(size, added);
                        changed_ = changed_ || added > 0;
                    }
                    print(batch, fresh);
                    shown.update(lines.bytes_read());
                    if (jobs::termination_signal() != 0) throw jobs::termination_requested{jobs::termination_signal()};
                    if (lock_ && clock::now() >= checkpoint_due()) save_state();
                },
                checkpoints);
        } catch (const jobs::termination_requested& stop) {
            signal = stop.signal;
        }
        expected_wrong_ = wrong.expected();
        out_.flush();
        return signal;
    }

    /// Saves the filter to the state file, after flushing the output: every key in the saved
    /// filter is a line already printed.
    void save_state() {
        out_.flush();
        save_keeping_lock(*lock_, filter_, options_.state);
        last_checkpoint_ = clock::now();
        changed_ = false;
    }

    /// Lines printed so far.
    [[nodiscard]] std::uint64_t written() const noexcept { return written_; }

    void summarize(const jobs::line_reader& lines, int signal) const {
        warn_if_overfull(filter_);
        job_summary summary("dedup");
        summary.flag("exact", false)
            .count("lines_read", read_, "lines read")
            .count("lines_written", written_, "lines written")
            .count("new_keys", fresh_, "first seen")
            .estimate("expected_false_positives", expected_wrong_, "new lines wrongly taken for jobs::repeats")
            .count("filter_bytes", header_of(filter_).payload_size, "filter bytes")
            .count("signal", static_cast<std::uint64_t>(signal))
            .bytes_read(lines.bytes_read());
        if (signal != 0) summary.note(fmt::format("stopped by signal {}", signal));
        summary.print(options_.json, true);
    }

private:
    using clock = std::chrono::steady_clock;

    // When the state is next to be saved: a checkpoint after the last save, once a line has
    // changed the filter since.
    [[nodiscard]] clock::time_point checkpoint_due() const {
        return changed_ ? last_checkpoint_ + checkpoint_ : clock::time_point::max();
    }

    // Prints the lines the options ask for (the new ones, or with --invert the jobs::repeats).
    void print(std::span<const std::string_view> batch, std::span<const bool> fresh) {
        std::uint64_t new_lines = 0;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const bool is_new = fresh[i];
            new_lines += is_new ? 1 : 0;
            if (is_new != options_.invert) {
                out_.line(batch[i]);
                ++written_;
            }
        }
        read_ += batch.size();
        fresh_ += new_lines;
    }

    const dedup_options& options_;
    any_filter filter_;
    std::optional<jobs::writer_lock>& lock_;
    jobs::output out_;
    const clock::duration checkpoint_;
    clock::time_point last_checkpoint_ = clock::now();
    bool changed_ = false;  // the filter holds keys the state file does not
    std::uint64_t read_ = 0, written_ = 0, fresh_ = 0;
    double expected_wrong_ = 0;
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
    const jobs::sizing_request sizing = parse_sizing(options.sizing);
    const unsigned threads = parse_threads(options.threads);
    const double checkpoint_seconds = parse_seconds("--checkpoint", options.checkpoint);
    jobs::line_reader lines(options.inputs);
    if (!options.state.empty()) {
        jobs::refuse_input_as_output(lines, options.state);
        require_saveable(options.state);  // not at the first checkpoint, a minute into the run
    }
    std::optional<jobs::writer_lock> lock;
    if (!options.state.empty()) {
        jobs::defer_termination();  // a signal stops the reading; the state is then saved
        lock.emplace(lock_for_writing(options.state, options.no_wait, jobs::writer_lock::missing::create));
    }
    any_filter filter =
        starting_filter(options, sizing, [&] { return jobs::count_lines(lines, key_format_to_build(options.key)); });
    const key_format keys =
        key_format_to_add(recorded_key_format(filter), options.key, options.state, inserted_count(filter) > 0);
    if (recorded_key_format(filter) == key_format::unrecorded) record_key_format(filter, keys);
    dedup_run run(options, checkpoint_seconds, std::move(filter), lock);
    const int signal = run.read(lines, keys, threads);
    if (lock) run.save_state();
    run.summarize(lines, signal);
    if (signal != 0) return 128 + signal;
    return run.written() > 0 ? found : nothing_found;
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
                       "bloom (fixed size, with -n) or scalable (grows; the default without -n)");
    command.add_option("--seed", options->seed, "Hash seed: a number, or 'random'")->capture_default_str();
    command
        .add_option("--checkpoint", options->checkpoint,
                    "With --state: save it at most SECONDS after a line changed it, while the input is idle too")
        ->type_name("SECONDS")
        ->capture_default_str();
    command.add_flag("--invert", options->invert, "Print only the jobs::repeats (the lines seen before)");
    command.add_flag("--line-buffered", options->line_buffered,
                     "Write each line at once (the default on a terminal), for a consumer at the other end of a pipe");
    command.add_flag("--json", options->json, "Print the summary as JSON (on stderr)");
    add_key_option(command, options->key);
    add_thread_option(command, options->threads);
    add_no_wait_option(command, options->no_wait);
    add_exact_options(command, options->exact, true, false);
    for (const char* name :
         {"--keys", "--fpr", "--kind", "--seed", "--state", "--checkpoint", "--invert", "--no-wait", "--line-buffered"})
        options->exact.filter_only.push_back(command.get_option(name));
    command.footer(
        "Examples:\n"
        "  crawler | bloomkit dedup --state seen.bkf --line-buffered | fetcher      # each URL once, across restarts\n"
        "  bloomkit dedup -n 10M -p 0.1% urls.txt > unique.txt                      # a fixed 10M-line filter\n"
        "  bloomkit dedup --invert access.log.gz | sort | uniq -c                   # only the jobs::repeats\n"
        "  bloomkit dedup --exact --memory 2G frontier.txt > unique.txt             # exactly, whatever the size\n" +
        exit_status_footer(command.get_name()));
    return [options] { return run_dedup(*options); };
}

}  // namespace bloomkit::cli
