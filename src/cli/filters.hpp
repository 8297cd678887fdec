// src/cli/filters.hpp — the subcommands' shared work on a filter whose layout is known only
// at run time (bloomkit::any_bloom_filter).
#pragma once

#include <fmt/core.h>

#include <cstdint>
#include <variant>

#include "bloomkit/bloomkit.hpp"
#include "line_reader.hpp"
#include "progress.hpp"

namespace bloomkit::cli {

inline any_bloom_filter make_filter(bloom_layout layout, std::uint64_t keys, double fpp, filter_options options) {
    switch (layout) {
        case bloom_layout::classic: return classic_bloom_filter(keys, fpp, options);
        case bloom_layout::split_block: return split_block_bloom_filter(keys, fpp, options);
        case bloom_layout::block: break;
    }
    return block_bloom_filter(keys, fpp, options);
}

/// Inserts every line of `lines` (bulk, pipelined); returns how many were new.
inline std::uint64_t insert_lines(any_bloom_filter& filter, line_reader& lines) {
    progress shown("adding");
    std::uint64_t added = 0;
    std::visit(
        [&](auto& f) {
            lines.read([&](std::span<const std::string_view> batch) {
                added += f.insert(batch.begin(), batch.end());
                shown.update(lines.lines_read(), lines.bytes_read());
            });
        },
        filter);
    return added;
}

/// Warns on stderr when a filter holds more keys than it was sized for: its FPR is then
/// above the target.
inline void warn_if_overfull(const any_bloom_filter& filter) {
    std::visit(
        [](const auto& f) {
            if (f.expected_keys() == 0 || f.inserted_count() <= f.expected_keys()) return;
            fmt::print(stderr,
                       "bloomkit: warning: the filter holds {} keys but was sized for {}; its false-positive rate is "
                       "now about {:.4g}% (target {:.4g}%). Rebuild it with a larger -n.\n",
                       f.inserted_count(), f.expected_keys(), 100 * f.current_fpr(), 100 * f.target_fpp());
        },
        filter);
}

}  // namespace bloomkit::cli
