// src/jobs/digest_set.hpp — an exact set of 128-bit key digests: which lines a job has already
// printed, so it prints each once. Exact where a Bloom filter would not be: a filter
// would now and then take a line never printed for one printed, and silently drop it. Two
// distinct lines share a 128-bit digest with probability ~2^-128 per pair.
//
// Open addressing with linear probing at most 70% full, 16 bytes a line; the digest's own bits
// are the slot (they are a hash already). The all-zero digest marks an empty slot, so a key
// whose digest is zero is stored as a separate flag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "bloomkit/hash.hpp"

namespace bloomkit::jobs {

class digest_set {
public:
    /// Adds `d`; returns whether it was not there yet.
    bool insert(const digest& d) {
        reserve(size_ + 1);
        return insert_reserved(d);
    }

    /// insert(d) for each digest, in order, writing whether each was new to `fresh`. A table
    /// of millions of lines is a cache miss per line: this one prefetches the slots of the
    /// digests a few places ahead, as the filters' bulk operations do, so the misses overlap.
    void insert(std::span<const digest> digests, std::span<char> fresh) {
        reserve(size_ + digests.size());
        for (std::size_t i = 0; i < digests.size(); ++i) {
            if (i + prefetch_distance < digests.size())
                __builtin_prefetch(&slots_[slot_of(digests[i + prefetch_distance])], 1);
            fresh[i] = insert_reserved(digests[i]) ? 1 : 0;
        }
    }

    [[nodiscard]] std::uint64_t size() const noexcept { return size_ + (has_zero_ ? 1 : 0); }
    [[nodiscard]] std::uint64_t size_in_bytes() const noexcept { return slots_.size() * sizeof(digest); }

private:
    static constexpr std::size_t prefetch_distance = 16;

    /// Grows the table now, if need be, so that `size` digests keep it at most 70% full.
    void reserve(std::uint64_t size) {
        while (10 * size > 7 * slots_.size()) grow();
    }

    bool insert_reserved(const digest& d) {
        if (d.low == 0 && d.high == 0) return !std::exchange(has_zero_, true);
        for (std::size_t at = slot_of(d);; at = (at + 1) & (slots_.size() - 1)) {
            digest& slot = slots_[at];
            if (slot == d) return false;
            if (slot.low == 0 && slot.high == 0) {
                slot = d;
                ++size_;
                return true;
            }
        }
    }

    [[nodiscard]] std::size_t slot_of(const digest& d) const noexcept {
        return static_cast<std::size_t>(d.high) & (slots_.size() - 1);
    }

    void grow() {
        std::vector<digest> old(slots_.empty() ? 1024 : 2 * slots_.size());
        old.swap(slots_);
        size_ = 0;
        for (const digest& d : old)
            if (d.low != 0 || d.high != 0) insert_reserved(d);
    }

    std::vector<digest> slots_;
    std::uint64_t size_ = 0;
    bool has_zero_ = false;
};

}  // namespace bloomkit::jobs
