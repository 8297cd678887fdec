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
#include <utility>
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

/// One line of the human output, and its JSON member.
struct field {
    std::string label, text, json_name, json_value;
};

std::string number(std::uint64_t value) { return std::to_string(value); }

/// Collects the fields of the description.
class fields_builder {
public:
    void add(std::string label, std::string text, std::string json_name, std::string json_value) {
        fields_.push_back({std::move(label), std::move(text), std::move(json_name), std::move(json_value)});
    }
    std::vector<field> take() { return std::move(fields_); }

private:
    std::vector<field> fields_;
};

// The kind-specific description: what it is, its parameters. Any kind of the registry (kinds.hpp)
// is described by its name; the overloads below add what info knows to say of each kind's
// parameters. Everything but a scalable filter's stages comes from the header.

template <class Filter>
void describe(const Filter&, const file_header&, fields_builder& out) {
    out.add("kind", kind_traits<Filter>::name(), "", "");
}

template <class Layout>
void describe(const basic_bloom_filter<Layout>&, const file_header& h, fields_builder& out) {
    out.add("kind",
            is_foreign(h.layout) ? kind_traits<basic_bloom_filter<Layout>>::name()
                                 : fmt::format("Bloom filter, {} layout", to_string(h.layout)),
            "layout", json_string(to_string(h.layout)));
    out.add("size", fmt::format("{} bits, {} hash probes per key", h.geometry.bits, h.geometry.hashes), "bits",
            number(h.geometry.bits));
    out.add("", "", "hashes", number(h.geometry.hashes));
    out.add("fill",
            fmt::format("{:.2f}% of bits set",
                        100.0 * static_cast<double>(h.set_bits) / static_cast<double>(h.geometry.bits)),
            "set_bits", number(h.set_bits));
}

void describe(const counting_bloom_filter&, const file_header& h, fields_builder& out) {
    out.add("kind", "counting Bloom filter (deletes), blocks of 128 4-bit counters", "", "");
    out.add("size", fmt::format("{} counters, {} probes per key", h.counting.counters, h.counting.hashes), "counters",
            number(h.counting.counters));
    out.add("", "", "hashes", number(h.counting.hashes));
    out.add("fill",
            fmt::format("{:.2f}% of counters nonzero",
                        100.0 * static_cast<double>(h.set_bits) / static_cast<double>(h.counting.counters)),
            "nonzero_counters", number(h.set_bits));
}

void describe(const cuckoo_filter&, const file_header& h, fields_builder& out) {
    out.add("kind",
            fmt::format("cuckoo filter (deletes), {}-bit fingerprints, buckets of 4", h.cuckoo.fingerprint_bits),
            "fingerprint_bits", number(h.cuckoo.fingerprint_bits));
    out.add("size",
            fmt::format("{} buckets, {:.1f}% full{}", h.cuckoo.buckets,
                        100.0 * static_cast<double>(h.inserted_count) / (4.0 * static_cast<double>(h.cuckoo.buckets)),
                        h.stash.occupied() ? ", one fingerprint in the stash (full)" : ""),
            "buckets", number(h.cuckoo.buckets));
    out.add("", "", "stash_occupied", h.stash.occupied() ? "true" : "false");
}

void describe(const scalable_bloom_filter& filter, const file_header& h, fields_builder& out) {
    out.add("kind",
            fmt::format("scalable Bloom filter (grows): growth {:g}, tightening {:g}", h.scalable.growth,
                        h.scalable.tightening),
            "growth", json_number(h.scalable.growth));
    out.add("", "", "tightening", json_number(h.scalable.tightening));
    std::string stages;
    std::vector<std::string> json;
    for (std::size_t i = 0; i < filter.stage_count(); ++i) {
        const block_bloom_filter& stage = filter.stages()[i];
        stages += fmt::format("\n    {:>3}: {} keys at {:.3g}%, {} of {} held, {}", i, stage.expected_keys(),
                              100 * stage.target_fpr(), stage.inserted_count(), stage.expected_keys(),
                              human_bytes(static_cast<double>(stage.size_in_bytes())));
        json.push_back(json_object()
                           .count("expected_keys", stage.expected_keys())
                           .number("target_fpr", stage.target_fpr())
                           .count("inserted_keys", stage.inserted_count())
                           .count("filter_bytes", stage.size_in_bytes())
                           .number("current_fpr", stage.current_fpr())
                           .str());
    }
    out.add("stages", fmt::format("{}{}", filter.stage_count(), stages), "stages", json_array(json));
    out.add("current FPR", fmt::format("{:.4g}% (compound over the stages)", 100 * filter.current_fpr()), "", "");
}

/// A binary fuse filter's slot hashing: its name (JSON's value) and what it is.
std::pair<std::string_view, std::string_view> describe_slot_hashing(binary_fuse_hashing hashing) {
    switch (hashing) {
        case binary_fuse_hashing::remix128:
            return {"remix128", "the first scheme: both halves of the digest, an fmix64 each"};
        case binary_fuse_hashing::remix64: return {"remix64", "the digest's low half, one fmix64"};
        case binary_fuse_hashing::direct64:
            return {"direct64", "the digest's low half, as it is at the filter's seed; one fmix64 after a retry"};
    }
    return {"unknown", "unknown"};
}

template <class Fingerprint, unsigned Arity>
void describe(const basic_binary_fuse_filter<Fingerprint, Arity>&, const file_header& h, fields_builder& out) {
    out.add(
        "kind",
        fmt::format("binary fuse filter (static), {}-wise, {}-bit fingerprints", h.fuse.arity, h.fuse.fingerprint_bits),
        "arity", number(h.fuse.arity));
    out.add("", "", "fingerprint_bits", number(h.fuse.fingerprint_bits));
    out.add("size",
            fmt::format(
                "{} slots in {} segments of {}; {:.2f} bits/key", h.fuse.geometry.array_length,
                h.fuse.geometry.segment_count, h.fuse.geometry.segment_length,
                h.fuse.keys == 0 ? 0.0 : static_cast<double>(h.payload_size) * 8 / static_cast<double>(h.fuse.keys)),
            "slots", number(h.fuse.geometry.array_length));
    const auto [name, how] = describe_slot_hashing(h.fuse.hashing);
    out.add("slot hashing", fmt::format("{} ({})", name, how), "slot_hashing", json_string(name));
}

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

/// The rate at which `filter` answers "maybe" for keys never inserted, measured on `trials`
/// distinct keys no one inserts: what a DCSO filter's index rule makes of its fill.
double measured_fpr(const any_filter& filter, std::uint64_t trials) {
    return std::visit(
        [&](const auto& f) {
            std::uint64_t positives = 0;
            for (std::uint64_t i = 0; i < trials; ++i)
                positives += f.contains("bloomkit info: a key no one inserts #" + std::to_string(i)) ? 1 : 0;
            return static_cast<double>(positives) / static_cast<double>(trials);
        },
        filter);
}

/// What `info` says of the format a foreign file is in, and of a DCSO filter's measured rate.
void describe_format(const jobs::filter_input& opened, fields_builder& out) {
    const file_header& h = opened.header();
    const io::format_facts format = io::facts_of_format(opened.format());
    if (format.word != io::bkf_format::word)  // JSON names the format of every file (run_info)
        out.add(
            "format",
            fmt::format(
                "{}{}{}", format.name, opened.gzipped() ? " (gzip)" : "",
                format.keeps_attached_data ? fmt::format(", {} bytes of attached data", opened.attached().size()) : ""),
            "", "");
    if (h.funnel != guava_funnel::none)
        out.add("funnel",
                fmt::format("{}{}", java_name(h.funnel),
                            format.records_funnel ? ""
                                                  : " (the file does not record it: --funnel names the Java writer's; "
                                                    "utf8 unless told, long with --key u64, i64 or u32)"),
                "funnel", json_string(to_string(h.funnel)));
    if (h.layout == bloom_layout::dcso && h.kind == filter_kind::bloom) {
        constexpr std::uint64_t trials = 100000;
        const double measured = measured_fpr(opened.filter(), trials), model = current_fpr(h);
        out.add("measured FPR", fmt::format("{:.4g}% on {} keys never inserted", 100 * measured, trials),
                "measured_fpr", json_number(measured));
        // Far above the model, beyond what chance explains (~4 standard deviations): DCSO's weak index rule.
        if (measured > 2 * model + 4 * std::sqrt(model / trials) + 1e-4)
            fmt::print(stderr,
                       "bloomkit: warning: '{}' answers \"maybe\" for {:.3g}% of keys never inserted, far above the "
                       "{:.3g}% its fill predicts: DCSO's index rule is weak when the bit count ({}) has a large "
                       "power of two as a factor (DCSO/bloom#19); size it for another capacity, or rebuild it from "
                       "the keys as a native filter\n",
                       opened.name(), 100 * measured, 100 * model, h.geometry.bits);
    }
}

int run_info(const info_options& options) {
    const jobs::filter_input opened(options.filter, options.reading.parsed());
    if (options.verify) opened.verify();
    const file_header& h = opened.header();
    fields_builder builder;
    std::visit([&](const auto& filter) { describe(filter, h, builder); }, opened.filter());
    describe_format(opened, builder);
    const std::vector<field> fields = builder.take();
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
        // A scalable filter's rate depends on each stage's fill, which its header does not hold.
        const double fpr = h.kind == filter_kind::scalable_bloom ? current_fpr(opened.filter()) : current_fpr(h);
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
        for (const field& f : fields)
            if (!f.json_name.empty()) object.raw(f.json_name, f.json_value);
        fmt::print("{}\n", object.str());
        return success;
    }
    auto line = [](std::string_view label, const std::string& text) { fmt::print("{:<15} {}\n", label, text); };
    if (bkf)
        line("file", fmt::format("{} ({}, format version {})", opened.name(),
                                 human_bytes(static_cast<double>(file_bytes)), h.version));
    else line("file", opened.name());
    for (const field& f : fields)
        if (!f.label.empty() && f.label != "current FPR") line(f.label, f.text);
    line("memory", human_bytes(static_cast<double>(h.payload_size)));
    line("hash", fmt::format("{} seed {}", to_string(h.hash), h.seed));
    line("keys are", describe_keys(h.keys) + (opened.records_keys() ? ""
                                                                    : " (the file does not record it: --key names "
                                                                      "what its writer added)"));
    if (interrupted)
        line("update",
             "INTERRUPTED: an update in place did not finish; the counts below are those of the last one that did");
    if (h.expected_keys > 0) line("sized for", fmt::format("{} keys at {:g}%", h.expected_keys, 100 * h.target_fpr));
    if (!format.records_count) line("keys added", "not recorded in its file");
    else line(h.kind == filter_kind::binary_fuse ? "keys" : "keys added", fmt::format("{}", h.inserted_count));
    if (h.kind == filter_kind::bloom || h.kind == filter_kind::counting_bloom)
        line("estimated keys", std::isfinite(keys) ? fmt::format("{:.0f}", keys) : "unknown (every bit is set)");
    bool printed_fpr = false;
    for (const field& f : fields)
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
