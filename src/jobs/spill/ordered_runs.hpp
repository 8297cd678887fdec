// src/jobs/spill/ordered_runs.hpp — puts the lines an exact job keeps back in input order (of
// their first position), when they were found a part at a time in hash order: each part's lines
// are sorted in memory (line_table::sorted_by_position) and written as a run; the runs are then
// merged, smallest position first (a k-way merge over a heap: one record of each run in memory,
// read through a buffer of its own). A job whose input made one part only prints it at once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jobs/spill/line_table.hpp"
#include "jobs/spill/spill_file.hpp"

namespace bloomkit::jobs::spill {

class ordered_runs {
public:
    using printer = std::function<void(std::string_view text)>;

    /// Runs go to files in `limits.directory`; merging uses at most about half of `memory`.
    ordered_runs(std::string directory, std::uint64_t memory, printer print);
    ~ordered_runs();
    ordered_runs(const ordered_runs&) = delete;
    ordered_runs& operator=(const ordered_runs&) = delete;

    /// One part's kept lines, by position. A part that is the whole input (`whole`) is printed
    /// at once.
    void add(std::span<const table_entry* const> lines, bool whole);

    /// Prints every run's lines, merged by position.
    void finish();

    /// Lines added.
    [[nodiscard]] std::uint64_t size() const noexcept { return lines_; }

private:
    std::string directory_;
    std::uint64_t memory_;
    printer print_;
    std::vector<std::unique_ptr<spill_file>> runs_;
    std::uint64_t lines_ = 0;
};

}  // namespace bloomkit::jobs::spill
