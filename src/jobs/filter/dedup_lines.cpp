// src/jobs/filter/dedup_lines.cpp — see dedup_lines.hpp.
#include "jobs/filter/dedup_lines.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/file.hpp"
#include "bloomkit/io/any_codec.hpp"
#include "jobs/filter/line_filters.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/ordered_pipeline.hpp"
#include "jobs/progress.hpp"
#include "jobs/signals.hpp"

namespace bloomkit::jobs {
namespace {

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

/// Whether dedup can keep its state in a filter of type F: one that takes keys and never
/// removes them, so that a line once seen stays seen.
template <class F>
constexpr bool keeps_seen_lines() {
    return capabilities_of<F>().inserts && !capabilities_of<F>().removes;
}

/// The words of the kinds dedup can keep its state in ("bloom, scalable").
std::string dedup_kinds() {
    std::string words;
    for_each_filter_type([&](auto type) {
        using F = typename decltype(type)::type;
        if (keeps_seen_lines<F>() && words.find(kind_traits<F>::word) == std::string::npos)
            words += (words.empty() ? "" : ", ") + std::string(kind_traits<F>::word);
    });
    return words;
}

/// Refuses a kind word dedup cannot keep its lines in, known to the registry or not.
void require_dedup_kind(const std::string& word) {
    bool usable = false;
    for_each_filter_type([&](auto type) {
        using F = typename decltype(type)::type;
        usable = usable || (keeps_seen_lines<F>() && word == kind_traits<F>::word);
    });
    if (!usable)
        throw invalid_argument(
            fmt::format("dedup keeps a filter that never removes a key ({}), not '{}'", dedup_kinds(), word));
}

/// The filter a dedup starts from: the state file's, or a new one as the settings ask; `count`
/// counts the input's lines when the sizing needs them (a memory budget alone).
/// The kind of a new state: asked, or chosen by the sizing and the window.
std::string dedup_kind(const dedup_settings& settings) {
    const std::string windowed(kinds_that(&kind_capabilities::forgets).at(0));
    if (!settings.kind.empty()) {
        if ((settings.window || settings.generations) && settings.kind != windowed)
            throw invalid_argument(fmt::format("a window is for the {} kind, not '{}'", windowed, settings.kind));
        return settings.kind;
    }
    if (settings.window || settings.generations) return windowed;
    const sizing_request& sizing = settings.sizing;
    return sizing.keys || sizing.memory ? std::string(kind_traits<bloom_filter>::word)
                                        : std::string(kinds_that(&kind_capabilities::grows).at(0));
}

/// The window (ms) and generations of a filter that forgets, as its facts state them.
std::pair<std::uint64_t, std::uint64_t> window_of(const any_filter& filter) {
    std::pair<std::uint64_t, std::uint64_t> window{0, 0};
    for (const filter_fact& fact : filter_facts(filter, header_of(filter))) {
        if (const auto* value = std::get_if<std::uint64_t>(&fact.value)) {
            if (fact.name == "window_ms") window.first = *value;
            if (fact.name == "generation_count") window.second = *value;
        }
    }
    return window;
}

/// The state file's filter, as a run with `settings` may go on with it.
any_filter saved_filter(const dedup_settings& settings) {
    any_filter loaded = load<any_filter>(settings.state);
    const kind_capabilities can = capabilities(loaded);
    if (!can.inserts || can.removes)
        throw error(fmt::format("'{}' holds a {}: dedup keeps its state in a filter that never removes a key ({})",
                                settings.state, kind_name(loaded), dedup_kinds()));
    if ((settings.window || settings.generations) && !can.forgets)
        throw error(fmt::format("'{}' holds a {}, which does not forget: a window needs a new state file",
                                settings.state, kind_name(loaded)));
    if (can.forgets) {
        const auto [window, generations] = window_of(loaded);
        if ((settings.window && static_cast<std::uint64_t>(settings.window->count()) != window) ||
            (settings.generations && *settings.generations != generations))
            throw error(
                fmt::format("'{}' remembers lines for {} in {} generations: its window is fixed when the "
                            "state is made (leave --window and --generations out, or start a new state file)",
                            settings.state, show_duration(std::chrono::milliseconds(window)), generations));
    }
    set_time(loaded, settings.now);
    return loaded;
}

/// The filter a dedup starts from: the state file's, or a new one as the settings ask; `count`
/// counts the input's lines when the sizing needs them (a memory budget alone).
any_filter starting_filter(const dedup_settings& settings, const std::function<std::uint64_t()>& count) {
    if (has_saved_state(settings.state)) return saved_filter(settings);
    const sizing_request& sizing = settings.sizing;
    kind_request request;
    request.kind = dedup_kind(settings);
    request.window = settings.window;
    request.generations = settings.generations;
    require_dedup_kind(request.kind);
    const filter_options options{.seed = settings.seed,
                                 .keys = settings.keys == key_format::unrecorded ? key_format::text : settings.keys};
    any_filter made = with_requested_type(request, sizing.choice_fpr(), [&](auto type) -> any_filter {
        using F = typename decltype(type)::type;
        if constexpr (!keeps_seen_lines<F>()) {
            throw invalid_argument("dedup keeps no " + request.kind + " filter");  // require_dedup_kind said so
        } else if constexpr (capabilities_of<F>().grows) {
            if (sizing.memory) throw dedup_sizing_error(dedup_sizing_error::reason::budget_for_growing);
            return kind_traits<F>::make(sizing.keys.value_or(default_growing_capacity), sizing.choice_fpr(), request,
                                        options);
        } else {
            if (capabilities_of<F>().forgets && !sizing.keys && !(sizing.memory && sizing.fpr))
                throw dedup_sizing_error(dedup_sizing_error::reason::unsized_window);
            if (!sizing.keys && !sizing.memory) throw dedup_sizing_error(dedup_sizing_error::reason::unsized);
            const auto [n, p] = resolve_sizing<F>(sizing, request, count);
            return kind_traits<F>::make(n, p, request, options);
        }
    });
    set_time(made, settings.now);
    return made;
}

/// Inserts, in order, the keys `filter` does not hold, and leaves the others alone: a line held
/// back as a repeat does not renew a filter that forgets. fresh[i]: key i went in as new.
std::uint64_t insert_absent(any_filter& filter, std::span<const digest> digests, std::span<bool> fresh) {
    bloomkit::contains(filter, digests, fresh);
    thread_local std::vector<digest> absent;
    thread_local std::vector<std::size_t> at;
    absent.clear();
    at.clear();
    for (std::size_t i = 0; i < digests.size(); ++i)
        if (!fresh[i]) absent.push_back(digests[i]), at.push_back(i);
    std::fill(fresh.begin(), fresh.end(), false);
    thread_local answer_buffer added;
    const std::span<bool> in = added.resize(absent.size());
    const std::uint64_t count = bloomkit::insert(filter, std::span<const digest>(absent), in);
    for (std::size_t j = 0; j < at.size(); ++j) fresh[at[j]] = in[j];
    return count;
}

/// The expected number of new lines wrongly taken for repeats, over stretches of the run. A
/// new line is taken for a repeat with the filter's false-positive rate p at the time, so in a
/// stretch where F new lines were let through and D lines dropped, F · p / (1 - p) of the
/// dropped ones are expected to have been new — and no more than D. Where p reaches 1 (every
/// bit set), nothing is let through any more and nothing tells repeats from new lines: all D
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
    answer_buffer fresh;
};

/// A dedup run: the filter, the output, the state file and what has been done so far.
class dedup_run {
public:
    dedup_run(const dedup_settings& settings, any_filter&& filter, std::optional<os::writer_lock>& lock, output& out)
        : settings_(settings),
          filter_(std::move(filter)),
          lock_(lock),
          out_(out),
          checkpoint_(std::chrono::duration_cast<clock::duration>(settings.checkpoint)) {}

    /// Reads every line (until a deferred signal, whose number it returns), printing the new
    /// ones, with the settings' threads hashing: the lines go in and out in input order.
    int read(line_reader& lines, key_format keys) {
        progress shown("deduplicating", lines.total_bytes());
        int signal = 0;
        wrong_drop_estimate wrong(filter_);
        const hasher& hash = hash_function(filter_);
        const bool forgets = capabilities(filter_).forgets;
        // Checkpoints fall due while the input is idle too; this thread, which owns the filter,
        // saves it between two blocks.
        const idle_work checkpoints =
            lock_ ? idle_work{[this] { return checkpoint_due(); }, [this] { save_state(); }} : idle_work{};
        try {
            for_each_block_in_order<hashed_lines>(
                lines, settings_.threads,
                [&](std::span<const std::string_view> batch, const line_origin& origin, hashed_lines& block) {
                    block.digests.resize(batch.size());
                    with_keys(batch, keys, origin, [&](auto keyed) {
                        for (std::size_t i = 0; i < batch.size(); ++i) block.digests[i] = hash(keyed[i]);
                    });
                },
                [&](std::span<const std::string_view> batch, const line_origin&, hashed_lines& block) {
                    const std::span<bool> fresh = block.fresh.resize(batch.size());
                    for (std::size_t at = 0; at < batch.size(); at += wrong.stretch()) {  // a stretch at a time
                        const std::size_t size = std::min<std::size_t>(wrong.stretch(), batch.size() - at);
                        const auto digests = std::span<const digest>(block.digests).subspan(at, size);
                        const std::uint64_t added = forgets
                                                        ? insert_absent(filter_, digests, fresh.subspan(at, size))
                                                        : bloomkit::insert(filter_, digests, fresh.subspan(at, size));
                        wrong.tested(size, added);
                        changed_ = changed_ || added > 0;
                    }
                    print(batch, fresh);
                    shown.update(lines.bytes_read());
                    if (termination_signal() != 0) throw termination_requested{termination_signal()};
                    if (lock_ && clock::now() >= checkpoint_due()) save_state();
                },
                checkpoints);
        } catch (const termination_requested& stop) {
            signal = stop.signal;
        }
        report_.expected_wrong_drops = wrong.expected();
        out_.flush();
        return signal;
    }

    /// Saves the filter to the state file, after flushing the output: every key in the saved
    /// filter is a line already printed.
    void save_state() {
        out_.flush();
        save_keeping_lock(*lock_, filter_, settings_.state);
        last_checkpoint_ = clock::now();
        changed_ = false;
    }

    [[nodiscard]] dedup_report report(int signal) const {
        dedup_report r = report_;
        r.signal = signal;
        r.filter = header_of(filter_);
        r.filter_bytes = r.filter.payload_size;
        return r;
    }

private:
    using clock = std::chrono::steady_clock;

    // When the state is next to be saved: a checkpoint after the last save, once a line has
    // changed the filter since.
    [[nodiscard]] clock::time_point checkpoint_due() const {
        return changed_ ? last_checkpoint_ + checkpoint_ : clock::time_point::max();
    }

    // Prints the lines the settings ask for (the new ones, or the repeats).
    void print(std::span<const std::string_view> batch, std::span<const bool> fresh) {
        std::uint64_t new_lines = 0;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const bool is_new = fresh[i];
            new_lines += is_new ? 1 : 0;
            if (is_new != settings_.invert) {
                out_.line(batch[i]);
                ++report_.lines_written;
            }
        }
        report_.lines_read += batch.size();
        report_.new_keys += new_lines;
    }

    const dedup_settings& settings_;
    any_filter filter_;
    std::optional<os::writer_lock>& lock_;
    output& out_;
    const clock::duration checkpoint_;
    clock::time_point last_checkpoint_ = clock::now();
    bool changed_ = false;  // the filter holds keys the state file does not
    dedup_report report_;
};

}  // namespace

dedup_report dedup_lines(line_reader& lines, const dedup_settings& settings, output& out) {
    if (!settings.state.empty()) {
        refuse_input_as_output(lines, settings.state);
        require_saveable(settings.state);  // not at the first checkpoint, a minute into the run
    }
    std::optional<os::writer_lock> lock;
    if (!settings.state.empty()) {
        defer_termination();  // a signal stops the reading; the state is then saved
        lock.emplace(lock_filter_file(settings.state, settings.lock, os::writer_lock::missing::create));
    }
    const key_format line_keys = settings.keys == key_format::unrecorded ? key_format::text : settings.keys;
    any_filter filter = starting_filter(settings, [&] { return count_lines(lines, line_keys); });
    const key_format keys =
        key_format_to_write(recorded_key_format(filter), settings.keys, holds_keys(filter), settings.state);
    if (recorded_key_format(filter) == key_format::unrecorded) record_key_format(filter, keys);
    dedup_run run(settings, std::move(filter), lock, out);
    int signal = 0;
    try {
        signal = run.read(lines, keys);
    } catch (...) {
        // A job that fails (a bad line, an input error) still remembers what it printed: a run
        // restarted after fixing the input never prints those lines again.
        if (lock) run.save_state();
        throw;
    }
    if (lock) run.save_state();
    return run.report(signal);
}

}  // namespace bloomkit::jobs
