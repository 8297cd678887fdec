// python/src/mapped_guard.hpp — a filter queried in place in a memory map of its file, whose
// reads survive another program truncating the file (cp over it, `: > file`, a sync tool).
//
// A read of a mapped page past the file's new end raises SIGBUS, which would kill the
// interpreter. The module's SIGBUS handler finds the faulting address in one of the maps it
// guards, puts a page of zeros in its place (so that the read completes) and marks the map
// damaged; every query checks the mark after reading and raises bloomkit.FormatError instead of
// answering from zeros. A SIGBUS at any other address goes to the handler that was there before
// (Python's faulthandler, or the default action).
#pragma once

#include <atomic>
#include <filesystem>
#include <string>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/file.hpp"

namespace bloomkit::python {

/// A filter mapped read-only from its file, guarded against the file shrinking.
class guarded_map {
public:
    /// Maps `path` (map<any_filter>) and guards its bytes.
    explicit guarded_map(const std::filesystem::path& path);
    ~guarded_map();
    guarded_map(const guarded_map&) = delete;
    guarded_map& operator=(const guarded_map&) = delete;

    [[nodiscard]] const any_filter& filter() const noexcept { return map_.filter(); }
    [[nodiscard]] const mapped_filter<any_filter>& map() const noexcept { return map_; }

    /// Throws file_format_error when a read of the map faulted: the file shrank since it was
    /// mapped, and what was read of it cannot be trusted.
    void require_whole() const;

private:
    mapped_filter<any_filter> map_;
    std::string path_;
    int slot_;  // in the handler's table
};

}  // namespace bloomkit::python
