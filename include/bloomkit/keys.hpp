// bloomkit/keys.hpp — what a key is, once for every face of bloomkit: the formats a filter
// records (text, u64, i64, u32), the integers each holds, how a line spells one, and which
// format a filter takes when it is made, read or added to. The command, the jobs, the Redis
// filter, the Python bindings and bloomkit.dask convert their inputs by these rules, so that a
// key added through one face is the key every other face asks for (docs/KEYS.md).
//
// Hashing is hash.hpp's: a text key is its bytes; an integer key is its value as 64 bits (two's
// complement when negative) in every format, so the three integer formats hash alike and differ
// only in range and in how a line spells a number. The rules here therefore never change how a
// key hashes; they decide which keys a filter refuses. A key outside its filter's range is an
// error, never re-encoded: -1 given to a u64 filter is refused, not taken as 2^64 - 1, since a
// reader who types 18446744073709551615 did not mean -1.
//
// A filter's format is decided when it is made and recorded with it (in its file, in a Redis
// filter's metadata). `unrecorded` remains for files of format versions 1 and 2 and for filters
// made without one: such a filter takes the format of its first writer while it is empty
// (key_format_to_write), and one that already holds keys needs its format said.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bloomkit/error.hpp"
#include "bloomkit/hash/guava_funnel.hpp"

namespace bloomkit {

/// What a filter's keys are, recorded with it so that whoever reads it later turns a line of
/// text into the key the writer hashed: the line's bytes, or the integer it spells. The numeric
/// values are stored in files.
enum class key_format : std::uint8_t {
    unrecorded = 0,  ///< not recorded: files of format versions 1 and 2, filters made without saying
    text = 1,        ///< byte strings: std::string, byte spans, a line's bytes as they are
    u64 = 2,         ///< integers from 0 to 2^64 - 1
    i64 = 3,         ///< integers from -2^63 to 2^63 - 1
    u32 = 4,         ///< integers from 0 to 2^32 - 1 (IPv4 addresses, ids)
};

/// The last key_format a reader knows; a larger value in a file is refused.
inline constexpr key_format last_key_format = key_format::u32;

/// Whether keys of the format are integers (hashed as their value, 64 bits).
[[nodiscard]] constexpr bool is_integer(key_format format) noexcept {
    return format == key_format::u64 || format == key_format::i64 || format == key_format::u32;
}

/// The format's name: "unrecorded", or the command's --key for the others ("text", "u64",
/// "i64", "u32").
[[nodiscard]] constexpr std::string_view to_string(key_format format) noexcept {
    switch (format) {
        case key_format::unrecorded: return "unrecorded";
        case key_format::text: return "text";
        case key_format::u64: return "u64";
        case key_format::i64: return "i64";
        case key_format::u32: return "u32";
    }
    return "unknown";
}

/// The format named `word` ("text", "u64", "i64", "u32"); nullopt for any other word.
[[nodiscard]] constexpr std::optional<key_format> key_format_named(std::string_view word) noexcept {
    for (const key_format f : {key_format::text, key_format::u64, key_format::i64, key_format::u32})
        if (word == to_string(f)) return f;
    return std::nullopt;
}

/// Whether keys written in formats `a` and `b` hash alike: the integer formats do (they differ
/// in range, and a key both hold is the same key in both); text and the integers do not — the
/// line "7" is another key than the integer 7. Unrecorded matches anything, since nothing is
/// known.
[[nodiscard]] constexpr bool same_keys(key_format a, key_format b) noexcept {
    return a == key_format::unrecorded || b == key_format::unrecorded || a == b || (is_integer(a) && is_integer(b));
}

/// The format of a filter holding the keys of two filters, one recording `a` (and holding keys
/// or not) and one recording `b`, united: their format; of two integer formats, the one whose
/// range holds the other's (u32 goes in u64 and in i64); a recorded format beside a filter that
/// is empty and records none. Nullopt when no format holds both: text with integers, i64 with
/// u64 (-1 and 2^64 - 1 hash alike, and a reader of either format would take one for the other),
/// a recorded format beside keys of no recorded format.
[[nodiscard]] constexpr std::optional<key_format> union_key_format(key_format a, bool a_holds_keys, key_format b,
                                                                   bool b_holds_keys) noexcept {
    if (a == b) return a;
    if (a == key_format::unrecorded) return a_holds_keys ? std::nullopt : std::optional(b);
    if (b == key_format::unrecorded) return b_holds_keys ? std::nullopt : std::optional(a);
    if (a == key_format::u32 && is_integer(b)) return b;
    if (b == key_format::u32 && is_integer(a)) return a;
    return std::nullopt;
}

/// The format of a filter holding the keys two filters recording `a` and `b` both hold (an
/// intersection): any format whose range holds the common keys — the narrower of two integer
/// formats, the recorded one beside an unrecorded filter. Nullopt for text with integers.
[[nodiscard]] constexpr std::optional<key_format> intersection_key_format(key_format a, key_format b) noexcept {
    if (!same_keys(a, b)) return std::nullopt;
    if (a == key_format::unrecorded) return b;
    if (b == key_format::u32) return b;
    return a;
}

/// An integer key: any value from -2^63 to 2^64 - 1, the union of what the formats hold.
struct key_integer {
    /// The value modulo 2^64: the 64 bits every face hashes.
    std::uint64_t bits = 0;
    /// Whether the value is negative (it is then bits - 2^64, and bits >= 2^63).
    bool negative = false;

    /// The key of a signed value.
    [[nodiscard]] static constexpr key_integer of(std::int64_t value) noexcept {
        return {static_cast<std::uint64_t>(value), value < 0};
    }
    /// The key of an unsigned value.
    [[nodiscard]] static constexpr key_integer of(std::uint64_t value) noexcept { return {value, false}; }
    /// The same value.
    friend constexpr bool operator==(const key_integer&, const key_integer&) = default;
};

/// The value in decimal ("-5", "18446744073709551615").
[[nodiscard]] inline std::string to_string(key_integer value) {
    if (!value.negative) return std::to_string(value.bits);
    return "-" + std::to_string(~value.bits + 1);  // the magnitude, 2^63 included
}

/// The integers keys of an integer format range over ("0 to 4294967295"); empty for the others.
[[nodiscard]] constexpr std::string_view range_of(key_format format) noexcept {
    switch (format) {
        case key_format::u64: return "0 to 18446744073709551615";
        case key_format::i64: return "-9223372036854775808 to 9223372036854775807";
        case key_format::u32: return "0 to 4294967295";
        default: return "";
    }
}

/// Whether a filter of keys `format` holds the integer `value`: its range for the integer
/// formats, anything for unrecorded (no range is known), nothing for text.
[[nodiscard]] constexpr bool holds(key_format format, key_integer value) noexcept {
    switch (format) {
        case key_format::unrecorded: return true;
        case key_format::text: return false;
        case key_format::u64: return !value.negative;
        case key_format::i64: return value.negative || value.bits < (std::uint64_t{1} << 63);
        case key_format::u32: return !value.negative && value.bits <= 0xffffffffu;
    }
    return false;
}

/// A key that a filter cannot take: outside its format's range, a line that is not a number of
/// its format, or a filter whose format must be known and is not.
class key_error : public invalid_argument {
public:
    using invalid_argument::invalid_argument;
};

/// A key of the wrong kind for its filter: text for a filter of integers, an integer for one of
/// text, or a type no format takes (a float, a bool, a null).
class key_type_error : public key_error {
public:
    using key_error::key_error;
};

/// Keys of one format asked of a filter that records another that does not hold them (text
/// against integers): every key would be read as another key than the filter holds.
class key_format_mismatch : public key_type_error {
public:
    /// `asked` of a filter (named `filter` in the message, when not empty) recording `recorded`.
    key_format_mismatch(key_format recorded, key_format asked, std::string_view filter = {})
        : key_type_error(
              "keys of format " + std::string(to_string(asked)) + " asked of " +
              (filter.empty() ? std::string("a filter") : "'" + std::string(filter) + "'") + ", whose keys are " +
              (is_integer(recorded) ? "integers (" + std::string(to_string(recorded)) + ")" : std::string("text"))),
          recorded_(recorded),
          asked_(asked),
          filter_(filter) {}
    /// What the filter records.
    [[nodiscard]] key_format recorded() const noexcept { return recorded_; }
    /// What was asked of it.
    [[nodiscard]] key_format asked() const noexcept { return asked_; }
    /// The filter's name, as the message gives it (empty: none).
    [[nodiscard]] const std::string& filter() const noexcept { return filter_; }

private:
    key_format recorded_, asked_;
    std::string filter_;
};

/// Keys added to a filter that holds keys and records no format (an older file): their format
/// must be said, since a guess that is wrong adds keys that nobody finds.
class unrecorded_key_format : public key_error {
public:
    /// For the filter named `filter` (empty: unnamed).
    explicit unrecorded_key_format(std::string_view filter = {})
        : key_error((filter.empty() ? std::string("the filter") : "'" + std::string(filter) + "'") +
                    " holds keys but records no key format (an older bloomkit, or a format that cannot record "
                    "them, wrote it): say what its keys are (text, u64, i64 or u32)"),
          filter_(filter) {}
    /// The filter's name, as the message gives it (empty: none).
    [[nodiscard]] const std::string& filter() const noexcept { return filter_; }

private:
    std::string filter_;
};

/// Throws key_type_error unless a filter of keys `format` (and Guava funnel `funnel`, none for
/// the others) takes integers, key_error unless it takes `value`: its format's range, and a
/// Java int's for Guava's integer funnel. The message names the value and the format.
inline void require_key(key_format format, key_integer value, guava_funnel funnel = guava_funnel::none) {
    if (format == key_format::text || (funnel != guava_funnel::none && !takes_integers(funnel)))
        throw key_type_error("the integer " + to_string(value) + " is not a key of a filter of text keys: give " +
                             "strings or bytes");
    if (!holds(format, value)) {
        std::string why = to_string(value) + " is not " + (format == key_format::i64 ? "an " : "a ") +
                          std::string(to_string(format)) + " key (" + std::string(range_of(format)) + ")";
        if (format == key_format::i64) why += ": keys of 2^63 and above need a u64 filter";
        if (value.negative) why += ": negative keys need an i64 filter";
        throw key_error(why);
    }
    if (funnel == guava_funnel::integer) {
        const auto signed_value = static_cast<std::int64_t>(value.bits);
        const bool fits = value.negative ? signed_value >= INT32_MIN : value.bits <= INT32_MAX;
        if (!fits)
            throw key_error(to_string(value) +
                            " is not a Java int (-2147483648 to 2147483647), which a Guava filter of "
                            "Funnels.integerFunnel() takes");
    }
}

/// Throws key_type_error unless a filter of keys `format` (and Guava funnel `funnel`) takes text.
inline void require_text_key(key_format format, guava_funnel funnel = guava_funnel::none) {
    if (is_integer(format) || (funnel != guava_funnel::none && takes_integers(funnel)))
        throw key_type_error("a string or bytes is not a key of a filter of integer keys (" +
                             std::string(is_integer(format) ? to_string(format) : to_string(funnel)) +
                             "): give integers");
}

/// The integer a line of text spells as a key of `format` — decimal digits, with a leading '-'
/// for i64 only (leading zeros allowed: 007 is 7), within the format's range — or nullopt. No
/// space, '+', hex or empty line is a number. An unrecorded format reads as u64 does, and i64's
/// negatives as well: any value of [-2^63, 2^64).
[[nodiscard]] constexpr std::optional<key_integer> parse_integer_key(std::string_view line,
                                                                     key_format format) noexcept {
    const bool negative = !line.empty() && line.front() == '-';
    if (negative) {
        if (format != key_format::i64 && format != key_format::unrecorded) return std::nullopt;
        line.remove_prefix(1);
    }
    if (line.empty()) return std::nullopt;
    std::uint64_t magnitude = 0;
    for (const char c : line) {
        if (c < '0' || c > '9') return std::nullopt;
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (magnitude > (UINT64_MAX - digit) / 10) return std::nullopt;
        magnitude = magnitude * 10 + digit;
    }
    if (negative && magnitude > (std::uint64_t{1} << 63)) return std::nullopt;
    const key_integer value{negative ? ~magnitude + 1 : magnitude, negative && magnitude != 0};
    if (!holds(format, value)) return std::nullopt;
    return value;
}

/// What a face's first key to a filter is, when the filter records no format yet.
enum class key_kind : std::uint8_t {
    bytes,             ///< a string or bytes
    signed_integer,    ///< an integer of a signed type (a Python int, int64_t, a date as nanoseconds)
    unsigned_integer,  ///< an integer of an unsigned type (uint64_t, numpy's uint64)
};

/// The format a filter that records none takes from its first key: text for bytes, i64 for a
/// signed integer, u64 for an unsigned one.
[[nodiscard]] constexpr key_format key_format_of(key_kind kind) noexcept {
    return kind == key_kind::bytes            ? key_format::text
           : kind == key_kind::signed_integer ? key_format::i64
                                              : key_format::u64;
}

/// The format to read a filter's keys in (check, query): the reader's `asked` (unrecorded when
/// it says nothing) against what the filter `recorded`. The record decides: a reader that says
/// nothing reads the recorded format (text for an unrecorded filter, as lines are); one that
/// names an integer format of an integer filter reads the filter's own, whose range is what the
/// filter can hold. Throws key_format_mismatch when `asked` contradicts the record (text against
/// integers), naming the filter as `filter` does.
[[nodiscard]] inline key_format key_format_to_read(key_format recorded, key_format asked,
                                                   std::string_view filter = {}) {
    if (recorded == key_format::unrecorded) return asked == key_format::unrecorded ? key_format::text : asked;
    if (!same_keys(recorded, asked)) throw key_format_mismatch(recorded, asked, filter);
    return recorded;
}

/// The format to add keys in, as key_format_to_read, to a filter that records `recorded` and
/// `holds_keys` or not. An unrecorded filter that is empty takes `asked` (text when nothing is
/// said), which the writer then records; one that already holds keys (an old file) takes
/// `asked` only: its keys' format cannot be guessed, and a guess that is wrong adds keys that
/// nobody finds. Throws unrecorded_key_format for that filter when `asked` is unrecorded.
[[nodiscard]] inline key_format key_format_to_write(key_format recorded, key_format asked, bool holds_keys,
                                                    std::string_view filter = {}) {
    if (recorded == key_format::unrecorded && asked == key_format::unrecorded && holds_keys)
        throw unrecorded_key_format(filter);
    return key_format_to_read(recorded, asked, filter);
}

}  // namespace bloomkit
