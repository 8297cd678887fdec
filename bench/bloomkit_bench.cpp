// bloomkit_bench — bloomkit's filters side by side with libbloom, std::unordered_set and the
// machine's memory floor, on the same keys, in one run. Prints Markdown tables (or --json).
//
//   bloomkit_bench [--n 1e6,1e8] [--fpr 0.01,0.001] [--keys int,url] [--sample 1e7] [--json | --tsv]
//                  [--only
//                  hash,block,split-block,classic,guava,dcso,counting,cuckoo,scalable,windowed,fuse8,fuse8-4wise,
//                          libbloom,unordered_set]
//   bloomkit_bench --space [--tsv]
//
// --space measures memory instead of time: for every kind and targets from 10% to 0.001%, the
// bits per key of a filter sized for 1M keys and its FPR measured with them in, against the
// floor of any structure answering with that FPR, log2(1/p) bits per key (Carter et al. 1978).
// --tsv prints one tab-separated line per row, for bench/plots.sh. --fpp, the old spelling of
// --fpr, is still accepted with a warning, for one release.
//
// Keys are generated a chunk at a time (so 100M URL-like keys need no 10 GB of RAM), and only
// the operation on a chunk is timed. Every lookup's answers are checked — every inserted key
// must be found, bulk and single lookups must agree — so a fast but wrong path cannot win.
// The memory floor is independent random 64-byte reads over an array the size of the block
// filter, addresses known up front: what a lookup touching one cache line cannot beat.
#include <bloom.h>  // libbloom

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "comma_list.hpp"
#include "measure.hpp"
#include "workload.hpp"

namespace {

using bench::chunk_keys;
using bench::clock_type;
using bench::count_found;
using bench::cpu_model;
using bench::huge_page_bytes;
using bench::keep;
using bench::key_set;
using bench::make_chunk;
using bench::make_mixed_chunk;
using bench::memory_floor_ns;
using bench::timed_over_chunks;

// --- Keys ----------------------------------------------------------------------------------

enum class key_kind { integer, url };

std::size_t key_size(const std::uint64_t&) { return sizeof(std::uint64_t); }
std::size_t key_size(const std::string& key) { return key.size(); }
const void* key_data(const std::uint64_t& key) { return &key; }
const void* key_data(const std::string& key) { return key.data(); }

// --- Measurement ---------------------------------------------------------------------------

[[noreturn]] void wrong(const std::string& what) {
    std::fprintf(stderr, "bloomkit_bench: WRONG ANSWER: %s\n", what.c_str());
    std::exit(1);
}

struct row {
    std::string structure, operation;
    double ns_per_op = 0;
    double bits_per_key = 0;
    double fpr = -1;              // measured; -1 where not applicable
    double huge_page_bytes = -1;  // of the structure while measured; -1 where not measured
};

struct workload {
    std::uint64_t n;
    std::uint64_t sample;           // lookups measured per operation
    double target_fpr;              // what every filter is sized for
    std::vector<std::string> only;  // the structures to measure (all when empty)

    [[nodiscard]] bool measures(const std::string& structure) const {
        return only.empty() || std::find(only.begin(), only.end(), structure) != only.end();
    }
};

/// A filter of type Filter for the workload: a Guava filter takes the funnel of its keys
/// (longFunnel for integers, stringFunnel for strings), as the Java side would.
template <class Filter, class Key>
std::unique_ptr<Filter> make_filter(const workload& w) {
    if constexpr (std::is_same_v<Filter, bloomkit::guava_bloom_filter>)
        return std::make_unique<Filter>(
            w.n, w.target_fpr,
            bloomkit::filter_options{.funnel = std::is_integral_v<Key> ? bloomkit::guava_funnel::long_integer
                                                                       : bloomkit::guava_funnel::string_utf8});
    else return std::make_unique<Filter>(w.n, w.target_fpr);
}

/// What the lookups of a structure are measured through: its single-key call, made the way a
/// user makes it (a direct call in a loop, inlined — never through a std::function, whose
/// indirect call would be timed too), and its bulk call if it has one.
template <class Key, class Contains, class BulkCount>
struct structure {
    std::string name;
    double bits_per_key;
    Contains contains;
    BulkCount bulk_count;  // std::nullptr_t when the structure has none
};
template <class Key, class Contains, class BulkCount = std::nullptr_t>
structure<Key, Contains, BulkCount> structure_of(std::string name, double bits_per_key, Contains contains,
                                                 BulkCount bulk_count = nullptr) {
    return {std::move(name), bits_per_key, contains, bulk_count};
}

template <class Key, class Contains, class BulkCount>
void measure_lookups(const structure<Key, Contains, BulkCount>& s, const workload& w, std::vector<row>& rows) {
    // Present keys cycle through the n inserted ones, so every lookup row is timed over the same
    // number of keys (at n = 1M a single pass over the keys lasts only a few milliseconds).
    auto present = [&](std::uint64_t first, std::uint64_t count) {
        std::vector<Key> keys;
        keys.reserve(count);
        while (keys.size() < count) {
            const std::uint64_t at = (first + keys.size()) % w.n;
            std::ranges::move(make_chunk<Key>(key_set::present, at, std::min(count - keys.size(), w.n - at)),
                              std::back_inserter(keys));
        }
        return keys;
    };
    auto absent = [&](std::uint64_t first, std::uint64_t count) {
        return make_chunk<Key>(key_set::absent, first, count);
    };
    auto mixed = [&](std::uint64_t first, std::uint64_t count) { return make_mixed_chunk<Key>(w.n, first, count); };
    const std::uint64_t sample = w.sample;
    const double huge = static_cast<double>(huge_page_bytes());

    std::uint64_t found = 0;
    auto single = [&](const std::vector<Key>& chunk) {
        found += count_found(s.contains, chunk);
        keep(found);
    };

    found = 0;
    const double present_ns = timed_over_chunks<Key>(sample, present, single);
    if (found != sample) wrong(s.name + ": an inserted key was not found");
    found = 0;
    const double absent_ns = timed_over_chunks<Key>(w.sample, absent, single);
    const double fpr = static_cast<double>(found) / static_cast<double>(w.sample);
    const std::uint64_t absent_found = found;
    found = 0;
    const double mixed_ns = timed_over_chunks<Key>(w.sample, mixed, single);
    const std::uint64_t mixed_found = found;
    rows.push_back({s.name, "lookup present", present_ns, s.bits_per_key, fpr, huge});
    rows.push_back({s.name, "lookup absent", absent_ns, s.bits_per_key, fpr, huge});
    rows.push_back({s.name, "lookup 50/50", mixed_ns, s.bits_per_key, fpr, huge});
    if constexpr (!std::is_same_v<BulkCount, std::nullptr_t>) {
        auto bulk = [&](const std::vector<Key>& chunk) {
            found += s.bulk_count(chunk);
            keep(found);
        };
        found = 0;
        const double bulk_present_ns = timed_over_chunks<Key>(sample, present, bulk);
        if (found != sample) wrong(s.name + ": bulk lookup missed an inserted key");
        found = 0;
        const double bulk_absent_ns = timed_over_chunks<Key>(w.sample, absent, bulk);
        if (found != absent_found) wrong(s.name + ": bulk and single lookups disagree");
        found = 0;
        const double bulk_mixed_ns = timed_over_chunks<Key>(w.sample, mixed, bulk);
        if (found != mixed_found) wrong(s.name + ": bulk and single lookups disagree on the mix");
        rows.push_back({s.name, "lookup present (bulk)", bulk_present_ns, s.bits_per_key, fpr, huge});
        rows.push_back({s.name, "lookup absent (bulk)", bulk_absent_ns, s.bits_per_key, fpr, huge});
        rows.push_back({s.name, "lookup 50/50 (bulk)", bulk_mixed_ns, s.bits_per_key, fpr, huge});
    }
}

/// Inserts the n keys into an emptied structure, best of several runs when n is small: a run
/// over 1M keys lasts milliseconds, short enough for one interruption to skew it.
template <class Key, class Empty, class InsertChunk>
double insert_all(const workload& w, Empty empty, InsertChunk insert_chunk) {
    const std::uint64_t runs = std::clamp<std::uint64_t>(10'000'000 / w.n, 1, 5);
    double best = 0;
    for (std::uint64_t run = 0; run < runs; ++run) {
        empty();
        const double ns = timed_over_chunks<Key>(
            w.n,
            [&](std::uint64_t first, std::uint64_t count) { return make_chunk<Key>(key_set::present, first, count); },
            insert_chunk);
        best = run == 0 ? ns : std::min(best, ns);
    }
    return best;
}

/// Inserts a key, failing the run if the filter refuses it (a full cuckoo filter).
template <class Filter, class Key>
void insert_or_fail(Filter& filter, const Key& key, const char* name) {
    if constexpr (std::is_same_v<Filter, bloomkit::cuckoo_filter>) {
        if (!filter.insert(key)) wrong(std::string(name) + ": full before n keys");
    } else {
        filter.insert(key);
    }
}

template <class Filter, class Key>
void bench_bloomkit(const char* name, const workload& w, std::vector<row>& rows) {
    auto filter = make_filter<Filter, Key>(w);
    const double insert_ns = insert_all<Key>(
        w, [&] { filter->clear(); },
        [&](const std::vector<Key>& chunk) {
            for (const Key& key : chunk) insert_or_fail(*filter, key, name);
        });
    auto bulk_filter = make_filter<Filter, Key>(w);
    const double bulk_insert_ns = insert_all<Key>(
        w, [&] { bulk_filter->clear(); },
        [&](const std::vector<Key>& chunk) {
            const std::uint64_t added = bulk_filter->insert(chunk.begin(), chunk.end());
            if (std::is_same_v<Filter, bloomkit::cuckoo_filter> && added != chunk.size())
                wrong(std::string(name) + ": full before n keys");
        });
    if (!(*filter == *bulk_filter)) wrong(std::string(name) + ": bulk and single inserts built different filters");
    filter.reset();
    const double bits_per_key = 8.0 * static_cast<double>(bulk_filter->size_in_bytes()) / static_cast<double>(w.n);
    const Filter& built = *bulk_filter;
    const auto s = structure_of<Key>(
        name, bits_per_key, [&built](const Key& key) { return built.contains(key); },
        [&built](const std::vector<Key>& chunk) { return built.count_contained(chunk.begin(), chunk.end()); });
    const double huge = static_cast<double>(huge_page_bytes());
    rows.push_back({name, "insert", insert_ns, bits_per_key, -1, huge});
    rows.push_back({name, "insert (bulk)", bulk_insert_ns, bits_per_key, -1, huge});
    measure_lookups(s, w, rows);
}

/// A windowed filter at steady state: n keys per window arriving evenly over one window (key i at
/// i·W/n), G = 4, looked up at the window's end, when every one of them is live. Single inserts
/// pass each key's time; bulk inserts take pieces of a chunk, each at its first key's time.
template <class Key>
void bench_windowed(const char* name, const workload& w, std::vector<row>& rows) {
    using bloomkit::windowed_filter;
    constexpr std::int64_t window_ms = 24 * 3600 * 1000;
    const windowed_filter::time_point start = std::chrono::sys_days(std::chrono::year(2030) / 1 / 1);
    const auto time_of = [&](std::uint64_t i) {
        return start +
               std::chrono::milliseconds(window_ms * static_cast<std::int64_t>(i) / static_cast<std::int64_t>(w.n));
    };
    const auto make = [&] {
        return windowed_filter(w.n, w.target_fpr, std::chrono::milliseconds(window_ms), {.generations = 4});
    };
    windowed_filter single = make(), bulk = make();
    std::uint64_t next = 0;
    // A bulk call takes keys of one time: pieces short against a generation (n/4 keys).
    const auto piece = static_cast<std::ptrdiff_t>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(4096, w.n / 64)));
    const double insert_ns = insert_all<Key>(
        w, [&] { single.clear(), next = 0; },
        [&](const std::vector<Key>& chunk) {
            for (const Key& key : chunk) single.insert(key, time_of(next++));
        });
    const double bulk_insert_ns = insert_all<Key>(
        w, [&] { bulk.clear(), next = 0; },
        [&](const std::vector<Key>& chunk) {
            for (auto first = chunk.begin(); first != chunk.end();) {
                const auto last = first + std::min<std::ptrdiff_t>(piece, chunk.end() - first);
                const windowed_filter::time_point t = time_of(next);
                bulk.set_clock([t] { return t; });
                bulk.insert(first, last);
                next += static_cast<std::uint64_t>(last - first);
                first = last;
            }
        });
    const windowed_filter::time_point end = time_of(w.n);
    bulk.set_clock([end] { return end; });
    const double bits_per_key = 8.0 * static_cast<double>(bulk.size_in_bytes()) / static_cast<double>(w.n);
    const auto s = structure_of<Key>(
        name, bits_per_key, [&bulk](const Key& key) { return bulk.contains(key); },
        [&bulk](const std::vector<Key>& chunk) { return bulk.count_contained(chunk.begin(), chunk.end()); });
    const double huge = static_cast<double>(huge_page_bytes());
    rows.push_back({name, "insert", insert_ns, bits_per_key, -1, huge});
    rows.push_back({name, "insert (bulk)", bulk_insert_ns, bits_per_key, -1, huge});
    measure_lookups(s, w, rows);
}

/// A static filter: "insert" is building it from all n keys at once.
template <class Filter, class Key>
void bench_fuse(const char* name, const workload& w, std::vector<row>& rows) {
    const std::vector<Key> keys = make_chunk<Key>(key_set::present, 0, w.n);
    const auto start = clock_type::now();
    const Filter filter(keys);
    const double build_ns =
        std::chrono::duration<double, std::nano>(clock_type::now() - start).count() / static_cast<double>(w.n);
    const double bits_per_key = 8.0 * static_cast<double>(filter.size_in_bytes()) / static_cast<double>(w.n);
    const auto s = structure_of<Key>(
        name, bits_per_key, [&filter](const Key& key) { return filter.contains(key); },
        [&filter](const std::vector<Key>& chunk) { return filter.count_contained(chunk.begin(), chunk.end()); });
    rows.push_back({name, "build (all keys)", build_ns, bits_per_key, -1, static_cast<double>(huge_page_bytes())});
    measure_lookups(s, w, rows);
}

/// The default hasher alone, over the lookup sample's keys: what one key's hash costs in a loop
/// (throughput; the digests are summed so that none is skipped).
template <class Key>
void bench_hash(const workload& w, std::vector<row>& rows) {
    volatile std::uint64_t opaque_seed = bloomkit::default_seed;  // as in a filter: not a constant
    const bloomkit::hasher hash(bloomkit::default_hash_algorithm, opaque_seed);
    std::uint64_t sum = 0;
    const double ns = timed_over_chunks<Key>(
        w.sample,
        [&](std::uint64_t first, std::uint64_t count) { return make_chunk<Key>(key_set::absent, first, count); },
        [&](const std::vector<Key>& chunk) {
            for (const Key& key : chunk) sum += hash(key).low;
            keep(sum);
        });
    rows.push_back({"bloomkit hash",
                    std::string("hash (") + std::string(to_string(bloomkit::default_hash_algorithm)) + ")", ns, 0, -1});
}

/// How full a cuckoo filter sized for n gets before it first refuses a key.
struct cuckoo_occupancy {
    std::uint32_t fingerprint_bits = 0;
    std::uint64_t slots = 0;
    std::uint64_t stored = 0;  // keys stored when the first insert was refused
    [[nodiscard]] double load() const { return static_cast<double>(stored) / static_cast<double>(slots); }
};

/// Inserts distinct keys into a cuckoo filter sized for (n, p) until one is refused.
template <class Key>
cuckoo_occupancy measure_cuckoo_occupancy(const workload& w) {
    bloomkit::cuckoo_filter filter(w.n, w.target_fpr);
    cuckoo_occupancy occupancy{filter.fingerprint_bits(), filter.capacity(), 0};
    for (std::uint64_t first = 0;; first += chunk_keys) {
        for (const Key& key : make_chunk<Key>(key_set::present, first, chunk_keys)) {
            if (!filter.insert(key)) {
                occupancy.stored = filter.size();
                return occupancy;
            }
        }
        if (first > 2 * filter.capacity()) wrong("cuckoo: never refused a key");
    }
}

template <class Key>
void bench_libbloom(const workload& w, std::vector<row>& rows) {
    if (w.n > static_cast<std::uint64_t>(INT32_MAX)) return;  // its API takes an int
    struct bloom filter {};
    if (bloom_init(&filter, static_cast<int>(w.n), w.target_fpr) != 0) wrong("libbloom: bloom_init failed");
    const auto empty = [&] {
        if (bloom_reset(&filter) != 0) wrong("libbloom: bloom_reset failed");
    };
    const double insert_ns = insert_all<Key>(w, empty, [&](const std::vector<Key>& chunk) {
        for (const Key& key : chunk) bloom_add(&filter, key_data(key), static_cast<int>(key_size(key)));
    });
    const double bits_per_key = static_cast<double>(filter.bits) / static_cast<double>(w.n);
    const auto s = structure_of<Key>("libbloom", bits_per_key, [&filter](const Key& key) {
        return bloom_check(&filter, key_data(key), static_cast<int>(key_size(key))) == 1;
    });
    rows.push_back({"libbloom", "insert", insert_ns, bits_per_key, -1});
    measure_lookups(s, w, rows);
    bloom_free(&filter);
}

/// Bytes the hash set allocates, counted by its allocator (nodes, buckets, string heaps).
inline std::uint64_t set_bytes = 0;
template <class T>
struct counting_allocator {
    using value_type = T;
    counting_allocator() = default;
    template <class U>
    counting_allocator(const counting_allocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        set_bytes += n * sizeof(T);
        return std::allocator<T>().allocate(n);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        set_bytes -= n * sizeof(T);
        std::allocator<T>().deallocate(p, n);
    }
    friend bool operator==(const counting_allocator&, const counting_allocator&) = default;
};

template <class Key>
void bench_hash_set(const workload& w, std::vector<row>& rows) {
    // A string's heap buffer is not counted by the set's allocator: add it by hand.
    std::uint64_t string_heap = 0;
    std::unordered_set<Key, std::hash<Key>, std::equal_to<Key>, counting_allocator<Key>> set;
    set_bytes = 0;
    set.reserve(w.n);
    const auto empty = [&] {
        set.clear();  // keeps the buckets reserved for n keys
        string_heap = 0;
    };
    const double insert_ns = insert_all<Key>(w, empty, [&](const std::vector<Key>& chunk) {
        for (const Key& key : chunk) {
            if constexpr (std::is_same_v<Key, std::string>)
                if (key.size() > 15) string_heap += key.size() + 1;
            set.insert(key);
        }
    });
    const double bits_per_key = 8.0 * static_cast<double>(set_bytes + string_heap) / static_cast<double>(w.n);
    const auto s =
        structure_of<Key>("std::unordered_set", bits_per_key, [&set](const Key& key) { return set.contains(key); });
    rows.push_back({"std::unordered_set", "insert", insert_ns, bits_per_key, -1});
    measure_lookups(s, w, rows);
}

/// ns per independent random 64-byte read over `bytes` of memory allocated as the filters'
/// is (so on 2 MiB pages where they are); `huge` receives how much of it is on them.

// --- Report --------------------------------------------------------------------------------

struct result {
    workload w;
    key_kind kind;
    double floor_ns;
    double floor_huge_page_bytes = 0;
    std::vector<row> rows;
    std::optional<cuckoo_occupancy> cuckoo;
};

template <class Key>
result run(const workload& w, key_kind kind) {
    result r{w, kind, 0, 0, {}, std::nullopt};
    if (w.measures("hash")) bench_hash<Key>(w, r.rows);
    if (w.measures("block")) bench_bloomkit<bloomkit::block_bloom_filter, Key>("bloomkit block", w, r.rows);
    if (w.measures("split-block"))
        bench_bloomkit<bloomkit::split_block_bloom_filter, Key>("bloomkit split-block", w, r.rows);
    if (w.measures("classic")) bench_bloomkit<bloomkit::classic_bloom_filter, Key>("bloomkit classic", w, r.rows);
    // The foreign layouts, to say what converting a Guava or DCSO filter to a native one buys.
    if (w.measures("guava")) bench_bloomkit<bloomkit::guava_bloom_filter, Key>("bloomkit guava layout", w, r.rows);
    if (w.measures("dcso")) bench_bloomkit<bloomkit::dcso_bloom_filter, Key>("bloomkit dcso layout", w, r.rows);
    if (w.measures("counting")) bench_bloomkit<bloomkit::counting_bloom_filter, Key>("bloomkit counting", w, r.rows);
    if (w.measures("cuckoo") && w.target_fpr >= 0.000123) {
        bench_bloomkit<bloomkit::cuckoo_filter, Key>("bloomkit cuckoo", w, r.rows);
        r.cuckoo = measure_cuckoo_occupancy<Key>(w);
    }
    if (w.measures("scalable")) bench_bloomkit<bloomkit::scalable_bloom_filter, Key>("bloomkit scalable", w, r.rows);
    if (w.measures("windowed")) {
        // Beside a block filter of the same memory: what forgetting costs per call.
        bench_windowed<Key>("bloomkit windowed (G = 4)", w, r.rows);
        workload same_memory = w;
        same_memory.target_fpr = bloomkit::fpr_for_memory<bloomkit::block_bloom_filter>(
            static_cast<double>(w.n),
            bloomkit::windowed_filter(w.n, w.target_fpr, std::chrono::hours(24)).size_in_bytes());
        bench_bloomkit<bloomkit::block_bloom_filter, Key>("bloomkit block, windowed's memory", same_memory, r.rows);
    }
    // 100M URL-like strings held in memory (a fuse build's input, a hash set) need ~13 GB:
    // more memory than the benchmark VMs have.
    const bool all_keys_fit = kind == key_kind::integer || w.n <= 20'000'000;
    if (w.measures("fuse8") && all_keys_fit)
        bench_fuse<bloomkit::binary_fuse8_filter, Key>("bloomkit fuse8", w, r.rows);
    if (w.measures("fuse8-4wise") && all_keys_fit)
        bench_fuse<bloomkit::binary_fuse8_4wise_filter, Key>("bloomkit fuse8 4-wise", w, r.rows);
    if (w.measures("libbloom")) bench_libbloom<Key>(w, r.rows);
    if (w.measures("unordered_set") && all_keys_fit) bench_hash_set<Key>(w, r.rows);
    r.floor_ns = memory_floor_ns(bloomkit::block_bloom_filter(w.n, w.target_fpr).size_in_bytes(), w.sample,
                                 r.floor_huge_page_bytes);
    return r;
}

std::optional<double> ns_of(const result& r, const std::string& structure, const std::string& operation) {
    for (const row& x : r.rows)
        if (x.structure == structure && x.operation == operation) return x.ns_per_op;
    return std::nullopt;
}

/// "12.3x" when `baseline` has the operation (its single-key form for a bulk row), else "–".
std::string ratio(const result& r, const row& x, const std::string& baseline) {
    std::string operation = x.operation;
    auto ns = ns_of(r, baseline, operation);
    if (!ns && operation.ends_with(" (bulk)")) ns = ns_of(r, baseline, operation.substr(0, operation.size() - 7));
    if (!ns || x.structure == baseline) return "–";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1fx", *ns / x.ns_per_op);
    return buffer;
}

void print_markdown(const std::vector<result>& results) {
    std::printf("CPU: %s, %u threads; SIMD backend: %s (supported: %s); compiler: %s\n", cpu_model().c_str(),
                std::max(1U, std::thread::hardware_concurrency()),
                std::string(to_string(bloomkit::active_simd_level())).c_str(),
                std::string(to_string(bloomkit::supported_simd_level())).c_str(), __VERSION__);
    for (const result& r : results) {
        std::printf("\n### n = %llu %s keys, target FPR %g\n\n", static_cast<unsigned long long>(r.w.n),
                    r.kind == key_kind::url ? "URL-like (~60-byte)" : "8-byte integer", r.w.target_fpr);
        std::printf(
            "Memory floor (random 64-byte reads over %.1f MB, %.0f MB of it on 2 MiB pages): %.2f ns/read. "
            "Lookups timed over %llu keys.\n\n",
            static_cast<double>(bloomkit::block_bloom_filter(r.w.n, r.w.target_fpr).size_in_bytes()) / 1e6,
            r.floor_huge_page_bytes / 1e6, r.floor_ns, static_cast<unsigned long long>(r.w.sample));
        if (r.cuckoo)
            std::printf(
                "Cuckoo filter sized for n (%u-bit fingerprints, %llu slots): first insert refused at %.2f%% "
                "occupancy (%llu keys stored).\n\n",
                r.cuckoo->fingerprint_bits, static_cast<unsigned long long>(r.cuckoo->slots), 100 * r.cuckoo->load(),
                static_cast<unsigned long long>(r.cuckoo->stored));
        std::printf(
            "| structure | operation | ns/op | vs floor | bits/key | measured FPR | on 2 MiB pages | vs libbloom | vs "
            "unordered_set |\n");
        std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (const row& x : r.rows) {
            char fpr[32] = "–", huge[32] = "–";
            if (x.fpr >= 0) std::snprintf(fpr, sizeof fpr, "%.4f%%", 100 * x.fpr);
            if (x.huge_page_bytes >= 0) std::snprintf(huge, sizeof huge, "%.0f MB", x.huge_page_bytes / 1e6);
            std::printf("| %s | %s | %.2f | %.2fx | %.2f | %s | %s | %s | %s |\n", x.structure.c_str(),
                        x.operation.c_str(), x.ns_per_op, x.ns_per_op / r.floor_ns, x.bits_per_key, fpr, huge,
                        ratio(r, x, "libbloom").c_str(), ratio(r, x, "std::unordered_set").c_str());
        }
    }
}

void print_json(const std::vector<result>& results) {
    std::printf("{\"cpu\": \"%s\", \"simd\": \"%s\", \"results\": [", cpu_model().c_str(),
                std::string(to_string(bloomkit::active_simd_level())).c_str());
    for (std::size_t i = 0; i < results.size(); ++i) {
        const result& r = results[i];
        std::printf("%s\n {\"n\": %llu, \"keys\": \"%s\", \"target_fpr\": %g, \"memory_floor_ns\": %.3f, ",
                    i ? "," : "", static_cast<unsigned long long>(r.w.n), r.kind == key_kind::url ? "url" : "int",
                    r.w.target_fpr, r.floor_ns);
        if (r.cuckoo) std::printf("\"cuckoo_load_at_first_refusal\": %.5f, ", r.cuckoo->load());
        std::printf("\"rows\": [");
        for (std::size_t j = 0; j < r.rows.size(); ++j) {
            const row& x = r.rows[j];
            std::printf(
                "%s\n  {\"structure\": \"%s\", \"operation\": \"%s\", \"ns_per_op\": %.3f, \"vs_floor\": %.3f, "
                "\"bits_per_key\": %.3f, \"fpr\": %.6g, \"huge_page_bytes\": %.0f}",
                j ? "," : "", x.structure.c_str(), x.operation.c_str(), x.ns_per_op, x.ns_per_op / r.floor_ns,
                x.bits_per_key, x.fpr, x.huge_page_bytes);
        }
        std::printf("]}");
    }
    std::printf("\n]}\n");
}

// --- Space: bits per key against the FPR ---------------------------------------------------

struct space_row {
    std::string structure;
    double target, bits_per_key, measured_fpr;
};

/// Bits per key and measured FPR of a filter of each kind sized for `n` keys at `p`.
template <class Filter>
space_row space_of(const char* name, std::uint64_t n, double p) {
    const std::vector<std::uint64_t> keys = make_chunk<std::uint64_t>(key_set::present, 0, n);
    const std::vector<std::uint64_t> probes =
        make_chunk<std::uint64_t>(key_set::absent, 0, std::max<std::uint64_t>(n, 4'000'000));
    std::optional<Filter> filter;
    if constexpr (requires { Filter(keys); }) filter.emplace(keys);
    else {
        filter.emplace(n, p);
        const std::uint64_t added = filter->insert(keys.begin(), keys.end());
        if (std::is_same_v<Filter, bloomkit::cuckoo_filter> && added != n)
            wrong(std::string(name) + ": full before n keys");
    }
    if (filter->count_contained(keys.begin(), keys.end()) != n)
        wrong(std::string(name) + ": an inserted key was not found");
    const double fpr =
        static_cast<double>(filter->count_contained(probes.begin(), probes.end())) / static_cast<double>(probes.size());
    return {name, p, 8.0 * static_cast<double>(filter->size_in_bytes()) / static_cast<double>(n), fpr};
}

std::vector<space_row> measure_space() {
    constexpr std::uint64_t n = 1'000'000;
    std::vector<space_row> rows;
    for (const double p : {0.1, 0.03, 0.01, 0.003, 0.001, 0.0003, 0.0001, 0.00001}) {
        std::fprintf(stderr, "bloomkit_bench: space at p=%g ...\n", p);
        rows.push_back(space_of<bloomkit::block_bloom_filter>("bloomkit block", n, p));
        rows.push_back(space_of<bloomkit::split_block_bloom_filter>("bloomkit split-block", n, p));
        rows.push_back(space_of<bloomkit::classic_bloom_filter>("bloomkit classic", n, p));
        rows.push_back(space_of<bloomkit::counting_bloom_filter>("bloomkit counting", n, p));
        if (p >= 0.000123) rows.push_back(space_of<bloomkit::cuckoo_filter>("bloomkit cuckoo", n, p));
        rows.push_back(space_of<bloomkit::scalable_bloom_filter>("bloomkit scalable", n, p));
        rows.push_back({"lower bound log2(1/p)", p, std::log2(1 / p), p});
    }
    // A binary fuse filter's FPR is fixed by its fingerprint (2^-8): one point per variant.
    rows.push_back(space_of<bloomkit::binary_fuse8_filter>("bloomkit fuse8", n, 1.0 / 256));
    rows.push_back(space_of<bloomkit::binary_fuse8_4wise_filter>("bloomkit fuse8 4-wise", n, 1.0 / 256));
    return rows;
}

void print_space(const std::vector<space_row>& rows, bool tsv) {
    if (!tsv) {
        std::printf(
            "Bits per key against the FPR, filters sized for 1M keys (measured over at least 4M absent keys):\n\n");
        std::printf(
            "| structure | target FPR | bits/key | measured FPR | vs the lower bound |\n|---|---:|---:|---:|---:|\n");
    }
    for (const space_row& r : rows) {
        if (tsv) std::printf("%s\t%g\t%.4f\t%.6g\n", r.structure.c_str(), r.target, r.bits_per_key, r.measured_fpr);
        else
            std::printf("| %s | %g%% | %.2f | %.4f%% | %.2fx |\n", r.structure.c_str(), 100 * r.target, r.bits_per_key,
                        100 * r.measured_fpr, r.bits_per_key / std::log2(1 / r.target));
    }
}

/// One tab-separated line per row: n, keys, target, floor ns, structure, operation, ns, vs floor,
/// bits/key, measured FPR.
void print_tsv(const std::vector<result>& results) {
    for (const result& r : results)
        for (const row& x : r.rows)
            std::printf("%llu\t%s\t%g\t%.3f\t%s\t%s\t%.3f\t%.3f\t%.3f\t%.6g\n", static_cast<unsigned long long>(r.w.n),
                        r.kind == key_kind::url ? "url" : "int", r.w.target_fpr, r.floor_ns, x.structure.c_str(),
                        x.operation.c_str(), x.ns_per_op, x.ns_per_op / r.floor_ns, x.bits_per_key, x.fpr);
}

std::vector<double> numbers(const std::string& list) {
    std::vector<double> values;
    for (const std::string& item : names(list)) values.push_back(std::stod(item));
    return values;
}

}  // namespace

int main(int argc, char** argv) {
    std::string sizes = "1e6,1e8", rates = "0.01,0.001", kinds = "int,url";
    double sample = 1e7;
    bool json = false, tsv = false, space = false;
    std::vector<std::string> only;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--n" && has_value) sizes = argv[++i];
        else if (arg == "--fpr" && has_value) rates = argv[++i];
        else if (arg == "--fpp" && has_value) {
            std::fprintf(stderr, "bloomkit_bench: --fpp is deprecated, use --fpr\n");
            rates = argv[++i];
        } else if (arg == "--keys" && has_value) kinds = argv[++i];
        else if (arg == "--sample" && has_value) sample = std::stod(argv[++i]);
        else if (arg == "--json") json = true;
        else if (arg == "--tsv") tsv = true;
        else if (arg == "--space") space = true;
        else if (arg == "--only" && has_value) only = names(argv[++i]);
        else {
            std::fprintf(
                stderr,
                "usage: bloomkit_bench [--n 1e6,1e8] [--fpr 0.01,0.001] [--keys int,url] [--sample 1e7] "
                "[--json | --tsv]\n"
                "                      [--only "
                "hash,block,split-block,classic,guava,dcso,counting,cuckoo,scalable,windowed,fuse8,fuse8-4wise,"
                "libbloom,unordered_set]\n"
                "       bloomkit_bench --space [--tsv]\n");
            return 2;
        }
    }
    if (space) {
        print_space(measure_space(), tsv);
        return 0;
    }
    std::vector<result> results;
    for (const double n : numbers(sizes))
        for (const std::string kind : {"int", "url"})
            if (kinds.find(kind) != std::string::npos)
                for (const double p : numbers(rates)) {
                    const workload w{static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(sample), p, only};
                    std::fprintf(stderr, "bloomkit_bench: n=%g keys=%s p=%g ...\n", n, kind.c_str(), p);
                    results.push_back(kind == std::string("url") ? run<std::string>(w, key_kind::url)
                                                                 : run<std::uint64_t>(w, key_kind::integer));
                }
    if (json) print_json(results);
    else if (tsv) print_tsv(results);
    else print_markdown(results);
    return 0;
}
