// src/jobs/spill/distinct_lines.hpp — the distinct lines of inputs of any size, folded
// (line_record.hpp) in a fixed amount of memory: the engine of the exact jobs.
//
// Grace hash partitioning (Kitsuregawa, Tanaka and Moto-oka, "Application of hash to data base
// machine and its architecture", 1983), made adaptive:
//   - Lines are folded into a line_table. Input whose distinct lines fit never touches the disk.
//   - When the table is full, its entries are spilled to P partition files, routed by their hash
//     (the digest the job computed once per line: the same one a pruning filter is asked with), and
//     the table starts again. It goes on folding between spills, so a line repeated a billion
//     times costs one record per spill, whatever the skew.
//   - At the end, each partition is folded back into the table alone. One that still does not fit
//     (skewed data, a bad guess of the input's size) is split again, by other bits of the hash,
//     into the partitions of the next level, recursively.
// Every line's records meet in exactly one part, so each part the visitor sees is complete: its
// lines' counts, first positions and tags are those of the whole input.
//
// Memory (memory_budget.hpp): the table, the partitions' write buffers and the read buffer. P is
// chosen so that a partition of the expected input fills about half a solver's table (at most
// 256, and fewer when the buffers would not fit in their share). With T threads, up to T solvers
// fold partitions at once, each with 1/T of the budget — fewer when the longest line would not fit
// such a share (or a share would be under 1 MiB): the answer never depends on T.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "jobs/spill/line_table.hpp"
#include "jobs/spill/memory_budget.hpp"
#include "jobs/spill/spill_file.hpp"

namespace bloomkit::jobs::spill {

/// What an exact job is given, each once: where it may spill, how much memory it may use
/// (memory_budget.hpp divides it), and how many threads may read, hash and fold the parts back.
struct spill_limits {
    std::string directory;
    std::uint64_t memory = 0;
    unsigned threads = 1;
};

/// Thrown for a line too long for the memory the job was given.
class line_exceeds_memory : public error {
public:
    /// `memory`: what the job was given; `needed`: what would hold the line.
    line_exceeds_memory(std::uint64_t line_bytes, std::uint64_t memory, std::uint64_t needed);
    [[nodiscard]] std::uint64_t line_bytes() const noexcept { return line_bytes_; }
    [[nodiscard]] std::uint64_t needed() const noexcept { return needed_; }

private:
    std::uint64_t line_bytes_, needed_;
};

struct spill_statistics {
    std::uint64_t spills = 0;         // times the table was written out
    std::uint64_t bytes_spilled = 0;  // to partition files, every level
    std::uint64_t parts = 0;          // visited
    unsigned levels = 0;              // of partitioning: 0 when nothing was spilled
};

class distinct_lines {
public:
    /// `input_bytes`: about how many bytes of lines will be added (0: not known), to choose how
    /// many partitions a spill makes.
    distinct_lines(spill_limits limits, std::uint64_t input_bytes);
    ~distinct_lines();
    distinct_lines(const distinct_lines&) = delete;
    distinct_lines& operator=(const distinct_lines&) = delete;

    /// Folds a record in. Throws line_exceeds_memory, or io_error when spilling fails.
    void add(const line_record& record);

    /// Whether the table was ever spilled: if not, it holds every line added so far.
    [[nodiscard]] bool spilled() const noexcept { return top_ != nullptr; }

    /// The table (while nothing is spilled, every line added so far).
    [[nodiscard]] line_table& table() noexcept { return table_; }

    /// Calls visit(table) once for each part of the distinct lines, every line in exactly one
    /// part, the table holding that part alone. Called once, last. With several threads the
    /// parts are folded at once, each in a table of its own (the budget shared between them),
    /// and the calls to visit come one at a time, in no particular order.
    void for_each_part(const std::function<void(line_table&)>& visit);

    [[nodiscard]] const spill_statistics& statistics() const noexcept { return statistics_; }

private:
    struct partitions;

    void spill(line_table& table, partitions& into);
    void finish_writing(partitions& parts);
    void solve_in_parallel(partitions& parts, const std::function<void(line_table&)>& visit);
    void solve(std::unique_ptr<spill_file> file, unsigned level, line_table& table,
               const std::function<void(line_table&)>& visit);
    [[nodiscard]] std::unique_ptr<partitions> partitions_for(unsigned level, std::uint64_t bytes,
                                                             std::uint64_t buffers);
    [[nodiscard]] memory_budget budget() const noexcept { return memory_budget(limits_.memory); }
    [[nodiscard]] memory_budget solver_budget() const noexcept { return budget().share(solvers_); }
    void choose_solvers() noexcept;
    [[noreturn]] void refuse(std::uint64_t line_bytes) const;

    spill_limits limits_;
    std::uint64_t input_bytes_;
    unsigned solvers_;
    line_table table_;  // while the lines come; its memory goes to the solvers' at the end
    std::unique_ptr<partitions> top_;
    std::uint64_t longest_ = 0;  // line added, for the solvers' tables to hold
    std::mutex mutex_;           // statistics_, and the calls to the visitor
    spill_statistics statistics_;
};

}  // namespace bloomkit::jobs::spill
