// cache_guard — a cache-penetration guard: a Bloom filter of the ids that exist, shared by every
// instance of a service through Redis (bloomkit::redis), in front of a Redis cache and a
// PostgreSQL table. `make demo-redis` runs it against throwaway servers (run.sh).
//
//   cache_guard --pg CONNINFO --redis URL [--rows N] [--requests M] [--attack FRACTION]
//               [--fpr P] [--seed S] [--runs none,negative,bloom]
//
// The attack: a request for an id that does not exist misses the cache (there is nothing to
// cache) and costs a database query, so a flood of made-up ids goes through the cache straight
// to the database. The guard asks the shared filter first: "definitely not" is answered at once,
// without touching cache or database; only its false positives (a fraction FPR of the made-up
// ids) get through. A Bloom filter has no false negatives, so no existing row is ever hidden.
//
// Steps:
//  1. A table items(id bigint primary key, payload text) of N rows, made server-side (INSERT …
//     SELECT over generate_series) unless it is there.
//  2. Its ids streamed out with COPY … TO STDOUT and added to the filter in bulk (pipelined).
//  3. One request stream — existing ids with Zipf popularity, made-up ids at random, mixed at
//     random, fixed seed — served three times, each with a cold cache of its own: without a
//     guard, with the classic alternative (caching "not found" too), and with the filter.
//  4. For each: database queries, cache hits, answers from the filter and its false positives,
//     latency percentiles; and a check that no existing id was ever answered "not found"
//     (exit status 1 if one was).
#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// 1234567 → "1,234,567": the figures are read by people.
std::string grouped(std::uint64_t n) {
    const std::string digits = std::to_string(n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
        out.push_back(digits[i]);
    }
    return out;
}

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

// --- PostgreSQL (libpq) ------------------------------------------------------------------------

using result = std::unique_ptr<PGresult, decltype(&PQclear)>;

/// One libpq connection, with the few calls the example makes. Every failure throws.
class database {
public:
    explicit database(const std::string& conninfo) : conn_(PQconnectdb(conninfo.c_str()), &PQfinish) {
        if (!conn_) throw std::runtime_error("PostgreSQL: out of memory");
        if (PQstatus(conn_.get()) != CONNECTION_OK) throw failure("cannot connect");
        exec("SET client_min_messages = warning");  // no NOTICEs on stderr ("… already exists, skipping")
    }

    /// Runs SQL (commands, or a query whose rows are wanted).
    result exec(const std::string& sql) {
        result r(PQexec(conn_.get(), sql.c_str()), &PQclear);
        const ExecStatusType status = PQresultStatus(r.get());
        if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) throw failure(sql);
        return r;
    }
    /// The first column of the first row ("" when there is none).
    std::string scalar(const std::string& sql) {
        const result r = exec(sql);
        return PQntuples(r.get()) > 0 ? PQgetvalue(r.get(), 0, 0) : "";
    }

    /// Streams the rows of `COPY (query) TO STDOUT` (text format: one line per row, with its
    /// newline) to `row` as they arrive, without holding the result in memory.
    template <class Row>
    void copy_out(const std::string& sql, Row row) {
        {
            const result r(PQexec(conn_.get(), sql.c_str()), &PQclear);
            if (PQresultStatus(r.get()) != PGRES_COPY_OUT) throw failure(sql);
        }
        char* buffer = nullptr;
        int length = 0;
        while ((length = PQgetCopyData(conn_.get(), &buffer, 0)) > 0) {
            const std::unique_ptr<char, decltype(&PQfreemem)> owned(buffer, &PQfreemem);
            row(std::string_view(buffer, static_cast<std::size_t>(length)));
        }
        if (length == -2) throw failure(sql);
        // The COPY's own result says whether it completed.
        for (result r(PQgetResult(conn_.get()), &PQclear); r; r.reset(PQgetResult(conn_.get())))
            if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) throw failure(sql);
    }

    /// The service's one query, prepared once: parsed and planned once, not per request.
    void prepare_find() {
        const result r(PQprepare(conn_.get(), "find", "SELECT payload FROM items WHERE id = $1", 1, nullptr), &PQclear);
        if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) throw failure("PREPARE find");
    }
    std::optional<std::string> find(std::int64_t id) {
        char text[24];
        *std::to_chars(text, text + sizeof text - 1, id).ptr = '\0';
        const char* const values[] = {text};
        const result r(PQexecPrepared(conn_.get(), "find", 1, values, nullptr, nullptr, 0), &PQclear);
        if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) throw failure("EXECUTE find");
        if (PQntuples(r.get()) == 0) return std::nullopt;
        return std::string(PQgetvalue(r.get(), 0, 0), static_cast<std::size_t>(PQgetlength(r.get(), 0, 0)));
    }

    /// "15.18 at 127.0.0.1:5432", for the report (not the conninfo: it may hold a password).
    std::string describe() const {
        const int v = PQserverVersion(conn_.get());
        return std::to_string(v / 10000) + "." + std::to_string(v % 10000) + " at " + PQhost(conn_.get()) + ":" +
               PQport(conn_.get());
    }

private:
    std::runtime_error failure(const std::string& what) const {
        std::string message = PQerrorMessage(conn_.get());
        while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
        return std::runtime_error("PostgreSQL: " + what + ": " + message);
    }

    std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
};

// The ids: i·A mod P for i = 1…N, P = 2^61 − 1 prime and A not a multiple of it — distinct (a
// bijection of 1…P−1), and scattered over [1, 2^61) like hashed or snowflake-style ids, so no
// range check could tell a made-up id from a real one as it could with 1…N. numeric arithmetic:
// the product does not fit in a bigint.
constexpr std::int64_t id_modulus = (std::int64_t{1} << 61) - 1;
constexpr std::string_view id_multiplier = "6364136223846793005";

/// Step 1: the table, made unless it is there. Returns the seconds it took (0 when it was
/// there). A table of another size is left alone — it may not be ours to drop.
double ensure_table(database& db, std::uint64_t rows) {
    if (db.scalar("SELECT to_regclass('items') IS NOT NULL") == "t") {
        const std::string there = db.scalar("SELECT count(*) FROM items");
        if (there != std::to_string(rows))
            throw std::runtime_error("a table items with " + there + " rows is there already: run with --rows " +
                                     there + ", or drop it");
        return 0;
    }
    const auto start = clock_type::now();
    // The primary key after the rows: one sorted index build is much faster than N inserts
    // into a growing B-tree.
    db.exec("CREATE TABLE items (id bigint NOT NULL, payload text NOT NULL)");
    db.exec("INSERT INTO items SELECT (g::numeric * " + std::string(id_multiplier) + " % " +
            std::to_string(id_modulus) + ")::bigint, md5(g::text) FROM generate_series(1, " + std::to_string(rows) +
            ") AS g");
    db.exec("ALTER TABLE items ADD PRIMARY KEY (id)");
    // Statistics for the planner, and hint bits set now rather than by the first readers.
    db.exec("VACUUM ANALYZE items");
    return seconds_since(start);
}

/// Loads table and index into shared buffers, so that the first run does not pay for warming
/// PostgreSQL's cache on behalf of the others. pg_prewarm ships with PostgreSQL (contrib); where
/// it cannot be installed the runs are still correct, only less evenly matched.
bool prewarm(database& db) {
    try {
        db.exec("CREATE EXTENSION IF NOT EXISTS pg_prewarm");
        db.exec("SELECT pg_prewarm('items'), pg_prewarm('items_pkey')");
        return true;
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "cache_guard: no prewarming (%s)\n", e.what());
        return false;
    }
}

// --- The service ---------------------------------------------------------------------------

enum class guard { none, negative_cache, bloom_filter };

struct mode_run {
    guard mode;
    const char* name;   // for --runs and the cache keys
    const char* title;  // for the table
};
constexpr mode_run all_modes[] = {{guard::none, "none", "no guard"},
                                  {guard::negative_cache, "negative", "cache \"not found\""},
                                  {guard::bloom_filter, "bloom", "Bloom filter guard"}};

/// Where an answer came from.
enum class source { filter, cache, database };

/// The service's read path, one instance per run. The cache keys carry a prefix of their own,
/// so each run starts with a cold cache and none sees another's entries.
///
/// Cached values: "=" + payload for a row, "-" for "no such row" (negative_cache only). The
/// marker keeps an empty payload apart from a miss (GET answers nil as "").
class item_service {
public:
    item_service(bloomkit::redis::client& redis, const bloomkit::redis::bloom_filter& filter, database& db, guard mode,
                 std::string key_prefix)
        : redis_(redis), filter_(filter), db_(db), mode_(mode), prefix_(std::move(key_prefix)) {}

    /// The read path: filter (when guarded), then cache, then database. The filter goes first
    /// because its "definitely not" is the one answer that needs neither cache nor database;
    /// a row found in the database is cached, and "not found" too when that is the mode.
    std::optional<std::string> lookup(std::int64_t id) {
        if (mode_ == guard::bloom_filter) {
            try {
                if (!filter_.contains(id)) {
                    last_ = source::filter;
                    return std::nullopt;  // definitely not in the table
                }
            } catch (const bloomkit::redis::error&) {
                // The filter fails closed (a lost shard throws shard_missing rather than answer
                // "definitely not"); the service then fails open — to the cache and database, as
                // without a guard — so an incident costs load, never wrong "not found"s.
                ++filter_errors;
            }
        }
        const std::string key = prefix_ + std::to_string(id);
        const std::string cached = redis_.command({"GET", key});
        if (!cached.empty()) {
            last_ = source::cache;
            if (cached.front() == '=') return cached.substr(1);
            return std::nullopt;
        }
        last_ = source::database;
        const auto start = clock_type::now();
        std::optional<std::string> row = db_.find(id);
        database_seconds += seconds_since(start);
        if (row) {
            redis_.command({"SET", key, "=" + *row, "EX", "300"});
            ++cache_writes;
        } else if (mode_ == guard::negative_cache) {
            // A short TTL: a row inserted later must not stay hidden for long.
            redis_.command({"SET", key, "-", "EX", "60"});
            ++cache_writes;
        }
        return row;
    }
    /// Where the last lookup's answer came from.
    [[nodiscard]] source last_source() const noexcept { return last_; }

    double database_seconds = 0;
    std::uint64_t cache_writes = 0;
    std::uint64_t filter_errors = 0;

private:
    bloomkit::redis::client& redis_;
    const bloomkit::redis::bloom_filter& filter_;
    database& db_;
    guard mode_;
    std::string prefix_;
    source last_ = source::database;
};

// --- The request stream and the runs -------------------------------------------------------

struct request {
    std::int64_t id;
    bool exists;  // the truth, for the tallies and the check; the service does not see it
};

/// `count` requests, a share `attack` of them for made-up ids (uniform over the id space, and
/// checked against the table). Existing ids follow Zipf's law (s = 1), as real popularity
/// does: rank ⌊N^u⌋ − 1 for u uniform in [0, 1) gives P(rank < r) = ln(r + 1) / ln N — a few hot
/// items (the top 1% draw about two thirds of the requests at N = 1M) and a long tail.
std::vector<request> make_requests(const std::vector<std::int64_t>& ids, const std::vector<std::int64_t>& sorted_ids,
                                   std::uint64_t count, double attack, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::uniform_int_distribution<std::int64_t> any_id(1, id_modulus - 1);
    const auto n = static_cast<double>(ids.size());
    std::vector<request> requests;
    requests.reserve(count);
    while (requests.size() < count) {
        if (unit(rng) < attack) {
            const std::int64_t id = any_id(rng);
            if (!std::binary_search(sorted_ids.begin(), sorted_ids.end(), id)) requests.push_back({id, false});
        } else {
            const auto rank = std::min(static_cast<std::size_t>(std::pow(n, unit(rng))) - 1, ids.size() - 1);
            requests.push_back({ids[rank], true});
        }
    }
    return requests;
}

struct run_report {
    bool guarded = false;
    std::uint64_t database_queries = 0, cache_hits = 0, filter_answers = 0, false_positives = 0;
    std::uint64_t cache_writes = 0, filter_errors = 0;
    std::uint64_t existing_missed = 0;  // existing ids answered "not found": must stay 0
    std::uint64_t phantoms = 0;         // made-up ids answered with a row: impossible, checked anyway
    double database_seconds = 0, total_seconds = 0;
    std::vector<double> all_us, existing_us, missing_us;  // per-request latencies
};

/// Serves the stream through one read path, timing each request and tallying where its answer
/// came from. The truth each request carries is what checks the answers: the service never
/// sees it.
run_report serve(item_service& service, const std::vector<request>& requests, bool guarded) {
    run_report report;
    report.guarded = guarded;
    report.all_us.reserve(requests.size());
    const auto run_start = clock_type::now();
    for (const request& r : requests) {
        const auto start = clock_type::now();
        const std::optional<std::string> answer = service.lookup(r.id);
        const double us = 1e6 * seconds_since(start);
        report.all_us.push_back(us);
        (r.exists ? report.existing_us : report.missing_us).push_back(us);
        switch (service.last_source()) {
            case source::filter: ++report.filter_answers; break;
            case source::cache: ++report.cache_hits; break;
            case source::database: ++report.database_queries; break;
        }
        // A made-up id past the filter: its false positive (cache entries of made-up ids are
        // never written in guarded runs, so all of them reach the database).
        if (guarded && !r.exists && service.last_source() != source::filter) ++report.false_positives;
        if (r.exists && !answer) ++report.existing_missed;
        if (!r.exists && answer) ++report.phantoms;
    }
    report.total_seconds = seconds_since(run_start);
    report.database_seconds = service.database_seconds;
    report.cache_writes = service.cache_writes;
    report.filter_errors = service.filter_errors;
    return report;
}

/// The q-quantile (nearest rank) of `values`; reorders them.
double quantile(std::vector<double>& values, double q) {
    if (values.empty()) return 0;
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
    const auto at = values.begin() + static_cast<std::ptrdiff_t>(std::clamp<std::size_t>(rank, 1, values.size()) - 1);
    std::nth_element(values.begin(), at, values.end());
    return *at;
}

double mean(const std::vector<double>& values) {
    double sum = 0;
    for (double v : values) sum += v;
    return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

/// One line of the results table: a label and one cell per run. The label is padded by
/// characters, not bytes ("µs" is three bytes of UTF-8 for two characters).
void table_row(std::string_view label, const std::vector<std::string>& cells) {
    std::size_t width = 0;
    for (char c : label) width += (static_cast<unsigned char>(c) & 0xC0) == 0x80 ? 0 : 1;
    std::printf("%.*s%*s", static_cast<int>(label.size()), label.data(), static_cast<int>(width < 36 ? 36 - width : 0),
                "");
    for (const std::string& cell : cells) std::printf("%20s", cell.c_str());
    std::printf("\n");
}

struct arguments {
    std::string pg, redis;
    std::uint64_t rows = 1'000'000, requests = 200'000, seed = 42;
    double attack = 0.5, fpr = 0.001;
    std::vector<mode_run> modes{std::begin(all_modes), std::end(all_modes)};
};

[[noreturn]] void usage(const char* problem) {
    if (problem) std::fprintf(stderr, "cache_guard: %s\n", problem);
    std::fprintf(stderr,
                 "usage: cache_guard --pg CONNINFO --redis URL [--rows N] [--requests M] [--attack FRACTION]\n"
                 "                   [--fpr P] [--seed S] [--runs none,negative,bloom]\n"
                 "  --pg        libpq connection string, e.g. \"host=127.0.0.1 port=5432 dbname=postgres\"\n"
                 "  --redis     redis://host:port of the cache and the filter\n"
                 "  --rows      rows of the table items (default 1000000)\n"
                 "  --requests  requests per run (default 200000)\n"
                 "  --attack    share of the requests for ids that do not exist (default 0.5)\n"
                 "  --fpr       the filter's target false-positive rate (default 0.001)\n"
                 "  --seed      of the request stream (default 42)\n"
                 "  --runs      which read paths serve the stream, in this order (default: all three):\n"
                 "              none (no guard), negative (cache \"not found\" too), bloom (the filter first)\n");
    std::exit(2);
}

arguments parse(int argc, char** argv) {
    arguments a;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "-h" || arg == "--help") usage(nullptr);
        if (i + 1 >= argc) usage(("missing the value of " + std::string(arg)).c_str());
        const std::string value = argv[++i];
        try {
            if (arg == "--pg") a.pg = value;
            else if (arg == "--redis") a.redis = value;
            else if (arg == "--rows") a.rows = std::stoull(value);
            else if (arg == "--requests") a.requests = std::stoull(value);
            else if (arg == "--seed") a.seed = std::stoull(value);
            else if (arg == "--attack") a.attack = std::stod(value);
            else if (arg == "--fpr") a.fpr = std::stod(value);
            else if (arg == "--runs") {
                a.modes.clear();
                for (std::string_view list = value; !list.empty();) {
                    const std::string_view name = list.substr(0, list.find(','));
                    list.remove_prefix(std::min(list.size(), name.size() + 1));
                    const auto* m = std::find_if(std::begin(all_modes), std::end(all_modes),
                                                 [&](const mode_run& known) { return name == known.name; });
                    if (m == std::end(all_modes)) usage(("unknown run '" + std::string(name) + "' in --runs").c_str());
                    a.modes.push_back(*m);
                }
            } else usage(("unknown option " + std::string(arg)).c_str());
        } catch (const std::logic_error&) {
            usage(("bad value '" + value + "' for " + std::string(arg)).c_str());
        }
    }
    if (a.pg.empty() || a.redis.empty()) usage("--pg and --redis are required");
    if (a.modes.empty()) usage("--runs names no run");
    if (a.rows == 0 || a.requests == 0) usage("--rows and --requests must be at least 1");
    if (!(a.attack >= 0 && a.attack <= 1)) usage("--attack must be between 0 and 1");
    if (!(a.fpr > 0 && a.fpr < 1)) usage("--fpr must be between 0 and 1, exclusive");
    return a;
}

/// The server's version, from INFO server, for the report ("?" if it does not say).
std::string redis_version_of(bloomkit::redis::client& redis) {
    std::string version = "?";
    const std::string server_info = redis.command({"INFO", "server"});
    for (std::string_view info = server_info; !info.empty();) {
        const std::string_view line = info.substr(0, info.find('\n'));
        info.remove_prefix(std::min(info.size(), line.size() + 1));
        if (line.starts_with("redis_version:")) version = line.substr(14, line.find_last_not_of("\r") - 13);
    }
    return version;
}

/// Step 1: the table, made unless it is there, and warmed so that the runs compare fairly.
void prepare_table(database& db, std::uint64_t rows) {
    const double table_seconds = ensure_table(db, rows);
    std::printf("1. Table items: %s rows, ids scattered over [1, 2^61) (%s)\n", grouped(rows).c_str(),
                table_seconds > 0 ? ("created in " + fixed(table_seconds, 1) + " s").c_str() : "already there");
    if (prewarm(db)) std::printf("   table and index loaded into PostgreSQL's shared buffers (pg_prewarm)\n");
}

/// An empty filter for `rows` ids. A service instance would only call create (it opens the
/// filter when it exists alike) and add each new row's id as it inserts it; the demo drops it
/// first so that what it times is a load from scratch.
bloomkit::redis::bloom_filter fresh_filter(bloomkit::redis::client& redis, const std::string& name, std::uint64_t rows,
                                           double fpr) {
    bloomkit::redis::bloom_filter::drop(redis, name);
    return bloomkit::redis::bloom_filter::create(redis, name, rows, fpr);
}

/// What loading the filter from the table gave: every id (the request stream draws from them)
/// and where the time went.
struct id_load {
    std::vector<std::int64_t> ids;
    double seconds = 0;         // the whole load: COPY, parsing and adding
    double adding_seconds = 0;  // of which adding to the filter
};

/// Step 2: streams the table's ids out with COPY and adds them to the filter 10,000 at a time.
/// A batch is hashed and then pipelined, so a load costs few round trips; streaming keeps the
/// client's memory flat however large the table.
id_load load_ids(database& db, bloomkit::redis::bloom_filter& filter, std::uint64_t rows) {
    id_load load;
    load.ids.reserve(rows);
    std::vector<std::int64_t> batch;
    batch.reserve(10'000);
    const auto add_batch = [&] {
        const auto start = clock_type::now();
        filter.insert(batch.begin(), batch.end());
        load.adding_seconds += seconds_since(start);
        batch.clear();
    };
    const auto load_start = clock_type::now();
    db.copy_out("COPY (SELECT id FROM items) TO STDOUT", [&](std::string_view line) {
        std::int64_t id = 0;
        if (std::from_chars(line.data(), line.data() + line.size(), id).ec != std::errc{})
            throw std::runtime_error("COPY: not an id: " + std::string(line));
        load.ids.push_back(id);
        batch.push_back(id);
        if (batch.size() == 10'000) add_batch();
    });
    if (!batch.empty()) add_batch();
    load.seconds = seconds_since(load_start);
    return load;
}

/// The load's rates, and what the filter costs in Redis and how full it is: its FPR estimated
/// from its bits, against the target it was sized for.
void print_load(const bloomkit::redis::bloom_filter& filter, const id_load& load, double fpr) {
    const auto& d = filter.description();
    std::uint64_t filter_bytes = 0;
    for (std::uint64_t s = 0; s < d.shards; ++s) filter_bytes += d.shard_bytes(s);
    const auto ids = static_cast<double>(load.ids.size());
    std::printf("2. Filter %s in Redis: %s ids streamed (COPY … TO STDOUT) and added in batches of 10,000\n",
                filter.name().c_str(), grouped(load.ids.size()).c_str());
    std::printf("   in %s s: %s keys/s (%s s of it adding to the filter: %s keys/s)\n", fixed(load.seconds, 2).c_str(),
                grouped(static_cast<std::uint64_t>(ids / load.seconds)).c_str(), fixed(load.adding_seconds, 2).c_str(),
                grouped(static_cast<std::uint64_t>(ids / load.adding_seconds)).c_str());
    std::printf("   %s MiB in %s shard%s, k = %u; FPR target %s%%, estimated from its bits now %s%%\n",
                fixed(static_cast<double>(filter_bytes) / (1 << 20), 2).c_str(), grouped(d.shards).c_str(),
                d.shards == 1 ? "" : "s", d.geometry.hashes, fixed(100 * fpr, 3).c_str(),
                fixed(100 * filter.current_fpr(), 3).c_str());
}

/// Step 3: the request stream, the same for every run, so that the runs differ only in their
/// read path. Returns it; `missing` is how many of its requests are for made-up ids.
std::vector<request> request_stream(const std::vector<std::int64_t>& ids, const arguments& args,
                                    std::uint64_t& missing) {
    std::vector<std::int64_t> sorted_ids = ids;  // for telling a made-up id from a real one
    std::sort(sorted_ids.begin(), sorted_ids.end());
    std::vector<request> requests = make_requests(ids, sorted_ids, args.requests, args.attack, args.seed);
    missing = static_cast<std::uint64_t>(
        std::count_if(requests.begin(), requests.end(), [](const request& r) { return !r.exists; }));
    std::printf(
        "3. %s requests: %s for existing ids (Zipf popularity), %s for made-up ids (%s%%), seed %s;\n"
        "   each run with a cold cache of its own (cache entries: TTL 300 s, \"not found\" 60 s)\n\n",
        grouped(requests.size()).c_str(), grouped(requests.size() - missing).c_str(), grouped(missing).c_str(),
        fixed(100 * args.attack, 0).c_str(), grouped(args.seed).c_str());
    return requests;
}

/// Serves the stream once per mode, each through a service of its own with a cache of its own.
std::vector<run_report> serve_every_mode(bloomkit::redis::client& redis, const bloomkit::redis::bloom_filter& filter,
                                         database& db, const std::vector<mode_run>& modes,
                                         const std::vector<request>& requests) {
    db.prepare_find();
    // A prefix unique to this invocation: an earlier run's entries (alive for their TTL) must
    // not warm this one's cache.
    const std::string nonce = std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
    std::vector<run_report> reports;
    for (std::size_t i = 0; i < modes.size(); ++i) {
        const mode_run& m = modes[i];
        item_service service(redis, filter, db, m.mode,
                             "cache_guard:" + nonce + ":" + std::to_string(i) + m.name + ":item:");
        reports.push_back(serve(service, requests, m.mode == guard::bloom_filter));
    }
    return reports;
}

/// Step 4: the results, one column per run. The false positives are a share of the made-up ids
/// (`missing`), the only requests that can be one. Reorders the reports' latencies.
void print_results(std::vector<run_report>& reports, const std::vector<mode_run>& modes, std::size_t requests,
                   std::uint64_t missing) {
    const auto cells = [&](auto value) {
        std::vector<std::string> out;
        for (run_report& r : reports) out.push_back(value(r));
        return out;
    };
    const auto count = [](std::uint64_t run_report::*field) {
        return [field](run_report& r) { return grouped(r.*field); };
    };
    std::vector<std::string> titles;
    for (const mode_run& m : modes) titles.push_back(m.title);
    table_row("", titles);
    table_row("database queries", cells(count(&run_report::database_queries)));
    table_row("  time in the database (s)", cells([](run_report& r) { return fixed(r.database_seconds, 2); }));
    table_row("cache hits", cells(count(&run_report::cache_hits)));
    table_row("cache entries written", cells(count(&run_report::cache_writes)));
    table_row("answered by the filter", cells(count(&run_report::filter_answers)));
    table_row("filter false positives", cells([&](run_report& r) {
                  if (!r.guarded) return std::string("-");
                  const double share =
                      static_cast<double>(r.false_positives) / static_cast<double>(std::max<std::uint64_t>(missing, 1));
                  return grouped(r.false_positives) + " (" + fixed(100 * share, 3) + "%)";
              }));
    table_row("existing rows missed (must be 0)", cells(count(&run_report::existing_missed)));
    table_row("latency p50 (µs)", cells([](run_report& r) { return fixed(quantile(r.all_us, 0.50), 0); }));
    table_row("latency p99 (µs)", cells([](run_report& r) { return fixed(quantile(r.all_us, 0.99), 0); }));
    table_row("latency mean (µs)", cells([](run_report& r) { return fixed(mean(r.all_us), 1); }));
    table_row("  p50 / p99, existing ids (µs)", cells([](run_report& r) {
                  return fixed(quantile(r.existing_us, 0.50), 0) + " / " + fixed(quantile(r.existing_us, 0.99), 0);
              }));
    table_row("  p50 / p99, made-up ids (µs)", cells([](run_report& r) {
                  return fixed(quantile(r.missing_us, 0.50), 0) + " / " + fixed(quantile(r.missing_us, 0.99), 0);
              }));
    table_row("total time (s)", cells([](run_report& r) { return fixed(r.total_seconds, 2); }));
    table_row("requests/s", cells([&](run_report& r) {
                  return grouped(static_cast<std::uint64_t>(static_cast<double>(requests) / r.total_seconds));
              }));
}

/// The promise the guard must keep: no existing row answered "not found" in any run (and no
/// made-up id answered with a row). Prints the verdict; returns the exit status, 1 if broken.
int check_promise(const std::vector<run_report>& reports) {
    std::uint64_t missed = 0, phantoms = 0;
    for (const run_report& r : reports) {
        missed += r.existing_missed;
        phantoms += r.phantoms;
        if (r.filter_errors > 0)
            std::printf("\nfilter errors (those requests fell through to cache and database): %s\n",
                        grouped(r.filter_errors).c_str());
    }
    std::printf("\nexisting rows missed: %s%s\n", grouped(missed).c_str(),
                missed == 0 ? " (the filter never hid an existing row)" : "  <-- WRONG");
    if (phantoms > 0) std::printf("made-up ids answered with a row: %s  <-- WRONG\n", grouped(phantoms).c_str());
    return missed == 0 && phantoms == 0 ? 0 : 1;
}

/// The demo, step by step: the table, the filter loaded from it, one request stream served by
/// every read path, the results and the check.
int run(const arguments& args) {
    database db(args.pg);
    bloomkit::redis::client redis({.url = args.redis});
    std::printf("cache_guard: PostgreSQL %s, Redis %s at %s\n\n", db.describe().c_str(),
                redis_version_of(redis).c_str(), bloomkit::redis::redacted_url(args.redis).c_str());

    prepare_table(db, args.rows);

    bloomkit::redis::bloom_filter filter = fresh_filter(redis, "cache_guard:items", args.rows, args.fpr);
    const id_load load = load_ids(db, filter, args.rows);
    print_load(filter, load, args.fpr);
    if (load.ids.size() != args.rows)
        throw std::runtime_error("COPY returned " + std::to_string(load.ids.size()) + " ids");

    std::uint64_t missing = 0;
    const std::vector<request> requests = request_stream(load.ids, args, missing);
    std::vector<run_report> reports = serve_every_mode(redis, filter, db, args.modes, requests);

    print_results(reports, args.modes, requests.size(), missing);
    return check_promise(reports);
}

}  // namespace

int main(int argc, char** argv) {
    const arguments args = parse(argc, argv);
    try {
        return run(args);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cache_guard: %s\n", e.what());
        return 1;
    }
}
