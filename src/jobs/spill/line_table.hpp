// src/jobs/spill/line_table.hpp — the distinct lines an exact job holds in memory, each with its
// count, first position and tags (line_record.hpp), in no more bytes than it is given.
//
// The entries live one after another in an arena — a 32-byte head, then the text, 8-aligned —
// so that memory follows the data whatever the lines' lengths (an integer key costs 40 bytes, a
// 100-byte URL 136), and so that spilling the table is a sequential walk. An open-addressing
// index (linear probing, at most 70% full) maps a hash to its entry: 8 bytes a slot holding the
// entry's offset and the hash's upper 32 bits, so that a probe rarely touches an entry that is
// not the one sought. The index doubles as it fills, while the budget allows both the old and the
// new index beside the arena; when it does not, or the arena is full, add() says so and the caller
// spills (distinct_lines.hpp). The memory is mapped untouched, so a small input costs little.
//
// When the table is complete, sorted_by_position() orders the entries a job keeps in the index's
// own memory (there are fewer entries than slots): ordering costs nothing beyond the budget. Often
// there is nothing to sort: when the lines come in input order, the entries are made in order of
// first position — a spill writes them in that order, and a part is folded back in it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "jobs/spill/line_record.hpp"

namespace bloomkit::jobs::spill {

struct table_entry {
    std::uint64_t hash;
    std::uint64_t position;
    std::uint64_t count;
    std::uint32_t size;
    std::uint8_t tags;

    [[nodiscard]] std::string_view text() const noexcept { return {reinterpret_cast<const char*>(this + 1), size}; }
    [[nodiscard]] line_record record() const noexcept { return {hash, position, count, tags, text()}; }
};

class line_table {
public:
    /// A table that never holds more than `budget` bytes (arena and index).
    explicit line_table(std::uint64_t budget);
    ~line_table();
    line_table(const line_table&) = delete;
    line_table& operator=(const line_table&) = delete;

    /// Folds `record` into the entry of its line, or a new entry. Returns false, changing
    /// nothing, when a new entry does not fit.
    bool add(const line_record& record);

    /// The entry of a line, or null.
    [[nodiscard]] table_entry* find(std::uint64_t hash, std::string_view text) noexcept;

    /// Starts loading the index slot a hash probes first: a table of millions of lines is a cache
    /// miss per lookup, which prefetching a few lines ahead overlaps.
    void prefetch(std::uint64_t hash) const noexcept {
        if (capacity_ != 0) __builtin_prefetch(&slots_[hash & (capacity_ - 1)]);
    }

    /// Calls visit(const table_entry&) for every entry, in the order they were made.
    template <class Visit>
    void for_each(Visit visit) const {
        for (std::uint64_t at = 0; at < used_;) {
            const auto* entry = reinterpret_cast<const table_entry*>(arena_ + at);
            visit(*entry);
            at += entry_bytes(entry->size);
        }
    }

    /// The entries for which keep(entry) is true, by position. The table can only be cleared
    /// or released afterwards (the order is kept in the index's memory).
    template <class Keep>
    std::span<const table_entry* const> sorted_by_position(Keep keep) {
        std::size_t kept = 0;
        auto** order = begin_ordering();
        for_each([&](const table_entry& entry) {
            if (keep(entry)) order[kept++] = &entry;
        });
        return finish_ordering(order, kept);
    }

    /// Distinct lines held.
    [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    [[nodiscard]] std::uint64_t budget() const noexcept { return budget_; }

    /// Whether a line of `size` bytes could be held by an empty table.
    [[nodiscard]] bool could_hold(std::size_t size) const noexcept;

    /// The smallest budget whose empty table holds a line of `size` bytes (its entry and the
    /// first index, twice while it grows).
    static constexpr std::uint64_t budget_to_hold(std::uint64_t size) noexcept { return entry_bytes(size) + 16384; }

    /// Empties the table, keeping its memory for the next use.
    void clear() noexcept;

    /// Empties the table and gives its memory back to the system.
    void release() noexcept;

    /// The bytes an entry of a text of `size` bytes takes in the arena.
    static constexpr std::uint64_t entry_bytes(std::uint64_t size) noexcept {
        return sizeof(table_entry) + ((size + 7) & ~std::uint64_t{7});
    }

private:
    const table_entry** begin_ordering();
    std::span<const table_entry* const> finish_ordering(const table_entry** order, std::size_t kept);
    bool reserve_slot();
    void rehash(std::uint64_t capacity);
    [[nodiscard]] std::uint64_t index_bytes(std::uint64_t capacity) const noexcept { return capacity * 8; }

    std::uint64_t budget_;
    char* arena_ = nullptr;  // budget_ bytes reserved, touched as used
    std::uint64_t used_ = 0;
    std::uint64_t* slots_ = nullptr;
    std::uint64_t capacity_ = 0;  // slots, a power of two
    std::uint64_t size_ = 0;
};

}  // namespace bloomkit::jobs::spill
