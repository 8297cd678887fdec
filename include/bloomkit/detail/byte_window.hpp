// bloomkit/detail/byte_window.hpp — reading and writing 64 bits at any byte offset of a word
// array, for fields packed across word boundaries (a cuckoo filter's 48-bit buckets of four
// 12-bit fingerprints).
//
// Bit k is bit k % 64 of word k / 64 (the file's numbering too: words are stored little-endian),
// and the window at byte o is bits [8·o, 8·o + 64): on a little-endian machine one unaligned
// memcpy load, elsewhere assembled from the two words it straddles (both public, for tests). The
// caller keeps o + 8 <= 8 · word count, typically by padding the array.
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

/// Replaces all 64 bits at `byte_offset`.
inline void store_window(std::uint64_t* words, std::uint64_t byte_offset, std::uint64_t value) noexcept {
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(reinterpret_cast<unsigned char*>(words) + byte_offset, &value, sizeof value);
    } else {
        store_window_by_words(words, byte_offset, value);
    }
}

}  // namespace bloomkit::detail
