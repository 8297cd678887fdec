// src/cli/support/arguments.cpp — see arguments.hpp.
#include "arguments.hpp"

#include <fmt/core.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>

#include "bloomkit/error.hpp"

namespace bloomkit::cli {
namespace {

/// The whole of `text` as a double, or NaN when it is not a number at all.
double parse_double(std::string_view text) {
    double value = std::numeric_limits<double>::quiet_NaN();
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc{} || stop != end) return std::numeric_limits<double>::quiet_NaN();
    return value;
}

/// The whole of `text` as a finite double, or nothing.
std::optional<double> parse_finite(std::string_view text) {
    const double value = parse_double(text);
    return std::isfinite(value) ? std::optional(value) : std::nullopt;
}

/// `text` without the '_' that may separate groups of digits ("10_000_000"); empty when an
/// underscore stands anywhere but between two digits.
std::string without_digit_separators(std::string_view text) {
    std::string digits;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '_') {
            digits += text[i];
            continue;
        }
        const bool between_digits = i > 0 && i + 1 < text.size() &&
                                    std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                                    std::isdigit(static_cast<unsigned char>(text[i + 1]));
        if (!between_digits) return {};
    }
    return digits;
}

/// value * 10^exponent when it is a whole number below 2^64, computed exactly.
std::optional<std::uint64_t> scaled_exactly(std::string digits, int exponent) {
    while (exponent < 0) {  // the digits below the units must be zeros
        if (digits.empty() || digits.back() != '0')
            return digits.find_first_not_of('0') == std::string::npos ? 0 : std::optional<std::uint64_t>{};
        digits.pop_back();
        ++exponent;
    }
    std::uint64_t value = 0;
    for (const char c : digits) {
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
        value = value * 10 + digit;
    }
    for (; exponent > 0 && value != 0; --exponent) {
        if (value > UINT64_MAX / 10) return std::nullopt;
        value *= 10;
    }
    return value;
}

/// A whole number of things, read as the decimal number it is written as (so "4.1M" is exactly
/// 4100000, which 4.1 * 1e6 in floating point is not): digits ("18446744073709551615"), a
/// decimal point, scientific ("1e9", "2.5e6") and a decimal suffix ("10M", "1.5k"), underscores
/// allowed between digits. nullopt when `text` is none of these, or not a whole number below
/// 2^64.
std::optional<std::uint64_t> parse_count(std::string_view text) {
    std::string number = without_digit_separators(text);
    if (number.empty()) return std::nullopt;
    int exponent = 0;
    switch (number.back()) {
        case 'k':
        case 'K': exponent = 3; break;
        case 'M': exponent = 6; break;
        case 'G': exponent = 9; break;
        case 'T': exponent = 12; break;
        default: break;
    }
    if (exponent != 0) number.pop_back();
    std::string digits;
    std::size_t at = 0;
    bool point = false;
    for (; at < number.size(); ++at) {
        const char c = number[at];
        if (c >= '0' && c <= '9') {
            digits += c;
            if (point) --exponent;
        } else if (c == '.' && !point) {
            point = true;
        } else {
            break;
        }
    }
    if (digits.empty()) return std::nullopt;
    if (at < number.size()) {  // e[+-]digits
        if (number[at] != 'e' && number[at] != 'E') return std::nullopt;
        int power = 0;
        const char* first = number.data() + at + 1 + (at + 1 < number.size() && number[at + 1] == '+');
        const char* end = number.data() + number.size();
        const auto [stop, error] = std::from_chars(first, end, power);
        if (first == end || error != std::errc{} || stop != end || power > 40 || power < -40) return std::nullopt;
        exponent += power;
    }
    return scaled_exactly(std::move(digits), exponent);
}

}  // namespace

std::uint64_t parse_key_count(std::string_view option, const std::string& text) {
    const std::optional<std::uint64_t> count = parse_count(text);
    if (!count || *count == 0)
        throw invalid_argument(
            fmt::format("{} must be a whole number of keys, at least 1 and below 2^64 (like 1000000, "
                        "10M, 1e9 or 10_000_000), not '{}'",
                        option, text));
    return *count;
}

std::uint64_t parse_size(std::string_view option, const std::string& text) {
    static constexpr struct {
        std::string_view suffix;
        double scale;
    } units[] = {{"KiB", 0x1p10}, {"MiB", 0x1p20}, {"GiB", 0x1p30}, {"TiB", 0x1p40}, {"KB", 1e3},
                 {"MB", 1e6},     {"GB", 1e9},     {"TB", 1e12},    {"kB", 1e3},     {"K", 0x1p10},
                 {"k", 0x1p10},   {"M", 0x1p20},   {"G", 0x1p30},   {"T", 0x1p40},   {"B", 1}};
    std::string_view number = text;
    double scale = 1;
    for (const auto& unit : units) {
        if (number.size() > unit.suffix.size() && number.ends_with(unit.suffix)) {
            number.remove_suffix(unit.suffix.size());
            scale = unit.scale;
            break;
        }
    }
    const double value = parse_double(without_digit_separators(number)) * scale;
    if (!(value >= 1) || value >= 0x1p64)
        throw invalid_argument(
            fmt::format("{} must be a size in bytes, like 512M, 1G, 1.5GiB or 100MB, not '{}'", option, text));
    return static_cast<std::uint64_t>(value);
}

double parse_probability(std::string_view option, const std::string& text) {
    const bool percent = !text.empty() && text.back() == '%';
    const double value =
        parse_double(percent ? std::string_view(text).substr(0, text.size() - 1) : text) / (percent ? 100 : 1);
    if (!(value > 0 && value < 1))
        throw invalid_argument(fmt::format(
            "{} must be a false-positive rate strictly between 0 and 1 (like 0.01 or 1%), not '{}'", option, text));
    return value;
}

double parse_seconds(std::string_view option, const std::string& text) {
    // At most ten years: a larger value would overflow a count of milliseconds, and a timeout
    // that overflows becomes no timeout at all.
    constexpr double most = 10 * 365.25 * 86400;
    const double value = parse_double(text);
    if (!(value > 0) || !(value <= most))
        throw invalid_argument(
            fmt::format("{} must be a number of seconds above 0 and at most ten years (like 60 or 0.5), "
                        "not '{}'",
                        option, text));
    return value;
}

std::chrono::milliseconds parse_duration(std::string_view option, const std::string& text) {
    const auto refuse = [&] {
        return invalid_argument(fmt::format(
            "{} must be a length of time above 0 and at most 100 years, like 24h, 90m, 7d, 1h30m, 1.5s or 250ms "
            "(a bare number is seconds), not '{}'",
            option, text));
    };
    constexpr struct {
        std::string_view suffix;
        double milliseconds;
    } units[] = {{"ms", 1}, {"s", 1e3}, {"m", 60e3}, {"h", 3600e3}, {"d", 86400e3}, {"w", 604800e3}};
    double total = 0;
    std::string_view rest = text;
    if (rest.empty()) throw refuse();
    while (!rest.empty()) {
        std::size_t digits = 0;
        while (digits < rest.size() && (std::isdigit(static_cast<unsigned char>(rest[digits])) || rest[digits] == '.'))
            ++digits;
        if (digits == 0) throw refuse();
        const std::optional<double> number = parse_finite(rest.substr(0, digits));
        rest.remove_prefix(digits);
        std::size_t letters = 0;
        while (letters < rest.size() && std::isalpha(static_cast<unsigned char>(rest[letters]))) ++letters;
        const std::string_view suffix = rest.substr(0, letters);
        rest.remove_prefix(letters);
        if (!number || (suffix.empty() && !rest.empty())) throw refuse();
        double scale = suffix.empty() ? 1e3 : 0;
        for (const auto& unit : units)
            if (unit.suffix == suffix) scale = unit.milliseconds;
        if (scale == 0) throw refuse();
        total += *number * scale;
    }
    total = std::round(total);
    if (!(total >= 1 && total <= 100 * 365.25 * 86400e3)) throw refuse();
    return std::chrono::milliseconds(static_cast<std::int64_t>(total));
}

std::chrono::system_clock::time_point parse_time(std::string_view option, const std::string& text) {
    using namespace std::chrono;
    const auto refuse = [&] {
        return invalid_argument(
            fmt::format("{} must be Unix seconds (1765134000) or an ISO 8601 time at or after 1970 (2026-12-07, "
                        "2026-12-07T19:00:00Z, 2026-12-07T20:00:00+01:00), not '{}'",
                        option, text));
    };
    if (text.find('-', 1) == std::string::npos) {  // Unix seconds
        const std::optional<double> seconds = parse_finite(text);
        if (!seconds || !(*seconds >= 0 && *seconds < 1e13)) throw refuse();
        return system_clock::time_point(milliseconds(static_cast<std::int64_t>(std::round(*seconds * 1000))));
    }
    // YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][Z|(+|-)HH:MM]
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, zone_hours = 0, zone_minutes = 0;
    double second = 0;
    char zone_sign = 0;
    std::size_t at = 0;
    const auto number = [&](std::size_t width, int& out) {
        if (at + width > text.size()) return false;
        const auto [end, failed] = std::from_chars(text.data() + at, text.data() + at + width, out);
        if (failed != std::errc{} || end != text.data() + at + width) return false;
        at += width;
        return true;
    };
    const auto literal = [&](char c) {
        if (at >= text.size() || text[at] != c) return false;
        ++at;
        return true;
    };
    if (!number(4, year) || !literal('-') || !number(2, month) || !literal('-') || !number(2, day)) throw refuse();
    if (at < text.size() && (text[at] == 'T' || text[at] == ' ')) {
        ++at;
        if (!number(2, hour) || !literal(':') || !number(2, minute)) throw refuse();
        if (literal(':')) {
            std::size_t end = at;
            while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
                ++end;
            const std::optional<double> s = parse_finite(std::string_view(text).substr(at, end - at));
            if (end - at < 2 || !s || !(*s < 60)) throw refuse();
            second = *s;
            at = end;
        }
    }
    if (literal('Z')) {
    } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
        zone_sign = text[at++];
        if (!number(2, zone_hours) || !literal(':') || !number(2, zone_minutes)) throw refuse();
    }
    const year_month_day date{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                              std::chrono::day(static_cast<unsigned>(day))};
    if (at != text.size() || !date.ok() || hour > 23 || minute > 59 || zone_hours > 23 || zone_minutes > 59)
        throw refuse();
    const minutes zone = (zone_sign == '-' ? -1 : 1) * (hours(zone_hours) + minutes(zone_minutes));
    const auto t = sys_days(date) + hours(hour) + minutes(minute) +
                   milliseconds(static_cast<std::int64_t>(std::round(second * 1000))) - zone;
    if (t.time_since_epoch().count() < 0) throw refuse();
    return time_point_cast<system_clock::duration>(t);
}

std::uint32_t parse_small_number(std::string_view option, const std::string& text) {
    std::uint32_t value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc{} || stop != end)
        throw invalid_argument(fmt::format("{} must be a whole number, not '{}'", option, text));
    return value;
}

unsigned max_threads() { return 4 * std::max(1U, std::thread::hardware_concurrency()); }

unsigned parse_threads(const std::string& text) {
    const std::uint32_t asked = parse_small_number("-t", text);
    const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
    if (asked == 0) return cores;
    if (asked > max_threads())
        throw invalid_argument(
            fmt::format("-t {} is more threads than this machine can use: it has {} cores; give at most {} "
                        "(or 0 for one per core)",
                        text, cores, max_threads()));
    return asked;
}

std::string flags_of(const kind_request& request) {
    std::string flags = request.kind;
    if (request.layout) flags += " --layout " + std::string(to_string(*request.layout));
    if (request.fingerprint_bits) flags += " --bits " + std::to_string(*request.fingerprint_bits);
    if (request.arity) flags += " --arity " + std::to_string(*request.arity);
    return flags;
}

std::vector<std::string_view> ability_words(const kind_capabilities& can) {
    if (!can.inserts) return {"static"};
    std::vector<std::string_view> words{"adds"};
    if (can.removes) words.emplace_back("deletes");
    if (can.grows) words.emplace_back("grows");
    if (can.forgets) words.emplace_back("forgets");
    return words;
}

std::string abilities_of(const kind_capabilities& can) {
    std::string words;
    for (const std::string_view word : ability_words(can)) words += (words.empty() ? "" : ", ") + std::string(word);
    return words;
}

std::uint64_t parse_seed(const std::string& text) {
    if (text == "random") return random_seed();
    const bool hex = text.starts_with("0x") || text.starts_with("0X");
    const char* begin = text.data() + (hex ? 2 : 0);
    const char* end = text.data() + text.size();
    std::uint64_t seed = 0;
    const auto [stop, error] = std::from_chars(begin, end, seed, hex ? 16 : 10);
    if (begin == end || error != std::errc{} || stop != end)
        throw invalid_argument(
            fmt::format("--seed must be a 64-bit number (decimal or 0x-hex) or 'random', not '{}'", text));
    return seed;
}

std::string human_bytes(double bytes) {
    static constexpr const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    std::size_t unit = 0;
    while (bytes >= 1000 && unit + 1 < std::size(units)) {
        bytes /= 1000;
        ++unit;
    }
    return unit == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.2f} {}", bytes, units[unit]);
}

std::string json_string(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
                else out += c;
        }
    }
    return out + "\"";
}

std::string json_number(double value) {
    if (!std::isfinite(value)) return "null";
    return fmt::format("{}", value);
}

}  // namespace bloomkit::cli
