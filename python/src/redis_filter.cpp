// python/src/redis_filter.cpp — see redis_filter.hpp.
#include "redis_filter.hpp"

#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/redis.hpp"
#include "filter.hpp"
#include "keys.hpp"

namespace bloomkit::python {
namespace {

/// Where a filter lives: the arguments every constructor takes.
struct where {
    std::string url;
    bool cluster = false;
    std::string user, password;
    double timeout = 5;

    [[nodiscard]] redis::connection_options options() const {
        redis::connection_options o;
        o.url = url, o.cluster = cluster, o.user = user, o.password = password;
        o.command_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(timeout * 1000));
        return o;
    }
};

redis::filter_options filter_options_of(std::optional<std::uint64_t> seed, std::optional<std::uint64_t> shard_bytes) {
    redis::filter_options o;
    if (seed) o.hashing.seed = *seed;
    if (shard_bytes) o.max_shard_bytes = *shard_bytes;
    return o;
}

/// A Redis filter and the client it talks through, one call at a time.
class redis_filter {
public:
    template <class Open>
    redis_filter(const where& at, Open open) : client_(std::make_unique<redis::client>(at.options())) {
        filter_.emplace(open(*client_));
    }

    template <class Run>
    auto locked(Run run) {
        const std::lock_guard held(lock_);
        return run(*filter_);
    }

    key_source keys() {
        return {filter_->hash_function(), filter_->recorded_key_format(),
                [this](key_format k) { filter_->record_key_format(k); }};
    }

private:
    std::unique_ptr<redis::client> client_;  // before the filter, which refers to it
    std::optional<redis::bloom_filter> filter_;
    std::mutex lock_;
};

std::vector<digest> digests(redis_filter& f, py::handle keys, bool recording) {
    return f.locked([&](redis::bloom_filter&) {
        key_source source = f.keys();
        return digests_of(source, keys, recording);
    });
}

void bind_calls(py::class_<redis_filter>& c) {
    c.def("update", [](redis_filter& f, py::handle keys) {
        const std::vector<digest> d = digests(f, keys, true);
        (void)answered(d.size(), [&](std::span<bool> added) {  // each add's answer is asked of Redis anyway
            f.locked([&](redis::bloom_filter& r) { r.insert_digests(d, added.data()); });
        });
    });
    c.def("add_many", [](redis_filter& f, py::handle keys) {
        const std::vector<digest> d = digests(f, keys, true);
        return answered(d.size(), [&](std::span<bool> added) {
            f.locked([&](redis::bloom_filter& r) { r.insert_digests(d, added.data()); });
        });
    });
    c.def("contains_many", [](redis_filter& f, py::handle keys) {
        const std::vector<digest> d = digests(f, keys, false);
        return answered(d.size(), [&](std::span<bool> answers) {
            f.locked([&](redis::bloom_filter& r) { r.contains_digests(d, answers.data()); });
        });
    });
    c.def("clear", [](redis_filter& f) {
        py::gil_scoped_release unlocked;
        f.locked([](redis::bloom_filter& r) { r.clear(); });
    });
    c.def("fpr", [](redis_filter& f) {
        py::gil_scoped_release unlocked;
        return f.locked([](redis::bloom_filter& r) { return r.current_fpr(); });
    });
    c.def("approx_len", [](redis_filter& f) {
        py::gil_scoped_release unlocked;
        return f.locked([](redis::bloom_filter& r) { return r.approximate_count(); });
    });
    c.def("pull", [](redis_filter& f) {
        py::gil_scoped_release unlocked;
        return filter(any_filter(f.locked([](redis::bloom_filter& r) { return r.pull(); })));
    });
}

void bind_description(py::class_<redis_filter>& c) {
    const auto described = [](auto get) {
        return
            [get](redis_filter& f) { return f.locked([&](redis::bloom_filter& r) { return get(r.description()); }); };
    };
    c.def_property_readonly("name", described([](const redis::filter_description& d) { return d.name; }));
    c.def_property_readonly("bits", described([](const redis::filter_description& d) { return d.geometry.bits; }));
    c.def_property_readonly("hashes", described([](const redis::filter_description& d) { return d.geometry.hashes; }));
    c.def_property_readonly("nbytes",
                            described([](const redis::filter_description& d) { return d.geometry.bits / 8; }));
    c.def_property_readonly("shards", described([](const redis::filter_description& d) { return d.shards; }));
    c.def_property_readonly("seed", described([](const redis::filter_description& d) { return d.seed; }));
    c.def_property_readonly("expected_items",
                            described([](const redis::filter_description& d) { return d.target.expected_keys; }));
    c.def_property_readonly("target_fpr", described([](const redis::filter_description& d) { return d.target.fpr; }));
    c.def_property_readonly("key_format",
                            described([](const redis::filter_description& d) -> std::optional<std::string> {
                                if (d.keys == key_format::unrecorded) return std::nullopt;
                                return std::string(to_string(d.keys));
                            }));
}

}  // namespace

void bind_redis_filter(py::module_& m) {
    py::class_<redis_filter> c(m, "RedisFilter", "A Bloom filter shared through Redis (bloomkit.RedisBloomFilter).");
    const auto at = [](std::string url, bool cluster, std::string user, std::string password, double timeout) {
        return where{std::move(url), cluster, std::move(user), std::move(password), timeout};
    };
    c.def_static(
        "create",
        [at](std::string name, std::uint64_t n, double p, std::string url, bool cluster, std::string user,
             std::string password, double timeout, std::optional<std::uint64_t> seed,
             std::optional<std::uint64_t> shard_bytes) {
            py::gil_scoped_release unlocked;
            return std::make_unique<redis_filter>(
                at(url, cluster, user, password, timeout), [&](redis::client& client) {
                    return redis::bloom_filter::create(client, name, n, p, filter_options_of(seed, shard_bytes));
                });
        },
        py::arg("name"), py::arg("n"), py::arg("p"), py::arg("url"), py::arg("cluster"), py::arg("user"),
        py::arg("password"), py::arg("timeout"), py::arg("seed"), py::arg("shard_bytes"));
    c.def_static("open", [at](std::string name, std::string url, bool cluster, std::string user, std::string password,
                              double timeout) {
        py::gil_scoped_release unlocked;
        return std::make_unique<redis_filter>(at(url, cluster, user, password, timeout), [&](redis::client& client) {
            return redis::bloom_filter::open(client, name);
        });
    });
    c.def_static("push", [at](const filter& local, std::string name, std::string url, bool cluster, std::string user,
                              std::string password, double timeout, std::optional<std::uint64_t> shard_bytes) {
        const auto* block = std::get_if<block_bloom_filter>(&local.get());
        if (block == nullptr)
            throw py::type_error("only a block Bloom filter can be pushed to Redis, not a " + kind_name(local.get()));
        py::gil_scoped_release unlocked;
        const auto held = local.reading();
        return std::make_unique<redis_filter>(at(url, cluster, user, password, timeout), [&](redis::client& client) {
            return redis::bloom_filter::push(client, name, *block, filter_options_of(std::nullopt, shard_bytes));
        });
    });
    c.def_static("drop", [at](std::string name, std::string url, bool cluster, std::string user, std::string password,
                              double timeout) {
        py::gil_scoped_release unlocked;
        redis::client client(at(url, cluster, user, password, timeout).options());
        return redis::bloom_filter::drop(client, name);
    });
    bind_calls(c);
    bind_description(c);
}

}  // namespace bloomkit::python
