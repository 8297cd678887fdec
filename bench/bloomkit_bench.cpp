// bloomkit_bench — bloomkit's filters side by side with std::unordered_set and the machine's
// memory floor, on the same keys, in one run. Prints a Markdown table (or --json).
//
//   bloomkit_bench [--n N] [--fpp P] [--keys int|url] [--json]
//
// Every timed lookup's answers are checked (every inserted key found) so that a fast but
// wrong path cannot win. The memory floor is independent random 64-byte reads over an array
// the size of the block filter: what a lookup that touches one cache line cannot beat.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "bloomkit/bloomkit.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

struct row {
    std::string structure, operation;
    double ns_per_op, bits_per_key, fpr;
};

template <class F>
double time_ns_per_op(std::size_t ops, F&& work) {
    const auto start = clock_type::now();
    work();
    return std::chrono::duration<double, std::nano>(clock_type::now() - start).count() / static_cast<double>(ops);
}

void require(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "bloomkit_bench: wrong answer: %s\n", what);
        std::exit(1);
    }
}

std::vector<std::string> make_urls(std::size_t count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::string> urls;
    urls.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        char buffer[96];
        std::snprintf(buffer, sizeof buffer, "https://www.site%05u.example.com/articles/%016llx/index.html",
                      static_cast<unsigned>(rng() % 100000), static_cast<unsigned long long>(rng()));
        urls.emplace_back(buffer);
    }
    return urls;
}

std::vector<std::uint64_t> make_integers(std::size_t count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> keys(count);
    for (auto& key : keys) key = rng();
    return keys;
}

/// Random 64-byte reads over `bytes` of memory, independent (addresses known up front, so the
/// CPU overlaps the misses as a batched filter lookup can).
double memory_floor_ns(std::size_t bytes, std::size_t reads) {
    const std::size_t lines = std::max<std::size_t>(bytes / 64, 1);
    std::vector<std::uint64_t> memory(lines * 8, 1);
    std::vector<std::uint32_t> index(reads);
    std::mt19937_64 rng(99);
    for (auto& i : index) i = static_cast<std::uint32_t>(rng() % lines);
    std::uint64_t sum = 0;
    const double ns = time_ns_per_op(reads, [&] {
        for (const std::uint32_t i : index) sum += memory[std::size_t{i} * 8];
    });
    require(sum == reads, "memory floor");
    return ns;
}

template <class Filter, class Key>
void bench_filter(const char* name, const std::vector<Key>& keys, const std::vector<Key>& absent, double fpp,
                  std::vector<row>& rows) {
    const double n = static_cast<double>(keys.size());
    double insert_ns = 0, bulk_insert_ns = 0;
    {
        Filter filter(keys.size(), fpp);
        insert_ns = time_ns_per_op(keys.size(), [&] {
            for (const auto& key : keys) filter.insert(key);
        });
    }
    Filter filter(keys.size(), fpp);
    bulk_insert_ns = time_ns_per_op(keys.size(), [&] { filter.insert(keys.begin(), keys.end()); });
    const double bits_per_key = static_cast<double>(filter.bit_count()) / n;

    std::size_t found = 0;
    const double positive_ns = time_ns_per_op(keys.size(), [&] {
        for (const auto& key : keys) found += filter.contains(key) ? 1 : 0;
    });
    require(found == keys.size(), name);
    const double bulk_positive_ns = time_ns_per_op(keys.size(), [&] { found = filter.count_contained(keys.begin(), keys.end()); });
    require(found == keys.size(), name);
    std::size_t false_positives = 0;
    const double negative_ns = time_ns_per_op(absent.size(), [&] {
        for (const auto& key : absent) false_positives += filter.contains(key) ? 1 : 0;
    });
    const double bulk_negative_ns =
        time_ns_per_op(absent.size(), [&] { require(filter.count_contained(absent.begin(), absent.end()) == false_positives, name); });
    const double fpr = static_cast<double>(false_positives) / static_cast<double>(absent.size());

    rows.push_back({name, "insert", insert_ns, bits_per_key, fpr});
    rows.push_back({name, "insert (bulk)", bulk_insert_ns, bits_per_key, fpr});
    rows.push_back({name, "lookup, present", positive_ns, bits_per_key, fpr});
    rows.push_back({name, "lookup, present (bulk)", bulk_positive_ns, bits_per_key, fpr});
    rows.push_back({name, "lookup, absent", negative_ns, bits_per_key, fpr});
    rows.push_back({name, "lookup, absent (bulk)", bulk_negative_ns, bits_per_key, fpr});
}

template <class Key>
void bench_hash_set(const std::vector<Key>& keys, const std::vector<Key>& absent, std::vector<row>& rows) {
    std::unordered_set<Key> set;
    set.reserve(keys.size());
    const double insert_ns = time_ns_per_op(keys.size(), [&] {
        for (const auto& key : keys) set.insert(key);
    });
    std::size_t found = 0;
    const double positive_ns = time_ns_per_op(keys.size(), [&] {
        for (const auto& key : keys) found += set.contains(key) ? 1 : 0;
    });
    require(found == keys.size(), "unordered_set");
    std::size_t false_positives = 0;
    const double negative_ns = time_ns_per_op(absent.size(), [&] {
        for (const auto& key : absent) false_positives += set.contains(key) ? 1 : 0;
    });
    require(false_positives == 0, "unordered_set");
    // Nodes + bucket array; string payloads beyond the small-string buffer are not counted,
    // so this is a lower bound.
    const double bytes = static_cast<double>(set.size()) * (sizeof(Key) + 2 * sizeof(void*)) +
                         static_cast<double>(set.bucket_count()) * sizeof(void*);
    const double bits_per_key = 8 * bytes / static_cast<double>(keys.size());
    rows.push_back({"std::unordered_set", "insert", insert_ns, bits_per_key, 0});
    rows.push_back({"std::unordered_set", "lookup, present", positive_ns, bits_per_key, 0});
    rows.push_back({"std::unordered_set", "lookup, absent", negative_ns, bits_per_key, 0});
}

template <class Key>
std::vector<row> run(const std::vector<Key>& keys, const std::vector<Key>& absent, double fpp, double& floor_ns) {
    std::vector<row> rows;
    bench_filter<bloomkit::block_bloom_filter>("bloomkit block", keys, absent, fpp, rows);
    bench_filter<bloomkit::split_block_bloom_filter>("bloomkit split-block", keys, absent, fpp, rows);
    bench_filter<bloomkit::classic_bloom_filter>("bloomkit classic", keys, absent, fpp, rows);
    bench_hash_set(keys, absent, rows);
    const bloomkit::block_bloom_filter sized(keys.size(), fpp);
    floor_ns = memory_floor_ns(sized.size_in_bytes(), keys.size());
    return rows;
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t n = 1'000'000;
    double fpp = 0.01;
    std::string key_kind = "int";
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--n" && i + 1 < argc) n = static_cast<std::size_t>(std::stod(argv[++i]));
        else if (arg == "--fpp" && i + 1 < argc) fpp = std::stod(argv[++i]);
        else if (arg == "--keys" && i + 1 < argc) key_kind = argv[++i];
        else if (arg == "--json") json = true;
        else {
            std::fprintf(stderr, "usage: bloomkit_bench [--n N] [--fpp P] [--keys int|url] [--json]\n");
            return 2;
        }
    }

    double floor_ns = 0;
    const std::vector<row> rows = key_kind == "url" ? run(make_urls(n, 1), make_urls(n, 2), fpp, floor_ns)
                                                    : run(make_integers(n, 1), make_integers(n, 2), fpp, floor_ns);
    const auto set_ns = [&](const std::string& operation) {
        for (const row& r : rows)
            if (r.structure == "std::unordered_set" && operation.starts_with(r.operation)) return r.ns_per_op;
        return 0.0;
    };

    if (json) {
        std::printf("{\"n\": %zu, \"fpp\": %g, \"keys\": \"%s\", \"memory_floor_ns\": %.3f, \"rows\": [", n, fpp,
                    key_kind.c_str(), floor_ns);
        for (std::size_t i = 0; i < rows.size(); ++i)
            std::printf("%s\n  {\"structure\": \"%s\", \"operation\": \"%s\", \"ns_per_op\": %.3f, \"bits_per_key\": %.3f, "
                        "\"fpr\": %.6f}",
                        i ? "," : "", rows[i].structure.c_str(), rows[i].operation.c_str(), rows[i].ns_per_op,
                        rows[i].bits_per_key, rows[i].fpr);
        std::printf("\n]}\n");
        return 0;
    }
    std::printf("n = %zu %s keys, target FPR %g; memory floor (random 64-byte read over the block filter's size): %.2f ns\n\n",
                n, key_kind == "url" ? "URL-like (~60-byte)" : "8-byte integer", fpp, floor_ns);
    std::printf("| structure | operation | ns/op | bits/key | measured FPR | vs unordered_set | vs memory floor |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|\n");
    for (const row& r : rows) {
        const double versus_set = set_ns(r.operation) / r.ns_per_op;
        std::printf("| %s | %s | %.2f | %.2f | %.4f%% | %.2fx faster | %.2fx |\n", r.structure.c_str(), r.operation.c_str(),
                    r.ns_per_op, r.bits_per_key, 100 * r.fpr, versus_set, r.ns_per_op / floor_ns);
    }
    return 0;
}
