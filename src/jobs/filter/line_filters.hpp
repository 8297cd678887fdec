// src/jobs/filter/line_filters.hpp — lines in and out of a filter whose kind is known only at run
// time (bloomkit::any_filter): inserting them with threads, querying them in input order,
// counting them to size a filter, and building a filter of any kind from them. Every batch goes
// through the library's runtime bulk calls (bloomkit/bulk.hpp), which visit the filter's kind
// once per batch: the pipeline around them — reading, threads, order — is compiled once, not
// once per kind. The filter jobs (filter_jobs.hpp) and the command's queries stand on it.
#pragma once

#include <fmt/core.h>
#include <unistd.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/bulk.hpp"
#include "jobs/digest_set.hpp"
#include "jobs/filter/build_lines.hpp"
#include "jobs/filter/sizing.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/line_reader.hpp"
#include "jobs/ordered_pipeline.hpp"
#include "jobs/progress.hpp"
#include "jobs/signals.hpp"
#include "jobs/threads_unavailable.hpp"
#include "jobs/work_queue.hpp"

namespace bloomkit::jobs {

/// Whether `threads` private copies of the filter fit comfortably (a quarter of the RAM).
inline bool twins_fit(std::uint64_t bytes, unsigned threads) {
    const auto memory = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
    return static_cast<double>(bytes) * threads <= memory / 4;
}

// --- Inserting lines ---------------------------------------------------------------------

/// What a cuckoo filter does with a line that comes again (the other kinds hold a set).
enum class repeats {
    /// Stored again each time, so that each remove undoes one add: `add` to a file, where a
    /// line may already be in from before. A line that merely tests present is not skipped: it
    /// may be a false positive, and removing it later would then take another line's only
    /// fingerprint. A copy the key's buckets have no slot for (8 copies are in) is refused.
    stored,
    /// Each distinct line stored once (`build`): a build makes a set, as for the other kinds.
    /// Repeats are told apart exactly, by their 128-bit digests in a set of every distinct
    /// line (~23 bytes a line while building), never by the filter's own answer, so that no
    /// false positive is skipped and a later remove undoes exactly one add.
    distinct,
    /// Skipped when the filter already answers present: for a filter nothing is removed from.
    once,
};

/// A filter of fixed capacity that is full (a cuckoo filter), with what it stores: one that
/// keeps copies of repeated lines can fill up long before it holds as many distinct lines as it
/// was sized for.
class lines_do_not_fit : public filter_full {
public:
    lines_do_not_fit(const any_filter& filter, repeats repeated)
        : filter_full(fmt::format("the {} is full ({} keys in {} bytes): not every line fits", kind_name(filter),
                                  inserted_count(filter), size_in_bytes(filter))),
          repeated_(repeated) {}
    /// Whether it stores a line each time it comes (so that remove can undo each add).
    [[nodiscard]] bool keeps_copies() const noexcept { return repeated_ == repeats::stored; }

private:
    repeats repeated_;
};

/// A filter built once from all of its keys (a binary fuse filter), asked to take more.
class static_filter : public error {
public:
    explicit static_filter(const any_filter& filter)
        : error("a " + kind_name(filter) + " is static: it cannot take more keys. Rebuild it from all of them") {}
};

/// A kind sized by its keys alone (a binary fuse filter), given a memory budget.
class sized_by_its_keys : public invalid_argument {
public:
    explicit sized_by_its_keys(const std::string& kind)
        : invalid_argument("a memory budget does not apply to a " + kind + ": it is sized by its keys") {}
};

/// One answer per key of a batch, reused from batch to batch (std::vector<bool> packs its bits
/// and cannot be handed out as a span).
class answer_buffer {
public:
    std::span<bool> resize(std::size_t size) {
        if (size > capacity_) {
            answers_.reset(new bool[size]);
            capacity_ = size;
        }
        size_ = size;
        return {answers_.get(), size};
    }
    [[nodiscard]] std::span<const bool> answers() const noexcept { return {answers_.get(), size_}; }

private:
    std::unique_ptr<bool[]> answers_;
    std::size_t capacity_ = 0, size_ = 0;
};

/// Inserts a batch of lines' keys. Throws when a cuckoo filter is full (nothing it held is
/// lost, but the batch is not all in, and the caller must not save a filter that misses keys
/// silently). `seen` holds the lines inserted so far, for repeats::distinct.
template <class Key>
void insert_batch(any_filter& filter, std::span<const Key> batch, repeats repeated = repeats::stored,
                  digest_set* seen = nullptr) {
    if (!capabilities(filter).fills) {  // a set: every repeat is the same key
        bloomkit::insert(filter, batch);
        return;
    }
    if (repeated == repeats::once) {  // one key at a time: a batch may repeat a line too
        for (std::size_t i = 0; i < batch.size(); ++i) {
            bool held = false;
            bloomkit::contains(filter, batch.subspan(i, 1), std::span(&held, 1));
            try {
                if (!held) bloomkit::insert(filter, batch.subspan(i, 1));
            } catch (const too_many_copies_error&) {
                throw;
            } catch (const filter_full&) {
                throw lines_do_not_fit(filter, repeated);
            }
        }
        return;
    }
    thread_local std::vector<digest> digests;
    digests.resize(batch.size());
    bloomkit::hash(filter, batch, std::span(digests));
    if (repeated == repeats::distinct) {
        thread_local std::vector<char> fresh;
        fresh.resize(digests.size());
        seen->insert(digests, fresh);
        std::size_t kept = 0;
        for (std::size_t i = 0; i < digests.size(); ++i)
            if (fresh[i] != 0) digests[kept++] = digests[i];
        digests.resize(kept);
    }
    try {
        bloomkit::insert(filter, std::span<const digest>(digests));
    } catch (const too_many_copies_error&) {
        throw;  // says which keys: a full table is another matter
    } catch (const filter_full&) {
        throw lines_do_not_fit(filter, repeated);
    }
}

/// Several threads: the reader (this thread) fills blocks of whole lines; the workers split
/// them and insert each into a private, empty twin of the filter with plain stores; the twins
/// are merged at the end. The result is exactly what one thread builds (the union is exact),
/// and no two cores fight over a cache line. (One filter shared through atomic OR measured
/// twice as slow as a single thread: every locked OR pulls the line across cores.)
inline void insert_lines_in_parallel(any_filter& filter, line_reader& lines, key_format keys, unsigned threads,
                                     progress& shown) {
    std::vector<any_filter> twins;
    for (unsigned i = 0; i < threads; ++i) twins.push_back(*empty_like(filter));
    work_queue<line_block> blocks(2 * threads);
    work_queue<std::vector<char>> spare(4 * threads);
    std::exception_ptr failure;
    std::mutex failure_mutex;
    std::atomic<bool> failed{false}, reading_stopped{false};
    const pthread_t reader = ::pthread_self();
    // The first worker to fail stops the reader, which may be waiting on an idle input: the
    // error is reported at once. The others go on draining the queue, so the reader is never
    // stuck on a full one.
    auto fail = [&] {
        {
            const std::lock_guard lock(failure_mutex);
            if (failure) return;
            failure = std::current_exception();
        }
        failed.store(true);
        while (!reading_stopped.load()) {
            interrupt_reads(reader);
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    };
    auto work = [&](unsigned worker) {
        std::vector<std::string_view> batch;
        while (std::optional<line_block> block = blocks.pop()) {
            try {
                if (!failed.load()) {
                    batch.clear();
                    split_lines(block->text(), batch);
                    with_keys(batch, keys, block->origin, [&](auto keyed) { insert_batch(twins[worker], keyed); });
                }
            } catch (...) {
                fail();
            }
            spare.try_push(std::move(block->buffer));
        }
    };
    {
        const reads_resumed_at_exit resumed(reader);  // outlives the workers, which may interrupt it
        std::vector<std::jthread> workers;
        try {
            for (unsigned i = 0; i < threads; ++i) workers.emplace_back(work, i);
        } catch (const std::system_error& e) {
            blocks.close();  // the threads already started drain the queue and end; the jthreads join
            throw threads_unavailable(threads, e);
        }
        try {
            lines.read_blocks(
                [&](line_block&& block) {
                    if (failed.load()) throw reads_interrupted{};
                    blocks.push(std::move(block));
                    shown.update(lines.bytes_read());
                },
                [&] { return spare.try_pop().value_or(std::vector<char>{}); });
        } catch (const reads_interrupted&) {
        } catch (...) {
            reading_stopped.store(true);
            blocks.close();
            throw;  // the jthreads drain the queue and join
        }
        reading_stopped.store(true);
        blocks.close();
    }  // joins the workers
    if (failure) std::rethrow_exception(failure);
    for (const any_filter& twin : twins) bloomkit::merge(filter, twin);
}

/// Inserts every line of `lines` (bulk, pipelined) with `threads` threads; kinds whose private
/// copies cannot be united exactly, and filters too big to copy, use one.
inline void insert_lines(any_filter& filter, line_reader& lines, key_format keys, unsigned threads,
                         repeats repeated = repeats::stored) {
    if (!capabilities(filter).inserts) throw static_filter(filter);
    progress shown("adding", lines.total_bytes(), data_output::none);
    if (threads > 1 && twins_fit(size_in_bytes(filter), threads) && empty_like(filter)) {
        insert_lines_in_parallel(filter, lines, keys, threads, shown);
        return;
    }
    std::optional<digest_set> seen;
    if (repeated == repeats::distinct) seen.emplace();
    lines.read([&](std::span<const std::string_view> batch, const line_origin& origin) {
        with_keys(batch, keys, origin,
                  [&](auto keyed) { insert_batch(filter, keyed, repeated, seen ? &*seen : nullptr); });
        shown.update(lines.bytes_read());
    });
}

// --- Querying lines -----------------------------------------------------------------------

/// Writes to `answers` whether each key may be in the filter: a filter of any kind (its kind
/// visited once for the batch), or one with a bulk contains of its own (the Redis filter).
template <class Filter, class Key>
void ask(const Filter& filter, std::span<const Key> keys, std::span<bool> answers) {
    if constexpr (std::is_same_v<Filter, any_filter>) bloomkit::contains(filter, keys, answers);
    else filter.contains(keys.begin(), keys.end(), answers.begin());
}

/// Asks the filter about every line of `lines` (bulk, pipelined) with `threads` threads, and
/// calls use(lines, answers) on this thread for each batch, in input order: answers[i] is
/// whether line i may be in the filter. What use() sees does not depend on `threads`.
template <class Filter, class Use>
void query_lines(const Filter& filter, line_reader& lines, key_format keys, unsigned threads, Use use) {
    for_each_block_in_order<answer_buffer>(
        lines, threads,
        [&](std::span<const std::string_view> batch, const line_origin& origin, answer_buffer& answers) {
            const std::span<bool> out = answers.resize(batch.size());
            with_keys(batch, keys, origin, [&](auto keyed) { ask(filter, keyed, out); });
        },
        [&](std::span<const std::string_view> batch, const line_origin&, const answer_buffer& answers) {
            use(batch, answers.answers());
        });
}

// --- Building a filter from lines -----------------------------------------------------------

/// Lines in the inputs (a last line without '\n' counts), each checked as a key of `format` as
/// it is counted, so that a bad line stops the job at once; the inputs are then read again from
/// their start (copied first where they cannot be: line_reader::read_and_keep).
inline std::uint64_t count_lines(line_reader& reader, key_format format) {
    progress shown("counting lines", reader.total_bytes(), data_output::none);  // no line is printed yet
    std::uint64_t lines = 0;
    std::vector<std::string_view> split;
    reader.read_and_keep([&](line_block&& block) {
        const std::string_view text = block.text();
        lines += count_newlines(text);
        if (!text.empty() && text.back() != '\n') ++lines;
        if (is_integer(format)) {
            split.clear();
            split_lines(text, split);
            with_keys(std::span<const std::string_view>(split), format, block.origin, [](auto) {});
        }
        shown.update(reader.bytes_read());
    });
    return lines;
}

/// The keys of every line of `lines` (a static filter is built from them all at once).
struct all_keys {
    std::vector<line_block> blocks;  // own the bytes the views point into
    std::vector<std::string_view> texts;
    std::vector<std::uint64_t> numbers;
};

inline all_keys read_all_keys(line_reader& lines, key_format format) {
    all_keys keys;
    lines.read_blocks([&](line_block&& block) {
        const std::size_t first = keys.texts.size();
        split_lines(block.text(), keys.texts);
        if (format != key_format::text) {
            with_keys(std::span<const std::string_view>(keys.texts).subspan(first), format, block.origin,
                      [&](auto keyed) {
                          if constexpr (std::is_same_v<typename decltype(keyed)::value_type, std::uint64_t>)
                              keys.numbers.insert(keys.numbers.end(), keyed.begin(), keyed.end());
                      });
        }
        keys.blocks.push_back(std::move(block));
    });
    return keys;
}

/// What a filter is built for. One that is saved may later have lines removed (a cuckoo filter
/// then keeps a copy of a line each time it comes: repeats), and is refused for an input with no
/// lines (a filter of nothing is a mistake). One a job holds while it streams another input
/// (intersect, subtract) is only queried: a cuckoo filter keeps a line once, and an empty input
/// makes a filter for one key, which answers "absent" for every line.
enum class filter_use { saved, held_by_job };

/// The filter of type F `settings` ask for, holding every line of `lines`.
template <class F>
any_filter build_filter(line_reader& lines, const build_settings& settings, filter_use use = filter_use::saved) {
    const kind_request& request = settings.kind;
    const sizing_request& sizing = settings.sizing;
    const filter_options& hashing = settings.hashing;
    const key_format format = hashing.keys;
    if constexpr (!inserting_filter<F>) {
        if (sizing.memory) throw sized_by_its_keys(kind_traits<F>::name());
        const all_keys keys = read_all_keys(lines, format);
        if (format == key_format::text) return F(keys.texts, hashing);
        return F(keys.numbers, hashing);
    } else {
        // Counting, when the size depends on it: inputs that are not regular files (stdin,
        // pipes, FIFOs) are spooled first so they can be read twice. A scalable filter grows,
        // so it starts at a modest capacity instead.
        sizing_request r = sizing;
        if (capabilities_of<F>().grows && r.needs_count() && !r.memory) r.keys = default_growing_capacity;
        const auto [n, p] = resolve_sizing<F>(r, request, [&] {
            const std::uint64_t counted = count_lines(lines, format);
            return use == filter_use::held_by_job ? std::max<std::uint64_t>(counted, 1) : counted;
        });
        any_filter made = kind_traits<F>::make(n, p, request, hashing);
        set_time(made, settings.now);
        insert_lines(made, lines, format, settings.threads,
                     use == filter_use::held_by_job ? repeats::once : repeats::distinct);
        return made;
    }
}

}  // namespace bloomkit::jobs
