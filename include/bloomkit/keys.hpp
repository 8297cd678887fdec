// bloomkit/keys.hpp — what a key is, for every face of bloomkit (the command, the jobs, Redis,
// Python, bloomkit.dask), so that a key added through one is the key the others ask for
// (docs/KEYS.md): the formats a filter records, the integers each holds, how a line spells one,
// and which format a filter takes when it is made, read or added to.
//
// An integer key hashes as its 64-bit two's complement value in every format (hash.hpp), so the
// integer formats differ only in range and spelling: these rules decide which keys a filter
// refuses, never how one hashes. A key outside its filter's range is refused, never re-encoded (-1
// is not 2^64 - 1 to a u64 filter). `unrecorded` (files of format versions 1 and 2, filters made
// without a format) takes its first writer's format while empty; once it holds keys, their format
// must be said.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bloomkit/error.hpp"
#include "bloomkit/hash/guava_funnel.hpp"

namespace bloomkit {

/// What a filter's keys are, so a reader turns a line into the key the writer hashed; the values
/// are stored in files.
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

/// "unrecorded", or the command's --key word ("text", "u64", "i64", "u32").
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

/// Whether keys of `a` and `b` hash alike: any two integer formats, not text and integers (the
/// line "7" is not the integer 7); unrecorded matches anything.
[[nodiscard]] constexpr bool same_keys(key_format a, key_format b) noexcept {
    return a == key_format::unrecorded || b == key_format::unrecorded || a == b || (is_integer(a) && is_integer(b));
}

/// The format of the union: the wider integer format, or the recorded one beside an empty
/// unrecorded filter. Nullopt when none holds both: text with integers, i64 with u64 (-1 and
/// 2^64 - 1 hash alike), a recorded format beside unrecorded keys.
[[nodiscard]] constexpr std::optional<key_format> union_key_format(key_format a, bool a_holds_keys, key_format b,
                                                                   bool b_holds_keys) noexcept {
    if (a == b) return a;
    if (a == key_format::unrecorded) return a_holds_keys ? std::nullopt : std::optional(b);
    if (b == key_format::unrecorded) return b_holds_keys ? std::nullopt : std::optional(a);
    if (a == key_format::u32 && is_integer(b)) return b;
    if (b == key_format::u32 && is_integer(a)) return a;
    return std::nullopt;
}

/// The format of the intersection: the narrower integer format, or the recorded one beside an
/// unrecorded filter. Nullopt for text with integers.
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
    /// Whether negative: the value is then bits - 2^64.
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

/// "0 to 4294967295"; empty for non-integer formats.
[[nodiscard]] constexpr std::string_view range_of(key_format format) noexcept {
    switch (format) {
        case key_format::u64: return "0 to 18446744073709551615";
        case key_format::i64: return "-9223372036854775808 to 9223372036854775807";
        case key_format::u32: return "0 to 4294967295";
        default: return "";
    }
}

/// Within the format's range; anything for unrecorded, nothing for text.
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

/// A key outside its format's range, a line that is no number of it, or an unknown format.
class key_error : public invalid_argument {
public:
    using invalid_argument::invalid_argument;
};

/// Text for integers, an integer for text, or a type no format takes (a float, a bool, a null).
class key_type_error : public key_error {
public:
    using key_error::key_error;
};

/// Keys asked in a format contradicting the filter's record (text against integers).
class key_format_mismatch : public key_type_error {
public:
    /// `filter` names the filter in the message, when not empty.
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

/// Keys added to a filter holding keys of no recorded format: a wrong guess adds keys nobody finds.
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

/// Throws key_type_error unless the filter takes integers, key_error unless it takes `value`
/// (its range; a Java int's for Guava's integer funnel).
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

/// Decimal digits, '-' for i64 only, leading zeros allowed, within range; else nullopt (no space,
/// '+' or hex). Unrecorded reads any value of [-2^63, 2^64).
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

/// The format an unrecorded filter takes from its first key: text, i64 or u64.
[[nodiscard]] constexpr key_format key_format_of(key_kind kind) noexcept {
    return kind == key_kind::bytes            ? key_format::text
           : kind == key_kind::signed_integer ? key_format::i64
                                              : key_format::u64;
}

/// The format to query in: the record, else `asked`, else text. Throws key_format_mismatch when
/// `asked` contradicts the record (text against integers).
[[nodiscard]] inline key_format key_format_to_read(key_format recorded, key_format asked,
                                                   std::string_view filter = {}) {
    if (recorded == key_format::unrecorded) return asked == key_format::unrecorded ? key_format::text : asked;
    if (!same_keys(recorded, asked)) throw key_format_mismatch(recorded, asked, filter);
    return recorded;
}

/// As key_format_to_read; throws unrecorded_key_format when the filter records none, holds keys
/// and nothing is asked (a wrong guess adds keys nobody finds).
[[nodiscard]] inline key_format key_format_to_write(key_format recorded, key_format asked, bool holds_keys,
                                                    std::string_view filter = {}) {
    if (recorded == key_format::unrecorded && asked == key_format::unrecorded && holds_keys)
        throw unrecorded_key_format(filter);
    return key_format_to_read(recorded, asked, filter);
}

}  // namespace bloomkit
