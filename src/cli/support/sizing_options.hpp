// src/cli/support/sizing_options.hpp — -n, -p and --memory, the way every command that makes a
// filter sizes it: -n and -p as given; --memory with -n chooses p, with -p chooses n, and alone
// chooses p for the input's count of lines. Any two of the three at most.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "bloomkit/any_filter.hpp"

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
struct sizing_request {
    std::optional<std::uint64_t> keys;
    std::optional<double> fpr;
    std::optional<std::uint64_t> memory;
    double default_fpr = 0.01;

    /// The target rate a kind is chosen by (binary fuse fingerprints): -p, else the default.
    [[nodiscard]] double choice_fpr() const noexcept { return fpr.value_or(default_fpr); }
    /// Whether the input must be counted to size the filter.
    [[nodiscard]] bool needs_count() const noexcept { return !keys && !(fpr && memory); }
};

sizing_request parse_sizing(const sizing_options& options);

/// The keys and rate a filter of type F is sized for. `count` counts the input's lines, when
/// the request needs it.
template <class F>
std::pair<std::uint64_t, double> resolve_sizing(const sizing_request& r, const kind_request& kind,
                                                const std::function<std::uint64_t()>& count) {
    std::uint64_t n = r.keys ? *r.keys : 0;
    if (r.memory && r.fpr && !r.keys) n = keys_for_memory<F>(*r.fpr, *r.memory, kind);
    if (r.needs_count()) n = count();
    if (n == 0)
        throw invalid_argument(
            "the input is empty: there is nothing to size the filter for (give -n to build an empty "
            "filter for that many keys)");
    const double p = r.memory && !r.fpr ? fpr_for_memory<F>(static_cast<double>(n), *r.memory, kind) : r.choice_fpr();
    return {n, p};
}

}  // namespace bloomkit::cli
