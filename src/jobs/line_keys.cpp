// src/jobs/line_keys.cpp — see line_keys.hpp.
#include "jobs/line_keys.hpp"

#include <fmt/core.h>

#include <charconv>
#include <utility>

namespace bloomkit::jobs {
namespace {

/// "0 to 18446744073709551615" for u64; nothing for i64, whose range is written as often.
std::string_view range_of(key_format format) {
    return format == key_format::u64   ? ", 0 to 18446744073709551615"
           : format == key_format::u32 ? ", 0 to 4294967295"
                                       : "";
}

std::string quoted_head(std::uint64_t line, const std::string& input, key_format format, std::string_view text) {
    const std::string shown = text.size() > 40 ? std::string(text.substr(0, 40)) + "..." : std::string(text);
    const char* article = format == key_format::i64 ? "an" : "a";  // "an i64", "a u64"
    return fmt::format("line {} of '{}' is not {} {} number: '{}'", line, input, article, to_string(format), shown);
}

}  // namespace

not_a_number::not_a_number(std::uint64_t line, const std::string& input, key_format format, std::string_view text)
    : not_a_number(quoted_head(line, input, format, text), format) {}

not_a_number::not_a_number(std::string head, key_format format)
    : error(fmt::format("{} (one decimal number per line{})", head, range_of(format))),
      head_(std::move(head)),
      format_(format) {}

std::string not_a_number::explained_by(std::string_view chooser) const {
    return fmt::format("{} ({} takes one decimal number per line{})", head_, chooser, range_of(format_));
}

std::uint64_t parse_key_number(std::string_view line, key_format format, const line_origin& origin, std::size_t index) {
    const char* begin = line.data();
    const char* end = line.data() + line.size();
    std::uint64_t value = 0;
    bool ok = false;
    if (format == key_format::u64 || format == key_format::u32) {
        const auto [stop, failure] = std::from_chars(begin, end, value);
        ok = !line.empty() && failure == std::errc{} && stop == end &&
             (format == key_format::u64 || value <= 0xffffffffu);
    } else {
        std::int64_t signed_value = 0;
        const auto [stop, failure] = std::from_chars(begin, end, signed_value);
        ok = !line.empty() && failure == std::errc{} && stop == end;
        value = static_cast<std::uint64_t>(signed_value);
    }
    if (!ok)
        throw not_a_number(origin.first_line + index, origin.input != nullptr ? *origin.input : std::string("input"),
                           format, line);
    return value;
}

}  // namespace bloomkit::jobs
