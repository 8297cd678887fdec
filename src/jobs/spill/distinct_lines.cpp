// src/jobs/spill/distinct_lines.cpp — see distinct_lines.hpp.
#include "jobs/spill/distinct_lines.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <bit>

namespace bloomkit::jobs::spill {
namespace {

constexpr std::uint64_t largest_fanout = 256;
constexpr std::uint64_t smallest_buffer = 4096, largest_buffer = std::uint64_t{1} << 20;
constexpr std::uint64_t unknown_input_fanout = 64;
// Levels of partitioning, at most: each level divides a part by its fanout (2 at the least),
// so only lines sharing their whole 64-bit hash could need more.
constexpr unsigned deepest_level = 16;

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

std::uint64_t buffers_budget(std::uint64_t memory) noexcept { return memory / 8; }
std::uint64_t reader_buffer(std::uint64_t memory) noexcept {
    return std::clamp(memory / 16, smallest_buffer, largest_buffer);
}

}  // namespace

line_exceeds_memory::line_exceeds_memory(std::uint64_t line_bytes, std::uint64_t memory)
    : error(fmt::format("a line of {} bytes does not fit in the {} bytes of memory the job may use: give it "
                        "at least {} bytes",
                        line_bytes, memory, (line_table::entry_bytes(line_bytes) + (1u << 16)) * 4 / 3 + 4096)),
      line_bytes_(line_bytes) {}

struct distinct_lines::partitions {
    unsigned level = 0;
    unsigned bits = 0;
    std::vector<std::unique_ptr<spill_file>> files;

    void write(const line_record& record) { write_record(*files[partition_of(record.hash, level, bits)], record); }
};

distinct_lines::distinct_lines(spill_limits limits, std::uint64_t input_bytes)
    : limits_(std::move(limits)), input_bytes_(input_bytes), table_(table_budget(limits_.memory)) {}

distinct_lines::~distinct_lines() = default;

std::unique_ptr<distinct_lines::partitions> distinct_lines::partitions_for(unsigned level, std::uint64_t bytes) {
    if (level > deepest_level)
        throw error(
            "the exact job cannot split its lines into parts that fit in memory (do many lines share "
            "one 64-bit hash?)");
    const auto target = static_cast<double>(table_.budget()) / 2;
    std::uint64_t fanout =
        bytes == 0
            ? unknown_input_fanout
            : std::bit_ceil(static_cast<std::uint64_t>(static_cast<double>(bytes) * record_overhead / target) + 1);
    const std::uint64_t affordable = std::max<std::uint64_t>(2, buffers_budget(limits_.memory) / smallest_buffer);
    fanout = std::clamp<std::uint64_t>(fanout, 2, std::min(largest_fanout, std::bit_floor(affordable)));
    const std::uint64_t buffer = std::clamp(buffers_budget(limits_.memory) / fanout, smallest_buffer, largest_buffer);
    auto made = std::make_unique<partitions>();
    made->level = level;
    made->bits = static_cast<unsigned>(std::countr_zero(fanout));
    for (std::uint64_t i = 0; i < fanout; ++i)
        made->files.push_back(std::make_unique<spill_file>(limits_.directory, static_cast<std::size_t>(buffer)));
    statistics_.levels = std::max(statistics_.levels, level + 1);
    return made;
}

void distinct_lines::add(const line_record& record) {
    if (table_.add(record)) return;
    if (!table_.could_hold(record.text.size())) throw line_exceeds_memory(record.text.size(), limits_.memory);
    if (!top_) top_ = partitions_for(0, input_bytes_);
    spill(*top_);
    if (!table_.add(record)) throw line_exceeds_memory(record.text.size(), limits_.memory);  // could_hold said it fits
}

void distinct_lines::spill(partitions& into) {
    table_.for_each([&](const table_entry& entry) { into.write(entry.record()); });
    table_.clear();
    ++statistics_.spills;
}

void distinct_lines::for_each_part(const std::function<void(line_table&)>& visit) {
    if (!top_) {
        ++statistics_.parts;
        visit(table_);
        return;
    }
    spill(*top_);
    solve(*top_, visit);
    top_.reset();
}

void distinct_lines::solve(partitions& parts, const std::function<void(line_table&)>& visit) {
    for (auto& file : parts.files) {
        file->finish_writing();  // its buffer is free for the reading
        statistics_.bytes_spilled += file->size();
    }
    for (auto& file : parts.files) {
        std::unique_ptr<partitions> split;  // made when the part does not fit in the table
        {
            record_reader records(*file, static_cast<std::size_t>(reader_buffer(limits_.memory)));
            line_record record;
            while (records.next(record)) {
                if (table_.add(record)) continue;
                if (!split) split = partitions_for(parts.level + 1, file->size());
                spill(*split);
                if (!table_.add(record)) throw line_exceeds_memory(record.text.size(), limits_.memory);
            }
        }
        file.reset();  // its disk space is free
        if (split) {
            spill(*split);
            solve(*split, visit);
        } else if (!table_.empty()) {
            ++statistics_.parts;
            visit(table_);
            table_.clear();
        }
    }
}

}  // namespace bloomkit::jobs::spill
