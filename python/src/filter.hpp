// python/src/filter.hpp — bloomkit._bloomkit.Filter: one class over bloomkit::any_filter, so that
// every kind of the registry (kinds.hpp) is bound by the same code, and a kind added to the
// registry is in Python without a line here. Batches go through the runtime bulk API (bulk.hpp)
// with the GIL released; keys through the one key model (keys.hpp). The Python classes
// (BloomFilter, ...) are constructors in bloomkit/__init__.py.
#pragma once

#include <pybind11/pybind11.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/bulk.hpp"
#include "bloomkit/file.hpp"
#include "errors.hpp"
#include "fork_safe_lock.hpp"
#include "keys.hpp"
#include "mapped_guard.hpp"

namespace bloomkit::python {

/// What a file was when a filter was read from it, so that saving the filter back refuses to
/// replace what another writer (a `bloomkit add`, another process's save) made of the file in
/// between: the keys it added would be lost.
struct file_state {
    std::string path;  ///< absolute
    std::uint64_t device = 0, inode = 0, size = 0;
    std::int64_t modified_ns = 0;
    friend bool operator==(const file_state&, const file_state&) = default;
};

/// The state of the regular file `path` names now; nullopt when there is none.
std::optional<file_state> state_of(const std::filesystem::path& path);

/// A filter of any kind, owned or read-only in a memory map of its file. Calls that change it
/// take its lock exclusively, queries share it: bulk calls run without the GIL, so two Python
/// threads may be in the C++ filter at once, and only Bloom filters' inserts are safe to run
/// together there. A copy is a filter of its own (a mapped one shares the read-only map).
class filter {
public:
    explicit filter(any_filter owned) : held_(std::move(owned)) {}
    explicit filter(std::shared_ptr<const guarded_map> mapped) : held_(std::move(mapped)) {}
    filter(const filter& other);
    /// Takes `other`'s filter over, leaving it refusing every call (a new filter made by make,
    /// load, ... is taken, never copied; nothing else is taken from).
    filter(filter&& other);
    filter& operator=(const filter&) = delete;

    [[nodiscard]] const any_filter& get() const {
        require_held();
        if (const auto* owned = std::get_if<any_filter>(&held_)) return *owned;
        return std::get<1>(held_)->filter();
    }
    [[nodiscard]] any_filter& to_change() {
        require_held();
        if (auto* owned = std::get_if<any_filter>(&held_)) return *owned;
        throw argument_type_error("this filter is mapped read-only from its file: load() it to change it");
    }
    [[nodiscard]] bool mapped() const noexcept { return !taken_ && !std::holds_alternative<any_filter>(held_); }
    /// The map of a mapped filter; null for an owned one.
    [[nodiscard]] const guarded_map* mapping() const noexcept { return mapped() ? std::get<1>(held_).get() : nullptr; }

    /// The keys as the bindings read them (keys.hpp), against what the filter records now.
    [[nodiscard]] hashed_keys digests(py::handle keys, key_use use) const;
    [[nodiscard]] hashed_keys digest(py::handle key, key_use use) const;
    /// What the keys are checked against: the hash, the record, and (for an add to a filter that
    /// records none) whether it holds keys.
    [[nodiscard]] key_source source(key_use use) const;

    /// Inserts keys hashed by digests(): records the format they bring first (on a filter that
    /// records none), then inserts them alone, or in concurrent mode beside other threads'
    /// inserts (the kinds whose words take atomic ORs). `added`, when given, says which were new.
    void insert(const hashed_keys& keys, std::span<bool> added = {});
    /// Writes whether each key may be in the filter. Throws for a map whose file shrank.
    void contains(std::span<const bloomkit::digest> digests, std::span<bool> answers) const;
    /// Records the key format of a filter that records none; refuses to change one.
    void record(key_format keys);

    /// The file it was read from, as it was then; set by the readers and by save().
    void read_from(std::optional<file_state> state) { read_from_ = std::move(state); }
    /// Throws bloomkit::error unless `path` may be replaced by this filter: it is not the file
    /// the filter was read from, or that file is as it was then. The caller holds the file's
    /// writer lock.
    void require_unchanged_source(const std::filesystem::path& path) const;

    /// Concurrent mode: inserts share the lock with each other and with lookups.
    void set_concurrent(bool on);
    [[nodiscard]] bool concurrent_mode() const noexcept { return concurrent_; }

    [[nodiscard]] std::shared_lock<fork_safe_lock> reading() const { return std::shared_lock(*lock_); }
    [[nodiscard]] std::unique_lock<fork_safe_lock> writing() const { return std::unique_lock(*lock_); }

private:
    [[nodiscard]] std::variant<any_filter, std::shared_ptr<const guarded_map>> copied() const;
    [[nodiscard]] std::variant<any_filter, std::shared_ptr<const guarded_map>> taken();
    void require_held() const {
        if (taken_) throw invalid_argument("this native filter was taken over by another Filter object");
    }

    std::variant<any_filter, std::shared_ptr<const guarded_map>> held_;
    bool taken_ = false;
    std::optional<file_state> read_from_;
    std::unique_ptr<fork_safe_lock> lock_ = std::make_unique<fork_safe_lock>();
    bool concurrent_ = false;
};

/// Adds Filter, make, build, load, map, from_bytes and kinds to `m`.
void bind_filter(pybind11::module_& m);

}  // namespace bloomkit::python
