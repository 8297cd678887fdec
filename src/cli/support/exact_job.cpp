// src/cli/support/exact_job.cpp — see exact_job.hpp.
#include "support/exact_job.hpp"

#include <fmt/core.h>

#include <cstdlib>
#include <filesystem>

#include "jobs/temporary_file.hpp"
#include "support/arguments.hpp"
#include "support/common_options.hpp"
#include "support/keys.hpp"
#include "support/summary.hpp"

namespace bloomkit::cli {
namespace {

constexpr std::uint64_t default_memory = std::uint64_t{1} << 30;
constexpr std::uint64_t least_memory = std::uint64_t{1} << 20;

std::string checked_directory(const std::string& tmpdir) {
    const std::string directory = tmpdir.empty() ? jobs::temporary_directory() : tmpdir;
    std::error_code failed;
    if (!std::filesystem::is_directory(directory, failed))
        throw invalid_argument(fmt::format("--tmpdir '{}' is not a directory{}", directory,
                                           tmpdir.empty() ? " (it comes from $TMPDIR)" : ""));
    return directory;
}

}  // namespace

void add_exact_options(CLI::App& command, exact_options& options, bool flag, bool two_inputs) {
    if (flag)
        command.add_flag("--exact", options.exact,
                         "The exact answer, in bounded memory (--memory, default 1G): lines that do not fit are "
                         "partitioned onto disk (--tmpdir)");
    command
        .add_option("--tmpdir", options.tmpdir,
                    flag ? "With --exact: where the partitions go (default $TMPDIR, or /tmp)"
                         : "Where the partitions go when the lines do not fit in --memory (default $TMPDIR, or /tmp)")
        ->type_name("DIR");
    if (two_inputs)
        command.add_flag("--no-prune", options.no_prune,
                         "With --exact: do not keep a filter of A to drop the lines of B that are certainly not in A "
                         "before they reach the disk");
}

void add_exact_command_options(CLI::App& command, exact_command_options& options) {
    command.add_option("inputs", options.inputs, "Input files; '-' or none reads stdin")->type_name("FILE");
    command.add_option("--memory", options.memory, "Memory the job may use (default 1G): the rest goes to disk")
        ->type_name("SIZE");
    command.add_flag("--json", options.json, "Print the summary as JSON (on stderr)");
    add_key_option(command, options.key);
    add_thread_option(command, options.threads);
    add_exact_options(command, options.exact, false, false);
}

jobs::spill::exact_settings exact_settings_of(const exact_command_options& options) {
    return exact_settings_of(options.exact, options.memory, options.threads, options.key);
}

void refuse_filter_options(const exact_options& options) {
    for (const CLI::Option* option : options.filter_only)
        if (option->count() > 0)
            throw invalid_argument(
                fmt::format("{} sizes or shapes a filter: --exact keeps none you can size (its memory is --memory)",
                            option->get_name()));
}

jobs::spill::exact_settings exact_settings_of(const exact_options& options, const std::string& memory,
                                              const std::string& threads, const std::string& key) {
    jobs::spill::exact_settings settings;
    settings.limits.memory = memory.empty() ? default_memory : parse_size("--memory", memory);
    if (settings.limits.memory < least_memory)
        throw invalid_argument(fmt::format("--memory {} is too little for an exact job: give it at least 1M", memory));
    settings.limits.directory = checked_directory(options.tmpdir);  // every scratch file of the run
    settings.limits.threads = parse_threads(threads);
    settings.keys = key_format_to_build(key);
    settings.prune = !options.no_prune;
    return settings;
}

void summarize_exact(job_summary& summary, const jobs::spill::exact_report& report, exact_counts counts,
                     std::uint64_t bytes_read, bool json) {
    summary.count("lines_read", report.lines_read, "lines read")
        .count("lines_written", report.lines_written, "lines written");
    // The human line leaves out what is 0 because the job had no use for it; JSON has every member.
    if (counts == exact_counts::distinct_lines)
        summary.count("distinct_lines", report.distinct, report.distinct > 0 ? "distinct lines" : "");
    const bool pruned = report.filter_bytes > 0;
    if (counts == exact_counts::pruned_lines)
        summary.count("pruned_lines", report.pruned, pruned ? "lines pruned by the filter" : "")
            .count("prune_filter_bytes", report.filter_bytes, pruned ? "filter bytes" : "");
    const bool bitmaps = report.bitmap_bytes > 0;
    summary.count("bitmap_bytes", report.bitmap_bytes, bitmaps ? "bitmap bytes" : "")
        .count("spilled_bytes", report.spill.bytes_spilled, bitmaps ? "" : "bytes spilled")
        .count("partition_levels", report.spill.levels, bitmaps ? "" : "partition levels")
        .bytes_read(bytes_read)
        .print(json, true);
}

}  // namespace bloomkit::cli
