// python/src/redis_filter.cpp — see redis_filter.hpp.
#include "redis_filter.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <unistd.h>

#include "arguments.hpp"
#include "bloomkit/redis.hpp"
#include "bloomkit/redis_windowed.hpp"
#include "errors.hpp"
#include "filter.hpp"
#include "fork_safe_lock.hpp"
#include "keys.hpp"

namespace bloomkit::python {
namespace {

/// Seconds as Python gives them, in the client's whole milliseconds: rounded up, so that a
/// timeout below one stays a timeout (0 is none at all to hiredis). To the microsecond first,
/// so that 1.1 s, 1100.0000000000002 ms in a double, is 1100 ms.
std::chrono::milliseconds timeout_of(double seconds) {
    const double longest = std::chrono::duration<double>(redis::connection_options::longest_timeout).count();
    if (!(seconds > 0) || !(seconds <= longest)) {
        std::ostringstream shown;
        shown << seconds;
        throw invalid_argument("timeout must be a number of seconds above 0 and at most ten years, not " + shown.str());
    }
    return std::chrono::milliseconds(std::max<long long>(1, (std::llround(seconds * 1e6) + 999) / 1000));
}

/// Where a filter lives: the arguments every constructor takes.
struct where {
    std::string url;
    bool cluster = false;
    std::string user, password;
    double timeout = 5;

    [[nodiscard]] redis::connection_options options() const {
        redis::connection_options o;
        o.url = url, o.cluster = cluster, o.user = user, o.password = password;
        o.command_timeout = timeout_of(timeout);
        return o;
    }
};

where where_of(py::handle url, py::handle cluster, py::handle user, py::handle password, py::handle timeout) {
    return {arguments::word(url, "url"), arguments::flag(cluster, "cluster"), arguments::word(user, "user"),
            arguments::word(password, "password"), arguments::real(timeout, "timeout")};
}

using redis::shared_filter;

/// A Redis filter and the client it talks through, one call at a time. The client belongs to
/// the process that made it: after a fork (multiprocessing, gunicorn --preload, Celery) the
/// child's first call connects anew, so that two processes never read each other's replies on
/// one socket.
class redis_filter {
public:
    using opener = std::function<shared_filter(redis::client&)>;

    redis_filter(where at, const opener& open) : at_(std::move(at)) { connect(open); }

    /// run(filter) — with the filter of whichever kind it is — in this process's connection,
    /// holding the filter's lock. No Python code runs meanwhile: run never calls back into
    /// Python (the keys were read before).
    template <class Run>
    auto locked(Run run) {
        const std::lock_guard held(lock_);
        if (::getpid() != pid_) {
            const std::string name = std::visit([](const auto& f) { return f.name(); }, *filter_);
            connect([&](redis::client& c) { return redis::open_shared(c, name); });
        }
        return std::visit(run, *filter_);
    }

    /// The filter's keys as the bindings read them: what NAME:meta records now (a filter that
    /// records nothing may have been recorded by another client since this one opened it).
    key_source keys(key_use use) {
        return locked([&](auto& r) {
            const key_format recorded = r.refresh_key_format();
            const bool holds = use == key_use::add && recorded == key_format::unrecorded && !r.empty();
            return key_source{r.hash_function(), recorded, holds};
        });
    }

    /// Another handle of the same filter, with a connection of its own.
    [[nodiscard]] std::unique_ptr<redis_filter> reopened() {
        const std::string name = locked([](const auto& r) { return r.name(); });
        return std::make_unique<redis_filter>(at_, [&](redis::client& c) { return redis::open_shared(c, name); });
    }

private:
    void connect(const opener& open) {
        // An inherited client is left to the parent: closing its socket here sends nothing.
        filter_.reset();
        client_ = std::make_unique<redis::client>(at_.options());
        filter_.emplace(open(*client_));
        pid_ = ::getpid();
    }

    where at_;
    std::unique_ptr<redis::client> client_;  // before the filter, which refers to it
    std::optional<shared_filter> filter_;
    fork_safe_lock lock_;  // free in a forked child, which then connects anew
    pid_t pid_ = 0;
};

/// Reads and hashes keys without holding the filter's lock (reading them may run Python code:
/// a generator asking this very filter, a key function), then runs `run` with the digests and
/// the GIL released, recording the key format they bring first.
template <class Run>
py::array_t<bool> with_keys(redis_filter& f, py::handle keys, key_use use, Run run) {
    const hashed_keys k = digests_of(f.keys(use), keys, use);
    return answered(k.digests.size(), [&](std::span<bool> answers) {
        f.locked([&](auto& r) {
            if (k.to_record) {
                r.record_key_format(*k.to_record);  // or finds another writer's, recorded since
                require_fit(r.recorded_key_format(), k);
            }
            run(r, k.digests, answers);
        });
    });
}

/// `now` as a call takes it: None (the server's clock) or Unix seconds.
std::optional<std::chrono::system_clock::time_point> now_of(py::handle now) {
    if (now.is_none()) return std::nullopt;
    return arguments::moment(arguments::real(now, "now"));
}

/// The calls of either kind, a windowed filter's at `now` (or its server's clock); a block
/// filter has no time.
void add_digests(redis::bloom_filter& r, const std::vector<digest>& d, bool* added,
                 const std::optional<std::chrono::system_clock::time_point>&) {
    r.insert_digests(d, added);
}
void add_digests(redis::windowed_filter& r, const std::vector<digest>& d, bool* added,
                 const std::optional<std::chrono::system_clock::time_point>& now) {
    r.insert_digests(d, added, now.value_or(r.server_time()));
}
void ask_digests(const redis::bloom_filter& r, const std::vector<digest>& d, bool* answers,
                 const std::optional<std::chrono::system_clock::time_point>&) {
    r.contains_digests(d, answers);
}
void ask_digests(const redis::windowed_filter& r, const std::vector<digest>& d, bool* answers,
                 const std::optional<std::chrono::system_clock::time_point>& now) {
    r.contains_digests(d, answers, now.value_or(r.server_time()));
}

void bind_calls(py::class_<redis_filter>& c) {
    const auto add = [](redis_filter& f, py::handle keys, py::handle now) {
        const auto t = now_of(now);
        return with_keys(f, keys, key_use::add, [&](auto& r, const std::vector<digest>& d, std::span<bool> added) {
            add_digests(r, d, added.data(), t);
        });
    };
    c.def(
        "update", [add](redis_filter& f, py::handle keys, py::handle now) { (void)add(f, keys, now); }, py::arg("keys"),
        py::arg("now") = py::none());
    c.def("add_many", add, py::arg("keys"), py::arg("now") = py::none());
    c.def(
        "contains_many",
        [](redis_filter& f, py::handle keys, py::handle now) {
            const auto t = now_of(now);
            return with_keys(f, keys, key_use::query,
                             [&](const auto& r, const std::vector<digest>& d, std::span<bool> answers) {
                                 ask_digests(r, d, answers.data(), t);
                             });
        },
        py::arg("keys"), py::arg("now") = py::none());
    c.def("clear", [](redis_filter& f) {
        py::gil_scoped_release unlocked;
        f.locked([](auto& r) { r.clear(); });
    });
    c.def("fpr", [](redis_filter& f) {
        py::gil_scoped_release unlocked;
        return f.locked([](const auto& r) { return r.current_fpr(); });
    });
    c.def("approx_len", [](redis_filter& f) {
        py::gil_scoped_release unlocked;
        return f.locked([](const auto& r) { return r.approximate_count(); });
    });
    c.def("pull", [](redis_filter& f) {
        py::gil_scoped_release unlocked;
        return filter(f.locked([](const auto& r) { return any_filter(r.pull()); }));
    });
    c.def("reopened", [](redis_filter& f) {
        py::gil_scoped_release unlocked;
        return f.reopened();
    });
}

void bind_description(py::class_<redis_filter>& c) {
    const auto described = [](auto get) {
        return [get](redis_filter& f) {
            py::gil_scoped_release unlocked;
            return f.locked([&](const auto& r) { return get(r.description()); });
        };
    };
    c.def_property_readonly("name", described([](const redis::filter_description& d) { return d.name; }));
    c.def_property_readonly("bits", described([](const redis::filter_description& d) { return d.geometry.bits; }));
    c.def_property_readonly("hashes", described([](const redis::filter_description& d) { return d.geometry.hashes; }));
    c.def_property_readonly(
        "nbytes", described([](const redis::filter_description& d) { return d.geometry.bits / 8 * d.slots(); }));
    c.def_property_readonly("window", described([](const redis::filter_description& d) -> std::optional<double> {
                                if (d.generations == 0) return std::nullopt;
                                return static_cast<double>(d.window_ms) / 1000;
                            }));
    c.def_property_readonly("generations",
                            described([](const redis::filter_description& d) -> std::optional<std::uint32_t> {
                                if (d.generations == 0) return std::nullopt;
                                return d.generations;
                            }));
    c.def_property_readonly("shards", described([](const redis::filter_description& d) { return d.shards; }));
    c.def_property_readonly("seed", described([](const redis::filter_description& d) { return d.seed; }));
    c.def_property_readonly("expected_items",
                            described([](const redis::filter_description& d) { return d.target.expected_keys; }));
    c.def_property_readonly("target_fpr", described([](const redis::filter_description& d) { return d.target.fpr; }));
    c.def_property_readonly("key_format", [](redis_filter& f) -> std::optional<std::string> {
        const key_format keys = [&] {
            py::gil_scoped_release unlocked;
            return f.locked([](auto& r) { return r.refresh_key_format(); });
        }();
        if (keys == key_format::unrecorded) return std::nullopt;
        return std::string(to_string(keys));
    });
}

/// The key format a word names, or none for None (as the local filters take key_format=).
key_format key_format_argument(py::handle value) {
    const std::optional<std::string> word = arguments::optional_word(value, "key_format");
    if (!word) return key_format::unrecorded;
    if (const std::optional<key_format> format = key_format_named(*word)) return *format;
    throw invalid_argument("key_format is 'text', 'u64', 'i64' or 'u32', not '" + *word + "'");
}

}  // namespace

void bind_redis_filter(py::module_& m) {
    py::class_<redis_filter> c(m, "RedisFilter", "A Bloom filter shared through Redis (bloomkit.RedisBloomFilter).");
    c.def_static(
        "create",
        [](py::handle name, py::handle n, py::handle p, py::handle url, py::handle cluster, py::handle user,
           py::handle password, py::handle timeout, py::handle seed, py::handle shard_bytes, py::handle keys,
           py::handle window, py::handle generations) {
            const std::string named = arguments::word(name, "name");
            const std::uint64_t expected = arguments::count(n, "expected_items");
            const double fpr = arguments::rate(p, "false_positive_rate");
            redis::filter_options options;
            if (const auto s = arguments::seed(seed)) options.hashing.seed = *s;
            if (const auto bytes = arguments::optional_count(shard_bytes, "shard_bytes"))
                options.max_shard_bytes = *bytes;
            options.hashing.keys = key_format_argument(keys);
            const std::optional<std::chrono::milliseconds> span =
                window.is_none() ? std::nullopt : std::optional(arguments::window(window));
            const auto cut = static_cast<std::uint32_t>(arguments::count(generations, "generations"));
            const where at = where_of(url, cluster, user, password, timeout);
            py::gil_scoped_release unlocked;
            return std::make_unique<redis_filter>(at, [&](redis::client& client) -> shared_filter {
                if (span) return redis::windowed_filter::create(client, named, expected, fpr, *span, cut, options);
                return redis::bloom_filter::create(client, named, expected, fpr, options);
            });
        },
        py::arg("name"), py::arg("n"), py::arg("p"), py::arg("url"), py::arg("cluster"), py::arg("user"),
        py::arg("password"), py::arg("timeout"), py::arg("seed"), py::arg("shard_bytes"), py::arg("key_format"),
        py::arg("window") = py::none(), py::arg("generations") = 4);
    c.def_static("open", [](py::handle name, py::handle url, py::handle cluster, py::handle user, py::handle password,
                            py::handle timeout) {
        const std::string named = arguments::word(name, "name");
        const where at = where_of(url, cluster, user, password, timeout);
        py::gil_scoped_release unlocked;
        return std::make_unique<redis_filter>(at,
                                              [&](redis::client& client) { return redis::open_shared(client, named); });
    });
    c.def_static("push", [](py::handle local_value, py::handle name, py::handle url, py::handle cluster,
                            py::handle user, py::handle password, py::handle timeout, py::handle shard_bytes) {
        if (!py::isinstance<filter>(local_value))
            throw argument_type_error("push takes a local BloomFilter, not " + arguments::type_of(local_value));
        const filter& local = local_value.cast<const filter&>();
        const auto* block = std::get_if<block_bloom_filter>(&local.get());
        const auto* windowed = std::get_if<windowed_filter>(&local.get());
        if (block == nullptr && windowed == nullptr)
            throw argument_type_error("only a block Bloom filter or a windowed filter can be pushed to Redis, not a " +
                                      kind_name(local.get()));
        const std::string named = arguments::word(name, "name");
        redis::filter_options options;
        if (const auto bytes = arguments::optional_count(shard_bytes, "shard_bytes")) options.max_shard_bytes = *bytes;
        const where at = where_of(url, cluster, user, password, timeout);
        py::gil_scoped_release unlocked;
        const auto held = local.reading();
        return std::make_unique<redis_filter>(at, [&](redis::client& client) -> shared_filter {
            if (block) return redis::bloom_filter::push(client, named, *block, options);
            return redis::windowed_filter::push(client, named, *windowed, options);
        });
    });
    c.def_static("drop", [](py::handle name, py::handle url, py::handle cluster, py::handle user, py::handle password,
                            py::handle timeout) {
        const std::string named = arguments::word(name, "name");
        const where at = where_of(url, cluster, user, password, timeout);
        py::gil_scoped_release unlocked;
        redis::client client(at.options());
        return redis::bloom_filter::drop(client, named);
    });
    bind_calls(c);
    bind_description(c);
}

}  // namespace bloomkit::python
