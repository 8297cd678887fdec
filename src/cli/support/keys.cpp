// src/cli/support/keys.cpp — see keys.hpp.
#include "keys.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "bloomkit/error.hpp"

namespace bloomkit::cli {
namespace {

bool looks_numeric(std::string_view line) {
    if (!line.empty() && line.front() == '-') line.remove_prefix(1);
    return !line.empty() && line.size() <= 20 && std::ranges::all_of(line, [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

key_format parse_key_format(const std::string& text) {
    if (const std::optional<key_format> format = key_format_named(text)) return *format;
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

namespace {

/// --key as the library's rules take it: unrecorded when not given.
key_format asked_format(const std::string& option) {
    return option.empty() ? key_format::unrecorded : parse_key_format(option);
}

}  // namespace

key_format asked_key_format(const std::string& option) { return asked_format(option); }

key_format key_format_for(key_format recorded, const std::string& option, std::string_view filter) {
    return key_format_to_read(recorded, asked_format(option), filter);
}

key_format key_format_to_add(key_format recorded, const std::string& option, std::string_view filter, bool holds_keys) {
    return key_format_to_write(recorded, asked_format(option), holds_keys, filter);
}

std::string key_format_message(const key_error& e) {
    if (const auto* mismatch = dynamic_cast<const key_format_mismatch*>(&e)) {
        const key_format recorded = mismatch->recorded(), asked = mismatch->asked();
        return fmt::format(
            "--key {} contradicts '{}', whose keys are {}: {} would be read as other keys than it holds. Leave --key "
            "out (the filter's own format is used), or rebuild the filter with --key {}",
            to_string(asked), mismatch->filter(),
            is_integer(recorded) ? fmt::format("integers (--key {})", to_string(recorded)) : std::string("text"),
            is_integer(asked) ? "numbers" : "lines", to_string(asked));
    }
    if (const auto* unrecorded = dynamic_cast<const unrecorded_key_format*>(&e))
        return fmt::format(
            "'{}' holds keys but does not record what they are (an older bloomkit, or a format that cannot record "
            "them, wrote it): say it with --key text, u64, i64 or u32 (as it was built), which a bkf file then records",
            unrecorded->filter());
    return e.what();
}

void note_unrecorded_keys(std::string_view format, key_format keys, guava_funnel funnel) {
    if (format == "bkf" || !is_integer(keys)) return;
    const std::string how =
        funnel == guava_funnel::integer ? std::string("--funnel int") : "--key " + std::string(to_string(keys));
    fmt::print(stderr, "bloomkit: note: a {} file does not record that its keys are {} integers: read it with {}\n",
               format, to_string(keys), how);
}

unrecorded_format_warning::unrecorded_format_warning(key_format recorded, const std::string& option, std::string filter)
    : watching_(recorded == key_format::unrecorded && option.empty()), filter_(std::move(filter)) {}

void unrecorded_format_warning::look(std::span<const std::string_view> lines) {
    if (!watching_ || lines.empty()) return;
    watching_ = false;
    if (!std::ranges::all_of(lines, looks_numeric)) return;
    fmt::print(
        stderr,
        "bloomkit: warning: '{}' does not record what its keys are (an older bloomkit, or a format that cannot, "
        "wrote it), so its lines are read as text; they look like numbers: if it was built with --key u64 or i64, "
        "give that --key too\n",
        filter_);
}

}  // namespace bloomkit::cli
