// src/jobs/spill/line_table.cpp — see line_table.hpp.
#include "jobs/spill/line_table.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace bloomkit::jobs::spill {
namespace {

constexpr std::uint64_t first_capacity = 1024;
// A slot's low 32 bits are the entry's offset in 8-byte units, plus one (0: empty): the arena
// holds at most 2^32 - 1 such units.
constexpr std::uint64_t largest_arena = (std::uint64_t{1} << 35) - 8;

// Memory mapped but untouched: pages cost nothing until written, and read as zeros.
void* map_untouched(std::uint64_t bytes) {
    void* at = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (at == MAP_FAILED) throw std::bad_alloc();
    return at;
}

}  // namespace

line_table::line_table(std::uint64_t budget)
    : budget_(budget), arena_(static_cast<char*>(map_untouched(std::min(budget, largest_arena)))) {}

line_table::~line_table() {
    ::munmap(arena_, std::min(budget_, largest_arena));
    if (slots_ != nullptr) ::munmap(slots_, index_bytes(capacity_));
}

table_entry* line_table::find(std::uint64_t hash, std::string_view text) noexcept {
    if (capacity_ == 0) return nullptr;
    const std::uint64_t mask = capacity_ - 1, tag = hash >> 32;
    for (std::uint64_t i = hash & mask;; i = (i + 1) & mask) {
        const std::uint64_t slot = slots_[i];
        if (slot == 0) return nullptr;
        if (slot >> 32 != tag) continue;
        auto* entry = reinterpret_cast<table_entry*>(arena_ + ((slot & 0xffffffffu) - 1) * 8);
        if (entry->hash == hash && entry->text() == text) return entry;
    }
}

bool line_table::add(const line_record& record) {
    if (table_entry* entry = find(record.hash, record.text)) {
        entry->count = record.count > ~entry->count ? ~std::uint64_t{0} : entry->count + record.count;
        entry->position = std::min(entry->position, record.position);
        entry->tags |= record.tags;
        return true;
    }
    const std::uint64_t bytes = entry_bytes(record.text.size());
    if (size_ == 0 && capacity_ > first_capacity && bytes + index_bytes(capacity_) > budget_) {
        ::munmap(slots_, index_bytes(capacity_));  // an index grown for many short lines, cleared: the
        slots_ = nullptr;                          // first line of a new round may be a long one
        capacity_ = 0;
    }
    if (record.text.size() > 0xffffffffu || !reserve_slot()) return false;
    if (used_ + bytes + index_bytes(capacity_) > budget_ || used_ + bytes > largest_arena) return false;
    auto* entry = reinterpret_cast<table_entry*>(arena_ + used_);
    *entry = {record.hash, record.position, record.count, static_cast<std::uint32_t>(record.text.size()), record.tags};
    if (!record.text.empty()) std::memcpy(entry + 1, record.text.data(), record.text.size());
    const std::uint64_t mask = capacity_ - 1;
    std::uint64_t i = record.hash & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = (record.hash >> 32) << 32 | (used_ / 8 + 1);
    used_ += bytes;
    ++size_;
    return true;
}

bool line_table::reserve_slot() {
    if ((size_ + 1) * 10 <= capacity_ * 7) return true;
    const std::uint64_t grown = std::max(first_capacity, capacity_ * 2);
    if (used_ + index_bytes(capacity_) + index_bytes(grown) > budget_) return false;  // both live while rehashing
    rehash(grown);
    return true;
}

void line_table::rehash(std::uint64_t capacity) {
    auto* slots = static_cast<std::uint64_t*>(map_untouched(index_bytes(capacity)));
    const std::uint64_t mask = capacity - 1;
    for_each([&](const table_entry& entry) {
        std::uint64_t i = entry.hash & mask;
        while (slots[i] != 0) i = (i + 1) & mask;
        slots[i] = (entry.hash >> 32) << 32 | ((reinterpret_cast<const char*>(&entry) - arena_) / 8 + 1);
    });
    if (slots_ != nullptr) ::munmap(slots_, index_bytes(capacity_));
    slots_ = slots;
    capacity_ = capacity;
}

bool line_table::could_hold(std::size_t size) const noexcept {
    static_assert(budget_to_hold(0) - entry_bytes(0) == 2 * first_capacity * 8);
    return budget_to_hold(size) <= budget_ && entry_bytes(size) <= largest_arena && size <= 0xffffffffu;
}

void line_table::clear() noexcept {
    // Zeroed in place, not given back (MADV_DONTNEED) to be faulted in again as the next part
    // fills it: in a process with several threads every such release also interrupts the other
    // cores to flush their TLBs.
    if (slots_ != nullptr) std::memset(slots_, 0, index_bytes(capacity_));
    used_ = size_ = 0;
}

void line_table::release() noexcept {
    if (slots_ != nullptr) ::munmap(slots_, index_bytes(capacity_));
    slots_ = nullptr;
    capacity_ = 0;
    ::madvise(arena_, std::min(budget_, largest_arena), MADV_DONTNEED);
    used_ = size_ = 0;
}

const table_entry** line_table::begin_ordering() {
    return reinterpret_cast<const table_entry**>(slots_);  // capacity_ > size_ pointers fit
}

std::span<const table_entry* const> line_table::finish_ordering(const table_entry** order, std::size_t kept) {
    const auto earlier = [](const table_entry* a, const table_entry* b) { return a->position < b->position; };
    if (!std::is_sorted(order, order + kept, earlier)) std::sort(order, order + kept, earlier);
    return {order, kept};
}

}  // namespace bloomkit::jobs::spill
