// src/jobs/line_keys.cpp — see line_keys.hpp.
#include "jobs/line_keys.hpp"

#include <fmt/core.h>

#include <optional>
#include <utility>

namespace bloomkit::jobs {
namespace {

/// ", 0 to 4294967295": the range of the format's keys, after "one decimal number per line".
std::string range_after(key_format format) {
    const std::string_view range = range_of(format);
    return range.empty() ? std::string() : ", " + std::string(range);
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
    : key_error(fmt::format("{} (one decimal number per line{})", head, range_after(format))),
      head_(std::move(head)),
      format_(format) {}

std::string not_a_number::explained_by(std::string_view chooser) const {
    return fmt::format("{} ({} takes one decimal number per line{})", head_, chooser, range_after(format_));
}

std::uint64_t parse_key_number(std::string_view line, key_format format, const line_origin& origin, std::size_t index) {
    if (const std::optional<key_integer> value = parse_integer_key(line, format)) return value->bits;
    throw not_a_number(origin.first_line + index, origin.input != nullptr ? *origin.input : std::string("input"),
                       format, line);
}

}  // namespace bloomkit::jobs
