// python/src/arguments.hpp — the arguments of the bindings' calls, read from Python objects with
// messages that name the argument: a call takes py::object and converts it here, so that a wrong
// argument raises bloomkit.WrongType or bloomkit.InvalidArgument saying what was expected, never
// pybind11's list of the signatures it could not match.
#pragma once

#include <pybind11/pybind11.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "bloomkit/error.hpp"
#include "errors.hpp"

namespace bloomkit::python::arguments {

namespace py = pybind11;

/// The type's name, for messages.
inline std::string type_of(py::handle value) { return Py_TYPE(value.ptr())->tp_name; }

/// A whole number of keys, items or bytes, at least `least`: an int, or a float that is whole
/// (1e6, as people write a million).
inline std::uint64_t count(py::handle value, const char* name, std::uint64_t least = 1) {
    std::uint64_t n = 0;
    if (PyFloat_Check(value.ptr())) {
        const double x = PyFloat_AS_DOUBLE(value.ptr());
        if (!(x >= 0 && x < 0x1p64 && x == std::floor(x)))
            throw invalid_argument(std::string(name) + " is a whole number, not " + std::string(py::repr(value)));
        n = static_cast<std::uint64_t>(x);
    } else if (PyLong_Check(value.ptr()) && !PyBool_Check(value.ptr())) {
        const py::int_ number = py::reinterpret_borrow<py::int_>(value);
        if (number < py::int_(0) || number >= py::int_(py::module_::import("builtins").attr("pow")(2, 64)))
            throw invalid_argument(std::string(name) + " is from 0 to 2**64 - 1, not " + std::string(py::repr(value)));
        n = py::cast<std::uint64_t>(number);
    } else {
        throw argument_type_error(std::string(name) + " is a number, not " + type_of(value));
    }
    if (n < least)
        throw invalid_argument(std::string(name) + " is at least " + std::to_string(least) + ", not " +
                               std::to_string(n));
    return n;
}

/// A count that may be None.
inline std::optional<std::uint64_t> optional_count(py::handle value, const char* name, std::uint64_t least = 1) {
    if (value.is_none()) return std::nullopt;
    return count(value, name, least);
}

/// A real number (an int or a float).
inline double real(py::handle value, const char* name) {
    if (PyBool_Check(value.ptr()) || !(PyFloat_Check(value.ptr()) || PyLong_Check(value.ptr())))
        throw argument_type_error(std::string(name) + " is a number, not " + type_of(value));
    return py::cast<double>(value);
}

/// A false-positive rate: strictly between 0 and 1.
inline double rate(py::handle value, const char* name) {
    const double p = real(value, name);
    if (!(p > 0 && p < 1))
        throw invalid_argument(std::string(name) + " is a rate strictly between 0 and 1, not " +
                               std::string(py::repr(value)));
    return p;
}

/// A hash seed, 0 to 2**64 - 1, or None.
inline std::optional<std::uint64_t> seed(py::handle value) { return optional_count(value, "seed", 0); }

/// A word (a str), or None.
inline std::optional<std::string> optional_word(py::handle value, const char* name) {
    if (value.is_none()) return std::nullopt;
    if (!PyUnicode_Check(value.ptr()))
        throw argument_type_error(std::string(name) + " is a str, not " + type_of(value));
    return py::cast<std::string>(value);
}

/// A word (a str).
inline std::string word(py::handle value, const char* name) {
    if (value.is_none()) throw argument_type_error(std::string(name) + " is a str, not None");
    return *optional_word(value, name);
}

/// A path: a str, bytes or os.PathLike.
inline std::filesystem::path path(py::handle value, const char* name = "path") {
    PyObject* fspath = PyOS_FSPath(value.ptr());
    if (fspath == nullptr) {
        PyErr_Clear();
        throw argument_type_error(std::string(name) + " is a str, bytes or os.PathLike, not " + type_of(value));
    }
    const py::object text = py::reinterpret_steal<py::object>(fspath);
    if (PyBytes_Check(text.ptr())) return {std::string(py::cast<std::string>(text))};
    return {py::cast<std::string>(text)};
}

/// True or False, and nothing else: a flag given another object ('yes', 0) is refused, where its
/// truth would be a guess.
inline bool flag(py::handle value, const char* name) {
    if (!PyBool_Check(value.ptr()))
        throw argument_type_error(std::string(name) + " is True or False, not " + type_of(value));
    return value.ptr() == Py_True;
}

/// A window in seconds (the Python class turns a timedelta into them), to whole milliseconds.
inline std::chrono::milliseconds window(py::handle seconds_value) {
    const double seconds = real(seconds_value, "window");
    if (!(seconds >= 0.001 && seconds <= 100 * 365.25 * 86400))
        throw invalid_argument("window is a number of seconds from 0.001 to 100 years, not " +
                               std::string(py::repr(seconds_value)));
    return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000)));
}

/// A moment in Unix seconds (the Python class turns a datetime into them).
inline std::chrono::system_clock::time_point moment(double seconds) {
    if (!(seconds >= 0 && seconds < 1e13))
        throw invalid_argument("now is Unix seconds at or after 1970, not " + std::to_string(seconds));
    return std::chrono::system_clock::time_point(
        std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000))));
}

}  // namespace bloomkit::python::arguments
