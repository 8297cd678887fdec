// bloomkit once [INPUT...|-] [--repeated] [--memory SIZE] [--tmpdir DIR] [--key u32...] — the
// lines (or integers) that appear exactly once, or with --repeated those that appear more than
// once, each printed once, in order of first appearance; exact, in bounded memory
// (exact_jobs.hpp). "Among 10 billion integers, which appear exactly once?" Exits 1 when it
// prints no line, as grep.
#include <memory>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "jobs/output.hpp"
#include "support/exact_job.hpp"
#include "support/summary.hpp"

namespace bloomkit::cli {
namespace {

struct once_options : exact_command_options {
    bool repeated = false;
};

int run_once(const once_options& options) {
    const jobs::spill::exact_settings settings = exact_settings_of(options);
    jobs::line_reader lines(options.inputs);
    jobs::output out;
    const auto report =
        jobs::spill::lines_seen_once(lines, settings, options.repeated, [&](std::string_view line) { out.line(line); });
    out.flush();
    summarize_exact(job_summary("once", options.repeated ? "once --repeated" : "").flag("repeated", options.repeated),
                    report, exact_counts::distinct_lines, lines.bytes_read(), options.json);
    return report.lines_written > 0 ? found : nothing_found;
}

}  // namespace

action once_command(CLI::App& command) {
    auto options = std::make_shared<once_options>();
    add_exact_command_options(command, *options);
    command.add_flag("--repeated", options->repeated, "Print the lines that appear more than once instead (each once)");
    command.footer(
        "Examples:\n"
        "  bloomkit once --key u32 ids.txt > singletons.txt          # the ids seen exactly once\n"
        "  bloomkit once --repeated --memory 4G urls.txt             # each URL that came more than once\n"
        "Lines come out in order of their first appearance, once the input is read.\n" +
        exit_status_footer(command.get_name()));
    return [options] { return run_once(*options); };
}

}  // namespace bloomkit::cli
