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
