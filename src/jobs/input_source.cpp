// src/jobs/input_source.cpp — see input_source.hpp. zlib (gzip) and libzstd do the
// decompressing; both are fed from a raw buffer refilled from the descriptor.
#include "jobs/input_source.hpp"

#include <poll.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <span>
#include <system_error>

#include "bloomkit/error.hpp"
#include "jobs/signals.hpp"

namespace bloomkit::jobs {

namespace {
constexpr std::size_t raw_buffer_bytes = std::size_t{1} << 18;
}

/// The state of a decompressor, and its raw input buffer.
struct input_source::decoder {
    std::vector<char> raw = std::vector<char>(raw_buffer_bytes);
    std::size_t raw_size = 0, raw_at = 0;
    bool raw_end = false;
    z_stream gzip{};
    bool gzip_open = false;
    bool gzip_member_ended = false;  // at least one whole member read: zero padding may follow
    ZSTD_DCtx* zstd = nullptr;
    std::size_t zstd_hint = 0;  // ZSTD_decompressStream's last return: 0 at the end of a frame

    ~decoder() {
        if (gzip_open) inflateEnd(&gzip);
        if (zstd != nullptr) ZSTD_freeDCtx(zstd);
    }
};

input_source::input_source(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
input_source::~input_source() = default;

// Waits until the descriptor has bytes (or its end, or an error) for read(), doing `idle`'s work
// each time it falls due meanwhile; false when a signal interrupted the wait. With nothing due,
// the read itself waits.
bool input_source::await_input(const idle_work& idle) {
    using clock = std::chrono::steady_clock;
    for (;;) {
        const clock::time_point due = idle.next_due();
        if (due == clock::time_point::max()) return true;
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(due - clock::now()).count();
        ::pollfd input{fd_, POLLIN, 0};
        const int ready = ::poll(&input, 1, static_cast<int>(std::clamp<decltype(left)>(left, 0, INT_MAX)));
        if (ready > 0) return true;
        if (ready < 0) {
            if (errno == EINTR) return false;
            throw io_error("cannot wait for '" + name_ + "'", std::error_code(errno, std::generic_category()));
        }
        if (clock::now() >= due) idle.run();
    }
}

std::size_t input_source::read_raw(char* buffer, std::size_t size, const idle_work& idle) {
    if (pending_at_ < pending_.size()) {
        const std::size_t take = std::min(size, pending_.size() - pending_at_);
        std::memcpy(buffer, pending_.data() + pending_at_, take);
        pending_at_ += take;
        return take;
    }
    for (;;) {
        if (reads_are_interrupted()) throw reads_interrupted{};
        if (await_input(idle)) {
            const ::ssize_t got = ::read(fd_, buffer, size);
            if (got >= 0) {
                raw_bytes_.fetch_add(static_cast<std::uint64_t>(got), std::memory_order_relaxed);
                return static_cast<std::size_t>(got);
            }
            if (errno != EINTR)
                throw io_error("cannot read '" + name_ + "'", std::error_code(errno, std::generic_category()));
        }
        if (const int signal = termination_signal(); signal != 0) throw termination_requested{signal};
    }
}

void input_source::detect(const idle_work& idle) {
    detected_ = true;
    // Read until a signature is complete, or ruled out: a short first line on a slow pipe
    // ("42\n") must not wait for more bytes.
    static constexpr unsigned char gzip_magic[] = {0x1f, 0x8b}, zstd_magic[] = {0x28, 0xb5, 0x2f, 0xfd};
    char first[4];
    std::size_t have = 0;
    const auto could_be = [&](std::span<const unsigned char> magic) {
        return std::memcmp(first, magic.data(), std::min(have, magic.size())) == 0;
    };
    while (have < sizeof first && (could_be(gzip_magic) || could_be(zstd_magic))) {
        const std::size_t got = read_raw(first + have, sizeof first - have, idle);
        if (got == 0) break;
        have += got;
    }
    pending_.assign(first, first + have);  // served again by read_raw before the descriptor
    pending_at_ = 0;
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(pending_[i]); };
    if (have >= 2 && byte(0) == 0x1f && byte(1) == 0x8b) kind_ = compression::gzip;
    else if (have >= 4 && byte(0) == 0x28 && byte(1) == 0xb5 && byte(2) == 0x2f && byte(3) == 0xfd)
        kind_ = compression::zstd;
    else return;
    decoder_ = std::make_unique<decoder>();
    if (kind_ == compression::gzip) {
        if (inflateInit2(&decoder_->gzip, 16 + MAX_WBITS) != Z_OK)
            throw error("cannot start a gzip decoder for '" + name_ + "'");
        decoder_->gzip_open = true;
    } else {
        decoder_->zstd = ZSTD_createDCtx();
        if (decoder_->zstd == nullptr) throw std::bad_alloc();
    }
}

std::size_t input_source::read(char* buffer, std::size_t size, const idle_work& idle) {
    if (!detected_) detect(idle);
    if (kind_ == compression::none) return read_raw(buffer, size, idle);
    decoder& d = *decoder_;
    const auto damaged = [&](const std::string& why) -> std::size_t {
        throw error("'" + name_ + "' is damaged " + (kind_ == compression::gzip ? "gzip" : "zstd") + " data: " + why);
    };
    for (;;) {
        if (d.raw_at == d.raw_size && !d.raw_end) {
            d.raw_size = read_raw(d.raw.data(), d.raw.size(), idle);
            d.raw_at = 0;
            d.raw_end = d.raw_size == 0;
        }
        const std::size_t available = d.raw_size - d.raw_at;
        if (kind_ == compression::gzip) {
            if (available == 0 && d.raw_end) {
                // The input ended: cleanly between members, or inside one.
                if (d.gzip.total_in != 0 || d.gzip.avail_in != 0) return damaged("the input ends inside a gzip member");
                return 0;
            }
            // Between members, zero bytes are padding (tape blocks, preallocated files): gzip -d
            // ignores them at the end of its input, and so does this.
            if (d.gzip_member_ended && d.gzip.total_in == 0 && d.raw[d.raw_at] == 0) {
                while (d.raw_at < d.raw_size && d.raw[d.raw_at] == 0) ++d.raw_at;
                d.gzip.avail_in = 0;
                if (d.raw_at < d.raw_size) return damaged("bytes other than zero padding after its last member");
                continue;
            }
            d.gzip.next_in = reinterpret_cast<Bytef*>(d.raw.data() + d.raw_at);
            d.gzip.avail_in = static_cast<uInt>(available);
            d.gzip.next_out = reinterpret_cast<Bytef*>(buffer);
            d.gzip.avail_out = static_cast<uInt>(std::min<std::size_t>(size, 1U << 30));
            const int status = inflate(&d.gzip, Z_NO_FLUSH);
            d.raw_at += available - d.gzip.avail_in;
            const std::size_t produced = std::min<std::size_t>(size, 1U << 30) - d.gzip.avail_out;
            if (status == Z_STREAM_END) {
                inflateReset(&d.gzip);  // another member may follow
                d.gzip_member_ended = true;
            } else if (status != Z_OK && status != Z_BUF_ERROR)
                return damaged(d.gzip.msg != nullptr ? d.gzip.msg : "inflate failed");
            if (produced > 0) return produced;
        } else {
            if (available == 0 && d.raw_end) {
                if (d.zstd_hint != 0) return damaged("the input ends inside a zstd frame");
                return 0;
            }
            ZSTD_inBuffer in{d.raw.data() + d.raw_at, available, 0};
            ZSTD_outBuffer out{buffer, size, 0};
            d.zstd_hint = ZSTD_decompressStream(d.zstd, &out, &in);
            if (ZSTD_isError(d.zstd_hint)) return damaged(ZSTD_getErrorName(d.zstd_hint));
            d.raw_at += in.pos;
            if (out.pos > 0) return out.pos;
        }
    }
}

void input_source::rewind() {
    if (fd_ >= 0 && ::lseek(fd_, 0, SEEK_SET) < 0)
        throw io_error("cannot read '" + name_ + "' again", std::error_code(errno, std::generic_category()));
    open_on(fd_);
    raw_bytes_.store(0, std::memory_order_relaxed);
}

void input_source::open_on(int fd) {
    fd_ = fd;
    detected_ = false;
    kind_ = compression::none;
    pending_.clear();
    pending_at_ = 0;
    decoder_.reset();
}

}  // namespace bloomkit::jobs
