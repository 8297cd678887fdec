// bloomkit build [--kind K] [-n N] [-p P] [--layout L] [--bits B] [--arity A] [--window W]
//                [--generations G] [--now T] [--seed S] -o FILE|- [INPUT...|-] — a filter from lines; the kinds come
//                from the registry
// (any_filter.hpp), the sizing from the library, the hash from the kind (one per kind for new
// files: docs/FORMAT.md, "Format ids and why each exists").
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
#include "jobs/filter/build_lines.hpp"
#include "jobs/filter/filter_files.hpp"
#include "support/arguments.hpp"
#include "support/common_options.hpp"
#include "support/file_locking.hpp"
#include "support/keys.hpp"
#include "support/overfull.hpp"
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
    std::string window;  // empty: the kind's default
    std::string generations;
    std::string now;
    std::string seed = "0";
    std::string output;
    std::string format = "bkf";
    std::string funnel;  // empty: utf8 for a Guava filter
    bool gzip = false;
    std::vector<std::string> inputs;
    std::string threads = "0";
    std::string key;  // empty: text (or, for a Guava filter of ints or longs, i64)
    bool no_wait = false;
    bool json = false;
};

/// What `--kind ... --layout ... --bits ... --arity ... --format ...` asked for.
kind_request parse_kind_request(const build_options& options) {
    kind_request request{options.kind, {}, {}, {}, {}, {}};
    if (!options.layout.empty()) request.layout = parse_bloom_layout(options.layout);
    if (const std::optional<bloom_layout> foreign = io::facts_of_format(options.format).layout) {
        if (!request.layout) request.layout = foreign;  // --format guava alone: MITZ_64, Guava's default
        const bool holds = request.kind == "bloom" &&
                           (*request.layout == *foreign ||
                            (*foreign == bloom_layout::guava && *request.layout == bloom_layout::guava_mitz32));
        if (!holds)
            throw invalid_argument("a " + options.format + " file holds a " + options.format +
                                   " Bloom filter only (--kind bloom, --layout " + std::string(to_string(*foreign)) +
                                   (*foreign == bloom_layout::guava ? " or guava-mitz32)" : ")"));
    }
    if (!options.bits.empty()) request.fingerprint_bits = parse_small_number("--bits", options.bits);
    if (!options.arity.empty()) request.arity = parse_small_number("--arity", options.arity);
    if (!options.window.empty()) request.window = parse_duration("--window", options.window);
    if (!options.generations.empty()) request.generations = parse_small_number("--generations", options.generations);
    return request;
}

/// The Guava funnel of the filter to build (none unless it is a Guava filter), and the key
/// format its lines are read in, by the rule every reader of the stream follows
/// (io::guava::funnel_and_keys_of): a Guava filter of Java ints or longs reads decimal numbers.
std::pair<guava_funnel, key_format> funnel_and_keys(const build_options& options, const kind_request& request) {
    const bool guava = request.layout == bloom_layout::guava || request.layout == bloom_layout::guava_mitz32;
    if (!guava) {
        if (!options.funnel.empty()) throw invalid_argument("--funnel is for a Guava filter (--format guava)");
        return {guava_funnel::none, key_format_to_build(options.key)};
    }
    try {
        const io::guava::funnel_and_keys chosen = io::guava::funnel_and_keys_of(
            options.funnel.empty() ? guava_funnel::none : parse_guava_funnel(options.funnel),
            options.key.empty() ? key_format::unrecorded : parse_key_format(options.key));
        return {chosen.funnel, chosen.keys};
    } catch (const invalid_argument& e) {
        throw invalid_argument(std::string(e.what()) + " (--key, --funnel)");
    }
}

int run_build(const build_options& options) {
    const kind_request request = parse_kind_request(options);
    const jobs::sizing_request sizing = parse_sizing(options.sizing);
    const std::pair<guava_funnel, key_format> chosen = funnel_and_keys(options, request);
    const guava_funnel funnel = chosen.first;  // named, not bound: Clang 14 captures no binding
    const key_format keys = chosen.second;
    if (options.gzip && options.format == "bkf") throw invalid_argument("--gzip is for --format dcso or guava");
    const filter_options hashing{.seed = parse_seed(options.seed), .keys = keys, .funnel = funnel};
    const std::optional<os::writer_lock> lock = lock_output(options.output, options.no_wait);
    jobs::line_reader lines(options.inputs);  // a missing file is reported before anything else happens
    jobs::refuse_input_as_output(lines, options.output);
    if (!jobs::is_standard_stream(options.output)) require_saveable(options.output);
    const any_filter filter = jobs::build_from_lines(lines, {.kind = request,
                                                             .sizing = sizing,
                                                             .hashing = hashing,
                                                             .threads = parse_threads(options.threads),
                                                             .now = parse_now(options.now)});
    // Atomic: on any failure no partial file is left behind.
    jobs::write_filter(filter, options.output, {options.format, options.gzip, {}});
    warn_if_overfull(filter);
    note_unrecorded_keys(options.format, keys, funnel);
    if (job_summary::wanted(options.json))
        summarize_filter("build", options.output, options.format, header_of(filter), lines)
            .print(options.json, options.output == "-");
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
    command.add_option("--layout", options->layout,
                       "For --kind bloom: block (default), classic or split-block; guava, guava-mitz32 and dcso are "
                       "those programs' own, bit for bit");
    command
        .add_option("--format", options->format,
                    "The file to write: bkf, guava (a Guava BloomFilter stream, as Java's writeTo writes it) or "
                    "dcso (a DCSO bloom file); guava and dcso make their programs' filters, sized as they size them")
        ->capture_default_str();
    command
        .add_option("--funnel", options->funnel,
                    "For a Guava filter, the funnel the Java side uses: utf8 (default), chars, int, long or bytes")
        ->type_name("FUNNEL");
    command.add_flag("--gzip", options->gzip, "Gzip the file written (as `bloom --gzip` does)");
    command.add_option("--bits", options->bits,
                       "Fingerprint bits: cuckoo 8, 12 or 16; fuse 8 or 16 (default: from -p)");
    command.add_option("--arity", options->arity, "For --kind fuse: 3 (default) or 4 (smaller, slower to build)");
    command
        .add_option("--window", options->window,
                    "For --kind windowed: how long a key is remembered (24h, 90m, 7d; default 24h); -n is the keys a "
                    "window brings")
        ->type_name("DURATION");
    command.add_option("--generations", options->generations,
                       "For --kind windowed: generations per window, 1 to 64 (default 4): keys are forgotten by "
                       "window x (1 + 1/generations)");
    add_now_option(command, options->now);
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
        "  bloomkit build --kind fuse -o static.bkf keys.txt            # the smallest, for a set that never changes\n"
        "  bloomkit build --kind windowed --window 24h -n 1M -o seen.bkf  # forgets a key a day after it came\n"
        "  bloomkit build --format guava -n 1M -p 0.03 -o users.guava ids.txt  # what Java's create(n, p) makes\n"
        "  bloomkit build --format dcso -n 100000 -p 0.001 -o iocs.bloom iocs.txt  # for Suricata/FEVER");
    return [options] { return run_build(*options); };
}

}  // namespace bloomkit::cli
