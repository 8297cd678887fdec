// bloomkit build [--kind K] [-n N] [-p P] [--layout L] [--bits B] [--arity A] [--seed S]
//                -o FILE|- [INPUT...|-] — a filter from lines; the kinds come from the registry
// (any_filter.hpp), the sizing from the library.
//
// Without -n the input is counted first (stdin is spooled to a temporary file so it can be read
// twice): the filter is sized for the lines it will hold, duplicates included, never guessed.
// A scalable filter needs no count: without -n it starts small and grows. A binary fuse filter
// is built from the complete set: every line is read first, then the filter.
#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "support/arguments.hpp"
#include "support/common_options.hpp"
#include "support/file_locking.hpp"
#include "support/filter_build.hpp"
#include "support/filter_files.hpp"
#include "support/filter_work.hpp"
#include "support/keys.hpp"
#include "support/sizing_options.hpp"
#include "support/summary.hpp"

namespace bloomkit::cli {
namespace {

struct build_options {
    sizing_options sizing;
    std::string kind = "bloom";
    std::string layout;
    std::string bits;  // empty: not given
    std::string arity;
    std::string seed = "0";
    std::string output;
    std::vector<std::string> inputs;
    std::string threads = "0";
    std::string key;  // empty: text
    bool no_wait = false;
    bool json = false;
};

/// What `--kind ... --layout ... --bits ... --arity ...` asked for.
kind_request parse_kind_request(const build_options& options) {
    kind_request request{options.kind, {}, {}, {}};
    if (!options.layout.empty()) request.layout = parse_bloom_layout(options.layout);
    if (!options.bits.empty()) request.fingerprint_bits = parse_small_number("--bits", options.bits);
    if (!options.arity.empty()) request.arity = parse_small_number("--arity", options.arity);
    return request;
}

int run_build(const build_options& options) {
    const kind_request request = parse_kind_request(options);
    const sizing_request sizing = parse_sizing(options.sizing);
    const key_format keys = key_format_to_build(options.key);
    const filter_options hashing{.seed = parse_seed(options.seed), .keys = keys};
    const std::optional<jobs::writer_lock> lock = lock_output(options.output, options.no_wait);
    jobs::line_reader lines(options.inputs);  // a missing file is reported before anything else happens
    refuse_input_as_output(lines, options.output);
    if (!is_standard_stream(options.output)) require_saveable(options.output);
    const any_filter filter = with_requested_type(request, sizing.choice_fpr(), [&](auto type) {
        return build_filter<typename decltype(type)::type>(request, lines, keys, sizing, hashing,
                                                           parse_threads(options.threads));
    });
    write_filter(filter, options.output);  // atomic: on any failure no partial file is left behind
    warn_if_overfull(filter);
    if (job_summary::wanted(options.json))
        summarize_filter(job_summary("build"), filter, lines).print(options.json, options.output == "-");
    return success;
}

}  // namespace

action build_command(CLI::App& command) {
    auto options = std::make_shared<build_options>();
    std::string kinds;
    for_each_filter_type([&](auto type) {
        const std::string_view kind = kind_traits<typename decltype(type)::type>::word;
        if (kinds.find(kind) == std::string::npos) kinds += (kinds.empty() ? "" : ", ") + std::string(kind);
    });
    command.add_option("--kind", options->kind, "The kind of filter: " + kinds + " (bloomkit plan compares them)")
        ->capture_default_str();
    add_sizing_options(
        command, options->sizing,
        "Keys the filter is sized for (1e6, 10M); default: count the input (scalable: start at 100000 and grow)");
    command.add_option("--layout", options->layout, "For --kind bloom: block (default), classic or split-block");
    command.add_option("--bits", options->bits,
                       "Fingerprint bits: cuckoo 8, 12 or 16; fuse 8 or 16 (default: from -p)");
    command.add_option("--arity", options->arity, "For --kind fuse: 3 (default) or 4 (smaller, slower to build)");
    command.add_option("--seed", options->seed, "Hash seed: a number, or 'random' against adversarial keys")
        ->capture_default_str();
    command.add_option("-o,--output", options->output, "Filter file to write (replaced atomically); '-' for stdout")
        ->required();
    command.add_option("inputs", options->inputs, "Input files; '-' or none reads stdin")->type_name("FILE");
    add_key_option(command, options->key);
    add_thread_option(command, options->threads);
    add_no_wait_option(command, options->no_wait);
    command.add_flag("--json", options->json, "Print the summary as JSON (on stdout; on stderr with -o -)");
    command.footer(
        "Examples:\n"
        "  bloomkit build -p 0.1% -o weak.bkf /usr/share/dict/*       # sized for the lines it counts\n"
        "  zcat urls.gz | bloomkit build -n 50M --memory 64M -o urls.bkf  # the rate 64 MB allows\n"
        "  bloomkit build --kind fuse -o static.bkf keys.txt            # the smallest, for a set that never changes");
    return [options] { return run_build(*options); };
}

}  // namespace bloomkit::cli
