// src/cli/support/keys.hpp — what a line means as a key (--key): its bytes (text, the default),
// or a decimal number hashed exactly as the library hashes an integer of that value (u64: 0 to
// 2^64 - 1; i64: -2^63 to 2^63 - 1), so that `--key u64` finds what a C++ or Python program
// inserted as the integer 7, whatever its type.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "support/line_reader.hpp"

namespace bloomkit::cli {

enum class key_format { text, u64, i64 };

/// "text", "u64" or "i64".
key_format parse_key_format(const std::string& text);

/// --key text|u64|i64.
void add_key_option(CLI::App& command, std::string& format);

/// The number a line holds, as the 64 bits the library hashes (an i64 as its two's
/// complement). Throws bloomkit::error naming the line (its input and number) when the line is
/// not a number of the format.
std::uint64_t parse_key_number(std::string_view line, key_format format, const line_origin& origin, std::size_t index);

/// Calls use(keys) with the keys of a batch of lines: the lines themselves for text, else the
/// numbers they hold (a span of std::uint64_t). Either way keys[i] is line i's key.
template <class Use>
decltype(auto) with_keys(std::span<const std::string_view> lines, key_format format, const line_origin& origin, Use&& use) {
    if (format == key_format::text) return use(lines);
    thread_local std::vector<std::uint64_t> numbers;
    numbers.resize(lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) numbers[i] = parse_key_number(lines[i], format, origin, i);
    return use(std::span<const std::uint64_t>(numbers));
}

}  // namespace bloomkit::cli
