// src/jobs/ordered_pipeline.hpp — the pipeline of the jobs whose output follows their input's
// order (check, intersect, subtract, dedup): blocks of lines are read on one thread, worked on
// by any of `threads` workers, and consumed on the calling thread in input order.
//
// The split puts a job's parallel part (parsing and hashing keys, querying a filter that does
// not change) on every core, and keeps its sequential part (inserting in input order, writing
// the output) on one thread. The consumer sees the same lines in the same order with the same
// work done whatever the number of threads, so a job's output does not depend on it. At most
// two blocks per worker (4 MiB each at most, long lines aside) are in flight at once.
//
// Signals: SIGINT, SIGTERM and SIGHUP go to the reading thread only (signals.hpp), so that a
// deferred one interrupts a read waiting on a slow producer, as it does without threads. A
// pipeline that fails while its reader waits on an idle input interrupts that read
// (interrupt_reads), so the error is reported at once, not when the producer next writes.
//
// Idle work (input_source.hpp's idle_work: dedup --state saves its state while its feed is
// quiet) is done on the consuming thread, between two blocks, whenever it falls due while no
// block is ready to consume: the work may touch what the consumer owns (a filter) without a lock.
// Without threads, the read that waits does it, on that same thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <span>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "jobs/line_reader.hpp"
#include "jobs/signals.hpp"
#include "jobs/threads_unavailable.hpp"

namespace bloomkit::jobs {

/// A block of lines, split, with what the work made of it. Recycled, buffers and all.
template <class Result>
struct worked_block {
    line_block block;
    std::vector<std::string_view> lines;
    Result result{};
};

template <class Result>
class ordered_pipeline {
public:
    explicit ordered_pipeline(unsigned workers) : workers_(workers), capacity_(2 * std::size_t{workers}) {}

    template <class Work, class Consume>
    void run(line_reader& reader, Work& work, Consume& consume, const idle_work& idle) {
        {
            const termination_signals_blocked blocked;  // in this thread and the workers
            std::vector<std::jthread> threads;
            try {
                threads.emplace_back([&] { read_all(reader); });
                for (unsigned i = 0; i < workers_; ++i) threads.emplace_back([&] { work_on(work); });
            } catch (const std::system_error& e) {
                stop(std::make_exception_ptr(threads_unavailable(workers_, e)));
            }
            consume_all(consume, idle);  // returns at once if stopped
            if (!threads.empty()) stop_reader(threads.front().native_handle());
        }  // joins every thread
        if (failure_) std::rethrow_exception(failure_);
    }

private:
    using item = worked_block<Result>;
    struct stop_reading {};

    void stop(std::exception_ptr failure) {
        const std::lock_guard lock(mutex_);
        if (!failure_) failure_ = failure;
        stopped_ = true;
        changed_.notify_all();
    }

    // A pipeline that failed before its input ended must not wait for its reader to get more
    // input (an idle pipe may give none for hours): the reader's read is interrupted.
    void stop_reader(pthread_t reader) {
        std::unique_lock lock(mutex_);
        bool interrupted = false;
        while (stopped_ && !reading_done_) {
            lock.unlock();
            interrupt_reads(reader);
            interrupted = true;
            lock.lock();
            changed_.wait_for(lock, std::chrono::milliseconds(10), [&] { return reading_done_; });
        }
        if (interrupted) resume_reads(reader);
    }

    void read_all(line_reader& reader) {
        unblock_termination_signals();
        try {
            reader.read_blocks([&](line_block&& block) { queue(std::move(block)); }, [&] { return spare_buffer(); });
        } catch (const stop_reading&) {
        } catch (const reads_interrupted&) {
        } catch (...) {
            stop(std::current_exception());
        }
        const std::lock_guard lock(mutex_);
        reading_done_ = true;
        changed_.notify_all();
    }

    void queue(line_block&& block) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stopped_ || in_flight_ < capacity_; });
        if (stopped_) throw stop_reading{};
        item next;
        if (!spare_items_.empty()) {
            next = std::move(spare_items_.back());
            spare_items_.pop_back();
        }
        next.block = std::move(block);
        to_work_.emplace_back(read_++, std::move(next));
        ++in_flight_;
        changed_.notify_all();
    }

    std::vector<char> spare_buffer() {
        const std::lock_guard lock(mutex_);
        if (spare_buffers_.empty()) return {};
        std::vector<char> buffer = std::move(spare_buffers_.back());
        spare_buffers_.pop_back();
        return buffer;
    }

    template <class Work>
    void work_on(Work& work) {
        std::unique_lock lock(mutex_);
        for (;;) {
            changed_.wait(lock, [&] { return stopped_ || !to_work_.empty() || reading_done_; });
            if (stopped_ || to_work_.empty()) return;
            auto [sequence, next] = std::move(to_work_.front());
            to_work_.pop_front();
            lock.unlock();
            try {
                next.lines.clear();
                split_lines(next.block.text(), next.lines);
                work(std::span<const std::string_view>(next.lines), next.block.origin, next.result);
            } catch (...) {
                stop(std::current_exception());
                return;
            }
            lock.lock();
            done_.emplace(sequence, std::move(next));
            changed_.notify_all();
        }
    }

    // Waits until `ready()`, doing `idle`'s work (with the lock released) each time it falls due
    // meanwhile.
    template <class Ready>
    void wait_doing_idle_work(std::unique_lock<std::mutex>& lock, Ready ready, const idle_work& idle) {
        using clock = std::chrono::steady_clock;
        for (;;) {
            const clock::time_point due = idle.next_due();
            if (due == clock::time_point::max()) {
                changed_.wait(lock, ready);
                return;
            }
            if (changed_.wait_until(lock, due, ready)) return;
            lock.unlock();
            idle.run();
            lock.lock();
        }
    }

    template <class Consume>
    void consume_all(Consume& consume, const idle_work& idle) {
        for (std::uint64_t sequence = 0;; ++sequence) {
            item next;
            try {
                std::unique_lock lock(mutex_);
                wait_doing_idle_work(
                    lock, [&] { return stopped_ || done_.contains(sequence) || (reading_done_ && sequence == read_); },
                    idle);
                if (stopped_ || !done_.contains(sequence)) return;
                next = std::move(done_.extract(sequence).mapped());
            } catch (...) {  // from the idle work
                stop(std::current_exception());
                return;
            }
            try {
                consume(std::span<const std::string_view>(next.lines), next.block.origin, next.result);
            } catch (...) {
                stop(std::current_exception());
                return;
            }
            const std::lock_guard lock(mutex_);
            --in_flight_;
            spare_buffers_.push_back(std::move(next.block.buffer));
            spare_items_.push_back(std::move(next));
            changed_.notify_all();
        }
    }

    const unsigned workers_;
    const std::size_t capacity_;  // blocks read and not yet consumed, at most
    std::mutex mutex_;
    std::condition_variable changed_;  // any change below: each waiter checks its own condition
    std::deque<std::pair<std::uint64_t, item>> to_work_;
    std::map<std::uint64_t, item> done_;
    std::vector<std::vector<char>> spare_buffers_;
    std::vector<item> spare_items_;
    std::uint64_t read_ = 0;  // blocks read (the next one's sequence number)
    std::size_t in_flight_ = 0;
    bool reading_done_ = false;
    bool stopped_ = false;
    std::exception_ptr failure_;
};

/// For each block of `reader`'s lines, in order: work(lines, origin, result) on one of
/// `threads` threads, then consume(lines, origin, result) on this one (Result is reused from
/// block to block, so vectors in it keep their memory). With threads <= 1 both run here. The
/// first exception from the reading, a work, a consume or the idle work stops the pipeline and
/// is rethrown. `idle`'s work is done on this thread, between two consumes, whenever it falls
/// due while the next block has not come.
template <class Result, class Work, class Consume>
void for_each_block_in_order(line_reader& reader, unsigned threads, Work work, Consume consume,
                             const idle_work& idle = {}) {
    if (threads <= 1) {
        Result result{};
        reader.read(
            [&](std::span<const std::string_view> lines, const line_origin& origin) {
                work(lines, origin, result);
                consume(lines, origin, result);
            },
            idle);
        return;
    }
    ordered_pipeline<Result>(threads).run(reader, work, consume, idle);
}

}  // namespace bloomkit::jobs
