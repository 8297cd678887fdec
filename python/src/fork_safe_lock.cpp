// python/src/fork_safe_lock.cpp — see fork_safe_lock.hpp.
#include "fork_safe_lock.hpp"

#include <pthread.h>

#include <mutex>
#include <new>
#include <set>

namespace bloomkit::python {
namespace {

std::mutex registry_lock;
std::set<fork_safe_lock*>& registry() {
    static auto* locks = new std::set<fork_safe_lock*>();  // lives as long as the process
    return *locks;
}

void before_fork() {
    registry_lock.lock();
    for (fork_safe_lock* lock : registry()) lock->lock();  // a set: in address order
}

void after_fork_in_parent() {
    for (fork_safe_lock* lock : registry()) lock->unlock();
    registry_lock.unlock();
}

// The child's thread has another id than the one that took the locks, and a lock records its
// writer's id: each is made anew, free, rather than unlocked.
void after_fork_in_child() {
    for (fork_safe_lock* lock : registry()) lock->make_free();
    new (&registry_lock) std::mutex();
}

void install_once() {
    static std::once_flag installed;
    std::call_once(installed, [] { ::pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child); });
}

}  // namespace

fork_safe_lock::fork_safe_lock() {
    install_once();
    const std::lock_guard held(registry_lock);
    registry().insert(this);
}

fork_safe_lock::~fork_safe_lock() {
    const std::lock_guard held(registry_lock);
    registry().erase(this);
}

}  // namespace bloomkit::python
