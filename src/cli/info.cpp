// bloomkit info FILE [--json] [--verify] — what a filter file holds, from its header alone
// (instant, however large the file), or with --verify after checking every payload byte.
#include <fmt/core.h>

#include <filesystem>
#include <memory>
#include <string>

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

int run_info(const info_options& options) {
    const file_header h = options.verify ? map_any(options.filter).header() : read_header(options.filter);
    if (options.verify) map_any(options.filter).verify();
    const double keys = h.approximate_count();
    const double fill = static_cast<double>(h.set_bits) / static_cast<double>(h.geometry.bits);
    const double planned_fpr = h.expected_keys > 0 ? expected_fpr(h.layout, static_cast<double>(h.expected_keys), h.geometry) : 0;
    const std::uint64_t file_bytes = h.payload_offset + h.payload_size;

    if (options.json) {
        fmt::print(
            "{{\"file\": {}, \"format_version\": {}, \"kind\": \"bloom\", \"layout\": {}, \"bits\": {}, \"hashes\": {}, "
            "\"bytes\": {}, \"file_bytes\": {}, \"hash\": {}, \"seed\": {}, \"expected_keys\": {}, \"target_fpp\": {}, "
            "\"inserted_keys\": {}, \"set_bits\": {}, \"fill\": {}, \"estimated_keys\": {}, \"current_fpp\": {}, "
            "\"verified\": {}}}\n",
            json_string(options.filter), h.version, json_string(to_string(h.layout)), h.geometry.bits, h.geometry.hashes,
            h.payload_size, file_bytes, json_string(to_string(h.hash)), h.seed, h.expected_keys, json_number(h.target_fpp),
            h.inserted_count, h.set_bits, json_number(fill), json_number(keys), json_number(h.current_fpr()),
            options.verify ? "true" : "false");
        return success;
    }
    fmt::print("file            {} ({}, format version {})\n", options.filter, human_bytes(static_cast<double>(file_bytes)),
               h.version);
    fmt::print("kind            Bloom filter, {} layout\n", to_string(h.layout));
    fmt::print("size            {} bits ({}), {} hash probes per key\n", h.geometry.bits,
               human_bytes(static_cast<double>(h.payload_size)), h.geometry.hashes);
    fmt::print("hash            {} seed {}\n", to_string(h.hash), h.seed);
    if (h.expected_keys > 0)
        fmt::print("sized for       {} keys at {:g}% (model: {:.4g}% at that count)\n", h.expected_keys, 100 * h.target_fpp,
                   100 * planned_fpr);
    else
        fmt::print("sized for       explicit geometry\n");
    fmt::print("new keys added  {}  (inserts that set a bit: duplicates are not counted)\n", h.inserted_count);
    fmt::print("estimated keys  {}\n", std::isfinite(keys) ? fmt::format("{:.0f}", keys) : "unknown (every bit is set)");
    fmt::print("fill            {:.2f}% of bits set\n", 100 * fill);
    fmt::print("current FPR     {:.4g}%{}\n", 100 * h.current_fpr(),
               h.expected_keys > 0 && h.current_fpr() > h.target_fpp ? "  (above target: the filter is overfull)" : "");
    if (options.verify) fmt::print("payload         checksum verified\n");
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
