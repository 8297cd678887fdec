// bloomkit plan -n N -p P [--json] — what a filter for N keys at false-positive rate P costs,
// in every layout, so a user can choose before building anything.
#include <fmt/core.h>

#include <memory>
#include <string>

#include "arguments.hpp"
#include "bloomkit/sizing.hpp"
#include "command.hpp"

namespace bloomkit::cli {
namespace {

struct plan_options {
    std::string keys;
    std::string fpp = "0.01";
    bool json = false;
};

const char* describe(bloom_layout layout) {
    switch (layout) {
        case bloom_layout::block: return "one cache line per key (default)";
        case bloom_layout::classic: return "fewest bits, k cache lines per key";
        case bloom_layout::split_block: return "Apache Parquet compatible";
    }
    return "";
}

int run_plan(const plan_options& options) {
    const std::uint64_t n = parse_key_count("-n", options.keys);
    const double p = parse_probability("-p", options.fpp);
    const auto keys = static_cast<double>(n);
    constexpr bloom_layout layouts[] = {bloom_layout::block, bloom_layout::classic, bloom_layout::split_block};

    if (options.json) {
        fmt::print("{{\"keys\": {}, \"fpp\": {}, \"floor_bits_per_key\": {}, \"layouts\": [", n, json_number(p),
                   json_number(-std::log2(p)));
        const char* separator = "";
        for (const bloom_layout layout : layouts) {
            const bloom_plan plan = plan_bloom(layout, keys, p);
            fmt::print("{}\n  {{\"layout\": {}, \"bits\": {}, \"bytes\": {}, \"hashes\": {}, \"bits_per_key\": {}, "
                       "\"expected_fpp\": {}}}",
                       separator, json_string(to_string(layout)), plan.geometry.bits, plan.bytes(), plan.geometry.hashes,
                       json_number(plan.bits_per_key(keys)), json_number(plan.fpr));
            separator = ",";
        }
        fmt::print("\n]}}\n");
        return success;
    }

    fmt::print("{} keys at a false-positive rate of {:g}% (information-theoretic floor: {:.2f} bits/key)\n\n", n, 100 * p,
               -std::log2(p));
    fmt::print("{:<12} {:>12} {:>22} {:>4} {:>9} {:>11}  {}\n", "layout", "memory", "bits (m)", "k", "bits/key",
               "model FPR", "");
    for (const bloom_layout layout : layouts) {
        const bloom_plan plan = plan_bloom(layout, keys, p);
        fmt::print("{:<12} {:>12} {:>22} {:>4} {:>9.3f} {:>10.4f}%  {}\n", to_string(layout), human_bytes(plan.bytes()),
                   plan.geometry.bits, plan.geometry.hashes, plan.bits_per_key(keys), 100 * plan.fpr, describe(layout));
    }
    return success;
}

}  // namespace

action add_plan_command(CLI::App& app) {
    auto options = std::make_shared<plan_options>();
    CLI::App* plan = app.add_subcommand("plan", "Show the memory and probes a filter needs for N keys at rate P");
    plan->add_option("-n,--keys", options->keys, "Number of keys the filter will hold (e.g. 1e6, 50e9)")->required();
    plan->add_option("-p,--fpp", options->fpp, "Target false-positive rate, strictly between 0 and 1")
        ->capture_default_str();
    plan->add_flag("--json", options->json, "Print JSON instead of a table");
    return [options] { return run_plan(*options); };
}

}  // namespace bloomkit::cli
