// src/cli/support/summary.cpp — see summary.hpp.
#include "summary.hpp"

#include <fmt/core.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "support/arguments.hpp"
#include "support/json_object.hpp"

namespace bloomkit::cli {
namespace {

// When the process started (static initialisation precedes main).
const std::chrono::steady_clock::time_point process_start = std::chrono::steady_clock::now();

/// "VALUE LABEL", or nothing without a label.
std::string labelled(const std::string& value, std::string_view label) {
    return label.empty() ? std::string() : fmt::format("{} {}", value, label);
}

}  // namespace

job_summary::job_summary(std::string command, std::string title)
    : command_(std::move(command)), title_(title.empty() ? command_ : std::move(title)) {}

job_summary& job_summary::add(std::string member, std::string json, std::string human) {
    fields_.push_back({std::move(member), std::move(json), std::move(human)});
    return *this;
}

job_summary& job_summary::count(std::string member, std::uint64_t value, std::string_view label) {
    return add(std::move(member), std::to_string(value), labelled(std::to_string(value), label));
}

job_summary& job_summary::estimate(std::string member, double value, std::string_view label) {
    // 69280, not 6.928e+04: a count of lines reads as one
    const std::string shown =
        value >= 1000 && value < 1e15 ? fmt::format("{:.0f}", value) : fmt::format("{:.4g}", value);
    return add(std::move(member), json_number(value), labelled("~" + shown, label));
}

job_summary& job_summary::text(std::string member, std::string value, in_line shown) {
    std::string json = json_string(value);
    return add(std::move(member), std::move(json), shown == in_line::yes ? std::move(value) : std::string());
}

job_summary& job_summary::flag(std::string member, bool value) {
    return add(std::move(member), value ? "true" : "false", {});
}

job_summary& job_summary::note(std::string words) { return add({}, {}, std::move(words)); }

bool job_summary::wanted(bool json) { return json || ::isatty(STDERR_FILENO) == 1; }

void job_summary::print(bool json, bool json_on_stderr) const {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - process_start).count();
    if (json) {
        json_object object(command_);
        for (const field& f : fields_)
            if (!f.member.empty()) object.raw(f.member, f.json);
        object.number("seconds", seconds);
        if (bytes_read_) object.count("bytes_read", *bytes_read_);
        fmt::print(json_on_stderr ? stderr : stdout, "{}\n", object.str());
        return;
    }
    std::string line = "bloomkit " + title_ + ":";
    const char* separator = " ";
    for (const field& f : fields_) {
        if (f.human.empty()) continue;
        line += separator + f.human;
        separator = ", ";
    }
    line += fmt::format("{}{:.2f} s", separator, seconds);
    if (bytes_read_ && seconds > 0)
        line += fmt::format(" ({:.0f} MB/s)", static_cast<double>(*bytes_read_) / 1e6 / seconds);
    fmt::print(stderr, "{}\n", line);
}

job_summary& describe_filter(job_summary& summary, const file_header& h, std::string_view keys_label,
                             std::string_view bytes_label) {
    return summary.text("kind", std::string(to_string(h.kind)))
        .text("kind_name", filter_name(h), job_summary::in_line::yes)
        .estimate("estimated_keys", approximate_count(h), keys_label)
        .count("filter_bytes", h.payload_size, bytes_label);
}

}  // namespace bloomkit::cli
