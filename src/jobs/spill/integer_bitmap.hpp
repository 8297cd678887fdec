// src/jobs/spill/integer_bitmap.hpp — one bit for every 32-bit integer: 2^32 bits, 512 MiB. The
// textbook answer to exact questions over 32-bit keys (Bentley, Programming Pearls, column 1):
// a set of any number of them in fixed memory, one memory access per key, no disk. The exact
// jobs use one (seen) for dedup, intersect and subtract, two (seen, seen twice) for once, when
// --key u32 and the memory allows.
//
// The memory is mapped untouched: keys from a narrow range cost only the pages they touch.
#pragma once

#include <cstdint>

namespace bloomkit::jobs::spill {

class integer_bitmap {
public:
    static constexpr std::uint64_t bytes = std::uint64_t{1} << 29;

    integer_bitmap();
    ~integer_bitmap();
    integer_bitmap(const integer_bitmap&) = delete;
    integer_bitmap& operator=(const integer_bitmap&) = delete;

    [[nodiscard]] bool test(std::uint32_t key) const noexcept { return (words_[key >> 6] >> (key & 63) & 1) != 0; }
    void set(std::uint32_t key) noexcept { words_[key >> 6] |= std::uint64_t{1} << (key & 63); }
    void reset(std::uint32_t key) noexcept { words_[key >> 6] &= ~(std::uint64_t{1} << (key & 63)); }

    /// Sets the key's bit; returns whether it was clear.
    bool insert(std::uint32_t key) noexcept {
        const bool was_clear = !test(key);
        set(key);
        return was_clear;
    }

private:
    std::uint64_t* words_;
};

}  // namespace bloomkit::jobs::spill
