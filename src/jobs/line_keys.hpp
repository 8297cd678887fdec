// src/jobs/line_keys.hpp — what a line means as a key, in a key_format: its bytes (text), or the
// decimal number it spells by the library's rules (bloomkit/keys.hpp: parse_integer_key, each
// format's range), hashed as the library hashes that integer, so that a line "7" read as u64
// finds what a C++ or Python program inserted as the integer 7, whatever its type.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/keys.hpp"
#include "jobs/line_reader.hpp"

namespace bloomkit::jobs {

/// Thrown for a line that is not a number of the format its keys are read in. what() names the
/// line (its input and number) and quotes it; a caller that knows where the format was chosen
/// names that with explained_by().
class not_a_number : public key_error {
public:
    not_a_number(std::uint64_t line, const std::string& input, key_format format, std::string_view text);

    [[nodiscard]] key_format format() const noexcept { return format_; }

    /// The message, saying that `chooser` ("--key u64", say) takes one number per line.
    [[nodiscard]] std::string explained_by(std::string_view chooser) const;

private:
    not_a_number(std::string head, key_format format);

    std::string head_;  // "line 3 of 'keys.txt' is not a u64 number: '12x'"
    key_format format_;
};

/// The number a line holds, as the 64 bits the library hashes (an i64 as its two's
/// complement). Throws not_a_number naming the line (line `index` of a run that starts at
/// `origin`) when it is not a number of the format.
std::uint64_t parse_key_number(std::string_view line, key_format format, const line_origin& origin, std::size_t index);

/// Calls use(keys) with the keys of a batch of lines: the lines themselves for text, else the
/// numbers they hold (a span of std::uint64_t). Either way keys[i] is line i's key.
template <class Use>
decltype(auto) with_keys(std::span<const std::string_view> lines, key_format format, const line_origin& origin,
                         Use&& use) {
    if (!is_integer(format)) return use(lines);
    thread_local std::vector<std::uint64_t> numbers;
    numbers.resize(lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) numbers[i] = parse_key_number(lines[i], format, origin, i);
    return use(std::span<const std::uint64_t>(numbers));
}

}  // namespace bloomkit::jobs
