// bloomkit/detail/byte_window.hpp — reading and writing 64 bits at any byte offset of a word
// array, for fields packed across word boundaries (a cuckoo filter's 48-bit buckets of four
// 12-bit fingerprints).
//
// A filter's bits are numbered across its words: bit k is bit k % 64 of word k / 64 (the file
// format stores each word little-endian, so that numbering is the file's too). A window at byte
// offset o is bits [8·o, 8·o + 64). On a little-endian machine those are the bytes o..o+7 in
// memory, one unaligned load (memcpy: no alignment or aliasing UB, one instruction after
// optimisation). Elsewhere the window is assembled from the two words it straddles; both paths
// are public so a test can check them against each other.
//
// The caller keeps the window inside the array (o + 8 <= 8 · word count), typically by padding
// the array so that the last field's window fits.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace bloomkit::detail {

/// The window at `byte_offset`, from whole words: works whatever the byte order.
[[nodiscard]] inline std::uint64_t load_window_by_words(const std::uint64_t* words,
                                                        std::uint64_t byte_offset) noexcept {
    const std::uint64_t word = byte_offset / 8;
    const unsigned shift = static_cast<unsigned>(byte_offset % 8) * 8;
    if (shift == 0) return words[word];
    return (words[word] >> shift) | (words[word + 1] << (64 - shift));
}

/// Replaces the window at `byte_offset` with `value`, from whole words.
inline void store_window_by_words(std::uint64_t* words, std::uint64_t byte_offset, std::uint64_t value) noexcept {
    const std::uint64_t word = byte_offset / 8;
    const unsigned shift = static_cast<unsigned>(byte_offset % 8) * 8;
    if (shift == 0) {
        words[word] = value;
        return;
    }
    const std::uint64_t below = (std::uint64_t{1} << shift) - 1;  // bits of words[word] before the window
    words[word] = (words[word] & below) | (value << shift);
    words[word + 1] = (words[word + 1] & ~below) | (value >> (64 - shift));
}

/// The 64 bits at `byte_offset` of the array's bit numbering.
[[nodiscard]] inline std::uint64_t load_window(const std::uint64_t* words, std::uint64_t byte_offset) noexcept {
    if constexpr (std::endian::native == std::endian::little) {
        std::uint64_t value;
        std::memcpy(&value, reinterpret_cast<const unsigned char*>(words) + byte_offset, sizeof value);
        return value;
    } else {
        return load_window_by_words(words, byte_offset);
    }
}

/// Replaces the 64 bits at `byte_offset` (all of them: load, modify and store back to change
/// only some).
inline void store_window(std::uint64_t* words, std::uint64_t byte_offset, std::uint64_t value) noexcept {
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(reinterpret_cast<unsigned char*>(words) + byte_offset, &value, sizeof value);
    } else {
        store_window_by_words(words, byte_offset, value);
    }
}

}  // namespace bloomkit::detail
