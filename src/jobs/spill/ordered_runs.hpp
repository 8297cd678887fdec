// src/jobs/spill/ordered_runs.hpp — puts the lines an exact job keeps back in input order (of
// their first position), when they were found a part at a time in hash order: each part's lines
// are sorted in memory (line_table::sorted_by_position) and written as a run; the runs are then
// merged, smallest position first (a k-way merge over a heap: one record of each run in memory,
// read through a buffer of its own). A job whose input made one part only prints it at once.
//
// However many parts there are, at most F runs (128, fewer in a small memory: each needs a 4 KiB
// buffer in half the memory) are merged at once, and as few files are open: F runs of one level
// are merged into one run of the next as soon as they are there, as a binary counter carries, so
// each line is written about log_F(parts) times more.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jobs/spill/line_table.hpp"
#include "jobs/spill/memory_budget.hpp"
#include "jobs/spill/spill_file.hpp"

namespace bloomkit::jobs::spill {

class ordered_runs {
public:
    using printer = std::function<void(std::string_view text)>;

    /// Runs go to files in `directory`; merging uses at most `memory.merge()`.
    ordered_runs(std::string directory, memory_budget memory, printer print);
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
    struct leveled_run {
        unsigned level;  // runs of level L + 1 are merges of F runs of level L
        std::unique_ptr<spill_file> file;
    };

    [[nodiscard]] std::unique_ptr<spill_file> new_run() const;
    static void write_line(spill_file& run, std::uint64_t position, std::string_view text);
    void compact();
    void merge(std::vector<std::unique_ptr<spill_file>>& runs,
               const std::function<void(std::uint64_t, std::string_view)>& emit) const;

    std::string directory_;
    memory_budget memory_;
    std::size_t fan_in_;
    printer print_;
    std::vector<leveled_run> runs_;
    std::uint64_t lines_ = 0;
};

}  // namespace bloomkit::jobs::spill
