// src/cli/filters.hpp — the subcommands' shared work on a filter whose kind is known only at
// run time (bloomkit::any_filter): what each kind can do, making one, inserting lines.
#pragma once

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "line_reader.hpp"
#include "progress.hpp"
#include "work_queue.hpp"

namespace bloomkit::cli {

// --- What a kind can do ------------------------------------------------------------------

template <class F>
inline constexpr bool is_bloom_v = false;
template <class Layout>
inline constexpr bool is_bloom_v<basic_bloom_filter<Layout>> = true;

template <class F>
concept insertable = !std::is_same_v<F, binary_fuse8_filter> && !std::is_same_v<F, binary_fuse16_filter> &&
                     !std::is_same_v<F, binary_fuse8_4wise_filter> && !std::is_same_v<F, binary_fuse16_4wise_filter>;

template <class F>
concept removable = std::is_same_v<F, counting_bloom_filter> || std::is_same_v<F, cuckoo_filter>;

/// Kinds whose union is exact and cheap, so threads can fill private twins and OR them in.
template <class F>
concept mergeable_by_twins = is_bloom_v<F> || std::is_same_v<F, counting_bloom_filter>;

/// "block Bloom filter", "cuckoo filter", ...: how messages name a filter.
template <class F>
std::string kind_name() {
    return detail::file_codec<F>::name();
}

// --- Making one --------------------------------------------------------------------------

/// What `build --kind ... --layout ... --bits ... --arity ...` asked for.
struct kind_spec {
    filter_kind kind = filter_kind::bloom;
    bloom_layout layout = bloom_layout::block;
    unsigned bits = 0;   ///< cuckoo 8/12/16, fuse 8/16; 0: chosen from p
    unsigned arity = 3;  ///< fuse 3/4
};

/// A filter of `spec` sized for `keys` keys at `fpp` (all but binary fuse, which is built
/// from its keys: see build_fuse).
inline any_filter make_filter(const kind_spec& spec, std::uint64_t keys, double fpp, filter_options options) {
    switch (spec.kind) {
        case filter_kind::bloom:
            if (spec.layout == bloom_layout::classic) return classic_bloom_filter(keys, fpp, options);
            if (spec.layout == bloom_layout::split_block) return split_block_bloom_filter(keys, fpp, options);
            return block_bloom_filter(keys, fpp, options);
        case filter_kind::counting_bloom: return counting_bloom_filter(keys, fpp, options);
        case filter_kind::cuckoo: {
            if (spec.bits == 0) return cuckoo_filter(keys, fpp, options);
            cuckoo_filter filter(cuckoo_geometry{cuckoo_buckets_for(static_cast<double>(keys)), spec.bits}, options);
            return filter;
        }
        case filter_kind::scalable_bloom:
            return scalable_bloom_filter(keys, fpp, {.seed = options.seed, .hash = options.hash});
        case filter_kind::binary_fuse: break;
    }
    throw error("a binary fuse filter is built from its keys, not sized in advance");
}

/// A binary fuse filter of `spec` holding exactly `keys` (repeats allowed).
inline any_filter build_fuse(const kind_spec& spec, std::span<const std::string_view> keys, filter_options options) {
    if (spec.arity == 4)
        return spec.bits == 16 ? any_filter(binary_fuse16_4wise_filter(keys, options)) : any_filter(binary_fuse8_4wise_filter(keys, options));
    return spec.bits == 16 ? any_filter(binary_fuse16_filter(keys, options)) : any_filter(binary_fuse8_filter(keys, options));
}

/// An empty filter that combines with `filter`: same kind, geometry, hash and seed.
template <mergeable_by_twins F>
F empty_twin(const F& f) {
    return F(f.geometry(), {.seed = f.hash_function().seed(), .hash = f.hash_function().algorithm()});
}

/// Whether `threads` private copies of the filter fit comfortably (a quarter of the RAM).
inline bool twins_fit(std::uint64_t bytes, unsigned threads) {
    const auto memory = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
    return static_cast<double>(bytes) * threads <= memory / 4;
}

// --- Inserting lines ---------------------------------------------------------------------

/// Inserts a batch; throws when a cuckoo filter is full (nothing it held is lost, but the
/// batch is not all in, and the caller must not save a filter that misses keys silently).
template <insertable F>
void insert_batch(F& filter, std::span<const std::string_view> batch) {
    if constexpr (std::is_same_v<F, cuckoo_filter>) {
        if (filter.insert(batch.begin(), batch.end()) != batch.size())
            throw error(fmt::format("the cuckoo filter is full ({} fingerprints in {} buckets): not every line fits; "
                                    "build it for more keys (-n)", filter.size(), filter.bucket_count()));
    } else {
        filter.insert(batch.begin(), batch.end());
    }
}

/// Several threads: the reader (this thread) fills blocks of whole lines; the workers split
/// them and insert each into a private, empty twin of the filter with plain stores; the twins
/// are merged at the end. The result is exactly what one thread builds (the union is exact),
/// and no two cores fight over a cache line. (One filter shared through atomic OR measured
/// twice as slow as a single thread: every locked OR pulls the line across cores.)
template <mergeable_by_twins F>
void insert_lines_in_parallel(F& filter, line_reader& lines, unsigned threads, progress& shown) {
    std::vector<F> twins;
    for (unsigned i = 0; i < threads; ++i) twins.push_back(empty_twin(filter));
    work_queue<line_block> blocks(2 * threads);
    work_queue<std::vector<char>> spare(4 * threads);
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto work = [&](unsigned worker) {
        std::vector<std::string_view> batch;
        while (std::optional<line_block> block = blocks.pop()) {
            try {
                batch.clear();
                split_lines(block->text(), batch);
                insert_batch(twins[worker], batch);
            } catch (...) {
                const std::lock_guard lock(failure_mutex);
                if (!failure) failure = std::current_exception();
            }
            spare.try_push(std::move(block->buffer));
        }
    };
    {
        std::vector<std::jthread> workers;
        for (unsigned i = 0; i < threads; ++i) workers.emplace_back(work, i);
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
    }  // joins the workers
    if (failure) std::rethrow_exception(failure);
    for (const F& twin : twins) filter |= twin;
}

/// Inserts every line of `lines` (bulk, pipelined) with `threads` threads (0: one per core);
/// kinds that cannot be merged exactly, and filters too big to copy, use one.
inline void insert_lines(any_filter& filter, line_reader& lines, unsigned threads) {
    if (threads == 0) threads = std::max(1U, std::thread::hardware_concurrency());
    progress shown("adding");
    std::visit(
        [&](auto& f) {
            using F = std::decay_t<decltype(f)>;
            if constexpr (!insertable<F>) {
                throw error("a binary fuse filter is static: it cannot take more keys. Rebuild it from all of them "
                            "(bloomkit build --kind fuse)");
            } else {
                if constexpr (mergeable_by_twins<F>) {
                    if (threads > 1 && twins_fit(f.size_in_bytes(), threads)) {
                        insert_lines_in_parallel(f, lines, threads, shown);
                        return;
                    }
                }
                lines.read([&](std::span<const std::string_view> batch) {
                    insert_batch(f, batch);
                    shown.update(lines.bytes_read());
                });
            }
        },
        filter);
}

/// Warns on stderr when a filter holds more keys than it was sized for: its FPR is then
/// above the target.
inline void warn_if_overfull(const any_filter& filter) {
    std::visit(
        [](const auto& f) {
            using F = std::decay_t<decltype(f)>;
            if constexpr (is_bloom_v<F> || std::is_same_v<F, counting_bloom_filter>) {
                if (f.expected_keys() == 0 || f.inserted_count() <= f.expected_keys()) return;
                fmt::print(stderr,
                           "bloomkit: warning: the filter holds {} keys but was sized for {}; its false-positive rate "
                           "is now about {:.4g}% (target {:.4g}%). Rebuild it with a larger -n.\n",
                           f.inserted_count(), f.expected_keys(), 100 * f.current_fpr(), 100 * f.target_fpp());
            }
        },
        filter);
}

}  // namespace bloomkit::cli
