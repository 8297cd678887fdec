// tests/waiting.hpp — waiting for another thread or process without assuming how fast it runs:
// a condition polled until it holds (the deadline only keeps a broken test from hanging for
// ever), and whether a thread of this process sleeps in the kernel (blocked on a lock, a
// condition variable, a read), which tells a test that a thread it started has reached the wait
// it is meant to be in.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

namespace bloomkit_test {

/// How long a test waits for what must happen before it gives up (and fails): a minute.
inline constexpr std::chrono::seconds patience{60};

/// Polls `condition` every millisecond until it holds; false when it still does not after `limit`.
template <class Condition>
bool eventually(Condition condition, std::chrono::steady_clock::duration limit = patience) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!condition()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

/// The kernel's id of the calling thread, for asleep().
inline pid_t this_thread_id() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

/// Whether the thread `id` of this process sleeps in the kernel (state S in /proc), as a thread
/// blocked on a lock, a condition variable or a read does; false once it has ended. A thread
/// that only waits for a CPU is runnable (R), not asleep.
inline bool asleep(pid_t id) {
    std::ifstream file("/proc/self/task/" + std::to_string(id) + "/stat");
    const std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const auto name_end = stat.rfind(')');  // "id (name) S ...": the name may hold anything
    return name_end != std::string::npos && name_end + 2 < stat.size() && stat[name_end + 2] == 'S';
}

}  // namespace bloomkit_test
