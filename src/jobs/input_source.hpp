// src/jobs/input_source.hpp — the bytes of one input, decompressed when they are gzip or zstd.
// Compression is told by the input's first bytes (1f 8b, 28 b5 2f fd), not its name, so
// `zcat`-free pipelines work (`curl ... | bloomkit check f.bkf`) and a misnamed file is read as
// what it is. Concatenated members and frames are read one after another, as gzip -d and zstd -d
// do; zero bytes after the last gzip member are padding, as gzip -d takes them.
//
// A read honours the signals machinery (signals.hpp): it throws reads_interrupted once
// interrupt_reads() was called, and termination_requested for a deferred termination signal.
// A read may also be given work to do while its input is idle (idle_work: dedup --state saves its
// state while its feed is quiet), which it does on the reading thread whenever the work falls due
// before the input has anything to read.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace bloomkit::jobs {

enum class compression { none, gzip, zstd };

/// Work a thread does while it waits for input: run() once the time due() says has come and no
/// input is there yet; then the waiting goes on. due() is asked anew before every wait, and
/// time_point::max() (or no work given) means nothing is due. run() must put due() later (or make
/// it max()), or it is called again at once. An exception from run() ends the wait, as a failed
/// read does.
struct idle_work {
    std::function<std::chrono::steady_clock::time_point()> due;
    std::function<void()> run;

    /// When the work is next due: time_point::max() when none is given.
    [[nodiscard]] std::chrono::steady_clock::time_point next_due() const {
        return due ? due() : std::chrono::steady_clock::time_point::max();
    }
};

class input_source {
public:
    /// Reads `fd` (not owned; -1: not open yet, see open_on), called `name` in messages.
    input_source(int fd, std::string name);
    ~input_source();
    input_source(const input_source&) = delete;
    input_source& operator=(const input_source&) = delete;

    /// Reads up to `size` bytes of the input, decompressed; 0 at its end. Throws io_error for a
    /// read error, bloomkit::error naming the input for damaged compressed data. While the input
    /// has nothing to read, `idle`'s work is done whenever it falls due.
    std::size_t read(char* buffer, std::size_t size, const idle_work& idle = {});

    /// Back to the start of the input (its descriptor, if open, must be seekable).
    void rewind();

    /// Reads `fd` from now on (the input opened late, or again after it was read and closed):
    /// from its start, its compression told anew. raw_bytes() goes on counting.
    void open_on(int fd);

    /// Bytes read from the descriptor so far (compressed bytes, for progress against its size).
    /// Another thread may ask while this one reads (progress).
    [[nodiscard]] std::uint64_t raw_bytes() const noexcept { return raw_bytes_.load(std::memory_order_relaxed); }
    [[nodiscard]] compression kind() const noexcept { return kind_; }

private:
    struct decoder;

    std::size_t read_raw(char* buffer, std::size_t size, const idle_work& idle);
    bool await_input(const idle_work& idle);
    void detect(const idle_work& idle);

    int fd_;
    std::string name_;
    bool detected_ = false;
    compression kind_ = compression::none;
    std::vector<char> pending_;  // raw bytes read ahead (the first ones, to tell the compression)
    std::size_t pending_at_ = 0;
    std::unique_ptr<decoder> decoder_;
    std::atomic<std::uint64_t> raw_bytes_{0};
};

}  // namespace bloomkit::jobs
