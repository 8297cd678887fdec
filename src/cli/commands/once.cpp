// bloomkit once [INPUT...|-] [--repeated] [--memory SIZE] [--tmpdir DIR] [--key u32...] — the
// lines (or integers) that appear exactly once, or with --repeated those that appear more than
// once, each printed once, in order of first appearance; exact, in bounded memory
// (exact_jobs.hpp). "Among 10 billion integers, which appear exactly once?"
#include <memory>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "jobs/output.hpp"
#include "support/common_options.hpp"
#include "support/exact_job.hpp"
#include "support/keys.hpp"

namespace bloomkit::cli {
namespace {

struct once_options {
    std::vector<std::string> inputs;
    bool repeated = false;
    std::string memory;
    std::string threads = "0";
    std::string key;
    bool json = false;
    exact_options exact;
};

int run_once(const once_options& options) {
    const jobs::spill::exact_settings settings =
        exact_settings_of(options.exact, options.memory, options.threads, options.key);
    jobs::line_reader lines(options.inputs);
    jobs::output out;
    const auto report =
        jobs::spill::lines_seen_once(lines, settings, options.repeated, [&](std::string_view line) { out.line(line); });
    out.flush();
    summarize_exact(options.repeated ? "once --repeated" : "once", report, lines.bytes_read(), options.json);
    return success;
}

}  // namespace

action once_command(CLI::App& command) {
    auto options = std::make_shared<once_options>();
    command.add_option("inputs", options->inputs, "Input files; '-' or none reads stdin")->type_name("FILE");
    command.add_flag("--repeated", options->repeated, "Print the lines that appear more than once instead (each once)");
    command.add_option("--memory", options->memory, "Memory the job may use (default 1G): the rest goes to disk")
        ->type_name("SIZE");
    command.add_flag("--json", options->json, "Print the summary as JSON (on stderr)");
    add_key_option(command, options->key);
    add_thread_option(command, options->threads);
    add_exact_options(command, options->exact, false, false);
    command.footer(
        "Examples:\n"
        "  bloomkit once --key u32 ids.txt > singletons.txt          # the ids seen exactly once\n"
        "  bloomkit once --repeated --memory 4G urls.txt             # each URL that came more than once\n"
        "Lines come out in order of their first appearance, once the input is read.");
    return [options] { return run_once(*options); };
}

}  // namespace bloomkit::cli
