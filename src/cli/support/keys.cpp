// src/cli/support/keys.cpp — see keys.hpp.
#include "keys.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>

#include "bloomkit/error.hpp"

namespace bloomkit::cli {
namespace {

bool looks_numeric(std::string_view line) {
    if (!line.empty() && line.front() == '-') line.remove_prefix(1);
    return !line.empty() && line.size() <= 20 && std::ranges::all_of(line, [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

key_format parse_key_format(const std::string& text) {
    if (text == "text") return key_format::text;
    if (text == "u64") return key_format::u64;
    if (text == "i64") return key_format::i64;
    if (text == "u32") return key_format::u32;
    throw invalid_argument(fmt::format("--key is text, u64, i64 or u32, not '{}'", text));
}

void add_key_option(CLI::App& command, std::string& format) {
    command
        .add_option("--key", format,
                    "What a line is: text (its bytes), u64, i64 or u32 (a decimal number, hashed as the library "
                    "hashes that integer). Default: what the filter records, text for a new one")
        ->type_name("text|u64|i64|u32");
}

key_format key_format_to_build(const std::string& option) {
    return option.empty() ? key_format::text : parse_key_format(option);
}

key_format key_format_for(key_format recorded, const std::string& option, std::string_view filter) {
    if (option.empty()) return recorded == key_format::unrecorded ? key_format::text : recorded;
    const key_format asked = parse_key_format(option);
    if (!same_keys(recorded, asked))
        throw invalid_argument(fmt::format(
            "--key {} contradicts '{}', whose keys are {}: {} would be read as other keys than it holds. Leave --key "
            "out "
            "(the filter's own format is used), or rebuild the filter with --key {}",
            option, filter,
            is_integer(recorded) ? fmt::format("integers (--key {})", to_string(recorded)) : std::string("text"),
            is_integer(asked) ? "numbers" : "lines", option));
    return asked;
}

unrecorded_format_warning::unrecorded_format_warning(key_format recorded, const std::string& option, std::string filter)
    : watching_(recorded == key_format::unrecorded && option.empty()), filter_(std::move(filter)) {}

void unrecorded_format_warning::look(std::span<const std::string_view> lines) {
    if (!watching_ || lines.empty()) return;
    watching_ = false;
    if (!std::ranges::all_of(lines, looks_numeric)) return;
    fmt::print(
        stderr,
        "bloomkit: warning: '{}' does not record what its keys are (an older bloomkit wrote it), so its lines are "
        "read as text; they look like numbers: if it was built with --key u64 or i64, give that --key too\n",
        filter_);
}

}  // namespace bloomkit::cli
