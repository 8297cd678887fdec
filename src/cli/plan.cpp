// bloomkit plan -n N -p P [--json] — what a filter for N keys at false-positive rate P costs,
// in every kind and layout side by side, and what each can do, so a user can choose before
// building anything.
#include <fmt/core.h>

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "bloomkit/bloomkit.hpp"
#include "command.hpp"

namespace bloomkit::cli {
namespace {

struct plan_options {
    std::string keys;
    std::string fpp = "0.01";
    bool json = false;
};

/// One row of the plan: a kind (and layout) sized for (n, p), or why it cannot be.
struct plan_row {
    plan_row(std::string kind, std::string can, std::string what)
        : name(std::move(kind)), abilities(std::move(can)), note(std::move(what)) {}
    std::string name;       // as `build --kind ... --layout ...` spells it
    std::string abilities;  // deletes / grows / static
    std::string note;
    double bits = 0;        // total bits
    std::string probes;     // k, or fingerprint bits
    double fpr = 0;         // modelled at n
    std::optional<std::string> impossible;
};

std::vector<plan_row> plan_all(std::uint64_t n, double p) {
    const auto keys = static_cast<double>(n);
    std::vector<plan_row> rows;
    auto attempt = [&](plan_row row, const std::function<void(plan_row&)>& size) {
        try {
            size(row);
        } catch (const invalid_argument& e) {
            row.impossible = e.what();
        }
        rows.push_back(std::move(row));
    };
    for (const bloom_layout layout : {bloom_layout::block, bloom_layout::classic, bloom_layout::split_block}) {
        const char* note = layout == bloom_layout::block     ? "one cache line per key (the default)"
                           : layout == bloom_layout::classic ? "fewest bits of the Bloom filters, k cache lines per key"
                                                             : "Apache Parquet compatible";
        attempt(plan_row("bloom " + std::string(to_string(layout)), "adds", note), [&](plan_row& r) {
            const bloom_plan plan = plan_bloom(layout, keys, p);
            r.bits = static_cast<double>(plan.geometry.bits);
            r.probes = fmt::format("k={}", plan.geometry.hashes);
            r.fpr = plan.fpr;
        });
    }
    attempt(plan_row("counting", "adds, deletes", "4-bit counters, one cache line per key"), [&](plan_row& r) {
        const counting_plan plan = plan_counting_bloom(keys, p);
        r.bits = 4.0 * static_cast<double>(plan.geometry.counters);
        r.probes = fmt::format("k={}", plan.geometry.hashes);
        r.fpr = plan.fpr;
    });
    attempt(plan_row("cuckoo", "adds, deletes", "full at ~95% load; beats Bloom below ~0.4%"), [&](plan_row& r) {
        const cuckoo_plan plan = plan_cuckoo(keys, p);
        r.bits = static_cast<double>(plan.bytes()) * 8;
        r.probes = fmt::format("f={}", plan.geometry.fingerprint_bits);
        r.fpr = plan.fpr;
    });
    attempt(plan_row("scalable", "adds, grows", "if n is a guess: stages of 2x keys at p/2, p/4, ..."), [&](plan_row& r) {
        // Holding exactly n keys: the first stage only, sized for n at p/2.
        const bloom_plan plan = plan_bloom(bloom_layout::block, keys, p / 2);
        r.bits = static_cast<double>(plan.geometry.bits);
        r.probes = fmt::format("k={}", plan.geometry.hashes);
        r.fpr = plan.fpr;
    });
    for (const unsigned arity : {3U, 4U}) {
        attempt(plan_row(arity == 3 ? "fuse" : "fuse --arity 4", "static", "built once from the complete set"), [&](plan_row& r) {
            const unsigned bits = p >= 1.0 / 256 ? 8 : 16;
            if (p < 1.0 / 65536) throw invalid_argument("a binary fuse filter reaches at best p = 1/65536 (16-bit fingerprints)");
            r.bits = binary_fuse_bits_per_key(arity, bits, n) * keys;
            r.probes = fmt::format("f={}", bits);
            r.fpr = std::ldexp(1.0, -static_cast<int>(bits));
        });
    }
    return rows;
}

int run_plan(const plan_options& options) {
    const std::uint64_t n = parse_key_count("-n", options.keys);
    const double p = parse_probability("-p", options.fpp);
    (void)plan_bloom(bloom_layout::classic, static_cast<double>(n), p);  // throws for an impossible request
    const std::vector<plan_row> rows = plan_all(n, p);
    const auto keys = static_cast<double>(n);

    if (options.json) {
        fmt::print("{{\"keys\": {}, \"fpp\": {}, \"floor_bits_per_key\": {}, \"kinds\": [", n, json_number(p),
                   json_number(-std::log2(p)));
        const char* separator = "";
        for (const plan_row& r : rows) {
            if (r.impossible)
                fmt::print("{}\n  {{\"kind\": {}, \"possible\": false, \"why\": {}}}", separator, json_string(r.name),
                           json_string(*r.impossible));
            else
                fmt::print("{}\n  {{\"kind\": {}, \"possible\": true, \"abilities\": {}, \"bits\": {:.0f}, \"bytes\": {:.0f}, "
                           "\"probes\": {}, \"bits_per_key\": {}, \"expected_fpp\": {}}}",
                           separator, json_string(r.name), json_string(r.abilities), r.bits, std::ceil(r.bits / 8),
                           json_string(r.probes), json_number(r.bits / keys), json_number(r.fpr));
            separator = ",";
        }
        fmt::print("\n]}}\n");
        return success;
    }

    fmt::print("{} keys at a false-positive rate of {:g}% (information-theoretic floor: {:.2f} bits/key)\n\n", n, 100 * p,
               -std::log2(p));
    fmt::print("{:<19} {:>12} {:>9} {:>6} {:>11}  {:<13} {}\n", "kind (build --kind)", "memory", "bits/key", "", "model FPR",
               "can", "");
    for (const plan_row& r : rows) {
        if (r.impossible) {
            fmt::print("{:<19} {:>12}  {}\n", r.name, "–", *r.impossible);
            continue;
        }
        fmt::print("{:<19} {:>12} {:>9.3f} {:>6} {:>10.4f}%  {:<13} {}\n", r.name, human_bytes(std::ceil(r.bits / 8)),
                   r.bits / keys, r.probes, 100 * r.fpr, r.abilities, r.note);
    }
    return success;
}

}  // namespace

action add_plan_command(CLI::App& app) {
    auto options = std::make_shared<plan_options>();
    CLI::App* plan = app.add_subcommand("plan", "Show the memory each kind of filter needs for N keys at rate P");
    plan->add_option("-n,--keys", options->keys, "Number of keys the filter will hold (e.g. 1e6, 50e9)")->required();
    plan->add_option("-p,--fpp", options->fpp, "Target false-positive rate, strictly between 0 and 1")->capture_default_str();
    plan->add_flag("--json", options->json, "Print JSON instead of a table");
    return [options] { return run_plan(*options); };
}

}  // namespace bloomkit::cli
