// python/src/keys.hpp — Python objects as bloomkit keys, by the library's one key model
// (bloomkit/keys.hpp, docs/KEYS.md): each object is read as bytes or as an integer, checked
// against what the filter records (its format's range, a Guava funnel's), and hashed as the C++
// library hashes it, so that a key added here is the key the command, C++ and Redis ask for.
//
// What each input is:
//   str                                   its UTF-8 bytes (a lone surrogate is refused)
//   bytes, bytearray, memoryview, a       its bytes; a single one given to a bulk call is refused
//   1-byte-item buffer, np.bytes_         (it would be read as its bytes, one key each)
//   int, IntEnum, np.integer              its value (a signed type's first key records i64, an
//                                         unsigned one's u64)
//   datetime64, datetime, pd.Timestamp    nanoseconds since the epoch, i64 (aware: in UTC; naive:
//                                         as UTC, as pandas' .value); date: its midnight
//   timedelta, timedelta64, pd.Timedelta  nanoseconds, i64
//   numpy arrays                          integers of any width and byte order; 'S' (each item
//                                         without its trailing NULs, as numpy gives it back);
//                                         'U' (as UTF-8); datetime64/timedelta64 of any unit;
//                                         objects, each as above
//   bool, float, complex, Decimal, None,  refused: not a key of any format (a float is not an
//   NaN, NaT, anything else               integer even when whole, and True is no 1)
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "bloomkit/hash.hpp"
#include "bloomkit/keys.hpp"

namespace bloomkit::python {

namespace py = pybind11;

/// A filter's keys as the bindings read them: its hash (with its Guava funnel), the key format
/// it records, and whether it holds keys already (a filter that records no format takes the
/// format of its first key only while it is empty).
struct key_source {
    hasher hash;
    key_format recorded;
    bool holds_keys;
};

/// What a batch of keys held, enough to tell whether a format holds them all: the filter they
/// were checked against may record a format since (another thread's first keys), and they go in
/// only if that format holds them too.
struct key_summary {
    bool text = false;
    bool integers = false;
    bool negative = false;
    std::uint64_t largest = 0;  ///< of the non-negative integers

    void add_text() noexcept { text = true; }
    void add(key_integer value) noexcept {
        integers = true;
        if (value.negative) negative = true;
        else if (value.bits > largest) largest = value.bits;
    }
    /// Whether a filter of keys `format` holds every key seen.
    [[nodiscard]] bool fits(key_format format) const noexcept {
        if (format == key_format::unrecorded) return true;
        if (text && format != key_format::text) return false;
        if (!integers) return true;
        return holds(format, key_integer::of(largest)) && (!negative || format == key_format::i64);
    }
};

/// Hashed keys, the format their filter must record when it records none yet and they are
/// added (the format of the first key: bloomkit::key_format_of), and what they held.
struct hashed_keys {
    std::vector<digest> digests;
    std::optional<key_format> to_record;
    key_summary seen;
};

/// Whether the keys are asked about or added: only an add records a format.
enum class key_use { query, add };

/// The digests of `keys` (any iterable of keys, or a numpy array; not one str or bytes-like),
/// each checked against `source`. Throws the library's key errors (key_error, key_type_error).
hashed_keys digests_of(const key_source& source, py::handle keys, key_use use);

/// For keys read against a filter that recorded no format, which bring `keys.to_record`, now
/// that the filter records `recorded`: another writer may have recorded its first keys' format
/// in between, and the keys go in only if that format holds them. Throws key_format_mismatch.
void require_fit(key_format recorded, const hashed_keys& keys);

/// One key's digest, checked as digests_of() does.
hashed_keys digest_of(const key_source& source, py::handle key, key_use use);

/// A numpy bool array of `size` answers, written in place by run(std::span<bool>) with the GIL
/// released: the bulk calls answer straight into the array Python gets.
template <class Run>
py::array_t<bool> answered(std::size_t size, Run run) {
    py::array_t<bool> out(static_cast<py::ssize_t>(size));
    const std::span<bool> answers(out.mutable_data(), size);
    py::gil_scoped_release unlocked;
    run(answers);
    return out;
}

}  // namespace bloomkit::python
