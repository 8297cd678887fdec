// python/src/filter.hpp — bloomkit._bloomkit.Filter: one class over bloomkit::any_filter, so that
// every kind of the registry (kinds.hpp) is bound by the same code, and a kind added to the
// registry is in Python without a line here. Batches go through the runtime bulk API (bulk.hpp)
// with the GIL released. The Python classes (BloomFilter, ...) are constructors in
// bloomkit/__init__.py.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/bulk.hpp"
#include "bloomkit/file.hpp"
#include "keys.hpp"

namespace bloomkit::python {

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

    /// Its keys as the bindings read them (keys.hpp): a first key recorded only if it can change.
    [[nodiscard]] key_source keys() {
        key_source source{hash_function(get()), recorded_key_format(get()), {}};
        if (!mapped()) source.record = [this](key_format k) { record_key_format(std::get<any_filter>(held_), k); };
        return source;
    }
    std::vector<digest> digests(py::handle keys, bool recording) {
        key_source source = this->keys();
        return digests_of(source, keys, recording);
    }
    digest one(py::handle key, bool recording) {
        key_source source = keys();
        return digest_of(source, key, recording);
    }

    /// Inserts the keys of `digests`: alone, or in concurrent mode beside other threads' inserts
    /// (the kinds whose words take atomic ORs). `added`, when given, says which were new.
    void insert(std::span<const digest> digests, std::span<bool> added = {}) {
        any_filter& target = to_change();
        if (concurrent_) {
            const auto held = reading();
            (void)bloomkit::insert(target, digests, concurrent, added);
        } else {
            const auto held = writing();
            (void)bloomkit::insert(target, digests, added);
        }
    }
    void contains(std::span<const digest> digests, std::span<bool> answers) const {
        const auto held = reading();
        if (concurrent_) bloomkit::contains(get(), digests, answers, concurrent);
        else bloomkit::contains(get(), digests, answers);
    }
    /// Concurrent mode: inserts share the lock with each other and with lookups.
    void set_concurrent(bool on) {
        if (on && !capabilities(get()).concurrent)
            throw py::type_error("a " + kind_name(get()) + " cannot take keys from several threads at once");
        concurrent_ = on;
    }
    [[nodiscard]] bool concurrent_mode() const noexcept { return concurrent_; }

    [[nodiscard]] std::shared_lock<std::shared_mutex> reading() const { return std::shared_lock(*lock_); }
    [[nodiscard]] std::unique_lock<std::shared_mutex> writing() const { return std::unique_lock(*lock_); }

private:
    std::variant<any_filter, std::shared_ptr<const mapped_filter<any_filter>>> held_;
    std::unique_ptr<std::shared_mutex> lock_ = std::make_unique<std::shared_mutex>();
    bool concurrent_ = false;
};

/// Adds Filter, make, build, load, map, from_bytes and kinds to `m`.
void bind_filter(pybind11::module_& m);

}  // namespace bloomkit::python
