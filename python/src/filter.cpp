// python/src/filter.cpp — see filter.hpp.
#include "filter.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

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

#include "bloomkit/any_filter.hpp"
#include "bloomkit/bulk.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/formats.hpp"
#include "bloomkit/io/any_codec.hpp"
#include "bloomkit/io/bkf.hpp"
#include "bloomkit/kinds.hpp"
#include "keys.hpp"

namespace bloomkit::python {
namespace {

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

/// The filter of the kind `request` names, for n keys at rate p (a kind that takes keys after it
/// is made; binary fuse filters are built from theirs, build()).
/// The Guava funnel named `word` ("utf8", "chars", "int", "long", "bytes").
guava_funnel funnel_named(const std::string& word) {
    if (const guava_funnel funnel = guava_funnel_named(word); funnel != guava_funnel::none) return funnel;
    throw invalid_argument("unknown Guava funnel '" + word + "': choose utf8, chars, int, long or bytes");
}

filter make(const kind_request& request, std::uint64_t n, double p, std::optional<std::uint64_t> seed,
            const std::optional<std::string>& funnel = std::nullopt) {
    filter_options options;
    if (seed) options.seed = *seed;
    if (funnel) options.funnel = funnel_named(*funnel);
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
            const hasher hash(options.hash.value_or(default_hash_algorithm), options.seed);  // as F will hash
            key_source source{hash, key_format::unrecorded, [&](key_format k) { options.keys = k; }};
            const std::vector<digest> digests = digests_of(source, keys, true);
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

void bind_queries(py::class_<filter>& c) {
    c.def("__contains__", [](filter& f, py::handle key) {
        const digest d = f.one(key, false);
        bool answer = false;
        f.contains(std::span<const digest>(&d, 1), std::span<bool>(&answer, 1));
        return answer;
    });
    c.def("contains_many", [](filter& f, py::handle keys) {
        const std::vector<digest> d = f.digests(keys, false);
        return answered(d.size(), [&](std::span<bool> answers) { f.contains(d, answers); });
    });
    c.def("count", [](filter& f, py::handle key) {
        const digest d = f.one(key, false);
        std::uint64_t n = 0;
        const auto held = f.reading();
        bloomkit::count(f.get(), std::span<const digest>(&d, 1), std::span<std::uint64_t>(&n, 1));
        return n;
    });
}

void bind_changes(py::class_<filter>& c) {
    c.def("add", [](filter& f, py::handle key) {
        const digest d = f.one(key, true);
        f.insert(std::span<const digest>(&d, 1));
    });
    c.def("update", [](filter& f, py::handle keys) {
        const std::vector<digest> d = f.digests(keys, true);
        py::gil_scoped_release unlocked;
        f.insert(d);
    });
    c.def("add_many", [](filter& f, py::handle keys) {
        const std::vector<digest> d = f.digests(keys, true);
        return answered(d.size(), [&](std::span<bool> added) { f.insert(d, added); });
    });
    c.def("_remove", [](filter& f, py::handle key) {
        const digest d = f.one(key, false);
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
            const key_format k = recorded_key_format(f.get());
            if (k == key_format::unrecorded) return std::nullopt;
            return std::string(to_string(k));
        },
        "What its keys are, as its file records them: 'text', 'u64', 'i64', or None before its first key.");
    c.def_property("concurrent", &filter::concurrent_mode, &filter::set_concurrent,
                   "Concurrent mode: threads insert at once (atomic OR on the words) instead of one after another. "
                   "Bloom filters only.");
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
    c.def(
        "to_bytes",
        [](const filter& f, const std::string& format) {
            const auto held = f.reading();
            const std::vector<std::byte> bytes = io::write_as(format, f.get());
            return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        },
        py::arg("format") = "bkf");
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
    m.def(
        "from_bytes",
        [](py::buffer data, std::optional<std::string> format, const std::string& funnel) {
            const py::buffer_info info = data.request();
            const std::span<const std::byte> bytes(static_cast<const std::byte*>(info.ptr),
                                                   static_cast<std::size_t>(info.size));
            std::optional<std::string_view> named;
            if (format) named = *format;
            return filter(io::read_any(bytes, named, {funnel_named(funnel)}, "bytes").filter);
        },
        py::arg("data"), py::arg("format") = py::none(), py::arg("funnel") = "utf8");
    m.def("load", [](const std::filesystem::path& path) {
        py::gil_scoped_release unlocked;
        return filter(load<any_filter>(path));
    });
    m.def("map", [](const std::filesystem::path& path) {
        return filter(std::make_shared<const mapped_filter<any_filter>>(map<any_filter>(path)));
    });
}

}  // namespace

void bind_filter(py::module_& m) {
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
           std::optional<std::uint32_t> bits, std::optional<std::uint32_t> arity, std::optional<std::uint64_t> seed,
           std::optional<std::string> funnel) {
            return make({kind, layout_of(layout), bits, arity}, n, p, seed, funnel);
        },
        py::arg("kind"), py::arg("n"), py::arg("p"), py::arg("layout") = py::none(), py::arg("bits") = py::none(),
        py::arg("arity") = py::none(), py::arg("seed") = py::none(), py::arg("funnel") = py::none());
    m.def(
        "build",
        [](const std::string& kind, py::handle keys, double p, std::optional<std::uint32_t> bits,
           std::optional<std::uint32_t> arity, std::optional<std::uint64_t> seed) {
            return build({kind, std::nullopt, bits, arity}, keys, p, seed);
        },
        py::arg("kind"), py::arg("keys"), py::arg("p"), py::arg("bits") = py::none(), py::arg("arity") = py::none(),
        py::arg("seed") = py::none());
    m.def(
        "plan",
        [](const std::string& kind, double n, double p, std::optional<std::string> layout,
           std::optional<std::uint32_t> bits, std::optional<std::uint32_t> arity) {
            const kind_request request{kind, layout_of(layout), bits, arity};
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
