// src/cli/support/keys.cpp — see keys.hpp.
#include "keys.hpp"

#include <fmt/core.h>

#include <charconv>

#include "bloomkit/error.hpp"

namespace bloomkit::cli {

key_format parse_key_format(const std::string& text) {
    if (text == "text") return key_format::text;
    if (text == "u64") return key_format::u64;
    if (text == "i64") return key_format::i64;
    throw invalid_argument(fmt::format("--key is text, u64 or i64, not '{}'", text));
}

void add_key_option(CLI::App& command, std::string& format) {
    command
        .add_option("--key", format,
                    "What a line is: text (its bytes), u64 or i64 (a decimal number, hashed as the library hashes "
                    "that integer)")
        ->type_name("text|u64|i64")
        ->capture_default_str();
}

std::uint64_t parse_key_number(std::string_view line, key_format format, const line_origin& origin, std::size_t index) {
    const char* begin = line.data();
    const char* end = line.data() + line.size();
    std::uint64_t value = 0;
    bool ok = false;
    if (format == key_format::u64) {
        const auto [stop, failure] = std::from_chars(begin, end, value);
        ok = !line.empty() && failure == std::errc{} && stop == end;
    } else {
        std::int64_t signed_value = 0;
        const auto [stop, failure] = std::from_chars(begin, end, signed_value);
        ok = !line.empty() && failure == std::errc{} && stop == end;
        value = static_cast<std::uint64_t>(signed_value);
    }
    if (!ok) {
        const std::string shown = line.size() > 40 ? std::string(line.substr(0, 40)) + "..." : std::string(line);
        throw error(fmt::format("line {} of '{}' is not a {} number: '{}' (--key {} takes one decimal number per line{})",
                                origin.first_line + index, origin.input != nullptr ? *origin.input : std::string("input"),
                                format == key_format::u64 ? "u64" : "i64", shown, format == key_format::u64 ? "u64" : "i64",
                                format == key_format::u64 ? ", 0 to 18446744073709551615" : ""));
    }
    return value;
}

}  // namespace bloomkit::cli
