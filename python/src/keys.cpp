// python/src/keys.cpp — see keys.hpp.
#include "keys.hpp"

#include <datetime.h>

#include <bit>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace bloomkit::python {
namespace {

// --- What an object is as a key ------------------------------------------------------------

/// A key as read from Python, before it is checked and hashed: bytes, or an integer of a
/// signed or unsigned type.
struct read_key {
    key_kind kind = key_kind::bytes;
    std::string_view bytes{};
    key_integer integer{};
};

read_key bytes_key(std::string_view bytes) { return {key_kind::bytes, bytes, {}}; }
read_key signed_key(std::int64_t value) { return {key_kind::signed_integer, {}, key_integer::of(value)}; }

/// The type's name, for messages ("float", "numpy.float64").
std::string type_name(py::handle object) {
    const std::string module = py::str(py::type::handle_of(object).attr("__module__"));
    const std::string name = Py_TYPE(object.ptr())->tp_name;
    return module == "builtins" || name.find('.') != std::string::npos ? name : module + "." + name;
}

[[noreturn]] void refuse_type(py::handle object, const char* why = nullptr) {
    throw key_type_error("a bloomkit key is a str, bytes, an int or a date or time, not " + type_name(object) +
                         (why != nullptr ? std::string(" (") + why + ")"
                                         : std::string(" (give the filter key=... to turn such objects into keys)")));
}

/// numpy's scalar types, looked up once (none when numpy is not installed).
struct numpy_types {
    py::object integer, unsigned_integer, boolean, inexact, datetime64, timedelta64, ndarray, asarray;
    bool present = false;
};

const numpy_types& numpy() {
    static const numpy_types* types = [] {
        auto* t = new numpy_types();  // lives as long as the interpreter: never destroyed
        try {
            const py::module_ np = py::module_::import("numpy");
            t->integer = np.attr("integer"), t->unsigned_integer = np.attr("unsignedinteger");
            t->boolean = np.attr("bool_"), t->inexact = np.attr("inexact");
            t->datetime64 = np.attr("datetime64"), t->timedelta64 = np.attr("timedelta64");
            t->ndarray = np.attr("ndarray"), t->asarray = np.attr("asarray");
            t->present = true;
        } catch (const py::error_already_set&) {}
        return t;
    }();
    return *types;
}

bool is_instance(py::handle object, const py::object& type) {
    return type && PyObject_IsInstance(object.ptr(), type.ptr()) == 1;
}

/// The integer value of a Python int (or of an object with __index__: numpy's integers), in
/// [-2^63, 2^64), the union of what the key formats hold.
key_integer integer_value(py::handle object) {
    const py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(object.ptr()));
    if (!index) throw py::error_already_set();
    int overflow = 0;
    const long long value = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow == 0) {
        if (value == -1 && PyErr_Occurred()) throw py::error_already_set();
        return key_integer::of(static_cast<std::int64_t>(value));
    }
    if (overflow > 0) {
        const unsigned long long big = PyLong_AsUnsignedLongLong(index.ptr());
        if (!(big == static_cast<unsigned long long>(-1) && PyErr_Occurred()))
            return key_integer::of(static_cast<std::uint64_t>(big));
        PyErr_Clear();
    }
    throw key_error(std::string(py::str(index)) +
                    " is outside every key format: integer keys are from -2**63 (i64) to 2**64 - 1 (u64)");
}

// Times, as nanoseconds since the epoch (or nanoseconds of a duration), in int64: pandas'
// datetime64[ns] range, 1677-09-21 to 2262-04-11.

[[noreturn]] void refuse_time(const std::string& what) {
    throw key_error(what + " is outside the keys of times: nanoseconds in a 64-bit integer (1677-09-21 to 2262-04-11)");
}

/// a * b + c, refusing an overflow of int64.
std::int64_t scaled(std::int64_t a, std::int64_t b, std::int64_t c, const std::string& what) {
    std::int64_t product = 0, sum = 0;
    if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(product, c, &sum)) refuse_time(what);
    return sum;
}

/// Days from 1970-01-01 to a civil date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned march_based = m > 2 ? m - 3 : m + 9;  // March is month 0: leap days come last
    const unsigned doy = (153 * march_based + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

/// Nanoseconds of a datetime.timedelta.
std::int64_t timedelta_nanoseconds(py::handle delta, const std::string& what) {
    const std::int64_t seconds =
        scaled(PyDateTime_DELTA_GET_DAYS(delta.ptr()), 86400, PyDateTime_DELTA_GET_SECONDS(delta.ptr()), what);
    return scaled(seconds, 1'000'000'000, std::int64_t{PyDateTime_DELTA_GET_MICROSECONDS(delta.ptr())} * 1000, what);
}

/// pandas' Timestamp and Timedelta: their nanoseconds (.value, in UTC for an aware Timestamp);
/// nullopt for other objects. NaT and NA are refused: a null is no key.
std::optional<std::int64_t> pandas_nanoseconds(py::handle object) {
    const py::dict modules = py::module_::import("sys").attr("modules");
    if (!modules.contains("pandas")) return std::nullopt;  // no pandas object exists
    const py::object pd = modules["pandas"];
    if (object.ptr() == pd.attr("NaT").ptr() || object.ptr() == pd.attr("NA").ptr())
        refuse_type(object, "a null, not a key");
    if (!is_instance(object, pd.attr("Timestamp")) && !is_instance(object, pd.attr("Timedelta"))) return std::nullopt;
    return py::cast<std::int64_t>(object.attr("value"));
}

/// A date, datetime or timedelta (Python's, or pandas') as its nanoseconds; nullopt for other
/// objects.
std::optional<std::int64_t> time_nanoseconds(py::handle object) {
    if (PyDateTimeAPI == nullptr) PyDateTime_IMPORT;
    if (PyDateTimeAPI == nullptr) throw py::error_already_set();
    PyObject* o = object.ptr();
    if (!PyDate_Check(o) && !PyDelta_Check(o)) {
        if (PyTime_Check(o)) refuse_type(object, "a time of day has no date: combine it with one");
        return std::nullopt;
    }
    if (const std::optional<std::int64_t> pandas = pandas_nanoseconds(object)) return pandas;
    const std::string what = py::str(object);
    if (PyDelta_Check(o)) return timedelta_nanoseconds(object, what);
    const std::int64_t days = days_from_civil(PyDateTime_GET_YEAR(o), PyDateTime_GET_MONTH(o), PyDateTime_GET_DAY(o));
    if (!PyDateTime_Check(o)) return scaled(days, 86'400'000'000'000, 0, what);  // a date: its midnight
    const std::int64_t seconds = days * 86400 + PyDateTime_DATE_GET_HOUR(o) * 3600 +
                                 PyDateTime_DATE_GET_MINUTE(o) * 60 + PyDateTime_DATE_GET_SECOND(o);
    std::int64_t ns = scaled(seconds, 1'000'000'000, std::int64_t{PyDateTime_DATE_GET_MICROSECOND(o)} * 1000, what);
    const py::object offset = object.attr("utcoffset")();  // aware: to UTC; naive: as UTC
    if (!offset.is_none() && __builtin_sub_overflow(ns, timedelta_nanoseconds(offset, what), &ns)) refuse_time(what);
    return ns;
}

/// A buffer of single bytes (bytearray, memoryview, array('B')...) as its bytes, copied into
/// `scratch`; nullopt for an object that exports no buffer.
std::optional<std::string_view> buffer_bytes(py::handle object, std::string& scratch) {
    if (!PyObject_CheckBuffer(object.ptr())) return std::nullopt;
    Py_buffer view;
    if (PyObject_GetBuffer(object.ptr(), &view, PyBUF_ND | PyBUF_FORMAT) != 0) {
        PyErr_Clear();
        refuse_type(object, "a buffer that is not contiguous");
    }
    const bool bytes = view.itemsize == 1;
    if (bytes) scratch.assign(static_cast<const char*>(view.buf), static_cast<std::size_t>(view.len));
    const Py_ssize_t itemsize = view.itemsize;
    PyBuffer_Release(&view);
    if (!bytes)
        throw key_type_error("a buffer of " + std::to_string(itemsize) +
                             "-byte items is not a key: give its bytes (bytes(...)) or its numbers (an array)");
    return std::string_view(scratch);
}

read_key read_scalar(py::handle object, std::string& scratch) {
    PyObject* o = object.ptr();
    if (PyUnicode_Check(o)) {
        Py_ssize_t size = 0;
        const char* utf8 = PyUnicode_AsUTF8AndSize(o, &size);
        if (utf8 == nullptr) {
            PyErr_Clear();
            throw key_error(
                "a str holding a lone surrogate has no UTF-8 bytes, and is no key: encode it as you mean it "
                "(s.encode('utf-8', 'surrogatepass')) and give the bytes");
        }
        return bytes_key({utf8, static_cast<std::size_t>(size)});
    }
    if (PyBytes_Check(o)) return bytes_key({PyBytes_AS_STRING(o), static_cast<std::size_t>(PyBytes_GET_SIZE(o))});
    if (PyBool_Check(o) || is_instance(object, numpy().boolean))
        refuse_type(object, "True and False are not the integers 1 and 0 here: give int(b) if you mean them");
    if (PyLong_Check(o)) return {key_kind::signed_integer, {}, integer_value(object)};
    if (o == Py_None) refuse_type(object, "None is a null, not a key");
    if (PyFloat_Check(o) || PyComplex_Check(o) || is_instance(object, numpy().inexact))
        refuse_type(object, "a number with a fraction is no integer key, even when whole: give int(x) or str(x)");
    if (is_instance(object, numpy().integer))
        return {is_instance(object, numpy().unsigned_integer) ? key_kind::unsigned_integer : key_kind::signed_integer,
                {},
                integer_value(object)};
    if (is_instance(object, numpy().ndarray))
        throw key_type_error("an array is many keys, not one: give it to update(), add_many() or contains_many()");
    if (const std::optional<std::int64_t> ns = time_nanoseconds(object)) return signed_key(*ns);
    if (const std::optional<std::int64_t> ns = pandas_nanoseconds(object)) return signed_key(*ns);
    if (const std::optional<std::string_view> bytes = buffer_bytes(object, scratch)) return bytes_key(*bytes);
    refuse_type(object);
}

// --- Checking and hashing ------------------------------------------------------------------

/// Checks keys against a filter's format and hashes them; learns the format a filter that
/// records none takes from its first key, when they are added.
class key_checker {
public:
    key_checker(const key_source& source, key_use use) : source_(source), format_(source.recorded) {
        if (format_ == key_format::unrecorded && use == key_use::add) {
            if (source.holds_keys)
                throw key_error(
                    "this filter holds keys but records no key format (an older bloomkit, or a format that cannot "
                    "record "
                    "them, wrote it): say what its "
                    "keys are first (f.key_format = 'text', 'u64', 'i64' or 'u32'), and that is recorded");
            learning_ = true;
        }
    }

    digest operator()(const read_key& key) {
        learn(key.kind);
        if (key.kind == key_kind::bytes) {
            check_text();
            return source_.hash(key.bytes);
        }
        check(key.integer);
        return source_.hash(key.integer.bits);
    }

    /// Checks that the format takes text keys.
    void check_text() {
        require_text_key(format_, source_.hash.funnel());
        seen_.add_text();
    }

    /// Checks an integer key against the format (for keys read in bulk, hashed by the caller).
    void check(key_integer value) {
        seen_.add(value);
        try {
            require_key(format_, value, source_.hash.funnel());
        } catch (const key_type_error&) {
            throw;
        } catch (const key_error& e) {
            if (format_ == key_format::i64 && !value.negative)
                throw key_error(std::string(e.what()) + " (made with key_format='u64')");
            throw;
        }
    }

    /// The format of the first key of an array whose keys are all of `kind`.
    void learn(key_kind kind) {
        if (!learning_) return;
        format_ = key_format_of(kind);
        learning_ = false;
        learned_ = true;
    }

    [[nodiscard]] const hasher& hash() const noexcept { return source_.hash; }
    [[nodiscard]] std::optional<key_format> to_record() const {
        return learned_ ? std::optional(format_) : std::nullopt;
    }
    [[nodiscard]] const key_summary& seen() const noexcept { return seen_; }

private:
    key_summary seen_;
    const key_source& source_;
    key_format format_;
    bool learning_ = false;  // the first key decides the format
    bool learned_ = false;
};

// --- numpy arrays --------------------------------------------------------------------------

/// Item i of a 1-d array, as its bytes.
const char* item(const py::buffer_info& info, std::size_t i) {
    return static_cast<const char*>(info.ptr) + static_cast<std::ptrdiff_t>(i) * info.strides[0];
}

/// The integer of item i of an integer array of `width` bytes, in the array's byte order.
key_integer integer_item(const char* at, std::size_t width, bool is_signed, bool swapped) {
    std::uint64_t raw = 0;
    std::memcpy(&raw, at, width);  // the low bytes on a little-endian machine
    if (swapped) raw = __builtin_bswap64(raw) >> (64 - 8 * width);
    if (is_signed && width < 8) {
        const unsigned shift = 64 - 8 * static_cast<unsigned>(width);
        return key_integer::of(static_cast<std::int64_t>(raw << shift) >> shift);  // sign-extended
    }
    return is_signed ? key_integer::of(static_cast<std::int64_t>(raw)) : key_integer::of(raw);
}

void integer_array(key_checker& keys, const py::array& array, const py::buffer_info& info, std::vector<digest>& out) {
    const auto width = static_cast<std::size_t>(info.itemsize);
    if (width != 1 && width != 2 && width != 4 && width != 8)
        throw key_type_error("numpy integers of " + std::to_string(width) + " bytes are not keys");
    const bool is_signed = array.dtype().kind() == 'i';
    const bool swapped = width > 1 && !py::cast<bool>(array.dtype().attr("isnative"));
    keys.learn(is_signed ? key_kind::signed_integer : key_kind::unsigned_integer);
    const hasher& hash = keys.hash();
    py::gil_scoped_release unlocked;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const key_integer value = integer_item(item(info, i), width, is_signed, swapped);
        keys.check(value);
        out[i] = hash(value.bits);
    }
}

/// Nanoseconds per unit of a datetime64/timedelta64 unit of fixed length; 0 for the calendar
/// units (years, months), negative -d for units finer than a nanosecond (d of them in one).
std::int64_t nanoseconds_per(const std::string& unit) {
    static constexpr std::pair<std::string_view, std::int64_t> units[] = {{"W", 604'800'000'000'000},
                                                                          {"D", 86'400'000'000'000},
                                                                          {"h", 3'600'000'000'000},
                                                                          {"m", 60'000'000'000},
                                                                          {"s", 1'000'000'000},
                                                                          {"ms", 1'000'000},
                                                                          {"us", 1'000},
                                                                          {"ns", 1},
                                                                          {"ps", -1'000},
                                                                          {"fs", -1'000'000},
                                                                          {"as", -1'000'000'000}};
    for (const auto& [name, ns] : units)
        if (unit == name) return ns;
    return 0;
}

void time_array(key_checker& keys, py::array array, std::vector<digest>& out) {
    const bool dates = array.dtype().kind() == 'M';
    const py::tuple unit_count = py::module_::import("numpy").attr("datetime_data")(array.dtype());
    const std::string unit = py::cast<std::string>(unit_count[0]);
    if (unit == "generic")  // numpy takes a count without a unit as any unit: no one time
        throw key_type_error(std::string("a ") + (dates ? "datetime64" : "timedelta64") +
                             " without a unit is no time: give it one (np.timedelta64(5, 's'))");
    std::int64_t per = nanoseconds_per(unit);
    if (per == 0) {
        // Years and months are of no fixed length: the days they start on say it (numpy counts
        // a multiple of them, '3M', in that conversion).
        if (!dates) throw key_type_error("a timedelta64 in " + unit + " has no fixed length in nanoseconds");
        array = array.attr("astype")("datetime64[D]");
        per = nanoseconds_per("D");
    } else if (const auto count = py::cast<std::int64_t>(unit_count[1]); count != 1) {
        // A multiple of a unit: of a nanosecond or more, a longer unit; of less, no key is kept.
        if (per < 0 || __builtin_mul_overflow(per, count, &per))
            throw key_error("a unit of " + std::to_string(count) + " " + unit + " is not one of time keys' (1 ns to " +
                            "whole weeks)");
    }
    keys.learn(key_kind::signed_integer);
    // The counts of units, as native int64 (numpy lends no buffer of datetime64 itself).
    if (!py::cast<bool>(array.dtype().attr("isnative")))
        array = array.attr("astype")(array.dtype().attr("newbyteorder")("="));
    const py::array counts = array.attr("view")("i8");
    const py::buffer_info info = counts.request();
    const hasher& hash = keys.hash();
    for (std::size_t i = 0; i < out.size(); ++i) {
        std::int64_t value = 0;
        std::memcpy(&value, item(info, i), sizeof value);
        if (value == std::numeric_limits<std::int64_t>::min())
            throw key_type_error(std::string("NaT is a null, not a key (item ") + std::to_string(i) + " of the array)");
        std::int64_t ns = 0;
        if (per > 0) {
            if (__builtin_mul_overflow(value, per, &ns)) refuse_time(std::string(py::str(array[py::int_(i)])));
        } else {
            if (value % -per != 0)
                throw key_error(std::string(py::str(array[py::int_(i)])) + " is finer than a nanosecond: no key");
            ns = value / -per;
        }
        const key_integer key = key_integer::of(ns);
        keys.check(key);
        out[i] = hash(key.bits);
    }
}

/// An 'S' array (`strip`: each item without its trailing NULs, as numpy gives it back) or a 'V'
/// one (each item's bytes, all of them: fixed-width binary keys).
void bytes_array(key_checker& keys, const py::buffer_info& info, bool strip, std::vector<digest>& out) {
    keys.learn(key_kind::bytes);
    keys.check_text();
    const auto width = static_cast<std::size_t>(info.itemsize);
    const hasher& hash = keys.hash();
    py::gil_scoped_release unlocked;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const char* at = item(info, i);
        std::size_t size = width;
        while (strip && size > 0 && at[size - 1] == '\0') --size;
        out[i] = hash(std::string_view(at, size));
    }
}

/// A 'U' array: each item's code points (UCS-4, trailing NULs dropped as numpy does) as UTF-8.
void unicode_array(key_checker& keys, const py::array& array, const py::buffer_info& info, std::vector<digest>& out) {
    keys.learn(key_kind::bytes);
    keys.check_text();
    const std::size_t chars = static_cast<std::size_t>(info.itemsize) / 4;
    const bool swapped = !py::cast<bool>(array.dtype().attr("isnative"));
    const hasher& hash = keys.hash();
    py::gil_scoped_release unlocked;
    std::string utf8;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const char* at = item(info, i);
        std::size_t size = chars;
        const auto code_point = [&](std::size_t c) {
            std::uint32_t u = 0;
            std::memcpy(&u, at + 4 * c, 4);
            return swapped ? __builtin_bswap32(u) : u;
        };
        while (size > 0 && code_point(size - 1) == 0) --size;
        utf8.clear();
        for (std::size_t c = 0; c < size; ++c) {
            const std::uint32_t u = code_point(c);
            if ((u >= 0xd800 && u <= 0xdfff) || u > 0x10ffff)
                throw key_error("item " + std::to_string(i) +
                                " of the array holds a code point with no UTF-8 form (a lone surrogate): no key");
            if (u < 0x80) {
                utf8 += static_cast<char>(u);
            } else if (u < 0x800) {
                utf8 += static_cast<char>(0xc0 | (u >> 6)), utf8 += static_cast<char>(0x80 | (u & 0x3f));
            } else if (u < 0x10000) {
                utf8 += static_cast<char>(0xe0 | (u >> 12)), utf8 += static_cast<char>(0x80 | ((u >> 6) & 0x3f));
                utf8 += static_cast<char>(0x80 | (u & 0x3f));
            } else {
                utf8 += static_cast<char>(0xf0 | (u >> 18)), utf8 += static_cast<char>(0x80 | ((u >> 12) & 0x3f));
                utf8 += static_cast<char>(0x80 | ((u >> 6) & 0x3f)), utf8 += static_cast<char>(0x80 | (u & 0x3f));
            }
        }
        out[i] = hash(std::string_view(utf8));
    }
}

void each_object(key_checker& keys, py::handle objects, std::vector<digest>& out) {
    std::string scratch;
    for (py::handle object : objects) {
        if (is_instance(object, numpy().datetime64) || is_instance(object, numpy().timedelta64)) {
            std::vector<digest> one(1);
            time_array(keys, numpy().asarray(object).attr("reshape")(1), one);
            out.push_back(one[0]);
            continue;
        }
        out.push_back(keys(read_scalar(object, scratch)));
    }
}

void array_digests(key_checker& keys, const py::array& array, std::vector<digest>& out) {
    if (array.ndim() != 1)
        throw key_type_error("an array of keys is one-dimensional, not of " + std::to_string(array.ndim()) +
                             " dimensions: ravel() it");
    out.resize(static_cast<std::size_t>(array.shape(0)));
    const char kind = array.dtype().kind();
    if (kind == 'O') {
        out.clear();
        each_object(keys, array, out);
        return;
    }
    if (kind == 'M' || kind == 'm') return time_array(keys, array, out);
    const py::buffer_info info = array.request();
    if (kind == 'i' || kind == 'u') return integer_array(keys, array, info, out);
    if (kind == 'S') return bytes_array(keys, info, true, out);
    if (kind == 'V') {
        if (!array.dtype().attr("fields").is_none())
            throw key_type_error("an array of records (" + std::string(py::str(array.dtype())) +
                                 ") is not keys: give key= a function that makes one of each, or one of its fields");
        return bytes_array(keys, info, false, out);
    }
    if (kind == 'U') return unicode_array(keys, array, info, out);
    const char* why = kind == 'b'   ? "True and False are not the integers 1 and 0 here: astype an integer type"
                      : kind == 'f' ? "a number with a fraction is no integer key, even when whole: astype an integer "
                                      "type, or str"
                                    : "give integers, fixed-width bytes ('S'), str ('U'), datetime64, timedelta64 or "
                                      "objects";
    throw key_type_error("an array of " + std::string(py::str(array.dtype())) + " is not keys (" + why + ")");
}

}  // namespace

hashed_keys digests_of(const key_source& source, py::handle keys, key_use use) {
    key_checker checker(source, use);
    hashed_keys out;
    if (numpy().present && is_instance(keys, numpy().ndarray)) {
        array_digests(checker, py::reinterpret_borrow<py::array>(keys), out.digests);
    } else {
        PyObject* o = keys.ptr();
        if (PyUnicode_Check(o) || PyBytes_Check(o) || PyByteArray_Check(o) || PyMemoryView_Check(o))
            throw key_type_error(
                "give an iterable of keys, not one key: a str or bytes-like object would be read "
                "as its characters, each a key");
        if (!py::isinstance<py::iterable>(keys))
            throw key_type_error("give an iterable of keys (a list, a generator, an array), not " + type_name(keys));
        if (const Py_ssize_t hint = PyObject_LengthHint(o, 0); hint > 0)
            out.digests.reserve(static_cast<std::size_t>(hint));
        each_object(checker, keys, out.digests);
    }
    out.to_record = checker.to_record();
    out.seen = checker.seen();
    return out;
}

void require_fit(key_format recorded, const hashed_keys& keys) {
    if (!keys.to_record || recorded == *keys.to_record || keys.seen.fits(recorded)) return;
    throw key_format_mismatch(recorded, *keys.to_record, "this filter (another writer recorded its first keys)");
}

hashed_keys digest_of(const key_source& source, py::handle key, key_use use) {
    key_checker checker(source, use);
    hashed_keys out;
    each_object(checker, py::make_tuple(key), out.digests);
    out.to_record = checker.to_record();
    out.seen = checker.seen();
    return out;
}

}  // namespace bloomkit::python
