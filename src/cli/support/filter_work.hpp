// src/cli/support/filter_work.hpp — the subcommands' shared work on a filter whose kind is
// known only at run time (bloomkit::any_filter): inserting lines, querying them. Every batch goes
// through the library's runtime bulk calls (bloomkit/bulk.hpp), which visit the filter's kind
// once per batch: the pipeline around them — reading, threads, output — is compiled once, not
// once per kind.
#pragma once

#include <fmt/core.h>
#include <unistd.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/bulk.hpp"
#include "jobs/digest_set.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/line_reader.hpp"
#include "jobs/ordered_pipeline.hpp"
#include "jobs/progress.hpp"
#include "jobs/signals.hpp"
#include "jobs/threads_unavailable.hpp"
#include "jobs/work_queue.hpp"
#include "support/keys.hpp"

namespace bloomkit::cli {

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

/// The error of a cuckoo filter that is full. A filter that keeps copies of repeated lines
/// can fill up long before it holds as many distinct lines as it was sized for: say so.
inline error cuckoo_full(const cuckoo_filter& filter, repeats repeated) {
    return error(fmt::format(
        "the cuckoo filter is full ({} fingerprints in {} buckets): not every line fits; build it for more keys (-n){}",
        filter.inserted_count(), filter.bucket_count(),
        repeated == repeats::stored
            ? ". It stores a line each time it comes (so that remove can undo each add): if the input repeats "
              "lines already in the filter, remove them first (sort -u, or bloomkit check --absent), or use a "
              "counting Bloom filter (--kind counting)"
            : ""));
}

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
                  jobs::digest_set* seen = nullptr) {
    cuckoo_filter* cuckoo = std::get_if<cuckoo_filter>(&filter);
    if (cuckoo == nullptr) {  // a set: every repeat is the same key
        bloomkit::insert(filter, batch);
        return;
    }
    if (repeated == repeats::once) {  // one key at a time: a batch may repeat a line too
        for (const Key& key : batch)
            if (!cuckoo->contains(key) && cuckoo->try_insert(key) == cuckoo_insert_status::full)
                throw cuckoo_full(*cuckoo, repeated);
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
        throw cuckoo_full(*cuckoo, repeated);
    }
}

/// Several threads: the reader (this thread) fills blocks of whole lines; the workers split
/// them and insert each into a private, empty twin of the filter with plain stores; the twins
/// are merged at the end. The result is exactly what one thread builds (the union is exact),
/// and no two cores fight over a cache line. (One filter shared through atomic OR measured
/// twice as slow as a single thread: every locked OR pulls the line across cores.)
inline void insert_lines_in_parallel(any_filter& filter, jobs::line_reader& lines, key_format keys, unsigned threads,
                                     jobs::progress& shown) {
    std::vector<any_filter> twins;
    for (unsigned i = 0; i < threads; ++i) twins.push_back(*empty_like(filter));
    jobs::work_queue<jobs::line_block> blocks(2 * threads);
    jobs::work_queue<std::vector<char>> spare(4 * threads);
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
            jobs::interrupt_reads(reader);
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    };
    auto work = [&](unsigned worker) {
        std::vector<std::string_view> batch;
        while (std::optional<jobs::line_block> block = blocks.pop()) {
            try {
                if (!failed.load()) {
                    batch.clear();
                    jobs::split_lines(block->text(), batch);
                    jobs::with_keys(batch, keys, block->origin,
                                    [&](auto keyed) { insert_batch(twins[worker], keyed); });
                }
            } catch (...) {
                fail();
            }
            spare.try_push(std::move(block->buffer));
        }
    };
    {
        const jobs::reads_resumed_at_exit resumed(reader);  // outlives the workers, which may interrupt it
        std::vector<std::jthread> workers;
        try {
            for (unsigned i = 0; i < threads; ++i) workers.emplace_back(work, i);
        } catch (const std::system_error& e) {
            blocks.close();  // the threads already started drain the queue and end; the jthreads join
            throw jobs::threads_unavailable(threads, e);
        }
        try {
            lines.read_blocks(
                [&](jobs::line_block&& block) {
                    if (failed.load()) throw jobs::reads_interrupted{};
                    blocks.push(std::move(block));
                    shown.update(lines.bytes_read());
                },
                [&] { return spare.try_pop().value_or(std::vector<char>{}); });
        } catch (const jobs::reads_interrupted&) {
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

/// Inserts every line of `lines` (bulk, pipelined) with `threads` threads (parse_threads());
/// kinds whose private copies cannot be united exactly, and filters too big to copy, use one.
inline void insert_lines(any_filter& filter, jobs::line_reader& lines, key_format keys, unsigned threads,
                         repeats repeated = repeats::stored) {
    if (!capabilities(filter).inserts)
        throw error("a " + kind_name(filter) +
                    " is static: it cannot take more keys. Rebuild it from all of them "
                    "(bloomkit build --kind fuse)");
    jobs::progress shown("adding", lines.total_bytes(), jobs::data_output::none);
    if (threads > 1 && twins_fit(size_in_bytes(filter), threads) && empty_like(filter)) {
        insert_lines_in_parallel(filter, lines, keys, threads, shown);
        return;
    }
    std::optional<jobs::digest_set> seen;
    if (repeated == repeats::distinct) seen.emplace();
    lines.read([&](std::span<const std::string_view> batch, const jobs::line_origin& origin) {
        jobs::with_keys(batch, keys, origin,
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
void query_lines(const Filter& filter, jobs::line_reader& lines, key_format keys, unsigned threads, Use use) {
    jobs::for_each_block_in_order<answer_buffer>(
        lines, threads,
        [&](std::span<const std::string_view> batch, const jobs::line_origin& origin, answer_buffer& answers) {
            const std::span<bool> out = answers.resize(batch.size());
            jobs::with_keys(batch, keys, origin, [&](auto keyed) { ask(filter, keyed, out); });
        },
        [&](std::span<const std::string_view> batch, const jobs::line_origin&, const answer_buffer& answers) {
            use(batch, answers.answers());
        });
}

/// Warns on stderr when a filter holds more keys than it was sized for (as its header says), and
/// its FPR is then above the target. (Kinds that grow, or are built from their keys, have no
/// such size, or no such rate.) Bloom and counting filters' keys are estimated from their
/// fill, within a fraction of a percent: hence the 1% margin.
inline void warn_if_overfull(const file_header& h) {
    const double distinct = approximate_count(h);
    if (h.expected_keys == 0 || !(distinct > 1.01 * static_cast<double>(h.expected_keys))) return;
    if (!(current_fpr(h) > h.target_fpr)) return;  // sized with room to spare: still within its target
    const std::string held = std::isfinite(distinct) ? fmt::format("about {:.0f} distinct keys", distinct)
                                                     : std::string("so many keys that every bit is set");
    fmt::print(stderr,
               "bloomkit: warning: the filter holds {} but was sized for {}; its false-positive rate is now about "
               "{:.4g}% (target {:.4g}%). Rebuild it with a larger -n.\n",
               held, h.expected_keys, 100 * current_fpr(h), 100 * h.target_fpr);
}

/// The same for a filter. The count of inserts bounds the distinct keys from above, so while
/// it is within the size the filter was made for (adding a line to a 1 GiB filter), the fill
/// (which reads the whole filter) is not even counted.
inline void warn_if_overfull(const any_filter& filter) {
    const sizing_target target = sized_for(filter);
    if (target.expected_keys > 0 && inserted_count(filter) > target.expected_keys) warn_if_overfull(header_of(filter));
}

}  // namespace bloomkit::cli
