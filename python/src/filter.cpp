// python/src/filter.cpp — see filter.hpp.
#include "filter.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "arguments.hpp"
#include "bloomkit/any_filter.hpp"
#include "bloomkit/bulk.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/formats.hpp"
#include "bloomkit/io/any_codec.hpp"
#include "bloomkit/io/bkf.hpp"
#include "bloomkit/kinds.hpp"
#include "bloomkit/os/atomic_replace.hpp"
#include "bloomkit/os/writer_lock.hpp"
#include "jobs/filter/filter_files.hpp"
#include "keys.hpp"

namespace bloomkit::python {

// --- The filter --------------------------------------------------------------------------------

std::optional<file_state> state_of(const std::filesystem::path& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
    return file_state{std::filesystem::absolute(path).lexically_normal().string(), info.st_dev, info.st_ino,
                      static_cast<std::uint64_t>(info.st_size),
                      std::int64_t{info.st_mtim.tv_sec} * 1'000'000'000 + info.st_mtim.tv_nsec};
}

void filter::require_unchanged_source(const std::filesystem::path& path) const {
    if (!read_from_) return;
    const std::optional<file_state> now = state_of(path);
    if (!now) return;  // nothing there to lose
    const bool same_file =
        now->path == read_from_->path || (now->device == read_from_->device && now->inode == read_from_->inode);
    if (same_file && *now != *read_from_)
        throw error("'" + path.string() +
                    "' changed since this filter was read from it (another writer added to it or replaced it): "
                    "saving would lose what it wrote. Read it again and add to that, or unite the two first "
                    "(f |= bloomkit.load(path)), or save to another file");
}

filter::filter(const filter& other)
    : held_(other.copied()), read_from_(other.read_from_), concurrent_(other.concurrent_) {}

std::variant<any_filter, std::shared_ptr<const guarded_map>> filter::copied() const {
    require_held();
    const auto held = reading();
    return held_;  // a mapped filter's copy shares the read-only map
}

filter::filter(filter&& other)
    : held_(other.taken()), read_from_(std::move(other.read_from_)), concurrent_(other.concurrent_) {}

std::variant<any_filter, std::shared_ptr<const guarded_map>> filter::taken() {
    require_held();
    const auto held = writing();
    taken_ = true;
    return std::move(held_);
}

key_source filter::source(key_use use) const {
    const auto held = reading();
    const key_format recorded = recorded_key_format(get());
    // Whether it holds keys matters only to an add to a filter that records no format.
    const bool holds = use == key_use::add && recorded == key_format::unrecorded && holds_keys(get());
    return {hash_function(get()), recorded, holds};
}

hashed_keys filter::digests(py::handle keys, key_use use) const { return digests_of(source(use), keys, use); }

hashed_keys filter::digest(py::handle key, key_use use) const { return digest_of(source(use), key, use); }

namespace {

/// Records the format `keys` bring on `f`, a filter that recorded none when they were read (the
/// caller holds its lock), unless another writer recorded one since (require_fit).
void adopt(any_filter& f, const hashed_keys& keys) {
    if (recorded_key_format(f) == key_format::unrecorded) record_key_format(f, *keys.to_record);
    else require_fit(recorded_key_format(f), keys);
}

}  // namespace

void filter::insert(const hashed_keys& keys, std::span<bool> added) {
    any_filter& target = to_change();
    const std::span<const bloomkit::digest> digests(keys.digests);
    if (concurrent_) {
        if (keys.to_record) {
            const auto held = writing();
            adopt(target, keys);
        }
        const auto held = reading();
        (void)bloomkit::insert(target, digests, concurrent, added);
    } else {
        const auto held = writing();
        if (keys.to_record) adopt(target, keys);
        (void)bloomkit::insert(target, digests, added);
    }
}

void filter::contains(std::span<const bloomkit::digest> digests, std::span<bool> answers) const {
    const auto held = reading();
    if (const guarded_map* map = mapping()) map->require_whole();
    if (concurrent_) bloomkit::contains(get(), digests, answers, concurrent);
    else bloomkit::contains(get(), digests, answers);
    if (const guarded_map* map = mapping()) map->require_whole();
}

void filter::record(key_format keys) {
    any_filter& target = to_change();
    const auto held = writing();
    const key_format recorded = recorded_key_format(target);
    if (recorded == keys) return;
    if (recorded != key_format::unrecorded)
        throw invalid_argument("this filter records " + std::string(to_string(recorded)) +
                               " keys: a filter's key format is fixed once recorded");
    if (const guava_funnel funnel = hash_function(target).funnel();
        funnel != guava_funnel::none && is_integer(keys) != takes_integers(funnel))
        throw key_format_mismatch(takes_integers(funnel) ? key_format::i64 : key_format::text, keys,
                                  "this Guava filter of " + std::string(java_name(funnel)));
    record_key_format(target, keys);
}

void filter::set_concurrent(bool on) {
    if (on && !capabilities(get()).concurrent)
        throw argument_type_error("a " + kind_name(get()) + " cannot take keys from several threads at once");
    concurrent_ = on;
}

namespace {

namespace args = arguments;

/// `into` locked for a change and `from` for reading, the two taken in the order of their
/// addresses, as every pair is: two threads merging a into b and b into a cannot deadlock.
std::pair<std::unique_lock<fork_safe_lock>, std::shared_lock<fork_safe_lock>> locked_in_order(const filter& into,
                                                                                              const filter& from) {
    if (&into < &from) {
        auto writing = into.writing();
        return {std::move(writing), from.reading()};
    }
    auto reading = from.reading();
    return {into.writing(), std::move(reading)};
}

/// The filter another argument names (for |=, &=, ==, push).
const filter& filter_argument(py::handle value, const char* name) {
    if (!py::isinstance<filter>(value))
        throw argument_type_error(std::string(name) + " is a bloomkit filter, not " + args::type_of(value));
    return value.cast<const filter&>();
}

/// How a file is read, from load()'s and from_bytes()' arguments: its format (None: told by its
/// bytes), a Guava stream's funnel and what the keys of a file that cannot record them are.
jobs::filter_reading reading_of(py::handle format, py::handle funnel, py::handle keys);

/// `f`, read from `where`, with the key format its reader says (`said`, unrecorded: nothing):
/// recorded when the file records none, refused when it records another (key_format_mismatch).
any_filter with_keys_said(any_filter f, key_format said, const std::string& where) {
    const key_format recorded = recorded_key_format(f);
    if (said == key_format::unrecorded || said == recorded) return f;
    if (recorded != key_format::unrecorded) throw key_format_mismatch(recorded, said, where);
    record_key_format(f, said);
    return f;
}

/// The key format a word names ("text", "u64", "i64", "u32"), or none for None.
std::optional<key_format> key_format_argument(py::handle value) {
    const std::optional<std::string> word = args::optional_word(value, "key_format");
    if (!word) return std::nullopt;
    if (const std::optional<key_format> format = key_format_named(*word)) return format;
    throw invalid_argument("key_format is 'text', 'u64', 'i64' or 'u32', not '" + *word + "'");
}

/// What the constructors take beyond the size: how the filter hashes and what its keys are.
filter_options options_of(py::handle seed, py::handle funnel, py::handle keys) {
    filter_options options;
    if (const auto s = args::seed(seed)) options.seed = *s;
    if (const auto word = args::optional_word(funnel, "funnel")) options.funnel = parse_guava_funnel(*word);
    if (const auto format = key_format_argument(keys)) options.keys = *format;
    return options;
}

jobs::filter_reading reading_of(py::handle format, py::handle funnel, py::handle keys) {
    jobs::filter_reading reading;
    if (const auto word = args::optional_word(format, "format")) reading.format = *word;
    if (const auto word = args::optional_word(funnel, "funnel"); word && !word->empty())
        reading.keys.funnel = parse_guava_funnel(*word);
    if (const auto said = key_format_argument(keys)) reading.keys.keys = *said;
    return reading;
}

/// Calls use(f) with the filter that forgets `held` holds; throws argument_type_error for another kind.
template <class Filter, class Use>
void with_forgetting(Filter& held, Use use) {
    std::visit(
        [&](auto& f) {
            if constexpr (forgetting_filter<std::decay_t<decltype(f)>>) use(f);
            else throw argument_type_error("a time ('now') is for a filter that forgets (WindowedFilter)");
        },
        held);
}

std::optional<bloom_layout> layout_of(const std::optional<std::string>& name) {
    if (!name) return std::nullopt;
    return parse_bloom_layout(*name);  // as to_string() names them: "split-block"
}

kind_request request_of(py::handle kind, py::handle layout, py::handle bits, py::handle arity,
                        py::handle window = py::none(), py::handle generations = py::none()) {
    const auto small = [](py::handle value, const char* name) -> std::optional<std::uint32_t> {
        const auto n = args::optional_count(value, name);
        if (n && *n > 64) throw invalid_argument(std::string(name) + " is at most 64, not " + std::to_string(*n));
        return n ? std::optional(static_cast<std::uint32_t>(*n)) : std::nullopt;
    };
    return {args::word(kind, "kind"),
            layout_of(args::optional_word(layout, "layout")),
            small(bits, "bits"),
            small(arity, "arity"),
            window.is_none() ? std::nullopt : std::optional(args::window(window)),
            small(generations, "generations")};
}

/// The filter of the kind `request` names, for n keys at rate p (a kind that takes keys after it
/// is made; binary fuse filters are built from theirs, build()).
filter make(const kind_request& request, std::uint64_t n, double p, const filter_options& options) {
    return with_requested_type(request, p, [&](auto type) -> filter {
        using F = typename decltype(type)::type;
        if constexpr (requires { kind_traits<F>::make(n, p, request, options); }) {
            return filter(any_filter(kind_traits<F>::make(n, p, request, options)));
        } else {
            throw argument_type_error("a " + kind_traits<F>::name() +
                                      " is built from its keys, not sized: build it from them");
        }
    });
}

/// The filter of the kind `request` names, built once from all of `keys` (binary fuse).
filter build(const kind_request& request, py::handle keys, double p, filter_options options) {
    return with_requested_type(request, p, [&](auto type) -> filter {
        using F = typename decltype(type)::type;
        if constexpr (std::is_constructible_v<F, const std::vector<bloomkit::digest>&, filter_options>) {
            // Hashed as F will hash, by the format asked or the first key's.
            const key_source source{hasher(options.hash.value_or(default_hash_algorithm), options.seed), options.keys,
                                    false};
            const hashed_keys hashed = digests_of(source, keys, key_use::add);
            if (hashed.to_record) options.keys = *hashed.to_record;
            py::gil_scoped_release unlocked;
            return filter(any_filter(F(hashed.digests, options)));
        } else {
            throw argument_type_error("a " + kind_traits<F>::name() +
                                      " is sized, then takes keys: make it with a size");
        }
    });
}

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
        const py::str word{std::string(kind_traits<F>::word)};
        if (kinds.contains(word)) return;
        py::dict entry;
        entry["summary"] = std::string(kind_traits<F>::summary);
        entry["capabilities"] = capabilities_dict(capabilities_of<F>());
        kinds[word] = entry;
    });
    return kinds;
}

/// A filter's bytes in `format`, read under its lock (and, for a map, checked whole after).
std::vector<std::byte> bytes_of(const filter& f, const std::string& format) {
    const auto held = f.reading();
    std::vector<std::byte> bytes = io::write_as(format, f.get());
    if (const guarded_map* map = f.mapping()) map->require_whole();
    return bytes;
}

void bind_queries(py::class_<filter>& c) {
    c.def("__contains__", [](const filter& f, py::handle key) {
        const hashed_keys k = f.digest(key, key_use::query);
        bool answer = false;
        f.contains(k.digests, std::span<bool>(&answer, 1));
        return answer;
    });
    c.def("contains_many", [](const filter& f, py::handle keys) {
        const hashed_keys k = f.digests(keys, key_use::query);
        return answered(k.digests.size(), [&](std::span<bool> answers) { f.contains(k.digests, answers); });
    });
    c.def("_contains_at", [](const filter& f, py::handle keys, double seconds) {
        const std::chrono::system_clock::time_point t = args::moment(seconds);
        const hashed_keys k = f.digests(keys, key_use::query);
        return answered(k.digests.size(), [&](std::span<bool> answers) {
            const auto held = f.reading();
            with_forgetting(f.get(), [&](const auto& w) {
                for (std::size_t i = 0; i < answers.size(); ++i) answers[i] = w.contains_digest(k.digests[i], t);
            });
        });
    });
    c.def("count", [](const filter& f, py::handle key) {
        const hashed_keys k = f.digest(key, key_use::query);
        std::uint64_t n = 0;
        const auto held = f.reading();
        bloomkit::count(f.get(), std::span<const bloomkit::digest>(k.digests), std::span<std::uint64_t>(&n, 1));
        if (const guarded_map* map = f.mapping()) map->require_whole();
        return n;
    });
}

void bind_changes(py::class_<filter>& c) {
    c.def("add", [](filter& f, py::handle key) { f.insert(f.digest(key, key_use::add)); });
    c.def("update", [](filter& f, py::handle keys) {
        const hashed_keys k = f.digests(keys, key_use::add);
        py::gil_scoped_release unlocked;
        f.insert(k);
    });
    c.def("_add_at", [](filter& f, py::handle keys, double seconds) {
        const std::chrono::system_clock::time_point t = args::moment(seconds);
        const hashed_keys k = f.digests(keys, key_use::add);
        if (k.to_record) f.record(*k.to_record);
        return answered(k.digests.size(), [&](std::span<bool> added) {
            any_filter& target = f.to_change();
            const auto held = f.writing();
            with_forgetting(target, [&](auto& w) {
                for (std::size_t i = 0; i < added.size(); ++i) added[i] = w.insert_digest(k.digests[i], t);
            });
        });
    });
    c.def("add_many", [](filter& f, py::handle keys) {
        const hashed_keys k = f.digests(keys, key_use::add);
        return answered(k.digests.size(), [&](std::span<bool> added) { f.insert(k, added); });
    });
    c.def("_remove", [](filter& f, py::handle key) {
        const hashed_keys k = f.digest(key, key_use::query);
        any_filter& target = f.to_change();
        const auto held = f.writing();
        return bloomkit::remove(target, std::span<const bloomkit::digest>(k.digests)) == 1;
    });
    c.def("_remove_many", [](filter& f, py::handle keys) {
        const hashed_keys k = f.digests(keys, key_use::query);
        any_filter& target = f.to_change();
        py::gil_scoped_release unlocked;
        const auto held = f.writing();
        return bloomkit::remove(target, std::span<const bloomkit::digest>(k.digests));
    });
    c.def("clear", [](filter& f) {
        any_filter& target = f.to_change();
        const auto held = f.writing();
        std::visit(
            [](auto& x) {
                if constexpr (requires { x.clear(); }) x.clear();
                else
                    throw invalid_argument("a " + kind_traits<std::decay_t<decltype(x)>>::name() +
                                           " cannot be cleared");
            },
            target);
    });
    c.def("_merge", [](filter& f, py::handle other_value) {
        const filter& other = filter_argument(other_value, "the other filter");
        if (&f == &other) return;  // a union with itself is itself (and one lock, not two)
        any_filter& target = f.to_change();
        const auto held = locked_in_order(f, other);
        bloomkit::merge(target, other.get());
    });
    c.def("_intersect", [](filter& f, py::handle other_value) {
        const filter& other = filter_argument(other_value, "the other filter");
        if (&f == &other) return;
        any_filter& target = f.to_change();
        const auto held = locked_in_order(f, other);
        bloomkit::intersect(target, other.get());
    });
}

void bind_properties(py::class_<filter>& c) {
    c.def_property_readonly(
        "kind",
        [](const filter& f) {
            return std::visit([](const auto& x) { return std::string(kind_traits<std::decay_t<decltype(x)>>::word); },
                              f.get());
        },
        "The kind's word in the registry: bloom, counting, cuckoo, scalable, windowed or fuse.");
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
    c.def_property(
        "key_format",
        [](const filter& f) -> std::optional<std::string> {
            const auto held = f.reading();
            const key_format k = recorded_key_format(f.get());
            if (k == key_format::unrecorded) return std::nullopt;
            return std::string(to_string(k));
        },
        [](filter& f, py::handle value) {
            const std::optional<key_format> format = key_format_argument(value);
            if (!format) throw invalid_argument("key_format is 'text', 'u64', 'i64' or 'u32', not None");
            f.record(*format);
        },
        "What its keys are, as its file records them: 'text', 'u64', 'i64', 'u32', or None when nothing is recorded "
        "(a new filter records its first key's; set it to say what an older file holds).");
    c.def_property(
        "concurrent", &filter::concurrent_mode,
        [](filter& f, py::handle on) { f.set_concurrent(args::flag(on, "concurrent")); },
        "Concurrent mode: threads insert at once (atomic OR on the words) instead of one after another. Bloom filters "
        "only.");
    c.def_property_readonly("read_only", &filter::mapped, "Whether it is mapped read-only from its file (map()).");
    c.def(
        "fpr", [](const filter& f) { return current_fpr(f.get()); },
        "Its false-positive rate now, at the keys it holds.");
    c.def("_inserted_count", [](const filter& f) { return inserted_count(f.get()); });
    c.def(
        "approx_len", [](const filter& f) { return approximate_count(header_of(f.get())); },
        "The number of distinct keys it holds, estimated (exact for cuckoo and binary fuse filters).");
}

/// The writer lock of the file `path` (the command's: bloomkit/os/writer_lock.hpp), waited for
/// as Python waits — Ctrl-C stops the wait — or, without `wait`, refused at once when another
/// writer holds it (os::file_busy).
os::writer_lock writer_lock_of(const std::filesystem::path& path, bool wait) {
    py::gil_scoped_release unlocked;
    return os::writer_lock(path.string(), wait ? os::writer_lock::if_held::wait : os::writer_lock::if_held::fail,
                           os::writer_lock::missing::leave, {}, [] {
                               const py::gil_scoped_acquire python;
                               if (PyErr_CheckSignals() != 0) throw py::error_already_set();
                           });
}

void bind_files(py::module_& m, py::class_<filter>& c) {
    c.def(
        "to_bytes",
        [](const filter& f, py::handle format) {
            const std::vector<std::byte> bytes = bytes_of(f, args::word(format, "format"));
            return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        },
        py::arg("format") = "bkf");
    c.def(
        "save",
        [](filter& f, py::handle path_value, py::handle format_value, py::handle wait) {
            const std::filesystem::path path = args::path(path_value);
            const std::string format = args::word(format_value, "format");
            const os::writer_lock lock = writer_lock_of(path, args::flag(wait, "wait"));
            f.require_unchanged_source(path);
            if (format != io::bkf_format::word) {
                const std::vector<std::byte> bytes = bytes_of(f, format);
                py::gil_scoped_release unlocked;
                os::replace_file(path, [&](const os::file_descriptor& file) {
                    os::write_all(file, path, bytes.data(), bytes.size());
                });
            } else {
                py::gil_scoped_release unlocked;
                const auto held = f.reading();
                save(f.get(), path, [](int) {});  // under the writer lock taken above
                if (const guarded_map* map = f.mapping()) map->require_whole();
            }
            f.read_from(state_of(path));  // what it holds now is this filter: it may be saved again
        },
        py::arg("path"), py::arg("format") = "bkf", py::arg("wait") = true);
    c.def("__eq__", [](const filter& a, py::handle other) {
        if (!py::isinstance<filter>(other)) return false;
        const filter& b = other.cast<const filter&>();
        if (&a == &b) return true;
        return bytes_of(a, "bkf") == bytes_of(b, "bkf");
    });
    c.def("copy", [](const filter& f) {
        if (!f.mapped()) return filter(f);
        // A mapped filter's copy would view the same map: an owned copy goes through its bytes.
        const std::vector<std::byte> bytes = bytes_of(f, "bkf");
        return filter(from_bytes<any_filter>(bytes, "a mapped filter's copy"));
    });
    c.def("changed", [](const filter& f) { return f.mapping() != nullptr && f.mapping()->map().changed(); });
    c.def("verify", [](const filter& f) {
        if (const guarded_map* map = f.mapping()) {
            map->map().verify();
            map->require_whole();
        }
    });
    m.def(
        "from_bytes",
        [](py::handle data, py::handle format, py::handle funnel, py::handle keys) {
            Py_buffer view;  // a contiguous view: a strided buffer is refused, never read past
            if (PyObject_GetBuffer(data.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) {
                PyErr_Clear();
                throw argument_type_error(
                    "data is a contiguous bytes-like object (bytes, bytearray, a contiguous "
                    "memoryview), not " +
                    args::type_of(data) + (PyObject_CheckBuffer(data.ptr()) ? " with gaps" : ""));
            }
            const std::unique_ptr<Py_buffer, void (*)(Py_buffer*)> held(&view, PyBuffer_Release);
            const std::span<const std::byte> bytes(static_cast<const std::byte*>(view.buf),
                                                   static_cast<std::size_t>(view.len));
            const jobs::filter_reading reading = reading_of(format, funnel, keys);
            std::optional<std::string_view> named;
            if (reading.format != "auto") named = reading.format;
            return filter(with_keys_said(io::read_any(bytes, named, reading.keys, "bytes").filter, reading.keys.keys,
                                         "the bytes"));
        },
        py::arg("data"), py::arg("format") = py::none(), py::arg("funnel") = py::none(),
        py::arg("key_format") = py::none());
    m.def(
        "read_filter",
        [](py::handle path_value, py::handle format, py::handle funnel, py::handle keys) {
            const std::string path = args::path(path_value).string();
            const jobs::filter_reading reading = reading_of(format, funnel, keys);
            py::gil_scoped_release unlocked;
            const std::optional<file_state> before = state_of(path);  // a change while reading shows later
            filter read(with_keys_said(jobs::read_filter(path, reading), reading.keys.keys, path));
            read.read_from(before);
            return read;
        },
        py::arg("path"), py::arg("format") = py::none(), py::arg("funnel") = py::none(),
        py::arg("key_format") = py::none(),
        "The filter a file of any format holds (bkf, Guava, DCSO; gzipped or not), read whole.");
    m.def("map", [](py::handle path_value) {
        const std::filesystem::path path = args::path(path_value);
        return filter(std::make_shared<const guarded_map>(path));
    });
}

}  // namespace

void bind_filter(py::module_& m) {
    py::class_<filter> c(m, "Filter", "A filter of any kind (the Python classes in bloomkit construct it).");
    c.def(py::init([](py::handle other, py::handle take) {
              const filter& source = filter_argument(other, "Filter()'s argument");
              // _take: the Python classes take over what make, build, load, map and from_bytes
              // return, a new filter nothing else holds, without copying it.
              if (arguments::flag(take, "_take")) return filter(std::move(const_cast<filter&>(source)));
              return filter(source);
          }),
          py::arg("other"), py::kw_only(), py::arg("_take") = false,
          "A copy of the filter `other` (a mapped filter's copy shares its read-only map).");
    bind_queries(c);
    bind_changes(c);
    bind_properties(c);
    bind_files(m, c);
    m.def(
        "make",
        [](py::handle kind, py::handle n, py::handle p, py::handle layout, py::handle bits, py::handle arity,
           py::handle seed, py::handle funnel, py::handle keys, py::handle window, py::handle generations) {
            return make(request_of(kind, layout, bits, arity, window, generations), args::count(n, "expected_items"),
                        args::rate(p, "false_positive_rate"), options_of(seed, funnel, keys));
        },
        py::arg("kind"), py::arg("n"), py::arg("p"), py::arg("layout") = py::none(), py::arg("bits") = py::none(),
        py::arg("arity") = py::none(), py::arg("seed") = py::none(), py::arg("funnel") = py::none(),
        py::arg("key_format") = py::none(), py::arg("window") = py::none(), py::arg("generations") = py::none());
    m.def(
        "build",
        [](py::handle kind, py::handle keys, py::handle bits, py::handle arity, py::handle seed,
           py::handle key_format) {
            return build(request_of(kind, py::none(), bits, arity), keys, 0.5,
                         options_of(seed, py::none(), key_format));
        },
        py::arg("kind"), py::arg("keys"), py::arg("bits") = py::none(), py::arg("arity") = py::none(),
        py::arg("seed") = py::none(), py::arg("key_format") = py::none());
    m.def(
        "plan",
        [](py::handle kind, py::handle n_value, py::handle p_value, py::handle layout, py::handle bits,
           py::handle arity) {
            const kind_request request = request_of(kind, layout, bits, arity);
            const double n = args::real(n_value, "expected_items");
            const double p = args::rate(p_value, "false_positive_rate");
            if (!(n >= 1))
                throw invalid_argument("expected_items is at least 1, not " + std::string(py::repr(n_value)));
            const kind_plan plan = with_requested_type(
                request, p, [&](auto type) { return kind_traits<typename decltype(type)::type>::plan(n, p, request); });
            py::dict out;
            out["bytes"] = plan.bytes;
            out["fpr"] = plan.fpr;
            out["hashes"] = plan.hashes;
            out["fingerprint_bits"] = plan.fingerprint_bits;
            return out;
        },
        py::arg("kind"), py::arg("n"), py::arg("p"), py::arg("layout") = py::none(), py::arg("bits") = py::none(),
        py::arg("arity") = py::none(),
        "What a filter of the kind would cost for n keys at rate p, without making it: bytes, the modelled fpr, "
        "hashes (Bloom kinds) and fingerprint_bits (cuckoo, fuse).");
    m.def("kinds", &registry, "The registry: each kind's word, summary and capabilities.");
}

}  // namespace bloomkit::python
