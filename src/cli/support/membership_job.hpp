// src/cli/support/membership_job.hpp — what intersect and subtract share: hold a filter of one
// input (built as `build` builds one: sized by -n, -p or --memory, or from the input's count of
// lines, with threads), stream the other input and print the lines whose answer is the one the
// job wants, in their order, each once unless --all; then say how many lines were read and
// written, and how many are expected to be wrong. With --exact, the exact answer instead
// (exact_jobs.hpp: every distinct line once, in bounded memory).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "support/exact_job.hpp"
#include "support/sizing_options.hpp"

namespace bloomkit::cli {

struct membership_options {
    std::string held, streamed;  // the input made into a filter, and the one streamed through it
    sizing_options sizing;
    std::string kind = "bloom";
    std::string seed = "0";
    std::string key;  // empty: text
    std::string threads = "0";
    bool all = false;
    bool line_buffered = false;
    bool json = false;
    exact_options exact;
};

/// The options both jobs take (the inputs excepted); `held_input` names the input the filter is
/// made of in the help ("A", "B").
void add_membership_options(CLI::App& command, membership_options& options, const char* held_input);

/// Runs the job: prints the streamed input's lines that the held input's filter answers
/// `present` (intersect) or not (subtract) for. Returns whether it wrote a line.
bool run_membership_job(const char* job, const membership_options& options, bool present);

}  // namespace bloomkit::cli
