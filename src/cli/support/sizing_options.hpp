// src/cli/support/sizing_options.hpp — -n, -p and --memory, the way every command that makes a
// filter sizes it (jobs::sizing_request): -n and -p as given; --memory with -n chooses p, with
// -p chooses n, and alone chooses p for the input's count of lines. Any two of the three at most.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "bloomkit/any_filter.hpp"
#include "jobs/filter/sizing.hpp"

namespace bloomkit::cli {

struct sizing_options {
    std::string keys, fpr, memory;
    /// The rate without -p: 1%, or 0.1% for the jobs whose wrong answers are lines lost or
    /// added to their output (dedup, intersect, subtract).
    double default_fpr = 0.01;
};

/// -p, --fpr RATE (and --fpp, its old name, hidden, with a warning).
void add_rate_option(CLI::App& command, std::string& fpr, const std::string& help);

/// -n/--keys, -p/--fpr and --memory.
void add_sizing_options(CLI::App& command, sizing_options& options, const std::string& keys_help);

/// What the options ask for.
jobs::sizing_request parse_sizing(const sizing_options& options);

}  // namespace bloomkit::cli
