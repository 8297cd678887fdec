// bloomkit info FILE|- [--json] [--verify] — what a filter file holds, from its header (instant
// however large the file, which is mapped, not read; a scalable filter's stages come from its
// stage table), or with --verify after checking every payload byte.
#include <fmt/core.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "commands/commands.hpp"
#include "jobs/filter/filter_files.hpp"
#include "support/arguments.hpp"
#include "support/common_options.hpp"
#include "support/json_object.hpp"

namespace bloomkit::cli {
namespace {

struct info_options {
    std::string filter;
    filter_reading reading;
    bool json = false;
    bool verify = false;
};

/// What the keys are, as `info` says it.
std::string describe_keys(key_format keys) {
    switch (keys) {
        case key_format::text: return "text (a line's bytes)";
        case key_format::u64: return "u64 (decimal numbers, hashed as 64-bit integers)";
        case key_format::i64: return "i64 (signed decimal numbers, hashed as 64-bit integers)";
        case key_format::u32: return "u32 (decimal numbers below 2^32, hashed as 64-bit integers)";
        case key_format::unrecorded: break;
    }
    return "not recorded (an older bloomkit wrote the file): lines are read as text unless --key says otherwise";
}

/// What `info` says of the format a foreign file is in, and of its Guava funnel.
void describe_format(const jobs::filter_input& opened, std::vector<filter_fact>& out) {
    const file_header& h = opened.header();
    const io::format_facts format = io::facts_of_format(opened.format());
    if (format.word != io::bkf_format::word)  // JSON names the format of every file (run_info)
        out.push_back({"format",
                       fmt::format("{}{}{}", format.name, opened.gzipped() ? " (gzip)" : "",
                                   format.keeps_attached_data
                                       ? fmt::format(", {} bytes of attached data", opened.attached().size())
                                       : ""),
                       "",
                       {},
                       {},
                       {}});
    if (h.funnel != guava_funnel::none)
        out.push_back(
            {"funnel",
             fmt::format("{}{}", java_name(h.funnel),
                         format.records_funnel ? ""
                                               : " (the file does not record it: --funnel names the Java writer's; "
                                                 "utf8 unless told, long with --key u64, i64 or u32)"),
             "funnel",
             std::string(to_string(h.funnel)),
             {},
             {}});
}

/// A fact's value as JSON.
std::string json_value(const fact_value& value) {
    return std::visit(
        [](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::monostate>) return "null";
            else if constexpr (std::is_same_v<T, std::uint64_t>) return std::to_string(v);
            else if constexpr (std::is_same_v<T, double>) return json_number(v);
            else if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
            else return json_string(v);
        },
        value);
}

/// A fact's JSON member: its value, or its records as an array of objects.
std::string json_member(const filter_fact& fact) {
    if (fact.records.empty()) return json_value(fact.value);
    std::vector<std::string> records;
    for (const auto& record : fact.records) {
        std::string members;
        for (const auto& [name, value] : record)
            members += (members.empty() ? "" : ", ") + json_string(name) + ": " + json_value(value);
        records.push_back("{" + members + "}");
    }
    return json_array(records);
}

int run_info(const info_options& options) {
    const jobs::filter_input opened(options.filter, options.reading.parsed());
    if (options.verify) opened.verify();
    const file_header& h = opened.header();
    std::vector<filter_fact> facts = filter_facts(opened.filter(), h);
    describe_format(opened, facts);
    for (const filter_fact& f : facts)
        if (!f.warning.empty()) fmt::print(stderr, "bloomkit: warning: '{}' {}\n", opened.name(), f.warning);
    opened.require_unchanged();
    const double keys = approximate_count(h);
    const std::uint64_t file_bytes = h.file_size();
    const io::format_facts format = io::facts_of_format(opened.format());
    const bool bkf = format.word == io::bkf_format::word;
    const bool interrupted = (h.flags & update_in_progress) != 0;
    if (interrupted)
        fmt::print(stderr,
                   "bloomkit: warning: an update in place of '{}' did not finish (its writer stopped): every key added "
                   "before it is in, but the counts are those of the last update that finished, and readers refuse the "
                   "file until `bloomkit add {} < /dev/null` checks and seals it\n",
                   opened.name(), opened.name());

    if (options.json) {
        // NaN: the rate depends on more than the header holds (a scalable filter's stages).
        const double fpr = std::isnan(current_fpr(h)) ? current_fpr(opened.filter()) : current_fpr(h);
        json_object object("info");
        object.text("file", options.filter)
            .text("format", opened.format())
            .count_or_null("format_version", bkf ? std::optional<std::uint64_t>(h.version) : std::nullopt)
            .text("kind", to_string(h.kind))
            .count("filter_bytes", h.payload_size)
            .count_or_null("file_bytes", bkf ? std::optional(file_bytes) : std::nullopt)
            .text("hash", to_string(h.hash))
            .text("seed", std::to_string(h.seed))  // a string: a u64 above 2^53 is lost in a double
            .count("expected_keys", h.expected_keys)
            .number("target_fpr", h.target_fpr)
            .count_or_null("inserted_keys", format.records_count ? std::optional(h.inserted_count) : std::nullopt)
            .number("estimated_keys", keys)
            .number("current_fpr", fpr)
            .flag("verified", options.verify)
            .text_or_null("key_format",
                          h.keys == key_format::unrecorded ? std::nullopt : std::optional(to_string(h.keys)))
            .flag("interrupted_update", interrupted);
        for (const filter_fact& f : facts)
            if (!f.name.empty()) object.raw(f.name, json_member(f));
        fmt::print("{}\n", object.str());
        return success;
    }
    auto line = [](std::string_view label, const std::string& text) { fmt::print("{:<15} {}\n", label, text); };
    if (bkf)
        line("file", fmt::format("{} ({}, format version {})", opened.name(),
                                 show_bytes(static_cast<double>(file_bytes)), h.version));
    else line("file", opened.name());
    for (const filter_fact& f : facts)
        if (!f.label.empty() && f.label != "current FPR") line(f.label, f.text);
    line("memory", show_bytes(static_cast<double>(h.payload_size)));
    line("hash", fmt::format("{} seed {}", to_string(h.hash), h.seed));
    line("keys are", describe_keys(h.keys) + (opened.records_keys() ? ""
                                                                    : " (the file does not record it: --key names "
                                                                      "what its writer added)"));
    if (interrupted)
        line("update",
             "INTERRUPTED: an update in place did not finish; the counts below are those of the last one that did");
    if (h.expected_keys > 0) line("sized for", fmt::format("{} keys at {:g}%", h.expected_keys, 100 * h.target_fpr));
    if (!format.records_count) line("keys added", "not recorded in its file");
    else line(capabilities(opened.filter()).inserts ? "keys added" : "keys", fmt::format("{}", h.inserted_count));
    if (count_is_estimated(h))
        line("estimated keys", std::isfinite(keys) ? fmt::format("{:.0f}", keys) : "unknown (every bit is set)");
    bool printed_fpr = false;
    for (const filter_fact& f : facts)
        if (f.label == "current FPR") line(f.label, f.text), printed_fpr = true;
    if (!printed_fpr)
        line("current FPR", fmt::format("{:.4g}%{}", 100 * current_fpr(h),
                                        h.expected_keys > 0 && h.target_fpr > 0 && current_fpr(h) > h.target_fpr
                                            ? "  (above target: the filter is overfull)"
                                            : ""));
    if (options.verify) line("payload", "checksum verified");
    return success;
}

}  // namespace

action info_command(CLI::App& command) {
    auto options = std::make_shared<info_options>();
    command.add_option("filter", options->filter, "Filter file; '-' reads it from stdin")
        ->required()
        ->type_name("FILE");
    add_filter_reading_options(command, options->reading);
    command.add_flag("--json", options->json, "Print JSON");
    command.add_flag("--verify", options->verify, "Also verify the payload checksums (reads the whole file)");
    command.footer(
        "Examples:\n"
        "  bloomkit info seen.bkf                           # kind, size, keys, false-positive rate now\n"
        "  bloomkit info --verify seen.bkf                  # and check every byte against its checksum\n"
        "  bloomkit info --json seen.bkf | jq .current_fpr  # one figure, for a script\n"
        "  bloomkit info --funnel long ids.guava            # a Java service's Guava filter of longs");
    return [options] { return run_info(*options); };
}

}  // namespace bloomkit::cli
