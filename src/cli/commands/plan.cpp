// bloomkit plan -n N -p P [--json] — what a filter for N keys at false-positive rate P costs,
// in every kind of the registry (any_filter.hpp) side by side, and what each can do, so a user
// can choose before building anything.
#include <fmt/core.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "commands/commands.hpp"
#include "support/arguments.hpp"
#include "support/json_object.hpp"
#include "support/sizing_options.hpp"

namespace bloomkit::cli {
namespace {

struct plan_options {
    std::string keys, fpr, memory;
    bool json = false;
};

/// One row of the plan: a kind sized for (n, p), or why it cannot be.
struct plan_row {
    std::string flags;  // as `build --kind ...` spells it
    std::string_view kind;
    kind_capabilities can;
    std::string summary;
    kind_plan plan;
    std::uint64_t keys = 0;  // what it is sized for (chosen by --memory with -p)
    std::optional<std::string> impossible;

    [[nodiscard]] std::string probes() const {
        return plan.hashes != 0 ? fmt::format("k={}", plan.hashes) : fmt::format("f={}", plan.fingerprint_bits);
    }
};

/// Every kind for the request: -n and -p; -n and --memory (each kind's best rate in that
/// memory); or -p and --memory (the most keys each kind holds at p in that memory).
std::vector<plan_row> plan_all(const jobs::sizing_request& r) {
    std::vector<plan_row> rows;
    for_each_filter_type([&](auto type) {
        using F = typename decltype(type)::type;
        using traits = kind_traits<F>;
        // Guava's and DCSO's layouts are there for those programs' files, not to be chosen
        // (build --format guava|dcso makes them, sized as their programs size them).
        if (const std::optional<bloom_layout> layout = traits::request().layout; layout && is_foreign(*layout)) return;
        plan_row row{
            flags_of(traits::request()), traits::word, capabilities_of<F>(), std::string(traits::summary), {}, 0, {}};
        try {
            row.keys = r.keys ? *r.keys : keys_for_memory<F>(*r.fpr, *r.memory);
            const double p = r.fpr ? *r.fpr : fpr_for_memory<F>(static_cast<double>(row.keys), *r.memory);
            row.plan = traits::plan(static_cast<double>(row.keys), p);
        } catch (const invalid_argument& e) {
            row.impossible = e.what();
        }
        rows.push_back(std::move(row));
    });
    return rows;
}

int run_plan(const plan_options& options) {
    jobs::sizing_request r = parse_sizing({options.keys, options.fpr, options.memory});
    if (!r.keys && !r.memory) throw invalid_argument("plan needs -n (the keys), or --memory with -p");
    if (!r.keys && !r.fpr) throw invalid_argument("--memory alone does not say what to plan: add -n or -p");
    if (!r.memory && !r.fpr) r.fpr = 0.01;
    if (r.keys && r.fpr) (void)plan_bloom(bloom_layout::classic, static_cast<double>(*r.keys), *r.fpr);  // impossible?
    const std::vector<plan_row> rows = plan_all(r);
    const bool keys_vary = !r.keys;

    if (options.json) {
        std::vector<std::string> kinds;
        for (const plan_row& row : rows) {
            json_object entry;
            entry.text("flags", row.flags)
                .text("kind", row.kind)
                .raw("abilities", json_text_array(ability_words(row.can)))
                .flag("possible", !row.impossible);
            if (row.impossible) {
                kinds.push_back(entry.text("why", *row.impossible).str());
                continue;
            }
            entry.count("expected_keys", row.keys)
                .count("bits", row.plan.bytes * 8)
                .count("filter_bytes", row.plan.bytes);
            if (row.plan.hashes != 0) entry.count("hashes", row.plan.hashes);
            else entry.count("fingerprint_bits", row.plan.fingerprint_bits);
            entry.number("bits_per_key", static_cast<double>(row.plan.bytes) * 8 / static_cast<double>(row.keys))
                .number("expected_fpr", row.plan.fpr);
            kinds.push_back(entry.str());
        }
        const std::optional<double> floor = r.fpr ? std::optional(-std::log2(*r.fpr)) : std::nullopt;
        fmt::print("{}\n", json_object("plan")
                               .count_or_null("expected_keys", r.keys)
                               .number_or_null("target_fpr", r.fpr)
                               .count_or_null("memory_bytes", r.memory)
                               .number_or_null("floor_bits_per_key", floor)
                               .raw("kinds", json_array(kinds))
                               .str());
        return success;
    }

    if (r.keys && r.fpr)
        fmt::print("{} keys at a false-positive rate of {:g}% (information-theoretic floor: {:.2f} bits/key)\n\n",
                   *r.keys, 100 * *r.fpr, -std::log2(*r.fpr));
    else if (r.keys)
        fmt::print("{} keys in {}: the lowest false-positive rate of each kind\n\n", *r.keys,
                   human_bytes(static_cast<double>(*r.memory)));
    else
        fmt::print("The most keys each kind holds at a false-positive rate of {:g}% in {}\n\n", 100 * *r.fpr,
                   human_bytes(static_cast<double>(*r.memory)));
    fmt::print("{:<26} {}{:>12} {:>9} {:>6} {:>11}  {:<13} {}\n", "kind (build --kind)",
               keys_vary ? fmt::format("{:>14} ", "keys") : "", "memory", "bits/key", "", "model FPR", "can", "");
    for (const plan_row& row : rows) {
        if (row.impossible) {
            fmt::print("{:<26} {}{:>12}  {}\n", row.flags, keys_vary ? fmt::format("{:>14} ", "–") : "", "–",
                       *row.impossible);
            continue;
        }
        fmt::print("{:<26} {}{:>12} {:>9.3f} {:>6} {:>10.4f}%  {:<13} {}\n", row.flags,
                   keys_vary ? fmt::format("{:>14} ", row.keys) : "", human_bytes(static_cast<double>(row.plan.bytes)),
                   static_cast<double>(row.plan.bytes) * 8 / static_cast<double>(row.keys), row.probes(),
                   100 * row.plan.fpr, abilities_of(row.can), row.summary);
    }
    return success;
}

}  // namespace

action plan_command(CLI::App& command) {
    auto options = std::make_shared<plan_options>();
    command.add_option("-n,--keys", options->keys, "Number of keys the filter will hold (1e6, 10M, 50e9)")
        ->type_name("N");
    add_rate_option(command, options->fpr, "Target false-positive rate (0.01, 1%)");
    command
        .add_option("--memory", options->memory,
                    "Memory for the filter (512M, 1G): with -n, each kind's rate; with -p, each kind's keys")
        ->type_name("SIZE");
    command.add_flag("--json", options->json, "Print JSON instead of a table");
    command.footer(
        "Examples:\n"
        "  bloomkit plan -n 50e9 -p 1%          # what 50 billion URLs at 1% cost in each kind\n"
        "  bloomkit plan -n 10M --memory 16M    # the rate each kind reaches in 16 MiB\n"
        "  bloomkit plan -p 0.1% --memory 1G    # how many keys fit in 1 GiB at 0.1%");
    return [options] { return run_plan(*options); };
}

}  // namespace bloomkit::cli
