// src/cli/support/exact_job.hpp — what the exact jobs share on the command line: the options that
// turn a job exact (--exact, --tmpdir, --no-prune), the memory budget (--memory, 1G unless given),
// the refusal of the options only a filter's job takes, and the summary.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "jobs/line_reader.hpp"
#include "jobs/spill/exact_jobs.hpp"
#include "support/summary.hpp"

namespace bloomkit::cli {

struct exact_options {
    bool exact = false;
    std::string tmpdir;  // empty: $TMPDIR, or /tmp
    bool no_prune = false;
    std::vector<CLI::Option*> filter_only;  // options of the approximate job, refused with --exact
};

/// The options of a command that is exact anyway (once, top).
struct exact_command_options {
    std::vector<std::string> inputs;
    std::string memory;  // empty: 1G
    std::string threads = "0";
    std::string key;
    bool json = false;
    exact_options exact;
};

/// Its inputs, --memory, --json, --key, -t and --tmpdir.
void add_exact_command_options(CLI::App& command, exact_command_options& options);

/// --exact (unless the command is exact anyway), --tmpdir, and --no-prune for the jobs over two
/// inputs.
void add_exact_options(CLI::App& command, exact_options& options, bool flag, bool two_inputs);

/// Throws invalid_argument naming the first option of the approximate job given with --exact.
void refuse_filter_options(const exact_options& options);

/// The settings of an exact job from the options: `memory` as --memory gave it (empty: 1G).
jobs::spill::exact_settings exact_settings_of(const exact_options& options, const std::string& memory,
                                              const std::string& threads, const std::string& key);

jobs::spill::exact_settings exact_settings_of(const exact_command_options& options);

/// What an exact job counts beside its lines: the distinct lines (dedup, once, top), or the lines
/// of the second input it dropped before they reached the disk (intersect, subtract).
enum class exact_counts { distinct_lines, pruned_lines };

/// Completes `summary` (its command and mode) with what the job read, wrote, counted and spilled,
/// and prints it (on stderr: stdout holds the job's lines).
void summarize_exact(job_summary& summary, const jobs::spill::exact_report& report, exact_counts counts,
                     std::uint64_t bytes_read, bool json);

}  // namespace bloomkit::cli
