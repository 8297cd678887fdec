// src/jobs/work_queue.hpp — a bounded, blocking queue between one producer (the reader) and
// worker threads. Bounded so that a fast reader cannot pile a whole file up in memory.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>

namespace bloomkit::jobs {

template <class T>
class work_queue {
public:
    explicit work_queue(std::size_t capacity) : capacity_(capacity) {}

    /// Blocks while the queue is full.
    void push(T item) {
        std::unique_lock lock(mutex_);
        not_full_.wait(lock, [&] { return items_.size() < capacity_; });
        items_.push_back(std::move(item));
        not_empty_.notify_one();
    }

    /// Adds an item unless the queue is full; returns whether it did.
    bool try_push(T item) {
        const std::lock_guard lock(mutex_);
        if (items_.size() >= capacity_) return false;
        items_.push_back(std::move(item));
        not_empty_.notify_one();
        return true;
    }

    /// Blocks until an item arrives; empty once the queue is closed and drained.
    std::optional<T> pop() {
        std::unique_lock lock(mutex_);
        not_empty_.wait(lock, [&] { return !items_.empty() || closed_; });
        if (items_.empty()) return std::nullopt;
        T item = std::move(items_.front());
        items_.pop_front();
        not_full_.notify_one();
        return item;
    }

    /// An item if one is waiting, without blocking.
    std::optional<T> try_pop() {
        const std::lock_guard lock(mutex_);
        if (items_.empty()) return std::nullopt;
        T item = std::move(items_.front());
        items_.pop_front();
        not_full_.notify_one();
        return item;
    }

    /// No more pushes: wakes every waiting pop().
    void close() {
        const std::lock_guard lock(mutex_);
        closed_ = true;
        not_empty_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable not_empty_, not_full_;
    std::deque<T> items_;
    std::size_t capacity_;
    bool closed_ = false;
};

}  // namespace bloomkit::jobs
