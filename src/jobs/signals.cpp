// src/jobs/signals.cpp — see signals.hpp. Handlers do only async-signal-safe things: unlink,
// write, signal, raise, _exit.
#include "jobs/signals.hpp"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <csignal>
#include <cstring>

#include "bloomkit/os/atomic_replace.hpp"

namespace bloomkit::jobs {
namespace {

std::array<char, 64> program_name{};
std::array<char, 4096> mapped_name{};
std::atomic<bool> mapped_name_set{false};
std::array<char, 4608> termination_note{};
std::atomic<bool> termination_note_set{false};
std::atomic<int> requested{0};

// The threads whose reads are interrupted: a fixed table, so that marking one needs neither a
// lock nor memory (0 is no thread: glibc's pthread_t is the address of the thread's control
// block). `interrupted_count` spares the reads of a process where none is the scan.
std::array<std::atomic<pthread_t>, 256> interrupted_threads{};
std::atomic<int> interrupted_count{0};

void write_stderr(const char* text) noexcept {
    const std::size_t size = std::strlen(text);
    [[maybe_unused]] const ::ssize_t ignored = ::write(STDERR_FILENO, text, size);
}

extern "C" void on_termination(int signal) {
    remove_pending_temporaries();
    if (termination_note_set.load(std::memory_order_acquire)) {
        write_stderr(program_name.data());
        write_stderr(": ");
        write_stderr(termination_note.data());
        write_stderr("\n");
    }
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

extern "C" void on_bus_error(int) {
    write_stderr(program_name.data());
    write_stderr(": ");
    if (mapped_name_set.load(std::memory_order_acquire)) {
        write_stderr("'");
        write_stderr(mapped_name.data());
        write_stderr(
            "' could not be read or written through its memory map: it was truncated or rewritten in place by "
            "another program, or its storage failed (an I/O error, or a sparse file on a full tmpfs)\n");
    } else {
        write_stderr("a memory-mapped file could not be read or written: it was truncated, or its storage failed\n");
    }
    remove_pending_temporaries();
    ::_exit(2);
}

extern "C" void on_interrupt_read(int) {}  // its only effect: the read it lands in returns EINTR

extern "C" void on_deferred_termination(int signal) {
    int none = 0;
    if (requested.compare_exchange_strong(none, signal)) return;  // the first: recorded
    on_termination(signal);                                       // the second: die now
}

sigset_t termination_set() noexcept {
    sigset_t set;
    sigemptyset(&set);
    for (const int signal : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, signal);
    return set;
}

// Signals ignored when the program started stay ignored: `nohup bloomkit …` must survive the
// hangup, and a shell starts background jobs with SIGINT ignored (as POSIX asks of every program
// that catches signals).
bool ignored_at_start(int signal) {
    const auto ignored = [](int s) {
        struct sigaction now {};
        ::sigaction(s, nullptr, &now);
        return now.sa_handler == SIG_IGN;
    };
    static const bool hup = ignored(SIGHUP), intr = ignored(SIGINT), term = ignored(SIGTERM);  // before any is changed
    return signal == SIGHUP ? hup : signal == SIGINT ? intr : signal == SIGTERM ? term : false;
}

void handle(int signal, void (*handler)(int)) {
    if (ignored_at_start(signal)) return;
    struct sigaction action {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal, &action, nullptr);
}

/// Puts `reader` in the table of interrupted threads, once. (With 256 readers interrupted at
/// once the table is full, and the read of a 257th returns only when its input speaks.)
void mark_interrupted(pthread_t reader) noexcept {
    const auto is_reader = [&](const std::atomic<pthread_t>& slot) {
        return slot.load(std::memory_order_acquire) == reader;
    };
    if (std::ranges::any_of(interrupted_threads, is_reader)) return;
    for (std::atomic<pthread_t>& slot : interrupted_threads) {
        pthread_t none{};
        if (slot.compare_exchange_strong(none, reader, std::memory_order_acq_rel)) {
            interrupted_count.fetch_add(1, std::memory_order_acq_rel);
            return;
        }
    }
}

void install_wake_handler() {
    struct sigaction wake {};
    wake.sa_handler = on_interrupt_read;  // no SA_RESTART: the read returns EINTR
    sigemptyset(&wake.sa_mask);
    ::sigaction(SIGRTMIN, &wake, nullptr);
}

}  // namespace

void install_signal_handlers(std::string_view program) {
    const std::size_t size = std::min(program.size(), program_name.size() - 1);
    std::memcpy(program_name.data(), program.data(), size);
    program_name[size] = '\0';
    for (const int signal : {SIGINT, SIGTERM, SIGHUP}) handle(signal, on_termination);
    handle(SIGBUS, on_bus_error);
    handle(SIGXFSZ, SIG_IGN);
    install_wake_handler();
}

void interrupt_reads(pthread_t reader) noexcept {
    static const bool installed = (install_wake_handler(), true);  // a program that installed none
    (void)installed;
    mark_interrupted(reader);
    ::pthread_kill(reader, SIGRTMIN);
}

void resume_reads(pthread_t reader) noexcept {
    if (interrupted_count.load(std::memory_order_acquire) == 0) return;
    for (std::atomic<pthread_t>& slot : interrupted_threads) {
        pthread_t marked = reader;
        if (slot.compare_exchange_strong(marked, pthread_t{}, std::memory_order_acq_rel))
            interrupted_count.fetch_sub(1, std::memory_order_acq_rel);
    }
}

bool reads_are_interrupted() noexcept {
    if (interrupted_count.load(std::memory_order_acquire) == 0) return false;
    const pthread_t self = ::pthread_self();
    return std::ranges::any_of(interrupted_threads, [&](const std::atomic<pthread_t>& slot) {
        return slot.load(std::memory_order_acquire) == self;
    });
}

void defer_termination() {
    for (const int signal : {SIGINT, SIGTERM, SIGHUP}) handle(signal, on_deferred_termination);
}

termination_signals_blocked::termination_signals_blocked() {
    const sigset_t set = termination_set();
    ::pthread_sigmask(SIG_BLOCK, &set, &previous_);
}

termination_signals_blocked::~termination_signals_blocked() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

void unblock_termination_signals() noexcept {
    const sigset_t set = termination_set();
    ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

int termination_signal() noexcept { return requested.load(std::memory_order_acquire); }

/// Copies `text` into a handler's buffer, guarded by `set` (off while the buffer changes).
template <std::size_t Size>
void set_for_handler(std::array<char, Size>& buffer, std::atomic<bool>& set, const std::string& text) {
    set.store(false, std::memory_order_release);
    const std::size_t size = std::min(text.size(), buffer.size() - 1);
    std::memcpy(buffer.data(), text.data(), size);
    buffer[size] = '\0';
    set.store(size > 0, std::memory_order_release);
}

void set_termination_note(const std::string& note) { set_for_handler(termination_note, termination_note_set, note); }

void set_mapped_file(const std::string& name) { set_for_handler(mapped_name, mapped_name_set, name); }

}  // namespace bloomkit::jobs
