// src/cli/support/json_object.cpp — see json_object.hpp.
#include "json_object.hpp"

#include <fmt/core.h>

namespace bloomkit::cli {

json_object::json_object(std::string_view command) { text("command", command); }

json_object& json_object::raw(std::string_view name, std::string_view json) {
    members_ += fmt::format("{}{}: {}", members_.empty() ? "" : ", ", json_string(name), json);
    return *this;
}

json_object& json_object::count(std::string_view name, std::uint64_t value) { return raw(name, std::to_string(value)); }

json_object& json_object::number(std::string_view name, double value) { return raw(name, json_number(value)); }

json_object& json_object::text(std::string_view name, std::string_view value) { return raw(name, json_string(value)); }

json_object& json_object::flag(std::string_view name, bool value) { return raw(name, value ? "true" : "false"); }

json_object& json_object::count_or_null(std::string_view name, std::optional<std::uint64_t> value) {
    return value ? count(name, *value) : raw(name, "null");
}

json_object& json_object::number_or_null(std::string_view name, std::optional<double> value) {
    return value ? number(name, *value) : raw(name, "null");
}

json_object& json_object::text_or_null(std::string_view name, std::optional<std::string_view> value) {
    return value ? text(name, *value) : raw(name, "null");
}

std::string json_array(const std::vector<std::string>& values) {
    std::string array = "[";
    for (const std::string& value : values) array += (array.size() > 1 ? ", " : "") + value;
    return array + "]";
}

}  // namespace bloomkit::cli
