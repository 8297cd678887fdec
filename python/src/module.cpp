// python/src/module.cpp — bloomkit._bloomkit, the native half of the Python package: one class,
// Filter, over bloomkit::any_filter (kinds.hpp), so that every kind of the registry is bound by
// the same code and a kind added to the registry is in Python without a line here. Batches go
// through the library's runtime bulk API (bulk.hpp) with the GIL released; keys are turned into
// digests once, as the C++ library hashes them: str as its UTF-8 bytes, bytes-like objects as
// their bytes, int as a 64-bit integer (the command's --key u64|i64), numpy arrays of
// (u)int64 and of fixed-width bytes without a Python object per key.
//
// The Python classes (BloomFilter, CuckooFilter, ...) are thin constructors in bloomkit/__init__.py.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/bulk.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/io/any_codec.hpp"
#include "bloomkit/io/bkf.hpp"
#include "bloomkit/kinds.hpp"

namespace py = pybind11;

namespace bloomkit::python {
namespace {

// --- Keys -------------------------------------------------------------------------------------

/// What a Python key is, as a filter records its keys: text (str, bytes-like) or a 64-bit
/// integer. A filter that records one refuses the other: a str "7" and an int 7 are different
/// keys, and a filter the command built from numbers would never hold the text.
enum class key_family { text, integer };

/// The 64-bit integer a Python int is as a key: its value, two's complement for negatives (as
/// C++ widens a signed key). Throws OverflowError outside [-2^63, 2^64).
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

/// A key's family and digest under `hash`. TypeError for what is not a key.
struct keyed {
    key_family family;
    digest value;
};

keyed digest_of(const hasher& hash, PyObject* key) {
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
    if (PyObject_CheckBuffer(key)) {  // bytearray, memoryview, array.array, numpy scalars of bytes
        Py_buffer view;
        if (PyObject_GetBuffer(key, &view, PyBUF_SIMPLE) != 0) throw py::error_already_set();
        const digest d = hash(std::string_view(static_cast<const char*>(view.buf), static_cast<std::size_t>(view.len)));
        PyBuffer_Release(&view);
        return {key_family::text, d};
    }
    throw py::type_error(std::string("a bloomkit key is a str, a bytes-like object or an int, not ") +
                         Py_TYPE(key)->tp_name + " (give the filter key=... to turn such objects into bytes)");
}

// --- The filter ---------------------------------------------------------------------------------

/// A filter of any kind, owned or read-only in a memory map of its file. Calls that change it
/// take its lock exclusively, queries share it: bulk calls run without the GIL, so two Python
/// threads may be in the C++ filter at once, and only Bloom filters' inserts are safe to run
/// together there.
class filter {
public:
    explicit filter(any_filter owned) : held_(std::move(owned)) {}
    explicit filter(std::shared_ptr<const mapped_filter<any_filter>> mapped) : held_(std::move(mapped)) {}

    [[nodiscard]] const any_filter& get() const {
        if (const auto* owned = std::get_if<any_filter>(&held_)) return *owned;
        return std::get<1>(held_)->filter();
    }
    [[nodiscard]] any_filter& to_change() {
        if (auto* owned = std::get_if<any_filter>(&held_)) return *owned;
        throw py::type_error("this filter is mapped read-only from its file: load() it to change it");
    }
    [[nodiscard]] bool mapped() const noexcept { return !std::holds_alternative<any_filter>(held_); }
    [[nodiscard]] const mapped_filter<any_filter>* mapping() const noexcept {
        return mapped() ? std::get<1>(held_).get() : nullptr;
    }

    /// The digests of `keys` (any iterable, or a numpy array), checking that their family is
    /// the one the filter records; `recording` records it on a filter that records none.
    std::vector<digest> digests(py::handle keys, bool recording);

    [[nodiscard]] key_format keys() const noexcept { return recorded_key_format(get()); }

    [[nodiscard]] std::shared_lock<std::shared_mutex> reading() const { return std::shared_lock(*lock_); }
    [[nodiscard]] std::unique_lock<std::shared_mutex> writing() const { return std::unique_lock(*lock_); }

private:
    void require_family(key_family family, bool recording);
    std::vector<digest> array_digests(const py::array& keys, bool recording);

    std::variant<any_filter, std::shared_ptr<const mapped_filter<any_filter>>> held_;
    std::unique_ptr<std::shared_mutex> lock_ = std::make_unique<std::shared_mutex>();
};

void filter::require_family(key_family family, bool recording) {
    const key_format recorded = keys();
    if (recorded == key_format::unrecorded) {
        if (recording) record_key_format(to_change(), family == key_family::text ? key_format::text : key_format::i64);
        return;
    }
    const bool integers = recorded == key_format::u64 || recorded == key_format::i64;
    if (integers != (family == key_family::integer))
        throw py::type_error(std::string("this filter holds ") +
                             (integers ? "integer keys (" + std::string(to_string(recorded)) + "): give int keys"
                                       : std::string("text keys: give str or bytes-like keys")) +
                             ", not " + (integers ? "text" : "int"));
}

std::vector<digest> filter::array_digests(const py::array& keys, bool recording) {
    const hasher& hash = hash_function(get());
    std::vector<digest> out(static_cast<std::size_t>(keys.size()));
    const py::buffer_info info = keys.request();
    if (info.ndim != 1) throw py::value_error("a numpy array of keys must be one-dimensional");
    const char kind = keys.dtype().kind();
    if (kind == 'u' || kind == 'i') {
        if (info.itemsize != 8) throw py::type_error("numpy integer keys must be 64-bit (uint64 or int64)");
        require_family(key_family::integer, recording);
        const auto* base = static_cast<const char*>(info.ptr);
        py::gil_scoped_release unlocked;
        for (std::size_t i = 0; i < out.size(); ++i) {
            std::uint64_t value;
            std::memcpy(&value, base + static_cast<std::ptrdiff_t>(i) * info.strides[0], sizeof value);
            out[i] = hash(value);
        }
        return out;
    }
    if (kind == 'S') {  // fixed-width bytes: each as numpy gives it back, without its trailing NULs
        require_family(key_family::text, recording);
        const auto* base = static_cast<const char*>(info.ptr);
        const auto width = static_cast<std::size_t>(info.itemsize);
        py::gil_scoped_release unlocked;
        for (std::size_t i = 0; i < out.size(); ++i) {
            const char* item = base + static_cast<std::ptrdiff_t>(i) * info.strides[0];
            std::size_t size = width;
            while (size > 0 && item[size - 1] == '\0') --size;
            out[i] = hash(std::string_view(item, size));
        }
        return out;
    }
    throw py::type_error("numpy keys must be uint64, int64 or fixed-width bytes (dtype 'S'), not " +
                         std::string(py::str(keys.dtype())));
}

std::vector<digest> filter::digests(py::handle keys, bool recording) {
    if (py::isinstance<py::array>(keys) && !py::isinstance<py::bytes>(keys))
        return array_digests(py::reinterpret_borrow<py::array>(keys), recording);
    if (PyUnicode_Check(keys.ptr()) || PyBytes_Check(keys.ptr()))
        throw py::type_error("give an iterable of keys, not one key: a str or bytes would be read as its characters");
    const hasher& hash = hash_function(get());
    std::vector<digest> out;
    if (const Py_ssize_t hint = PyObject_LengthHint(keys.ptr(), 0); hint > 0)
        out.reserve(static_cast<std::size_t>(hint));
    std::optional<key_family> family;
    for (py::handle key : keys) {
        const keyed k = digest_of(hash, key.ptr());
        if (family != k.family) {
            require_family(k.family, recording);
            family = k.family;
        }
        out.push_back(k.value);
    }
    return out;
}

/// One key's digest, its family checked (and recorded when `recording`).
digest one_digest(filter& f, py::handle key, bool recording) {
    const keyed k = digest_of(hash_function(f.get()), key.ptr());
    if (f.keys() == key_format::unrecorded && !recording) return k.value;
    const key_format recorded = f.keys();
    const bool integers = recorded == key_format::u64 || recorded == key_format::i64;
    if (recorded == key_format::unrecorded || integers != (k.family == key_family::integer)) {
        std::vector<digest> checked = f.digests(py::make_tuple(key), recording);  // the message, or the record
        return checked.front();
    }
    return k.value;
}

/// `into` locked for a change and `from` for reading, the two taken in the order of their
/// addresses, as every pair is: two threads merging a into b and b into a cannot deadlock.
std::pair<std::unique_lock<std::shared_mutex>, std::shared_lock<std::shared_mutex>> locked_in_order(
    const filter& into, const filter& from) {
    if (&into < &from) {
        auto writing = into.writing();
        return {std::move(writing), from.reading()};
    }
    auto reading = from.reading();
    return {into.writing(), std::move(reading)};
}

py::array_t<bool> bools(std::vector<char>&& answers) {
    py::array_t<bool> out(static_cast<py::ssize_t>(answers.size()));
    std::memcpy(out.mutable_data(), answers.data(), answers.size());
    return out;
}

/// The filter of the kind `request` names, for n keys at rate p (a kind that takes keys after it
/// is made; binary fuse filters are built from theirs, build()).
filter make(const kind_request& request, std::uint64_t n, double p, std::optional<std::uint64_t> seed) {
    filter_options options;
    if (seed) options.seed = *seed;
    return with_requested_type(request, p, [&](auto type) -> filter {
        using F = typename decltype(type)::type;
        if constexpr (requires { kind_traits<F>::make(n, p, request, options); }) {
            return filter(any_filter(kind_traits<F>::make(n, p, request, options)));
        } else {
            throw py::type_error("a " + kind_traits<F>::name() +
                                 " is built from its keys, not sized: build it from them");
        }
    });
}

/// The filter of the kind `request` names, built once from all of `keys` (binary fuse).
filter build(const kind_request& request, py::handle keys, double p, std::optional<std::uint64_t> seed) {
    filter_options options;
    if (seed) options.seed = *seed;
    return with_requested_type(request, p, [&](auto type) -> filter {
        using F = typename decltype(type)::type;
        if constexpr (std::is_constructible_v<F, const std::vector<digest>&, filter_options>) {
            F empty(std::vector<digest>{}, options);  // hashes as the built one will
            filter probe{any_filter(std::move(empty))};
            const std::vector<digest> digests = probe.digests(keys, true);
            options.keys = probe.keys();
            py::gil_scoped_release unlocked;
            return filter(any_filter(F(digests, options)));
        } else {
            throw py::type_error("a " + kind_traits<F>::name() + " is sized, then takes keys: make it with a size");
        }
    });
}

std::optional<bloom_layout> layout_of(const std::optional<std::string>& name) {
    if (!name) return std::nullopt;
    return parse_bloom_layout(*name);  // as to_string() names them: "split-block"
}

// --- Errors -------------------------------------------------------------------------------------

/// bloomkit.Error and its subclasses, each also the Python built-in exception it is a case of.
struct exceptions {
    py::object error, invalid_argument, format_error, filter_full, incompatible;
};

py::object new_exception(py::module_& m, const char* name, py::handle base, py::handle builtin = {}) {
    const std::string qualified = std::string("bloomkit.") + name;
    py::object bases = builtin ? py::object(py::make_tuple(base, builtin)) : py::reinterpret_borrow<py::object>(base);
    py::object type = py::reinterpret_steal<py::object>(PyErr_NewException(qualified.c_str(), bases.ptr(), nullptr));
    if (!type) throw py::error_already_set();
    m.attr(name) = type;
    return type;
}

void register_exceptions(py::module_& m) {
    static exceptions e;  // the types live as long as the interpreter: the module holds them too
    e.error = new_exception(m, "Error", PyExc_Exception);
    e.invalid_argument = new_exception(m, "InvalidArgument", e.error, PyExc_ValueError);
    e.format_error = new_exception(m, "FormatError", e.error, PyExc_ValueError);
    e.filter_full = new_exception(m, "FilterFull", e.error);
    e.incompatible = new_exception(m, "IncompatibleFilters", e.error, PyExc_ValueError);
    py::register_exception_translator([](std::exception_ptr thrown) {
        try {
            if (thrown) std::rethrow_exception(thrown);
        } catch (const file_format_error& x) {
            PyErr_SetString(e.format_error.ptr(), x.what());
        } catch (const filter_full& x) {
            PyErr_SetString(e.filter_full.ptr(), x.what());
        } catch (const incompatible_filters& x) {
            PyErr_SetString(e.incompatible.ptr(), x.what());
        } catch (const invalid_argument& x) {
            PyErr_SetString(e.invalid_argument.ptr(), x.what());
        } catch (const bloomkit::error& x) {
            PyErr_SetString(e.error.ptr(), x.what());
        }
    });
}

// --- The class ----------------------------------------------------------------------------------

py::dict capabilities_dict(const kind_capabilities& can) {
    py::dict d;
    d["inserts"] = can.inserts, d["removes"] = can.removes, d["counts"] = can.counts;
    d["merges"] = can.merges, d["intersects"] = can.intersects;
    d["updates_in_place"] = can.updates_in_place, d["grows"] = can.grows;
    return d;
}

std::optional<std::uint32_t> hash_count_of(const any_filter& f) {
    return std::visit(
        [](const auto& x) -> std::optional<std::uint32_t> {
            if constexpr (requires { x.hash_count(); }) return x.hash_count();
            else return std::nullopt;
        },
        f);
}

/// A kind's words for Python: {word: {"name": ..., "capabilities": {...}}}, in registry order
/// (the first type of each kind speaks for it).
py::dict registry() {
    py::dict kinds;
    for_each_filter_type([&](auto type) {
        using F = typename decltype(type)::type;
        const py::str word(std::string(kind_traits<F>::word));
        if (kinds.contains(word)) return;
        py::dict entry;
        entry["summary"] = std::string(kind_traits<F>::summary);
        entry["capabilities"] = capabilities_dict(capabilities_of<F>());
        kinds[word] = entry;
    });
    return kinds;
}

void bind_queries(py::class_<filter>& c) {
    c.def("__contains__", [](filter& f, py::handle key) {
        const digest d = one_digest(f, key, false);
        bool answer = false;
        const auto held = f.reading();
        bloomkit::contains(f.get(), std::span<const digest>(&d, 1), std::span<bool>(&answer, 1));
        return answer;
    });
    c.def("contains_many", [](filter& f, py::handle keys) {
        const std::vector<digest> d = f.digests(keys, false);
        std::vector<char> answers(d.size());
        {
            py::gil_scoped_release unlocked;
            const auto held = f.reading();
            bloomkit::contains(f.get(), std::span<const digest>(d),
                               std::span<bool>(reinterpret_cast<bool*>(answers.data()), answers.size()));
        }
        return bools(std::move(answers));
    });
    c.def("count", [](filter& f, py::handle key) {
        const digest d = one_digest(f, key, false);
        std::uint64_t n = 0;
        const auto held = f.reading();
        bloomkit::count(f.get(), std::span<const digest>(&d, 1), std::span<std::uint64_t>(&n, 1));
        return n;
    });
}

void bind_changes(py::class_<filter>& c) {
    c.def("add", [](filter& f, py::handle key) {
        const digest d = one_digest(f, key, true);
        const auto held = f.writing();
        (void)bloomkit::insert(f.to_change(), std::span<const digest>(&d, 1));
    });
    c.def("update", [](filter& f, py::handle keys) {
        const std::vector<digest> d = f.digests(keys, true);
        any_filter& target = f.to_change();
        py::gil_scoped_release unlocked;
        const auto held = f.writing();
        (void)bloomkit::insert(target, std::span<const digest>(d));
    });
    c.def("add_many", [](filter& f, py::handle keys) {
        const std::vector<digest> d = f.digests(keys, true);
        any_filter& target = f.to_change();
        std::vector<char> added(d.size());
        {
            py::gil_scoped_release unlocked;
            const auto held = f.writing();
            (void)bloomkit::insert(target, std::span<const digest>(d),
                                   std::span<bool>(reinterpret_cast<bool*>(added.data()), added.size()));
        }
        return bools(std::move(added));
    });
    c.def("_remove", [](filter& f, py::handle key) {
        const digest d = one_digest(f, key, false);
        const auto held = f.writing();
        return bloomkit::remove(f.to_change(), std::span<const digest>(&d, 1)) == 1;
    });
    c.def("_remove_many", [](filter& f, py::handle keys) {
        const std::vector<digest> d = f.digests(keys, false);
        any_filter& target = f.to_change();
        py::gil_scoped_release unlocked;
        const auto held = f.writing();
        return bloomkit::remove(target, std::span<const digest>(d));
    });
    c.def("clear", [](filter& f) {
        const auto held = f.writing();
        std::visit(
            [](auto& x) {
                if constexpr (requires { x.clear(); }) x.clear();
                else throw py::type_error("a " + kind_traits<std::decay_t<decltype(x)>>::name() + " cannot be cleared");
            },
            f.to_change());
    });
    c.def("_merge", [](filter& f, const filter& other) {
        if (&f == &other) return;  // a union with itself is itself (and one lock, not two)
        const auto held = locked_in_order(f, other);
        bloomkit::merge(f.to_change(), other.get());
    });
    c.def("_intersect", [](filter& f, const filter& other) {
        if (&f == &other) return;
        const auto held = locked_in_order(f, other);
        bloomkit::intersect(f.to_change(), other.get());
    });
}

void bind_properties(py::class_<filter>& c) {
    c.def_property_readonly(
        "kind",
        [](const filter& f) {
            return std::visit([](const auto& x) { return std::string(kind_traits<std::decay_t<decltype(x)>>::word); },
                              f.get());
        },
        "The kind's word in the registry: bloom, counting, cuckoo, scalable or fuse.");
    c.def_property_readonly(
        "name", [](const filter& f) { return kind_name(f.get()); },
        "The filter type's name, as messages say it ('block Bloom filter').");
    c.def_property_readonly(
        "capabilities", [](const filter& f) { return capabilities_dict(capabilities(f.get())); },
        "What the kind can do: inserts, removes, counts, merges, intersects, updates_in_place, grows.");
    c.def_property_readonly(
        "nbytes", [](const filter& f) { return size_in_bytes(f.get()); }, "The memory its contents take, in bytes.");
    c.def_property_readonly(
        "bits", [](const filter& f) { return 8 * size_in_bytes(f.get()); }, "The size of its contents in bits.");
    c.def_property_readonly(
        "hashes", [](const filter& f) { return hash_count_of(f.get()); },
        "Probes per key (k) of the Bloom kinds; None for the others.");
    c.def_property_readonly(
        "seed", [](const filter& f) { return hash_function(f.get()).seed(); },
        "The seed of its hash: filters merge and compare only with filters that hash alike.");
    c.def_property_readonly(
        "expected_items", [](const filter& f) { return sized_for(f.get()).expected_keys; },
        "The number of keys it was sized for (0 when made from a geometry).");
    c.def_property_readonly(
        "target_fpr", [](const filter& f) { return sized_for(f.get()).fpr; },
        "The false-positive rate it was sized for.");
    c.def_property_readonly(
        "key_format",
        [](const filter& f) -> std::optional<std::string> {
            if (f.keys() == key_format::unrecorded) return std::nullopt;
            return std::string(to_string(f.keys()));
        },
        "What its keys are, as its file records them: 'text', 'u64', 'i64', or None before its first key.");
    c.def_property_readonly("read_only", &filter::mapped, "Whether it is mapped read-only from its file (map()).");
    c.def(
        "fpr", [](const filter& f) { return current_fpr(f.get()); },
        "Its false-positive rate now, at the keys it holds.");
    c.def("_inserted_count", [](const filter& f) { return inserted_count(f.get()); });
    c.def(
        "approx_len", [](const filter& f) { return approximate_count(header_of(f.get())); },
        "The number of distinct keys it holds, estimated (exact for cuckoo and binary fuse filters).");
}

void bind_files(py::module_& m, py::class_<filter>& c) {
    c.def("to_bytes", [](const filter& f) {
        const auto held = f.reading();
        const std::vector<std::byte> bytes = to_bytes(f.get());
        return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    });
    c.def("save", [](const filter& f, const std::filesystem::path& path) {
        py::gil_scoped_release unlocked;
        const auto held = f.reading();
        save(f.get(), path);
    });
    c.def("__eq__", [](const filter& a, const filter& b) {
        if (&a == &b) return true;
        const auto held = a.reading();
        const auto other_held = b.reading();
        return to_bytes(a.get()) == to_bytes(b.get());
    });
    c.def("copy", [](const filter& f) {
        const auto held = f.reading();
        if (!f.mapped()) return filter(any_filter(f.get()));
        // A mapped filter's copy would view the same map: an owned copy goes through its bytes.
        const std::vector<std::byte> bytes = to_bytes(f.get());
        return filter(from_bytes<any_filter>(bytes, "a mapped filter's copy"));
    });
    c.def("changed", [](const filter& f) { return f.mapping() != nullptr && f.mapping()->changed(); });
    c.def("verify", [](const filter& f) {
        if (f.mapping() != nullptr) f.mapping()->verify();
    });
    m.def("from_bytes", [](py::buffer data) {
        const py::buffer_info info = data.request();
        const std::span<const std::byte> bytes(static_cast<const std::byte*>(info.ptr),
                                               static_cast<std::size_t>(info.size));
        return filter(from_bytes<any_filter>(bytes, "bytes"));
    });
    m.def("load", [](const std::filesystem::path& path) {
        py::gil_scoped_release unlocked;
        return filter(load<any_filter>(path));
    });
    m.def("map", [](const std::filesystem::path& path) {
        return filter(std::make_shared<const mapped_filter<any_filter>>(map<any_filter>(path)));
    });
}

}  // namespace
}  // namespace bloomkit::python

PYBIND11_MODULE(_bloomkit, m) {
    using namespace bloomkit::python;
    m.doc() = "The native half of bloomkit: one filter class over every kind of the C++ registry.";
    register_exceptions(m);
    py::class_<filter> c(m, "Filter", "A filter of any kind (the Python classes in bloomkit construct it).");
    c.def(py::init([](filter& other) { return filter(std::move(other)); }),
          "Takes over the filter `other` holds (other is left empty): how the Python classes wrap what make, "
          "build, load, map and from_bytes return.");
    bind_queries(c);
    bind_changes(c);
    bind_properties(c);
    bind_files(m, c);
    m.def(
        "make",
        [](const std::string& kind, std::uint64_t n, double p, std::optional<std::string> layout,
           std::optional<std::uint32_t> bits, std::optional<std::uint32_t> arity, std::optional<std::uint64_t> seed) {
            return make({kind, layout_of(layout), bits, arity}, n, p, seed);
        },
        py::arg("kind"), py::arg("n"), py::arg("p"), py::arg("layout") = py::none(), py::arg("bits") = py::none(),
        py::arg("arity") = py::none(), py::arg("seed") = py::none());
    m.def(
        "build",
        [](const std::string& kind, py::handle keys, double p, std::optional<std::uint32_t> bits,
           std::optional<std::uint32_t> arity, std::optional<std::uint64_t> seed) {
            return build({kind, std::nullopt, bits, arity}, keys, p, seed);
        },
        py::arg("kind"), py::arg("keys"), py::arg("p"), py::arg("bits") = py::none(), py::arg("arity") = py::none(),
        py::arg("seed") = py::none());
    m.def("kinds", &registry, "The registry: each kind's word, summary and capabilities.");
}
