// src/jobs/spill/distinct_lines.cpp — see distinct_lines.hpp.
#include "jobs/spill/distinct_lines.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <exception>
#include <system_error>
#include <thread>

#include "jobs/progress.hpp"

namespace bloomkit::jobs::spill {
namespace {

constexpr std::uint64_t largest_fanout = 256;
constexpr std::uint64_t unknown_input_fanout = 64;
// Levels of partitioning, at most: each level divides a part by its fanout (2 at the least),
// so only lines sharing their whole 64-bit hash could need more.
constexpr unsigned deepest_level = 16;
// Records between the one folded and the one whose index slot is prefetched.
constexpr std::size_t fold_prefetch_distance = 8;

// The bytes a record of a line takes on disk beyond the line, about (line_record.hpp).
constexpr double record_overhead = 1.25;

// Which of 2^bits partitions a hash goes to at `level`: the top bits of the hash rotated by a
// different amount at each level, times the golden ratio (Fibonacci hashing, Knuth TAOCP 6.4), so
// that the lines that share a partition at one level are spread again at the next. The table's
// index takes the hash's low bits, which these top bits hardly predict.
std::size_t partition_of(std::uint64_t hash, unsigned level, unsigned bits) noexcept {
    return static_cast<std::size_t>((std::rotl(hash, static_cast<int>(7 + 17 * level)) * 0x9e3779b97f4a7c15ULL) >>
                                    (64 - bits));
}

}  // namespace

line_exceeds_memory::line_exceeds_memory(std::uint64_t line_bytes, std::uint64_t memory, std::uint64_t needed)
    : error(fmt::format("a line of {} bytes does not fit in the {} bytes of memory the job may use: give it "
                        "at least {} bytes",
                        line_bytes, memory, needed)),
      line_bytes_(line_bytes),
      needed_(needed) {}

struct distinct_lines::partitions {
    unsigned level = 0;
    unsigned bits = 0;
    std::vector<std::unique_ptr<spill_file>> files;

    void write(const line_record& record) { write_record(*files[partition_of(record.hash, level, bits)], record); }
};

distinct_lines::distinct_lines(spill_limits limits, std::uint64_t input_bytes)
    : limits_(std::move(limits)),
      input_bytes_(input_bytes),
      solvers_(std::max(1u, limits_.threads)),
      table_(budget().table()) {}

distinct_lines::~distinct_lines() = default;

std::unique_ptr<distinct_lines::partitions> distinct_lines::partitions_for(unsigned level, std::uint64_t bytes,
                                                                           std::uint64_t buffers) {
    if (level > deepest_level)
        throw error(
            "the exact job cannot split its lines into parts that fit in memory (do many lines share "
            "one 64-bit hash?)");
    const auto target = static_cast<double>(solver_budget().table()) / 2;
    std::uint64_t fanout =
        bytes == 0
            ? unknown_input_fanout
            : std::bit_ceil(static_cast<std::uint64_t>(static_cast<double>(bytes) * record_overhead / target) + 1);
    const std::uint64_t affordable = std::max<std::uint64_t>(2, buffers / smallest_buffer);
    fanout = std::clamp<std::uint64_t>(fanout, 2, std::min(largest_fanout, std::bit_floor(affordable)));
    const std::uint64_t buffer = buffer_of(buffers / fanout);
    auto made = std::make_unique<partitions>();
    made->level = level;
    made->bits = static_cast<unsigned>(std::countr_zero(fanout));
    for (std::uint64_t i = 0; i < fanout; ++i)
        made->files.push_back(std::make_unique<spill_file>(limits_.directory, static_cast<std::size_t>(buffer)));
    const std::lock_guard lock(mutex_);
    statistics_.levels = std::max(statistics_.levels, level + 1);
    return made;
}

void distinct_lines::refuse(std::uint64_t line_bytes) const {
    throw line_exceeds_memory(line_bytes, limits_.memory, memory_budget::to_hold(line_bytes));
}

void distinct_lines::choose_solvers() noexcept {
    constexpr std::uint64_t least_share = std::uint64_t{1} << 20;
    const std::uint64_t share = std::max(least_share, line_table::budget_to_hold(longest_));
    solvers_ =
        static_cast<unsigned>(std::clamp<std::uint64_t>(budget().table() / share, 1, std::max(1u, limits_.threads)));
}

void distinct_lines::add(const line_record& record) {
    longest_ = std::max<std::uint64_t>(longest_, record.text.size());
    if (table_.add(record)) return;
    if (!table_.could_hold(record.text.size())) refuse(record.text.size());
    if (!top_) top_ = partitions_for(0, input_bytes_, budget().partition_buffers());
    spill(table_, *top_);
    if (!table_.add(record)) refuse(record.text.size());  // could_hold said it fits
}

void distinct_lines::spill(line_table& table, partitions& into) {
    table.for_each([&](const table_entry& entry) { into.write(entry.record()); });
    table.clear();
    const std::lock_guard lock(mutex_);
    ++statistics_.spills;
}

void distinct_lines::finish_writing(partitions& parts) {
    std::uint64_t bytes = 0;
    for (auto& file : parts.files) {
        file->finish_writing();  // its buffer is free for the reading
        bytes += file->size();
    }
    const std::lock_guard lock(mutex_);
    statistics_.bytes_spilled += bytes;
}

void distinct_lines::for_each_part(const std::function<void(line_table&)>& visit) {
    if (!top_) {
        ++statistics_.parts;
        visit(table_);
        return;
    }
    spill(table_, *top_);
    finish_writing(*top_);
    table_.release();  // its memory goes to the solvers' tables
    choose_solvers();
    solve_in_parallel(*top_, visit);
    top_.reset();
}

void distinct_lines::solve_in_parallel(partitions& parts, const std::function<void(line_table&)>& visit) {
    progress shown("folding partitions", statistics_.bytes_spilled);
    std::uint64_t folded = 0;  // bytes of the first level's partitions done, under mutex_
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr failure;
    const auto solver = [&] {
        try {
            line_table table(solver_budget().table());
            for (std::size_t i; !failed && (i = next++) < parts.files.size();) {
                const std::uint64_t bytes = parts.files[i]->size();
                solve(std::move(parts.files[i]), parts.level, table, visit);
                const std::lock_guard lock(mutex_);
                shown.update(folded += bytes);
            }
        } catch (...) {
            const std::lock_guard lock(mutex_);
            if (!failure) failure = std::current_exception();
            failed = true;
        }
    };
    {
        std::vector<std::jthread> helpers;
        for (unsigned i = 1; i < solvers_; ++i) {
            try {
                helpers.emplace_back(solver);
            } catch (const std::system_error&) {
                break;  // fewer solvers, each within its share of the budget all the same
            }
        }
        solver();
    }
    if (failure) std::rethrow_exception(failure);
}

void distinct_lines::solve(std::unique_ptr<spill_file> file, unsigned level, line_table& table,
                           const std::function<void(line_table&)>& visit) {
    std::unique_ptr<partitions> split;  // made when the part does not fit in the table
    {
        record_reader records(*file, static_cast<std::size_t>(solver_budget().stream_buffer()));
        line_record record;
        while (records.next(record)) {
            // A line's slot in the index is a cache miss; asked for a few records early, it
            // overlaps with the records between (as the reading does with the lines ahead).
            if (const auto ahead = records.hash_ahead(fold_prefetch_distance)) table.prefetch(*ahead);
            if (table.add(record)) continue;
            if (!split) split = partitions_for(level + 1, file->size(), solver_budget().partition_buffers());
            spill(table, *split);
            if (!table.add(record)) refuse(record.text.size());  // choose_solvers() made room for it
        }
    }
    file.reset();  // its disk space is free
    if (split) {
        spill(table, *split);
        finish_writing(*split);
        for (auto& part : split->files) solve(std::move(part), level + 1, table, visit);
    } else if (!table.empty()) {
        {
            const std::lock_guard lock(mutex_);
            ++statistics_.parts;
            visit(table);
        }
        table.clear();
    }
}

}  // namespace bloomkit::jobs::spill
