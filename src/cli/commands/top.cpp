// bloomkit top -k K [INPUT...|-] [--approx] [--memory SIZE] [--tmpdir DIR] [--key ...] — the K
// most frequent lines with their counts, as `sort | uniq -c | sort -k1,1nr -k2 | head -K` prints
// them (LC_ALL=C): exact in bounded memory (exact_jobs.hpp), or with --approx in one pass and
// fixed memory by Space-Saving (heavy_hitters.hpp), whose counts may be too high by a bound the
// summary states. "A 100 GB log of IP addresses: the top K."
#include <fmt/core.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "jobs/heavy_hitters.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/output.hpp"
#include "jobs/progress.hpp"
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

/// Space-Saving over the lines, with as many counters as --memory holds at ~512 bytes each (a
/// line of ~100 bytes twice — the counter's and the map's key — the map's node and the heap's
/// places), and at least k.
int run_approximate_top(const top_options& options, std::uint64_t k, const jobs::spill::exact_settings& settings) {
    jobs::line_reader lines(options.inputs);
    const std::uint64_t counters = std::max<std::uint64_t>(settings.limits.memory / 512, k);
    jobs::heavy_hitters hitters(static_cast<std::size_t>(counters));
    jobs::progress shown("counting", lines.total_bytes());
    lines.read([&](std::span<const std::string_view> batch, const jobs::line_origin& origin) {
        jobs::with_keys(batch, settings.keys, origin, [&](auto keys) {
            for (std::size_t i = 0; i < batch.size(); ++i) {
                if constexpr (std::is_same_v<decltype(keys), std::span<const std::string_view>>) hitters.add(keys[i]);
                else
                    hitters.add(settings.keys == key_format::i64 ? fmt::format("{}", static_cast<std::int64_t>(keys[i]))
                                                                 : fmt::format("{}", keys[i]));
            }
        });
        shown.update(lines.bytes_read());
    });
    jobs::output out;
    const auto best = hitters.top(static_cast<std::size_t>(k));
    std::uint64_t largest_error = 0;
    for (const auto& c : best) {
        out.line(counted(c.count, c.line));
        largest_error = std::max(largest_error, c.error);
    }
    out.flush();
    job_summary("top --approx")
        .count("lines read", hitters.lines())
        .count("lines written", best.size())
        .count("counters", counters)
        .count("largest overcount printed", largest_error)
        .count("overcount bound", hitters.error_bound())
        .bytes_read(lines.bytes_read())
        .print(options.json, true);
    return success;
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
    summarize_exact("top", report, lines.bytes_read(), options.json);
    return success;
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
        "  zcat huge.log.gz | cut -d' ' -f1 | bloomkit top -k 100 --approx");
    return [options] { return run_top(*options); };
}

}  // namespace bloomkit::cli
