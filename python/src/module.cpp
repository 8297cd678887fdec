// python/src/module.cpp — bloomkit._bloomkit, the native half of the Python package: the filter
// of any kind (filter.hpp), the Redis-shared filter when the Redis component is built
// (redis_filter.hpp), and the library's exceptions as Python's (errors.hpp).
#include <pybind11/pybind11.h>

#include "bloomkit/version.hpp"
#include "errors.hpp"
#include "filter.hpp"
#ifdef BLOOMKIT_PYTHON_WITH_REDIS
#include "redis_filter.hpp"
#endif

PYBIND11_MODULE(_bloomkit, m) {
    m.doc() = "The native half of bloomkit: one filter class over every kind of the C++ registry.";
    m.attr("__version__") = bloomkit::version;
    bloomkit::python::register_exceptions(m);
    bloomkit::python::bind_filter(m);
#ifdef BLOOMKIT_PYTHON_WITH_REDIS
    bloomkit::python::bind_redis_filter(m);
#endif
}
