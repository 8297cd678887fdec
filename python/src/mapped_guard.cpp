// python/src/mapped_guard.cpp — see mapped_guard.hpp.
#include "mapped_guard.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <mutex>

namespace bloomkit::python {
namespace {

/// The maps guarded, read by the signal handler: lock-free slots (a handler may not lock).
struct guarded_range {
    std::atomic<std::uintptr_t> begin{0}, end{0};  // begin 0: a free slot
    std::atomic<bool> faulted{false};
};
constexpr int max_guarded = 1024;
std::array<guarded_range, max_guarded> ranges;

struct sigaction previous;

/// Whether `address` lies in a guarded map; if so, puts zeros there and marks the map.
bool absorb(std::uintptr_t address) {
    for (guarded_range& range : ranges) {
        const std::uintptr_t begin = range.begin.load(std::memory_order_acquire);
        if (begin == 0 || address < begin || address >= range.end.load(std::memory_order_acquire)) continue;
        const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
        void* at = reinterpret_cast<void*>(address & ~(page - 1));
        if (::mmap(at, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) return false;
        range.faulted.store(true, std::memory_order_release);
        return true;
    }
    return false;
}

void on_sigbus(int signal, siginfo_t* info, void* context) {
    if (absorb(reinterpret_cast<std::uintptr_t>(info->si_addr))) return;  // the read is retried, on zeros
    if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
        previous.sa_sigaction(signal, info, context);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN && previous.sa_handler != nullptr) {
        previous.sa_handler(signal);
    } else {
        ::signal(SIGBUS, SIG_DFL);  // not ours: the fault recurs and takes its default action
    }
}

void install_once() {
    static std::once_flag installed;
    std::call_once(installed, [] {
        struct sigaction action {};
        action.sa_sigaction = on_sigbus;
        action.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        ::sigaction(SIGBUS, &action, &previous);
    });
}

int take_slot(std::span<const std::byte> bytes) {
    install_once();
    const auto begin = reinterpret_cast<std::uintptr_t>(bytes.data());
    for (int i = 0; i < max_guarded; ++i) {
        std::uintptr_t free = 0;
        if (!ranges[i].begin.compare_exchange_strong(free, begin)) continue;
        ranges[i].faulted.store(false);
        ranges[i].end.store(begin + bytes.size(), std::memory_order_release);
        return i;
    }
    return -1;  // more maps than slots: this one is read unguarded
}

}  // namespace

guarded_map::guarded_map(const std::filesystem::path& path)
    : map_(bloomkit::map<any_filter>(path)), path_(path.string()), slot_(take_slot(map_.mapped_bytes())) {}

guarded_map::~guarded_map() {
    if (slot_ < 0) return;
    ranges[slot_].end.store(0);
    ranges[slot_].begin.store(0, std::memory_order_release);
}

void guarded_map::require_whole() const {
    if (slot_ >= 0 && ranges[slot_].faulted.load(std::memory_order_acquire))
        throw file_format_error(format_errc::truncated,
                                "'" + path_ +
                                    "' was truncated while it was mapped (another program wrote it in place): its "
                                    "answers cannot be trusted; map or load it again");
}

}  // namespace bloomkit::python
