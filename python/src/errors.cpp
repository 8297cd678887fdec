// python/src/errors.cpp — see errors.hpp.
#include "errors.hpp"

#include <exception>
#include <new>
#include <string>

#include "bloomkit/error.hpp"
#include "bloomkit/keys.hpp"
#ifdef BLOOMKIT_PYTHON_WITH_REDIS
#include "bloomkit/redis.hpp"
#endif

namespace bloomkit::python {
namespace {

namespace py = pybind11;

/// The exception types, alive as long as the interpreter (the module holds them too).
struct exception_types {
    py::object error, invalid_argument, invalid_key, wrong_type, wrong_key_type, format_error, filter_full,
        incompatible, out_of_memory, redis;
};

exception_types& types() {
    static exception_types held;
    return held;
}

py::object new_exception(py::module_& m, const char* name, py::handle base, py::handle other = {}) {
    const std::string qualified = std::string("bloomkit.") + name;
    const py::object bases = other ? py::object(py::make_tuple(base, other)) : py::reinterpret_borrow<py::object>(base);
    py::object type = py::reinterpret_steal<py::object>(PyErr_NewException(qualified.c_str(), bases.ptr(), nullptr));
    if (!type) throw py::error_already_set();
    m.attr(name) = type;
    return type;
}

void translate(std::exception_ptr thrown) {
    const exception_types& t = types();
    try {
        if (thrown) std::rethrow_exception(thrown);
    } catch (const file_format_error& e) {
        PyErr_SetString(t.format_error.ptr(), e.what());
    } catch (const filter_full& e) {
        PyErr_SetString(t.filter_full.ptr(), e.what());
    } catch (const incompatible_filters& e) {
        PyErr_SetString(t.incompatible.ptr(), e.what());
    } catch (const key_type_error& e) {
        PyErr_SetString(t.wrong_key_type.ptr(), e.what());
    } catch (const key_error& e) {
        PyErr_SetString(t.invalid_key.ptr(), e.what());
    } catch (const argument_type_error& e) {
        PyErr_SetString(t.wrong_type.ptr(), e.what());
    } catch (const invalid_argument& e) {
        PyErr_SetString(t.invalid_argument.ptr(), e.what());
#ifdef BLOOMKIT_PYTHON_WITH_REDIS
    } catch (const redis::error& e) {
        PyErr_SetString(t.redis.ptr(), e.what());
#endif
    } catch (const bloomkit::error& e) {
        PyErr_SetString(t.error.ptr(), e.what());
    } catch (const std::bad_alloc&) {
        PyErr_SetString(t.out_of_memory.ptr(),
                        "not enough memory: the filter, or the keys of one call, is larger than "
                        "the memory this process can have");
    }
}

}  // namespace

void register_exceptions(py::module_& m) {
    exception_types& t = types();
    t.error = new_exception(m, "Error", PyExc_Exception);
    t.invalid_argument = new_exception(m, "InvalidArgument", t.error, PyExc_ValueError);
    t.invalid_key = new_exception(m, "InvalidKey", t.invalid_argument);
    t.wrong_type = new_exception(m, "WrongType", t.invalid_argument, PyExc_TypeError);
    t.wrong_key_type = new_exception(m, "WrongKeyType", t.invalid_key, t.wrong_type);
    t.format_error = new_exception(m, "FormatError", t.error, PyExc_ValueError);
    t.filter_full = new_exception(m, "FilterFull", t.error);
    t.out_of_memory = new_exception(m, "OutOfMemory", t.error, PyExc_MemoryError);
    t.incompatible = new_exception(m, "IncompatibleFilters", t.error, PyExc_ValueError);
#ifdef BLOOMKIT_PYTHON_WITH_REDIS
    t.redis = new_exception(m, "RedisError", t.error);
#endif
    py::register_exception_translator(&translate);
}

}  // namespace bloomkit::python
