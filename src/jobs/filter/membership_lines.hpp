// src/jobs/filter/membership_lines.hpp — the lines of one input that another probably holds
// (intersect), or certainly does not (subtract), in one pass over each and the memory of a
// filter: a filter of the held input is built (as build_from_lines builds one), the other input
// is streamed through it, and the lines whose answer is the one asked are printed in their
// order, each once unless every occurrence is asked for (printing each once remembers the
// lines printed, by the digests the filter was asked with). The report says how many lines are
// expected to be on the wrong side: each false positive of the filter puts one there.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/kind_request.hpp"
#include "bloomkit/options.hpp"
#include "jobs/filter/sizing.hpp"
#include "jobs/line_reader.hpp"

namespace bloomkit::jobs {

/// How membership_lines builds its filter and prints.
struct membership_settings {
    /// The held input's filter: its kind, size, seed and what the lines are (`hashing.keys`).
    kind_request kind{"bloom", {}, {}, {}, {}, {}};
    sizing_request sizing{.default_fpr = 0.001};
    filter_options hashing{.keys = key_format::text};
    /// Print the lines the filter answers present for (intersect), or absent (subtract).
    bool present = true;
    /// Print every occurrence, not only the first.
    bool all = false;
    /// Threads building and asking.
    unsigned threads = 1;
};

/// What membership_lines did.
struct membership_report {
    std::uint64_t held_lines = 0;  ///< lines of the held input
    std::uint64_t lines_read = 0;  ///< lines of the streamed input
    std::uint64_t lines_written = 0;
    double expected_wrong = 0;  ///< lines printed or held back wrongly, expected
    double fpr = 0;             ///< the filter's false-positive rate
    file_header filter{};       ///< the filter's header
};

/// The expected number of lines a filter of false-positive rate `fpr` put on the wrong side:
/// each line answered correctly (`kept_right`) stands for fpr / (1 - fpr) answered wrongly, and
/// no more than the `placed` lines that got the other answer can be wrong.
double wrongly_placed(std::uint64_t kept_right, std::uint64_t placed, double fpr);

/// Calls print(line) for each line of `streamed` whose answer from a filter of `held`'s lines is
/// the one `settings.present` asks (see the top of this file).
membership_report membership_lines(line_reader& held, line_reader& streamed, const membership_settings& settings,
                                   const std::function<void(std::string_view line)>& print);

}  // namespace bloomkit::jobs
