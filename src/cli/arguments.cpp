#include "arguments.hpp"

#include <fmt/core.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "bloomkit/error.hpp"

namespace bloomkit::cli {
namespace {

/// The whole of `text` as a double, or NaN when it is not a number at all.
double parse_double(const std::string& text) {
    double value = std::numeric_limits<double>::quiet_NaN();
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc{} || stop != end) return std::numeric_limits<double>::quiet_NaN();
    return value;
}

}  // namespace

std::uint64_t parse_key_count(std::string_view option, const std::string& text) {
    const double value = parse_double(text);
    if (!(value >= 1) || value != std::floor(value) || value >= 0x1p64)
        throw invalid_argument(fmt::format("{} must be a whole number of keys, at least 1 (like 1000000 or 50e9), not '{}'",
                                           option, text));
    return static_cast<std::uint64_t>(value);
}

double parse_probability(std::string_view option, const std::string& text) {
    const double value = parse_double(text);
    if (!(value > 0 && value < 1))
        throw invalid_argument(
            fmt::format("{} must be a false-positive rate strictly between 0 and 1 (like 0.01 for 1%), not '{}'", option, text));
    return value;
}

bloom_layout parse_layout(const std::string& text) {
    for (auto layout : {bloom_layout::block, bloom_layout::classic, bloom_layout::split_block})
        if (text == to_string(layout)) return layout;
    throw invalid_argument(fmt::format("unknown layout '{}': choose block, classic or split-block", text));
}

std::uint64_t parse_seed(const std::string& text) {
    if (text == "random") return random_seed();
    const bool hex = text.starts_with("0x") || text.starts_with("0X");
    const char* begin = text.data() + (hex ? 2 : 0);
    const char* end = text.data() + text.size();
    std::uint64_t seed = 0;
    const auto [stop, error] = std::from_chars(begin, end, seed, hex ? 16 : 10);
    if (begin == end || error != std::errc{} || stop != end)
        throw invalid_argument(fmt::format("--seed must be a 64-bit number (decimal or 0x-hex) or 'random', not '{}'", text));
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
