// bloomkit top -k K [INPUT...|-] [--approx] [--memory SIZE] [--tmpdir DIR] [--key ...] — the K
// most frequent lines with their counts, as `sort | uniq -c | sort -k1,1nr -k2 | head -K` prints
// them (LC_ALL=C): exact in bounded memory, or with --approx in one pass and fixed memory by
// Space-Saving (both in exact_jobs.hpp), whose counts may be too high by a bound the
// summary states. "A 100 GB log of IP addresses: the top K." Exits 1 when it prints no line (an
// empty input), as grep.
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "jobs/output.hpp"
#include "support/arguments.hpp"
#include "support/exact_job.hpp"
#include "support/summary.hpp"

namespace bloomkit::cli {
namespace {

struct top_options : exact_command_options {
    std::string k = "10";
    bool approx = false;
};

/// A line as `uniq -c` prints it: the count right-aligned in seven columns, a space, the line.
std::string counted(std::uint64_t count, std::string_view line) { return fmt::format("{:7} {}", count, line); }

int run_approximate_top(const top_options& options, std::uint64_t k, const jobs::spill::exact_settings& settings) {
    jobs::line_reader lines(options.inputs);
    jobs::output out;
    const auto report = jobs::spill::approximately_most_frequent(
        lines, settings, k, [&](std::uint64_t count, std::string_view line) { out.line(counted(count, line)); });
    out.flush();
    job_summary("top", "top --approx")
        .flag("exact", false)
        .count("lines_read", report.lines.lines_read, "lines read")
        .count("lines_written", report.lines.lines_written, "lines written")
        .count("counters", report.counters, "counters")
        .count("largest_overcount_printed", report.largest_overcount, "largest overcount printed")
        .count("overcount_bound", report.overcount_bound, "overcount bound")
        .bytes_read(lines.bytes_read())
        .print(options.json, true);
    return report.lines.lines_written > 0 ? found : nothing_found;
}

int run_top(const top_options& options) {
    const std::uint64_t k = parse_key_count("-k", options.k);
    const jobs::spill::exact_settings settings = exact_settings_of(options);
    if (options.approx) return run_approximate_top(options, k, settings);
    jobs::line_reader lines(options.inputs);
    jobs::output out;
    const auto report = jobs::spill::most_frequent(
        lines, settings, k, [&](std::uint64_t count, std::string_view line) { out.line(counted(count, line)); });
    out.flush();
    summarize_exact(job_summary("top").flag("exact", true), report, exact_counts::distinct_lines, lines.bytes_read(),
                    options.json);
    return report.lines_written > 0 ? found : nothing_found;
}

}  // namespace

action top_command(CLI::App& command) {
    auto options = std::make_shared<top_options>();
    add_exact_command_options(command, *options);
    command.add_option("-k", options->k, "How many lines")->type_name("K")->capture_default_str();
    command.add_flag("--approx", options->approx,
                     "One pass in fixed memory (Space-Saving): counts may be too high, by at most the bound the "
                     "summary prints; every line more frequent than that bound is found");
    command.footer(
        "Prints 'COUNT LINE' as uniq -c does, most frequent first; lines of equal count in byte order (as\n"
        "LC_ALL=C sort), so the output equals: sort | uniq -c | sort -k1,1nr -k2 | head -n K\n"
        "Examples:\n"
        "  bloomkit top -k 10 access_ips.txt                   # the 10 most frequent addresses, exactly\n"
        "  zcat huge.log.gz | cut -d' ' -f1 | bloomkit top -k 100 --approx\n" +
        exit_status_footer(command.get_name()));
    return [options] { return run_top(*options); };
}

}  // namespace bloomkit::cli
