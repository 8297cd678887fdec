// python/src/errors.hpp — the C++ library's exceptions as Python's: bloomkit.Error and its
// subclasses, each also the built-in exception it is a case of, carrying the C++ message.
#pragma once

#include <pybind11/pybind11.h>

namespace bloomkit::python {

/// Adds Error, InvalidArgument (also ValueError), FormatError (also ValueError), FilterFull,
/// IncompatibleFilters (also ValueError) and, with the Redis component, RedisError to `m`, and
/// translates the C++ exceptions into them.
void register_exceptions(pybind11::module_& m);

}  // namespace bloomkit::python
