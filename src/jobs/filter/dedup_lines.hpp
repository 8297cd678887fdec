// src/jobs/filter/dedup_lines.hpp — each line the first time it is (probably) seen, in input
// order: the crawler's "have I fetched this URL?" as a pipe stage, in a filter that remembers.
//
// A line is printed when inserting its key sets a bit that was clear, so a line is never
// printed twice; a line never seen before is wrongly held back with the filter's current FPR
// (the report estimates how many). A filter sized by nothing is a scalable one that grows as
// the lines come. A windowed filter forgets: a line is printed again once a window has passed
// since it was last printed.
//
// With a state file the filter persists: loaded if the file exists (an empty file, which a run
// creates to hold the writer lock until its first save, means nothing seen yet), saved
// atomically at most a checkpoint after a line changed it, while the input is idle too (the
// thread that owns the filter saves it between two blocks: idle_work), at the end and when a
// deferred termination signal stops the reading — under the writer lock for the whole run.
// Before each save the output is flushed, so every line the saved filter holds has been
// printed: a crawler killed and restarted never prints again a line it printed before the last
// checkpoint (lines printed after it may come again). A run that fails saves too: what it
// printed before its error is remembered.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "bloomkit/options.hpp"
#include "jobs/filter/filter_files.hpp"
#include "jobs/filter/sizing.hpp"
#include "jobs/line_reader.hpp"
#include "jobs/output.hpp"

namespace bloomkit::jobs {

/// Sizing that does not suit the kind asked for: a Bloom filter without a size, or a memory
/// budget for the scalable kind, which grows.
class dedup_sizing_error : public invalid_argument {
public:
    /// What is wrong.
    enum class reason { unsized, budget_for_growing, unsized_window };
    explicit dedup_sizing_error(reason why) : invalid_argument(text_of(why)), why_(why) {}
    [[nodiscard]] reason why() const noexcept { return why_; }

private:
    static const char* text_of(reason why) {
        switch (why) {
            case reason::unsized:
                return "a Bloom filter for dedup needs its size: a number of keys or a memory budget, or the "
                       "scalable kind that grows";
            case reason::budget_for_growing: return "a memory budget needs a filter of fixed size: the Bloom kind";
            case reason::unsized_window: break;
        }
        return "a windowed filter for dedup needs the lines a window brings: a number of keys (or a memory budget "
               "and a rate)";
    }

    reason why_;
};

/// How dedup_lines remembers and prints.
struct dedup_settings {
    /// The state file (empty: none): the filter is loaded from it and saved to it.
    std::string state{};
    /// Longest time a line that changed the filter goes unsaved.
    std::chrono::duration<double> checkpoint{60};
    /// The filter when there is no state yet: "bloom" (sized), "scalable" (grows) or "windowed"
    /// (forgets); empty: windowed with a window, else bloom when sized by keys or memory,
    /// scalable otherwise.
    std::string kind{};
    /// A windowed filter's window: a line is let through again once it was last let through
    /// that long ago (at the latest by window·(1 + 1/generations)). A repeat held back does not
    /// renew it: a crawler revisits a URL a window after fetching it, however often it saw it.
    std::optional<std::chrono::milliseconds> window{};
    /// A windowed filter's generations per window (unset: the kind's default).
    std::optional<std::uint32_t> generations{};
    /// The time a windowed filter goes by (a replay of old logs); unset: the system clock.
    std::optional<std::chrono::system_clock::time_point> now{};
    /// Its size (scalable: its first stage's).
    sizing_request sizing{.default_fpr = 0.001};
    /// Its hash seed.
    std::uint64_t seed = default_seed;
    /// What the lines are: unrecorded to read them as the state records (text for a new one).
    key_format keys = key_format::unrecorded;
    /// Print the repeats instead of the new lines.
    bool invert = false;
    /// Threads hashing.
    unsigned threads = 1;
    /// How the state file's writer lock is taken.
    lock_policy lock{};
};

/// What dedup_lines did.
struct dedup_report {
    std::uint64_t lines_read = 0;
    std::uint64_t lines_written = 0;
    std::uint64_t new_keys = 0;       ///< lines that set a bit
    double expected_wrong_drops = 0;  ///< new lines expected to have been taken for repeats
    std::uint64_t filter_bytes = 0;
    file_header filter{};  ///< the filter's header at the end
    int signal = 0;        ///< the deferred termination signal that stopped the reading (0: none)
};

/// Prints to `out` each line of `lines` the first time it is seen (see the top of this file).
dedup_report dedup_lines(line_reader& lines, const dedup_settings& settings, output& out);

}  // namespace bloomkit::jobs
