// src/cli/support/summary.hpp — the one line a job prints when it is done: what it read and wrote,
// what the filter holds, what it cost — on stderr for a person, or as JSON (--json) for a
// program. Jobs whose data goes to stdout (dedup, intersect, subtract) print the JSON on
// stderr too; the others (build, add, merge) print it on stdout.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/any_filter.hpp"

namespace bloomkit::cli {

class job_summary {
public:
    explicit job_summary(std::string job) : job_(std::move(job)) {}

    /// A count: "lines read", "lines written"... (JSON name: spaces become underscores).
    job_summary& count(std::string name, std::uint64_t value);
    /// An estimate, printed with 4 significant digits ("distinct keys", "expected wrong lines").
    job_summary& estimate(std::string name, double value);
    /// Text ("filter": "block Bloom filter").
    job_summary& text(std::string name, std::string value);
    /// The bytes read, for the rate (MB/s).
    job_summary& bytes_read(std::uint64_t bytes) {
        bytes_read_ = bytes;
        return *this;
    }

    /// Prints the summary: a human line on stderr, or JSON on stdout or stderr. Its time is the
    /// process's so far: setup, counting passes and loading are part of the job.
    void print(bool json, bool json_on_stderr) const;

    /// Whether a job that reports only to people (build, add, merge) prints its summary: with
    /// --json, or when stderr is a terminal (never into a script's log unasked).
    [[nodiscard]] static bool wanted(bool json);

private:
    struct field {
        std::string name;
        std::string human;
        std::string json;
    };
    std::string job_;
    std::vector<field> fields_;
    std::optional<std::uint64_t> bytes_read_;
};

/// The summary of a job that made or changed a filter: the lines it read, what the filter
/// holds and weighs (as its header says).
template <class Lines>
job_summary& summarize_filter(job_summary&& summary, const file_header& h, const Lines& lines) {
    summary.text("kind", filter_name(h))
        .estimate("distinct keys", approximate_count(h))
        .count("filter bytes", h.payload_size)
        .bytes_read(lines.bytes_read());
    return summary;
}
template <class Filter, class Lines>
job_summary& summarize_filter(job_summary&& summary, const Filter& filter, const Lines& lines) {
    return summarize_filter(std::move(summary), header_of(filter), lines);
}

}  // namespace bloomkit::cli
