// bloomkit/io/streams.hpp — filters on std::istream / std::ostream, for every format (bkf,
// Guava, DCSO). Reading from a stream that does not say how long it is: what a header announces
// is reserved up front (untouched memory costs nothing until written), read in one call, and a
// header that announces more than the stream holds ends as "truncated", not as gigabytes
// allocated. Writing: pieces in order, and a failed stream is an io_error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <limits>
#include <new>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "bloomkit/detail/word_storage.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit::detail {

/// Reads up to `size` bytes from `in`; returns how many there were (fewer only at its end).
inline std::size_t read_some(std::istream& in, void* buffer, std::size_t size) {
    in.read(static_cast<char*>(buffer), static_cast<std::streamsize>(size));
    if (in.bad()) throw io_error("cannot read the stream", std::make_error_code(std::io_errc::stream));
    return static_cast<std::size_t>(in.gcount());
}

/// Memory for a payload of `size` bytes, 64-byte aligned.
inline zeroed_block payload_memory(std::uint64_t size) {
    if (size > std::numeric_limits<std::size_t>::max()) throw std::bad_alloc();
    return zeroed_block(static_cast<std::size_t>(size));
}

/// Exactly `size` bytes from `in`, in 64-byte aligned memory. When the stream ends sooner,
/// calls truncated(bytes read), which must throw. When the memory cannot even be reserved —
/// most likely a forged or damaged header on a short input — reads on (discarding) to tell the
/// two apart, and rethrows std::bad_alloc only for a stream that really is that long.
template <class Truncated>
zeroed_block read_payload(std::istream& in, std::uint64_t size, Truncated truncated) {
    std::optional<zeroed_block> payload;
    try {
        payload.emplace(payload_memory(size));
    } catch (const std::bad_alloc&) {
        std::vector<char> sink(std::size_t{1} << 20);
        std::uint64_t got = 0;
        for (std::size_t step; got < size && (step = read_some(in, sink.data(), sink.size())) > 0;) got += step;
        if (got < size) truncated(got);
        throw;
    }
    if (const std::size_t got = read_some(in, payload->data(), static_cast<std::size_t>(size)); got != size)
        truncated(got);
    return std::move(*payload);
}

/// Calls produce(write), whose write(span of bytes) appends to `out`, then flushes `out`.
/// Throws io_error when the stream fails.
template <class Produce>
void write_to(std::ostream& out, Produce produce) {
    const auto fail = [] { throw io_error("cannot write the stream", std::make_error_code(std::io_errc::stream)); };
    produce([&](std::span<const std::byte> piece) {
        if (!out.write(reinterpret_cast<const char*>(piece.data()), static_cast<std::streamsize>(piece.size()))) fail();
    });
    if (!out.flush()) fail();
}

}  // namespace bloomkit::detail
