// python/src/keys.hpp — Python objects as bloomkit keys, hashed once into digests as the C++
// library hashes them: str as its UTF-8 bytes, bytes-like objects as their bytes, int as a 64-bit
// integer (the command's --key u64|i64), numpy arrays of (u)int64 and of fixed-width bytes without
// a Python object per key. A filter records which of the two families it holds — text or
// integers — and refuses the other: "7" and 7 are different keys, and a filter the command built
// from numbers would never hold the text.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "bloomkit/hash.hpp"

namespace bloomkit::python {

namespace py = pybind11;

/// A filter's keys as the bindings read them: its hash, the key format it records, and how to
/// record one on a filter that records none (empty for a filter that cannot be changed).
struct key_source {
    const hasher& hash;
    key_format recorded;
    std::function<void(key_format)> record;
};

/// The digests of `keys` (any iterable of keys, or a numpy array; not one str or bytes), each
/// key's family checked against `source`, and recorded on its first key when `recording`.
std::vector<digest> digests_of(key_source& source, py::handle keys, bool recording);

/// One key's digest, checked and recorded as digests_of() does.
digest digest_of(key_source& source, py::handle key, bool recording);

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
