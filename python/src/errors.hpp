// python/src/errors.hpp — the C++ library's exceptions as Python's: bloomkit.Error and its
// subclasses, each also the built-in exception it is a case of, carrying the C++ message. Every
// refusal the package makes is one of them, with a message; an argument of the wrong type too
// (argument_type_error), never pybind11's list of signatures.
#pragma once

#include <pybind11/pybind11.h>

#include "bloomkit/error.hpp"

namespace bloomkit::python {

/// An argument of a type the call does not take: bloomkit.WrongType (also TypeError).
class argument_type_error : public invalid_argument {
public:
    using invalid_argument::invalid_argument;
};

/// Adds Error, InvalidArgument (also ValueError), InvalidKey, WrongType (also TypeError),
/// WrongKeyType, FormatError (also ValueError), FilterFull, IncompatibleFilters (also ValueError)
/// and, with the Redis component, RedisError to `m`, and translates the C++ exceptions into
/// them.
void register_exceptions(pybind11::module_& m);

}  // namespace bloomkit::python
