// src/cli/support/keys.hpp — what a line means as a key (--key): its bytes (text), or a decimal
// number hashed exactly as the library hashes an integer of that value (u64: 0 to 2^64 - 1;
// i64: -2^63 to 2^63 - 1), so that `--key u64` finds what a C++ or Python program inserted as
// the integer 7, whatever its type.
//
// A filter records the format it was built with (bloomkit::key_format, in its file's header and
// in a Redis filter's metadata), and every command that reads lines against a filter reads them
// in that format unless told otherwise: `build --key u64` then `check` finds the numbers. A --key
// that contradicts the record is refused (text against integers; u64 and i64 are the same
// integers and go together). A filter that records nothing (written by an older bloomkit) is
// read as --key says, text by default, and a warning says so when the lines look like numbers.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/hash.hpp"
#include "support/line_reader.hpp"

namespace bloomkit::cli {

using bloomkit::key_format;

/// "text", "u64" or "i64".
key_format parse_key_format(const std::string& text);

/// --key text|u64|i64; left empty when not given (then the filter's record decides).
void add_key_option(CLI::App& command, std::string& format);

/// The format of the keys of a filter about to be built: --key, or text.
key_format key_format_to_build(const std::string& option);

/// The format to read lines in against a filter that records `recorded`, named `filter` in
/// messages: --key when given (refused when it contradicts the record), else the record, else
/// text. Throws invalid_argument for a contradiction.
key_format key_format_for(key_format recorded, const std::string& option, std::string_view filter);

/// Watches the first lines read against a filter that records no key format, and warns once
/// on stderr when they all look like decimal numbers while they are read as text: the filter
/// may have been built with --key u64 (by an older bloomkit that did not record it).
class unrecorded_format_warning {
public:
    /// Watches only when the filter records nothing and --key was not given.
    unrecorded_format_warning(key_format recorded, const std::string& option, std::string filter);

    /// Looks at a batch of lines (the first batch decides; later calls cost a branch).
    void look(std::span<const std::string_view> lines);

private:
    bool watching_;
    std::string filter_;
};

/// The number a line holds, as the 64 bits the library hashes (an i64 as its two's
/// complement). Throws bloomkit::error naming the line (its input and number) when the line is
/// not a number of the format.
std::uint64_t parse_key_number(std::string_view line, key_format format, const line_origin& origin, std::size_t index);

/// Calls use(keys) with the keys of a batch of lines: the lines themselves for text, else the
/// numbers they hold (a span of std::uint64_t). Either way keys[i] is line i's key.
template <class Use>
decltype(auto) with_keys(std::span<const std::string_view> lines, key_format format, const line_origin& origin, Use&& use) {
    if (format != key_format::u64 && format != key_format::i64) return use(lines);
    thread_local std::vector<std::uint64_t> numbers;
    numbers.resize(lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) numbers[i] = parse_key_number(lines[i], format, origin, i);
    return use(std::span<const std::uint64_t>(numbers));
}

}  // namespace bloomkit::cli
