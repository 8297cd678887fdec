// bloomkit plan -n N -p P [--json] — what a filter for N keys at false-positive rate P costs,
// in every kind of the registry (any_filter.hpp) side by side, and what each can do, so a user
// can choose before building anything.
#include <fmt/core.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "commands/commands.hpp"
#include "support/arguments.hpp"

namespace bloomkit::cli {
namespace {

struct plan_options {
    std::string keys;
    std::string fpr = "0.01";
    bool json = false;
};

/// One row of the plan: a kind sized for (n, p), or why it cannot be.
struct plan_row {
    std::string flags;      // as `build --kind ...` spells it
    std::string abilities;  // adds / deletes / grows / static
    std::string summary;
    kind_plan plan;
    std::optional<std::string> impossible;

    [[nodiscard]] std::string probes() const {
        return plan.hashes != 0 ? fmt::format("k={}", plan.hashes) : fmt::format("f={}", plan.fingerprint_bits);
    }
};

std::vector<plan_row> plan_all(double n, double p) {
    std::vector<plan_row> rows;
    for_each_filter_type([&](auto type) {
        using traits = kind_traits<typename decltype(type)::type>;
        plan_row row{traits::flags(), std::string(traits::abilities), std::string(traits::summary), {}, {}};
        try {
            row.plan = traits::plan(n, p);
        } catch (const invalid_argument& e) {
            row.impossible = e.what();
        }
        rows.push_back(std::move(row));
    });
    return rows;
}

int run_plan(const plan_options& options) {
    const std::uint64_t n = parse_key_count("-n", options.keys);
    const double p = parse_probability("-p", options.fpr);
    const auto keys = static_cast<double>(n);
    (void)plan_bloom(bloom_layout::classic, keys, p);  // throws for an impossible request
    const std::vector<plan_row> rows = plan_all(keys, p);

    if (options.json) {
        fmt::print("{{\"keys\": {}, \"fpr\": {}, \"floor_bits_per_key\": {}, \"kinds\": [", n, json_number(p),
                   json_number(-std::log2(p)));
        const char* separator = "";
        for (const plan_row& r : rows) {
            if (r.impossible)
                fmt::print("{}\n  {{\"kind\": {}, \"possible\": false, \"why\": {}}}", separator, json_string(r.flags),
                           json_string(*r.impossible));
            else
                fmt::print("{}\n  {{\"kind\": {}, \"possible\": true, \"abilities\": {}, \"bits\": {}, \"bytes\": {}, "
                           "\"probes\": {}, \"bits_per_key\": {}, \"expected_fpr\": {}}}",
                           separator, json_string(r.flags), json_string(r.abilities), r.plan.bytes * 8, r.plan.bytes,
                           json_string(r.probes()), json_number(static_cast<double>(r.plan.bytes) * 8 / keys),
                           json_number(r.plan.fpr));
            separator = ",";
        }
        fmt::print("\n]}}\n");
        return success;
    }

    fmt::print("{} keys at a false-positive rate of {:g}% (information-theoretic floor: {:.2f} bits/key)\n\n", n, 100 * p,
               -std::log2(p));
    fmt::print("{:<26} {:>12} {:>9} {:>6} {:>11}  {:<13} {}\n", "kind (build --kind)", "memory", "bits/key", "", "model FPR",
               "can", "");
    for (const plan_row& r : rows) {
        if (r.impossible) {
            fmt::print("{:<26} {:>12}  {}\n", r.flags, "–", *r.impossible);
            continue;
        }
        fmt::print("{:<26} {:>12} {:>9.3f} {:>6} {:>10.4f}%  {:<13} {}\n", r.flags, human_bytes(static_cast<double>(r.plan.bytes)),
                   static_cast<double>(r.plan.bytes) * 8 / keys, r.probes(), 100 * r.plan.fpr, r.abilities, r.summary);
    }
    return success;
}

}  // namespace

action plan_command(CLI::App& command) {
    auto options = std::make_shared<plan_options>();
    command.add_option("-n,--keys", options->keys, "Number of keys the filter will hold (e.g. 1e6, 50e9)")->required();
    command.add_option("-p,--fpr,--fpp", options->fpr, "Target false-positive rate, strictly between 0 and 1")
        ->capture_default_str();
    command.add_flag("--json", options->json, "Print JSON instead of a table");
    return [options] { return run_plan(*options); };
}

}  // namespace bloomkit::cli
