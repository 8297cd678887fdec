// src/cli/support/summary.hpp — the one line a job prints when it is done: what it read and wrote,
// what the filter holds, what it cost — on stderr for a person, or as JSON (--json) for a
// program. Jobs whose data goes to stdout (dedup, intersect, subtract, once, top) print the JSON
// on stderr too; the others (build, add, merge, convert, redis add) print it on stdout.
//
// Each member is named for JSON explicitly (docs/JSON.md lists them) and worded for the human
// line apart, so that either can change without the other; a member may be in one of them only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bloomkit/any_filter.hpp"

namespace bloomkit::cli {

class job_summary {
public:
    /// `command` is the JSON's "command", the subcommand without options; `title` names the job
    /// in the human line, options included ("top --approx"; empty: the command).
    explicit job_summary(std::string command, std::string title = {});

    /// Whether the human line shows a text member's value.
    enum class in_line : bool { no, yes };

    /// A count: a JSON integer, and "VALUE LABEL" in the human line (no label: JSON only).
    job_summary& count(std::string member, std::uint64_t value, std::string_view label = {});
    /// An estimate: a JSON number (null when not finite), and "~VALUE LABEL" in the human line with
    /// 4 significant digits (no label: JSON only).
    job_summary& estimate(std::string member, double value, std::string_view label = {});
    /// Text: a JSON string, whose value alone the human line shows when asked to.
    job_summary& text(std::string member, std::string value, in_line shown = in_line::no);
    /// A JSON true or false, for a mode of the job (its title says it to a person).
    job_summary& flag(std::string member, bool value);
    /// Words of the human line alone.
    job_summary& note(std::string words);
    /// The bytes read, for the rate (MB/s) and JSON's "bytes_read".
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
        std::string member;  // empty: the human line only
        std::string json;
        std::string human;  // empty: JSON only
    };
    job_summary& add(std::string member, std::string json, std::string human);

    std::string command_, title_;
    std::vector<field> fields_;
    std::optional<std::uint64_t> bytes_read_;
};

/// The members of the filter a job wrote, as its header says: its kind (the word, and its name,
/// which the human line shows), the keys it holds and its bytes; `keys_label` and `bytes_label`
/// word those two in the human line (empty: JSON only).
job_summary& describe_filter(job_summary& summary, const file_header& h, std::string_view keys_label,
                             std::string_view bytes_label);

/// The summary of build and add: the filter file (`file`, written in `format`), the filter as
/// its header says, the lines read.
template <class Lines>
job_summary summarize_filter(std::string command, const std::string& file, std::string_view format,
                             const file_header& h, const Lines& lines) {
    job_summary summary(std::move(command));
    summary.text("file", file).text("format", std::string(format));
    describe_filter(summary, h, "distinct keys", "filter bytes");
    summary.count("lines_read", lines.lines_read()).bytes_read(lines.bytes_read());
    return summary;
}

}  // namespace bloomkit::cli
