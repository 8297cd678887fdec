// bloomkit/hash/guava_funnel.hpp — Guava's funnels (com.google.common.hash.Funnels): the bytes a
// Java object becomes for BloomFilter, so a key hashes here as in Java. A Guava stream does not
// record its funnel; the reader must know it, as Java's readFrom(in, funnel) does.
//
//   string_utf8      Funnels.stringFunnel(UTF_8): the string's UTF-8 bytes
//   unencoded_chars  Funnels.unencodedCharsFunnel(): each UTF-16 code unit, little-endian
//   integer          Funnels.integerFunnel(): a Java int, 4 bytes little-endian
//   long_integer     Funnels.longFunnel(): a Java long, 8 bytes little-endian
//   byte_array       Funnels.byteArrayFunnel(): the bytes themselves
//
// A string key here is UTF-8, so unencoded_chars transcodes to UTF-16LE, malformed sequences
// replaced by U+FFFD as Java's decoder (the only way such bytes reach a String) does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/error.hpp"

namespace bloomkit {

/// A murmur3_128 filter's funnel (none for other hashes); the values are stored in files.
enum class guava_funnel : std::uint8_t {
    none = 0,             ///< not a Guava filter
    string_utf8 = 1,      ///< Funnels.stringFunnel(UTF_8), the default
    unencoded_chars = 2,  ///< Funnels.unencodedCharsFunnel()
    integer = 3,          ///< Funnels.integerFunnel()
    long_integer = 4,     ///< Funnels.longFunnel()
    byte_array = 5,       ///< Funnels.byteArrayFunnel()
};

/// The last guava_funnel a reader knows; a larger value in a file is refused.
inline constexpr guava_funnel last_guava_funnel = guava_funnel::byte_array;

/// The short word of a funnel ("utf8", "chars", "int", "long", "bytes"): the command's --funnel.
[[nodiscard]] constexpr std::string_view to_string(guava_funnel funnel) noexcept {
    switch (funnel) {
        case guava_funnel::none: return "none";
        case guava_funnel::string_utf8: return "utf8";
        case guava_funnel::unencoded_chars: return "chars";
        case guava_funnel::integer: return "int";
        case guava_funnel::long_integer: return "long";
        case guava_funnel::byte_array: return "bytes";
    }
    return "unknown";
}

/// How Java code spells the funnel: "Funnels.stringFunnel(UTF_8)".
[[nodiscard]] constexpr std::string_view java_name(guava_funnel funnel) noexcept {
    switch (funnel) {
        case guava_funnel::none: return "none";
        case guava_funnel::string_utf8: return "Funnels.stringFunnel(UTF_8)";
        case guava_funnel::unencoded_chars: return "Funnels.unencodedCharsFunnel()";
        case guava_funnel::integer: return "Funnels.integerFunnel()";
        case guava_funnel::long_integer: return "Funnels.longFunnel()";
        case guava_funnel::byte_array: return "Funnels.byteArrayFunnel()";
    }
    return "unknown";
}

/// The funnel whose short word is `word` ("utf8", "chars", "int", "long", "bytes"), or none.
[[nodiscard]] constexpr guava_funnel guava_funnel_named(std::string_view word) noexcept {
    for (auto f = static_cast<int>(guava_funnel::string_utf8); f <= static_cast<int>(last_guava_funnel); ++f)
        if (word == to_string(static_cast<guava_funnel>(f))) return static_cast<guava_funnel>(f);
    return guava_funnel::none;
}

/// As guava_funnel_named(); throws invalid_argument naming the choices.
[[nodiscard]] inline guava_funnel parse_guava_funnel(std::string_view word) {
    if (const guava_funnel funnel = guava_funnel_named(word); funnel != guava_funnel::none) return funnel;
    throw invalid_argument("unknown Guava funnel '" + std::string(word) + "': choose utf8, chars, int, long or bytes");
}

/// Whether the funnel's keys are integers (Java int or long) rather than strings or bytes.
[[nodiscard]] constexpr bool takes_integers(guava_funnel funnel) noexcept {
    return funnel == guava_funnel::integer || funnel == guava_funnel::long_integer;
}

namespace detail {

inline void put_utf16le(std::vector<std::byte>& out, std::uint32_t unit) {
    out.push_back(static_cast<std::byte>(unit & 0xff));
    out.push_back(static_cast<std::byte>(unit >> 8));
}

/// A well-formed sequence's length and code point, or length 0 and the bytes Java replaces by
/// one U+FFFD: the maximal subpart (Unicode's "best practice"), except that a surrogate's three
/// bytes (ED A0..BF xx) are one replacement, as in Java.
struct utf8_step {
    std::size_t length;    // 0: malformed
    std::size_t replaced;  // bytes one U+FFFD stands for when malformed
    std::uint32_t code_point;
};

inline utf8_step next_utf8(std::span<const unsigned char> s) noexcept {
    const unsigned lead = s[0];
    if (lead < 0x80) return {1, 0, lead};
    std::size_t need;
    unsigned low = 0x80, high = 0xbf;  // the range of the second byte
    std::uint32_t cp;
    if (lead >= 0xc2 && lead <= 0xdf) need = 2, cp = lead & 0x1f;
    else if (lead >= 0xe0 && lead <= 0xef) need = 3, cp = lead & 0x0f, low = lead == 0xe0 ? 0xa0 : 0x80;
    else if (lead >= 0xf0 && lead <= 0xf4)
        need = 4, cp = lead & 0x07, low = lead == 0xf0 ? 0x90 : 0x80, high = lead == 0xf4 ? 0x8f : 0xbf;
    else return {0, 1, 0};
    const bool surrogate = lead == 0xed && s.size() >= 3 && s[1] >= 0xa0 && s[1] <= 0xbf && (s[2] & 0xc0) == 0x80;
    if (surrogate) return {0, 3, 0};
    for (std::size_t i = 1; i < need; ++i) {
        const unsigned b = i < s.size() ? s[i] : 0;
        const bool fits = i == 1 ? (b >= low && b <= high) : (b & 0xc0) == 0x80;
        if (i >= s.size() || !fits) return {0, i, 0};
        cp = (cp << 6) | (b & 0x3f);
    }
    return {need, 0, cp};
}

}  // namespace detail

/// What unencodedCharsFunnel hashes for the UTF-8 string: its UTF-16LE code units, into `out`.
inline void utf16le_of_utf8(std::span<const std::byte> utf8, std::vector<std::byte>& out) {
    out.clear();
    out.reserve(utf8.size() * 2);
    const std::span<const unsigned char> s(reinterpret_cast<const unsigned char*>(utf8.data()), utf8.size());
    for (std::size_t at = 0; at < s.size();) {
        const detail::utf8_step step = detail::next_utf8(s.subspan(at));
        if (step.length == 0) {
            detail::put_utf16le(out, 0xfffd);
            at += step.replaced;
        } else if (step.code_point >= 0x10000) {
            const std::uint32_t v = step.code_point - 0x10000;
            detail::put_utf16le(out, 0xd800 + (v >> 10));
            detail::put_utf16le(out, 0xdc00 + (v & 0x3ff));
            at += step.length;
        } else {
            detail::put_utf16le(out, step.code_point);
            at += step.length;
        }
    }
}

}  // namespace bloomkit
