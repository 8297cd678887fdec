// python/src/fork_safe_lock.hpp — the locks of the module's filters, safe across fork(): a
// process forked (multiprocessing, gunicorn --preload, os.fork) while another thread held a
// filter's lock in a bulk call would get a child whose copy of the lock is held forever by a
// thread that does not exist there. Every such lock is registered; fork() first takes them all
// (in address order, as two-filter calls take theirs), so the child is made between calls, with
// every filter whole and every lock free.
#pragma once

#include <new>
#include <shared_mutex>

namespace bloomkit::python {

/// A reader-writer lock that fork() waits for and leaves free in the child.
class fork_safe_lock {
public:
    fork_safe_lock();
    ~fork_safe_lock();
    fork_safe_lock(const fork_safe_lock&) = delete;
    fork_safe_lock& operator=(const fork_safe_lock&) = delete;

    void lock() { mutex_.lock(); }
    void unlock() { mutex_.unlock(); }
    void lock_shared() { mutex_.lock_shared(); }
    void unlock_shared() { mutex_.unlock_shared(); }
    /// In a forked child only: the lock made anew, free (the one taken before the fork is
    /// abandoned, as its holder is).
    void make_free() { new (&mutex_) std::shared_mutex(); }

private:
    std::shared_mutex mutex_;
};

}  // namespace bloomkit::python
