// python/src/keys.cpp — see keys.hpp.
#include "keys.hpp"

#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace bloomkit::python {
namespace {

enum class key_family { text, integer };

/// The 64-bit integer a Python int is as a key: its value, two's complement for negatives (as
/// C++ widens a signed key). ValueError outside [-2^63, 2^64).
std::uint64_t integer_key_of(PyObject* key) {
    int overflow = 0;
    const long long value = PyLong_AsLongLongAndOverflow(key, &overflow);
    if (overflow == 0) {
        if (value == -1 && PyErr_Occurred()) throw py::error_already_set();
        return static_cast<std::uint64_t>(value);
    }
    const unsigned long long big = PyLong_AsUnsignedLongLong(key);
    if (big == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        throw py::value_error("an int key must be within [-2**63, 2**64): 64-bit keys, as the C++ library hashes them");
    }
    return big;
}

struct keyed {
    key_family family;
    digest value;
};

/// A key's family and digest under `hash`. TypeError for what is not a key.
keyed hash_key(const hasher& hash, PyObject* key) {
    if (PyUnicode_Check(key)) {
        Py_ssize_t size = 0;
        const char* utf8 = PyUnicode_AsUTF8AndSize(key, &size);
        if (utf8 == nullptr) throw py::error_already_set();
        return {key_family::text, hash(std::string_view(utf8, static_cast<std::size_t>(size)))};
    }
    if (PyBytes_Check(key))
        return {key_family::text,
                hash(std::string_view(PyBytes_AS_STRING(key), static_cast<std::size_t>(PyBytes_GET_SIZE(key))))};
    if (PyLong_Check(key) && !PyBool_Check(key)) return {key_family::integer, hash(integer_key_of(key))};
    if (PyObject_CheckBuffer(key)) {  // bytearray, memoryview, array.array, numpy bytes scalars
        Py_buffer view;
        if (PyObject_GetBuffer(key, &view, PyBUF_SIMPLE) != 0) throw py::error_already_set();
        const digest d = hash(std::string_view(static_cast<const char*>(view.buf), static_cast<std::size_t>(view.len)));
        PyBuffer_Release(&view);
        return {key_family::text, d};
    }
    throw py::type_error(std::string("a bloomkit key is a str, a bytes-like object or an int, not ") +
                         Py_TYPE(key)->tp_name + " (give the filter key=... to turn such objects into bytes)");
}

/// Throws TypeError unless keys of `family` are what `source` holds; records it when asked on
/// a filter that records nothing yet (text, or i64: a Python int is signed).
void require(key_source& source, key_family family, bool recording) {
    if (source.recorded == key_format::unrecorded) {
        if (recording && source.record) {
            source.recorded = family == key_family::text ? key_format::text : key_format::i64;
            source.record(source.recorded);
        }
        return;
    }
    const bool integers = is_integer(source.recorded);
    if (integers == (family == key_family::integer)) return;
    throw py::type_error(std::string("this filter holds ") +
                         (integers ? "integer keys (" + std::string(to_string(source.recorded)) + "): give int keys"
                                   : std::string("text keys: give str or bytes-like keys")) +
                         ", not " + (integers ? "text" : "int"));
}

std::vector<digest> array_digests(key_source& source, const py::array& keys, bool recording) {
    const py::buffer_info info = keys.request();
    if (info.ndim != 1) throw py::value_error("a numpy array of keys must be one-dimensional");
    std::vector<digest> out(static_cast<std::size_t>(info.shape[0]));
    const auto* base = static_cast<const char*>(info.ptr);
    const std::ptrdiff_t stride = info.strides[0];
    const hasher& hash = source.hash;
    const char kind = keys.dtype().kind();
    if (kind == 'u' || kind == 'i') {
        if (info.itemsize != 8) throw py::type_error("numpy integer keys must be 64-bit (uint64 or int64)");
        require(source, key_family::integer, recording);
        py::gil_scoped_release unlocked;
        for (std::size_t i = 0; i < out.size(); ++i) {
            std::uint64_t value;
            std::memcpy(&value, base + static_cast<std::ptrdiff_t>(i) * stride, sizeof value);
            out[i] = hash(value);
        }
        return out;
    }
    if (kind == 'S') {  // fixed-width bytes: each as numpy gives it back, without its trailing NULs
        require(source, key_family::text, recording);
        const auto width = static_cast<std::size_t>(info.itemsize);
        py::gil_scoped_release unlocked;
        for (std::size_t i = 0; i < out.size(); ++i) {
            const char* item = base + static_cast<std::ptrdiff_t>(i) * stride;
            std::size_t size = width;
            while (size > 0 && item[size - 1] == '\0') --size;
            out[i] = hash(std::string_view(item, size));
        }
        return out;
    }
    throw py::type_error("numpy keys must be uint64, int64, fixed-width bytes (dtype 'S') or objects, not " +
                         std::string(py::str(keys.dtype())));
}

}  // namespace

std::vector<digest> digests_of(key_source& source, py::handle keys, bool recording) {
    // An array of Python objects (pandas' strings, a column's to_numpy()) is read as any iterable.
    if (py::isinstance<py::array>(keys) && py::reinterpret_borrow<py::array>(keys).dtype().kind() != 'O')
        return array_digests(source, py::reinterpret_borrow<py::array>(keys), recording);
    if (PyUnicode_Check(keys.ptr()) || PyBytes_Check(keys.ptr()))
        throw py::type_error("give an iterable of keys, not one key: a str or bytes would be read as its characters");
    std::vector<digest> out;
    if (const Py_ssize_t hint = PyObject_LengthHint(keys.ptr(), 0); hint > 0)
        out.reserve(static_cast<std::size_t>(hint));
    std::optional<key_family> family;
    for (py::handle key : keys) {
        const keyed k = hash_key(source.hash, key.ptr());
        if (family != k.family) {  // checked once per run of one family, not per key
            require(source, k.family, recording);
            family = k.family;
        }
        out.push_back(k.value);
    }
    return out;
}

digest digest_of(key_source& source, py::handle key, bool recording) {
    const keyed k = hash_key(source.hash, key.ptr());
    require(source, k.family, recording);
    return k.value;
}

}  // namespace bloomkit::python
