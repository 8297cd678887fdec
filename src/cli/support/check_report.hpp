// src/cli/support/check_report.hpp — what `check` prints, for any filter that answers bulk
// queries (a file's, or one in Redis): the lines that may be present (or, with --absent, those
// certainly absent), or with --count only the totals; and whether any line was selected
// (check exits 0 then, 1 otherwise).
#pragma once

#include <fmt/core.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "jobs/filter/line_filters.hpp"
#include "jobs/line_reader.hpp"
#include "jobs/output.hpp"
#include "jobs/progress.hpp"
#include "support/arguments.hpp"
#include "support/json_object.hpp"
#include "support/keys.hpp"
#include "support/overfull.hpp"

namespace bloomkit::cli {

struct check_report {
    bool absent = false;
    bool count = false;
    bool json = false;
};

/// How report_check reads and answers.
struct check_run {
    key_format keys = key_format::text;  ///< what the lines are
    unsigned threads = 1;
    check_report how{};
    /// The object --count --json prints once the totals are added to it: the command and the
    /// filter it names.
    json_object totals;
    /// Runs once every answer is in and before the totals are printed (check's test that its
    /// file did not change).
    std::function<void()> before_totals{};
    /// When given, looks at the lines read as text against a filter that does not record its
    /// key format.
    unrecorded_format_warning* numeric_lines = nullptr;
};

/// Queries every line and prints as `check` does; returns whether a line was selected.
template <class Filter>
bool report_check(const Filter& filter, jobs::line_reader& lines, const check_run& run) {
    const check_report& how = run.how;
    unrecorded_format_warning* const numeric_lines = run.numeric_lines;
    if (how.json && !how.count)
        throw invalid_argument("--json prints the totals of --count: without --count, check prints lines");
    std::uint64_t present = 0, absent = 0;
    jobs::output out;
    jobs::progress shown("checking", lines.total_bytes());
    jobs::query_lines(filter, lines, run.keys, run.threads, [&](auto batch, std::span<const bool> answers) {
        if (numeric_lines != nullptr) numeric_lines->look(batch);
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const bool maybe = answers[i];
            (maybe ? present : absent) += 1;
            if (!how.count && maybe != how.absent) out.line(batch[i]);
        }
        shown.update(lines.bytes_read());
    });
    if (run.before_totals) run.before_totals();
    json_object totals = run.totals;
    if (how.count && how.json) out.line(totals.count("present", present).count("absent", absent).str());
    else if (how.count) out.line(fmt::format("present\t{}\nabsent\t{}", present, absent));
    out.flush();
    return (how.absent ? absent : present) > 0;
}

/// --absent, --count and --json, as check has them.
inline void add_check_report_options(CLI::App& command, check_report& how) {
    command.add_flag("--absent", how.absent, "Print the lines certainly NOT in the filter instead");
    command.add_flag("--count", how.count, "Print only the totals: present and absent lines");
    command.add_flag("--json", how.json, "With --count: print the totals as JSON (on stdout)");
}

}  // namespace bloomkit::cli
