// src/cli/support/summary.cpp — see summary.hpp.
#include "summary.hpp"

#include <fmt/core.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "support/arguments.hpp"

namespace bloomkit::cli {
namespace {

// When the process started (static initialisation precedes main).
const std::chrono::steady_clock::time_point process_start = std::chrono::steady_clock::now();

/// "written wrongly (false positives)" -> "written_wrongly_false_positives".
std::string json_name(const std::string& name) {
    std::string json;
    for (const char c : name) {
        const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (word) json += c;
        else if (!json.empty() && json.back() != '_') json += '_';
    }
    while (!json.empty() && json.back() == '_') json.pop_back();
    return json;
}

}  // namespace

job_summary& job_summary::count(std::string name, std::uint64_t value) {
    fields_.push_back({name, std::to_string(value) + " " + name, std::to_string(value)});
    return *this;
}

job_summary& job_summary::estimate(std::string name, double value) {
    // 69280, not 6.928e+04: a count of lines reads as one
    const std::string human =
        value >= 1000 && value < 1e15 ? fmt::format("~{:.0f} {}", value, name) : fmt::format("~{:.4g} {}", value, name);
    fields_.push_back({name, human, json_number(value)});
    return *this;
}

job_summary& job_summary::text(std::string name, std::string value) {
    std::string json = json_string(value);
    fields_.push_back({std::move(name), std::move(value), std::move(json)});  // the value reads alone
    return *this;
}

bool job_summary::wanted(bool json) { return json || ::isatty(STDERR_FILENO) == 1; }

void job_summary::print(bool json, bool json_on_stderr) const {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - process_start).count();
    if (json) {
        std::string members = fmt::format("\"job\": {}", json_string(job_));
        for (const field& f : fields_) members += fmt::format(", {}: {}", json_string(json_name(f.name)), f.json);
        members += fmt::format(", \"seconds\": {}", json_number(seconds));
        if (bytes_read_) members += fmt::format(", \"bytes_read\": {}", *bytes_read_);
        fmt::print(json_on_stderr ? stderr : stdout, "{{{}}}\n", members);
        return;
    }
    std::string line = "bloomkit " + job_ + ":";
    const char* separator = " ";
    for (const field& f : fields_) {
        line += separator + f.human;
        separator = ", ";
    }
    line += fmt::format("{}{:.2f} s", separator, seconds);
    if (bytes_read_ && seconds > 0)
        line += fmt::format(" ({:.0f} MB/s)", static_cast<double>(*bytes_read_) / 1e6 / seconds);
    fmt::print(stderr, "{}\n", line);
}

}  // namespace bloomkit::cli
