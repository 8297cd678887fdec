// src/cli/filters.hpp — the subcommands' shared work on a filter whose layout is known only
// at run time (bloomkit::any_bloom_filter).
#pragma once

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>
#include <variant>

#include "bloomkit/bloomkit.hpp"
#include "line_reader.hpp"
#include "progress.hpp"
#include "work_queue.hpp"

namespace bloomkit::cli {

inline any_bloom_filter make_filter(bloom_layout layout, std::uint64_t keys, double fpp, filter_options options) {
    switch (layout) {
        case bloom_layout::classic: return classic_bloom_filter(keys, fpp, options);
        case bloom_layout::split_block: return split_block_bloom_filter(keys, fpp, options);
        case bloom_layout::block: break;
    }
    return block_bloom_filter(keys, fpp, options);
}

/// Inserts every line of `lines` (bulk, pipelined) with `threads` threads (0: one per core).
/// Several threads insert concurrently (atomic OR): the bits are the same as from one thread.
inline void insert_lines(any_bloom_filter& filter, line_reader& lines, unsigned threads) {
    if (threads == 0) threads = std::max(1U, std::thread::hardware_concurrency());
    progress shown("adding");
    if (threads == 1) {
        std::visit(
            [&](auto& f) {
                lines.read([&](std::span<const std::string_view> batch) {
                    f.insert(batch.begin(), batch.end());
                    shown.update(lines.bytes_read());
                });
            },
            filter);
        return;
    }

    // The reader (this thread) fills blocks of whole lines; the workers split and insert them
    // and hand the buffers back for reuse.
    work_queue<line_block> blocks(2 * threads);
    work_queue<std::vector<char>> spare(4 * threads);
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto work = [&] {
        std::vector<std::string_view> batch;
        while (std::optional<line_block> block = blocks.pop()) {
            try {
                batch.clear();
                split_lines(block->text(), batch);
                std::visit([&](auto& f) { f.insert(batch.begin(), batch.end(), concurrent); }, filter);
            } catch (...) {
                const std::lock_guard lock(failure_mutex);
                if (!failure) failure = std::current_exception();
            }
            spare.try_push(std::move(block->buffer));
        }
    };
    std::vector<std::jthread> workers;
    for (unsigned i = 0; i < threads; ++i) workers.emplace_back(work);
    try {
        lines.read_blocks(
            [&](line_block&& block) {
                blocks.push(std::move(block));
                shown.update(lines.bytes_read());
            },
            [&] { return spare.try_pop().value_or(std::vector<char>{}); });
    } catch (...) {
        blocks.close();
        throw;  // the jthreads drain the queue and join
    }
    blocks.close();
    workers.clear();  // joins
    if (failure) std::rethrow_exception(failure);
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
