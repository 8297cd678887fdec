// src/jobs/spill/ordered_runs.cpp — see ordered_runs.hpp. A run's record: the position (8 bytes,
// little-endian), the text's length (8 bytes) and the text.
#include "jobs/spill/ordered_runs.hpp"

#include <algorithm>
#include <cstring>
#include <queue>

namespace bloomkit::jobs::spill {
namespace {

// One run being merged: its reader and the position of its next line.
struct run_cursor {
    spill_reader reader;
    std::uint64_t position = 0;
    bool next() {
        if (reader.at_end()) return false;
        position = load_le64(reader.take(8));
        return true;
    }
    std::string_view text() {
        const auto size = static_cast<std::size_t>(load_le64(reader.take(8)));
        return {reader.take(size), size};
    }
};

}  // namespace

ordered_runs::ordered_runs(std::string directory, memory_budget memory, printer print)
    : directory_(std::move(directory)),
      memory_(memory),
      fan_in_(static_cast<std::size_t>(std::clamp<std::uint64_t>(memory.merge() / smallest_buffer, 2, 128))),
      print_(std::move(print)) {}

ordered_runs::~ordered_runs() = default;

std::unique_ptr<spill_file> ordered_runs::new_run() const {
    return std::make_unique<spill_file>(directory_, static_cast<std::size_t>(memory_.stream_buffer()));
}

void ordered_runs::write_line(spill_file& run, std::uint64_t position, std::string_view text) {
    char head[16];
    store_le64(head, position);
    store_le64(head + 8, text.size());
    run.append(head, sizeof head);
    run.append(text.data(), text.size());
}

void ordered_runs::add(std::span<const table_entry* const> lines, bool whole) {
    lines_ += lines.size();
    if (whole) {
        for (const table_entry* line : lines) print_(line->text());
        return;
    }
    if (lines.empty()) return;
    auto run = new_run();
    for (const table_entry* line : lines) write_line(*run, line->position, line->text());
    run->finish_writing();
    runs_.push_back({0, std::move(run)});
    compact();
}

void ordered_runs::compact() {
    for (unsigned level = 0;; ++level) {
        const auto at_level = [level](const leveled_run& run) { return run.level == level; };
        if (static_cast<std::size_t>(std::ranges::count_if(runs_, at_level)) < fan_in_) return;
        std::vector<std::unique_ptr<spill_file>> same;
        for (auto& run : runs_)
            if (at_level(run)) same.push_back(std::move(run.file));
        std::erase_if(runs_, at_level);
        auto merged = new_run();
        merge(same, [&](std::uint64_t position, std::string_view text) { write_line(*merged, position, text); });
        merged->finish_writing();
        runs_.push_back({level + 1, std::move(merged)});
    }
}

void ordered_runs::finish() {
    std::vector<std::unique_ptr<spill_file>> all;
    for (auto& run : runs_) all.push_back(std::move(run.file));
    runs_.clear();
    merge(all, [&](std::uint64_t, std::string_view text) { print_(text); });
}

void ordered_runs::merge(std::vector<std::unique_ptr<spill_file>>& runs,
                         const std::function<void(std::uint64_t, std::string_view)>& emit) const {
    if (runs.empty()) return;
    const std::uint64_t buffer = buffer_of(memory_.merge() / runs.size());
    std::vector<run_cursor> cursors;
    cursors.reserve(runs.size());
    for (const auto& run : runs) cursors.push_back({spill_reader(*run, static_cast<std::size_t>(buffer))});
    const auto later = [&](std::size_t a, std::size_t b) { return cursors[a].position > cursors[b].position; };
    std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> next(later);
    for (std::size_t i = 0; i < cursors.size(); ++i)
        if (cursors[i].next()) next.push(i);
    while (!next.empty()) {
        const std::size_t i = next.top();
        next.pop();
        emit(cursors[i].position, cursors[i].text());
        if (cursors[i].next()) next.push(i);
    }
    cursors.clear();
    runs.clear();  // their disk space is free
}

}  // namespace bloomkit::jobs::spill
