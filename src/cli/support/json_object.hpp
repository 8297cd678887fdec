// src/cli/support/json_object.hpp — the one writer of the command's JSON: an object whose members
// keep the order they are added in, on one line. Every `--json` output is one such object that
// starts with "command" (docs/JSON.md says what each holds; docs/json/bloomkit.schema.json is the
// schema a test holds every output to). Member names are given here, never derived from the
// words a person reads, so the human output can be reworded without renaming a member.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/arguments.hpp"

namespace bloomkit::cli {

class json_object {
public:
    /// An object nested in another (a scalable filter's stage, a kind of plan).
    json_object() = default;
    /// An output of the command: its first member is "command", the subcommand's path without
    /// options ("info", "redis add").
    explicit json_object(std::string_view command);

    json_object& count(std::string_view name, std::uint64_t value);
    /// A number; null when it is infinite or NaN, which JSON cannot spell.
    json_object& number(std::string_view name, double value);
    json_object& text(std::string_view name, std::string_view value);
    json_object& flag(std::string_view name, bool value);
    /// null when the value is not there.
    json_object& count_or_null(std::string_view name, std::optional<std::uint64_t> value);
    json_object& number_or_null(std::string_view name, std::optional<double> value);
    json_object& text_or_null(std::string_view name, std::optional<std::string_view> value);
    /// A value already written as JSON: an array, an object.
    json_object& raw(std::string_view name, std::string_view json);

    /// "{...}", on one line.
    [[nodiscard]] std::string str() const { return "{" + members_ + "}"; }

private:
    std::string members_;
};

/// A JSON array of values already written as JSON ("[1, 2]").
[[nodiscard]] std::string json_array(const std::vector<std::string>& values);

/// A JSON array of strings.
template <class Strings>
[[nodiscard]] std::string json_text_array(const Strings& values) {
    std::vector<std::string> strings;
    for (const auto& value : values) strings.push_back(json_string(value));
    return json_array(strings);
}

}  // namespace bloomkit::cli
