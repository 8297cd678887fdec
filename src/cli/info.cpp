// bloomkit info FILE [--json] [--verify] — what a filter file holds, from its header alone
// (instant, however large the file; a scalable filter's stages come from its stage table), or
// with --verify after checking every payload byte.
#include <fmt/core.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "bloomkit/file.hpp"
#include "command.hpp"

namespace bloomkit::cli {
namespace {

struct info_options {
    std::string filter;
    bool json = false;
    bool verify = false;
};

/// One line of the human output, and its JSON member.
struct field {
    std::string label, text, json_name, json_value;
};

std::string number(std::uint64_t value) { return std::to_string(value); }

/// The kind-specific description: what it is, its parameters.
std::vector<field> describe_kind(const file_header& h, const std::string& path) {
    std::vector<field> fields;
    auto add = [&](std::string label, std::string text, std::string json_name, std::string json_value) {
        fields.push_back({std::move(label), std::move(text), std::move(json_name), std::move(json_value)});
    };
    switch (h.kind) {
        case filter_kind::bloom:
            add("kind", fmt::format("Bloom filter, {} layout", to_string(h.layout)), "layout", json_string(to_string(h.layout)));
            add("size", fmt::format("{} bits, {} hash probes per key", h.geometry.bits, h.geometry.hashes), "bits",
                number(h.geometry.bits));
            add("", "", "hashes", number(h.geometry.hashes));
            add("fill", fmt::format("{:.2f}% of bits set", 100.0 * static_cast<double>(h.set_bits) / static_cast<double>(h.geometry.bits)),
                "set_bits", number(h.set_bits));
            break;
        case filter_kind::counting_bloom:
            add("kind", "counting Bloom filter (deletes), blocks of 128 4-bit counters", "", "");
            add("size", fmt::format("{} counters, {} probes per key", h.counting.counters, h.counting.hashes), "counters",
                number(h.counting.counters));
            add("", "", "hashes", number(h.counting.hashes));
            add("fill", fmt::format("{:.2f}% of counters nonzero",
                                    100.0 * static_cast<double>(h.set_bits) / static_cast<double>(h.counting.counters)),
                "nonzero_counters", number(h.set_bits));
            break;
        case filter_kind::cuckoo:
            add("kind", fmt::format("cuckoo filter (deletes), {}-bit fingerprints, buckets of 4", h.cuckoo.fingerprint_bits),
                "fingerprint_bits", number(h.cuckoo.fingerprint_bits));
            add("size", fmt::format("{} buckets, {:.1f}% full{}", h.cuckoo.buckets,
                                    100.0 * static_cast<double>(h.inserted_count) / (4.0 * static_cast<double>(h.cuckoo.buckets)),
                                    h.stash.occupied() ? ", one fingerprint in the stash (full)" : ""),
                "buckets", number(h.cuckoo.buckets));
            add("", "", "stash_occupied", h.stash.occupied() ? "true" : "false");
            break;
        case filter_kind::scalable_bloom: {
            add("kind", fmt::format("scalable Bloom filter (grows): growth {:g}, tightening {:g}", h.scalable.growth,
                                    h.scalable.tightening),
                "growth", json_number(h.scalable.growth));
            add("", "", "tightening", json_number(h.scalable.tightening));
            const mapped_filter<scalable_bloom_filter> mapped = map<scalable_bloom_filter>(path);
            std::string stages, json = "[";
            for (std::size_t i = 0; i < mapped->stage_count(); ++i) {
                const block_bloom_filter& stage = mapped->stages()[i];
                stages += fmt::format("\n    {:>3}: {} keys at {:.3g}%, {} of {} held, {}", i, stage.expected_keys(),
                                      100 * stage.target_fpp(), stage.inserted_count(), stage.expected_keys(),
                                      human_bytes(static_cast<double>(stage.size_in_bytes())));
                json += fmt::format("{}{{\"capacity\": {}, \"fpp\": {}, \"inserted\": {}, \"bytes\": {}, \"current_fpp\": {}}}",
                                    i ? ", " : "", stage.expected_keys(), json_number(stage.target_fpp()),
                                    stage.inserted_count(), stage.size_in_bytes(), json_number(stage.current_fpr()));
            }
            add("stages", fmt::format("{}{}", mapped->stage_count(), stages), "stages", json + "]");
            add("", "", "current_fpp_compound", json_number(mapped->current_fpr()));
            fields.push_back({"current FPR", fmt::format("{:.4g}% (compound over the stages)", 100 * mapped->current_fpr()), "", ""});
            break;
        }
        case filter_kind::binary_fuse:
            add("kind", fmt::format("binary fuse filter (static), {}-wise, {}-bit fingerprints", h.fuse.arity, h.fuse.fingerprint_bits),
                "arity", number(h.fuse.arity));
            add("", "", "fingerprint_bits", number(h.fuse.fingerprint_bits));
            add("size", fmt::format("{} slots in {} segments of {}; {:.2f} bits/key", h.fuse.geometry.array_length,
                                    h.fuse.geometry.segment_count, h.fuse.geometry.segment_length,
                                    h.fuse.keys == 0 ? 0.0
                                                     : static_cast<double>(h.payload_size) * 8 / static_cast<double>(h.fuse.keys)),
                "slots", number(h.fuse.geometry.array_length));
            break;
    }
    return fields;
}

int run_info(const info_options& options) {
    const file_header h = read_header(options.filter);
    if (options.verify) map_any(options.filter).verify();
    std::vector<field> fields = describe_kind(h, options.filter);
    const double keys = h.approximate_count();
    const std::uint64_t file_bytes = h.payload_offset + h.payload_size;

    if (options.json) {
        std::string members = fmt::format("\"file\": {}, \"format_version\": {}, \"kind\": {}, \"bytes\": {}, \"file_bytes\": {}, "
                                          "\"hash\": {}, \"seed\": {}, \"expected_keys\": {}, \"target_fpp\": {}, "
                                          "\"inserted_keys\": {}, \"estimated_keys\": {}, \"current_fpp\": {}, \"verified\": {}",
                                          json_string(options.filter), h.version, json_string(to_string(h.kind)), h.payload_size,
                                          file_bytes, json_string(to_string(h.hash)), h.seed, h.expected_keys,
                                          json_number(h.target_fpp), h.inserted_count, json_number(keys),
                                          json_number(h.current_fpr()), options.verify ? "true" : "false");
        for (const field& f : fields)
            if (!f.json_name.empty()) members += fmt::format(", {}: {}", json_string(f.json_name), f.json_value);
        fmt::print("{{{}}}\n", members);
        return success;
    }
    auto line = [](std::string_view label, const std::string& text) { fmt::print("{:<15} {}\n", label, text); };
    line("file", fmt::format("{} ({}, format version {})", options.filter, human_bytes(static_cast<double>(file_bytes)), h.version));
    for (const field& f : fields)
        if (!f.label.empty() && f.label != "current FPR") line(f.label, f.text);
    line("memory", human_bytes(static_cast<double>(h.payload_size)));
    line("hash", fmt::format("{} seed {}", to_string(h.hash), h.seed));
    if (h.expected_keys > 0)
        line("sized for", fmt::format("{} keys at {:g}%", h.expected_keys, 100 * h.target_fpp));
    line(h.kind == filter_kind::binary_fuse ? "keys" : "keys added", fmt::format("{}", h.inserted_count));
    if (h.kind == filter_kind::bloom || h.kind == filter_kind::counting_bloom)
        line("estimated keys", std::isfinite(keys) ? fmt::format("{:.0f}", keys) : "unknown (every bit is set)");
    bool printed_fpr = false;
    for (const field& f : fields)
        if (f.label == "current FPR") line(f.label, f.text), printed_fpr = true;
    if (!printed_fpr)
        line("current FPR", fmt::format("{:.4g}%{}", 100 * h.current_fpr(),
                                        h.expected_keys > 0 && h.target_fpp > 0 && h.current_fpr() > h.target_fpp
                                            ? "  (above target: the filter is overfull)"
                                            : ""));
    if (options.verify) line("payload", "checksum verified");
    return success;
}

}  // namespace

action add_info_command(CLI::App& app) {
    auto options = std::make_shared<info_options>();
    CLI::App* info = app.add_subcommand("info", "Describe a filter file: kind, parameters, fill, estimated keys, FPR");
    info->add_option("filter", options->filter, "Filter file")->required();
    info->add_flag("--json", options->json, "Print JSON");
    info->add_flag("--verify", options->verify, "Also verify the payload checksum (reads the whole file)");
    return [options] { return run_info(*options); };
}

}  // namespace bloomkit::cli
