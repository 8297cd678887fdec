// bloomkit build -n N -p P [--layout L] [--seed S] -o FILE [INPUT...|-] — a filter from lines.
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "command.hpp"
#include "filters.hpp"

namespace bloomkit::cli {
namespace {

struct build_options {
    std::string keys;
    std::string fpp = "0.01";
    std::string layout = "block";
    std::string seed = "0";
    std::string output;
    std::vector<std::string> inputs;
    unsigned threads = 0;
};

int run_build(const build_options& options) {
    const std::uint64_t n = parse_key_count("-n", options.keys);
    const double p = parse_probability("-p", options.fpp);
    const bloom_layout layout = parse_layout(options.layout);
    const std::uint64_t seed = parse_seed(options.seed);
    line_reader lines(options.inputs);  // opens every input before the filter is allocated

    any_bloom_filter filter = make_filter(layout, n, p, {.seed = seed});
    insert_lines(filter, lines, options.threads);
    save(filter, options.output);  // atomic: on any failure no partial file is left behind
    warn_if_overfull(filter);
    return success;
}

}  // namespace

action add_build_command(CLI::App& app) {
    auto options = std::make_shared<build_options>();
    CLI::App* build = app.add_subcommand("build", "Build a filter from lines (one key per line) of files or stdin");
    build->add_option("-n,--keys", options->keys, "Number of keys the filter is sized for (e.g. 1e6)")->required();
    build->add_option("-p,--fpp", options->fpp, "Target false-positive rate at that many keys")->capture_default_str();
    build->add_option("--layout", options->layout, "block (default), classic or split-block")->capture_default_str();
    build->add_option("--seed", options->seed, "Hash seed: a number, or 'random' against adversarial keys")
        ->capture_default_str();
    build->add_option("-o,--output", options->output, "Filter file to write (replaced atomically)")->required();
    build->add_option("inputs", options->inputs, "Input files; '-' or none reads stdin");
    build->add_option("-t,--threads", options->threads, "Threads hashing and inserting (0: one per core)")
        ->capture_default_str();
    return [options] { return run_build(*options); };
}

}  // namespace bloomkit::cli
