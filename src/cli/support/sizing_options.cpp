// src/cli/support/sizing_options.cpp — see sizing_options.hpp.
#include "sizing_options.hpp"

#include <fmt/core.h>

#include "support/arguments.hpp"

namespace bloomkit::cli {

void add_rate_option(CLI::App& command, std::string& fpr, const std::string& help) {
    command.add_option("-p,--fpr", fpr, help)->type_name("RATE");
    command.add_option("--fpp", fpr)
        ->group("")  // hidden: the old name, for one release
        ->each([](const std::string&) {
            fmt::print(stderr,
                       "bloomkit: warning: --fpp is the old name of --fpr (-p), and goes in the next release\n");
        });
}

void add_sizing_options(CLI::App& command, sizing_options& options, const std::string& keys_help) {
    command.add_option("-n,--keys", options.keys, keys_help)->type_name("N");
    add_rate_option(
        command, options.fpr,
        fmt::format("Target false-positive rate at that many keys (default {}%)", 100 * options.default_fpr));
    command
        .add_option("--memory", options.memory,
                    "Memory for the filter (512M, 1G, 1GiB, 100MB): with -n it chooses the rate, with -p the keys, "
                    "alone the rate for the input's lines")
        ->type_name("SIZE");
}

jobs::sizing_request parse_sizing(const sizing_options& options) {
    jobs::sizing_request r;
    r.default_fpr = options.default_fpr;
    if (!options.keys.empty()) r.keys = parse_key_count("-n", options.keys);
    if (!options.fpr.empty()) r.fpr = parse_probability("-p", options.fpr);
    if (!options.memory.empty()) r.memory = parse_size("--memory", options.memory);
    if (r.keys && r.fpr && r.memory)
        throw invalid_argument("-n, -p and --memory together over-determine the filter: give at most two of them");
    return r;
}

}  // namespace bloomkit::cli
