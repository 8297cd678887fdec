// redis_bench — bloomkit::redis against a Bloom filter hand-written over hiredis, on real Redis
// servers, side by side in one run. Prints Markdown tables. bench/redis.sh starts the servers.
//
//   redis_bench [--url redis://127.0.0.1:6379] [--cluster HOST:PORT[,HOST:PORT...]] [--keys 200000]
//               [--naive-keys KEYS/20] [--fpr 0.01] [--depth 256] [--runs 3]
//               [--spread-capacity 24000000] [--spread-shard-bytes 1048576] [--prefix bloomkit-bench]
//               [--only naive,pipelined,bloomkit,windowed,module,cluster]
//
// On the server at --url, one connection each, keys like "user:123456":
//   naive            a classic Bloom filter in one big string, sized for --keys; a key's k bit
//                    positions by double hashing its 128-bit digest (bloomkit::hasher); k SETBIT
//                    round trips per insert, and GETBIT round trips per query that stop at the
//                    first 0 bit (an absent key costs 1-2 round trips, a present one k). Slow:
//                    run on --naive-keys keys.
//   naive pipelined  the same commands, all k of a key and --depth keys per round trip
//                    (redisAppendCommand, then redisGetReply); a query sends all k GETBITs.
//   bloomkit         bloomkit::redis::bloom_filter's bulk insert / contains (one BITFIELD per
//                    key, --depth commands per node per round trip), and its single-key calls
//                    (one round trip each, on --naive-keys keys) for reference.
//   windowed         bloomkit::redis::windowed_filter (G = 4, a window of 1 h) at steady state:
//                    --keys keys per window, added a quarter at a time at the starts of four
//                    generations, then queried in the fourth; an add is one BITFIELD and G
//                    BITFIELD_ROs, a query G + 1 BITFIELD_ROs, all pipelined.
// With --cluster too: bloomkit's bulk calls on the cluster (one connection per node, one thread,
// pipelines to every node at once) against the same calls on the one server of --url. A filter
// for --keys keys fits in one shard (32 MiB by default), so on a cluster it lives on one node;
// that is measured, and the comparison uses a filter sized for --spread-capacity keys in shards
// of --spread-shard-bytes, whose shards spread over the nodes (the same --keys keys go in; the
// table shows how its shards and keys fall on the nodes). Its runs on the cluster and on the one
// server alternate, so that both see the same machine.
// --only runs some parts; --prefix names the bench's keys (PREFIX:*; existing ones are refused).
//
// Every run is checked, and a wrong answer exits 1: every inserted key found, inserts counted as
// new, false positives on absent keys near the rate the filter's fill predicts, single-key and
// bulk answers alike. Each row is the best of --runs runs; beside it, the CPU the bench, each
// server and everything else on the machine used meanwhile (getrusage, INFO cpu, /proc/stat), in
// % of one core: whether the client or the servers bound the rate. The bench deletes every key
// it made, also when it fails, and checks that none is left.
#include <hiredis/hiredis.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis.hpp"
#include "bloomkit/redis_windowed.hpp"
#include "comma_list.hpp"

namespace {

namespace bkr = bloomkit::redis;
using clock_type = std::chrono::steady_clock;

/// A check failed: the structure answered wrongly. Thrown (not exit()) so that the keys are
/// still deleted on the way out.
struct wrong_answer : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string format(const char* pattern, auto... values) {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, pattern, values...);
    return buffer;
}

// --- hiredis, as its users write it ---------------------------------------------------------

struct reply_deleter {
    void operator()(redisReply* r) const noexcept { freeReplyObject(r); }
};
using reply = std::unique_ptr<redisReply, reply_deleter>;

/// One blocking hiredis connection. Every error throws.
class redis_connection {
public:
    explicit redis_connection(const bkr::endpoint& to) {
        const timeval timeout{5, 0};
        context_.reset(to.socket.empty() ? redisConnectWithTimeout(to.host.c_str(), to.port, timeout)
                                         : redisConnectUnixWithTimeout(to.socket.c_str(), timeout));
        name_ = to.socket.empty() ? to.host + ":" + std::to_string(to.port) : to.socket;
        if (!context_ || context_->err)
            throw std::runtime_error("cannot connect to " + name_ + ": " +
                                     (context_ ? context_->errstr : "out of memory"));
        if (redisSetTimeout(context_.get(), timeout) != REDIS_OK) fail();
        if (!to.password.empty()) {
            if (to.user.empty()) command("AUTH %s", to.password.c_str());
            else command("AUTH %s %s", to.user.c_str(), to.password.c_str());
        }
        if (to.db != 0) command("SELECT %d", to.db);
    }

    /// Sends a command and returns its reply (an error reply throws).
    template <class... Args>
    reply command(const char* pattern, Args... args) {
        reply r(static_cast<redisReply*>(redisCommand(context_.get(), pattern, args...)));
        return checked(std::move(r));
    }
    /// Queues a command; get_reply() reads the replies in order.
    template <class... Args>
    void append(const char* pattern, Args... args) {
        if (redisAppendCommand(context_.get(), pattern, args...) != REDIS_OK) fail();
    }
    /// Queues a command given as its arguments' bytes.
    void append_argv(std::vector<const char*>& argv, const std::vector<std::size_t>& lengths) {
        if (redisAppendCommandArgv(context_.get(), static_cast<int>(argv.size()), argv.data(), lengths.data()) !=
            REDIS_OK)
            fail();
    }
    reply get_reply() {
        void* r = nullptr;
        if (redisGetReply(context_.get(), &r) != REDIS_OK) fail();
        return checked(reply(static_cast<redisReply*>(r)));
    }
    /// An integer reply's value.
    static long long integer(const reply& r) {
        if (r->type != REDIS_REPLY_INTEGER) throw std::runtime_error("expected an integer reply");
        return r->integer;
    }
    [[nodiscard]] const std::string& name() const noexcept { return name_; }

private:
    [[noreturn]] void fail() const { throw std::runtime_error("Redis at " + name_ + ": " + context_->errstr); }
    reply checked(reply r) const {
        if (!r) fail();
        if (r->type == REDIS_REPLY_ERROR)
            throw std::runtime_error("Redis at " + name_ + ": " + std::string(r->str, r->len));
        return r;
    }

    struct context_deleter {
        void operator()(redisContext* c) const noexcept { redisFree(c); }
    };
    std::unique_ptr<redisContext, context_deleter> context_;
    std::string name_;
};

// --- The naive client -----------------------------------------------------------------------

/// A Bloom filter in Redis the way it is usually hand-written over hiredis: a classic filter of m
/// bits in one string (SETBIT grows it), the k positions of a key h1 + i·h2 mod m from one 128-bit
/// hash (Kirsch & Mitzenmacher), one SETBIT or GETBIT per bit.
class naive_filter {
public:
    naive_filter(redis_connection& redis, std::string key, std::uint64_t expected_keys, double fpr)
        : redis_(&redis), key_(std::move(key)) {
        const double ln2 = std::log(2.0);
        bits_ =
            static_cast<std::uint64_t>(std::ceil(-static_cast<double>(expected_keys) * std::log(fpr) / (ln2 * ln2)));
        hashes_ = std::max(1U, static_cast<unsigned>(
                                   std::lround(static_cast<double>(bits_) / static_cast<double>(expected_keys) * ln2)));
    }

    /// k round trips; true if the key was new (one of its bits was 0).
    bool insert(const std::string& item) {
        std::uint64_t at[max_hashes];
        positions(item, at);
        bool added = false;
        for (unsigned i = 0; i < hashes_; ++i)
            added |= redis_connection::integer(
                         redis_->command("SETBIT %b %llu 1", key_.data(), key_.size(), ull(at[i]))) == 0;
        return added;
    }
    /// One round trip per bit until the first 0 bit.
    bool contains(const std::string& item) {
        std::uint64_t at[max_hashes];
        positions(item, at);
        for (unsigned i = 0; i < hashes_; ++i)
            if (redis_connection::integer(redis_->command("GETBIT %b %llu", key_.data(), key_.size(), ull(at[i]))) == 0)
                return false;
        return true;
    }

    /// The same SETBITs, `batch` keys (k commands each) per round trip; returns how many were new.
    std::uint64_t insert_pipelined(const std::vector<std::string>& items, std::size_t batch) {
        std::uint64_t added = 0;
        for (std::size_t first = 0; first < items.size(); first += batch) {
            const std::size_t last = std::min(items.size(), first + batch);
            std::uint64_t at[max_hashes];
            for (std::size_t j = first; j < last; ++j) {
                positions(items[j], at);
                for (unsigned i = 0; i < hashes_; ++i)
                    redis_->append("SETBIT %b %llu 1", key_.data(), key_.size(), ull(at[i]));
            }
            for (std::size_t j = first; j < last; ++j) {
                bool was_new = false;
                for (unsigned i = 0; i < hashes_; ++i) was_new |= redis_connection::integer(redis_->get_reply()) == 0;
                added += was_new ? 1 : 0;
            }
        }
        return added;
    }
    /// All k GETBITs of each key (a pipeline cannot stop at the first 0), `batch` keys per round trip.
    void contains_pipelined(const std::vector<std::string>& items, std::size_t batch, unsigned char* answers) {
        for (std::size_t first = 0; first < items.size(); first += batch) {
            const std::size_t last = std::min(items.size(), first + batch);
            std::uint64_t at[max_hashes];
            for (std::size_t j = first; j < last; ++j) {
                positions(items[j], at);
                for (unsigned i = 0; i < hashes_; ++i)
                    redis_->append("GETBIT %b %llu", key_.data(), key_.size(), ull(at[i]));
            }
            for (std::size_t j = first; j < last; ++j) {
                bool all_set = true;
                for (unsigned i = 0; i < hashes_; ++i) all_set &= redis_connection::integer(redis_->get_reply()) != 0;
                answers[j] = all_set ? 1 : 0;
            }
        }
    }

    /// The FPR its fill gives: (set bits / m)^k.
    double current_fpr() {
        const auto set = static_cast<std::uint64_t>(
            redis_connection::integer(redis_->command("BITCOUNT %b", key_.data(), key_.size())));
        return bloomkit::current_fpr(bloomkit::bloom_layout::classic, {bits_, hashes_}, set);
    }
    void clear() { redis_->command("DEL %b", key_.data(), key_.size()); }

    [[nodiscard]] std::uint64_t bits() const noexcept { return bits_; }
    [[nodiscard]] unsigned hashes() const noexcept { return hashes_; }
    [[nodiscard]] const std::string& key() const noexcept { return key_; }

private:
    static constexpr unsigned max_hashes = 64;
    static unsigned long long ull(std::uint64_t v) { return v; }
    void positions(const std::string& item, std::uint64_t* out) const {
        const bloomkit::digest d = bloomkit::hasher{}(item);
        for (unsigned i = 0; i < hashes_; ++i) out[i] = (d.high + i * d.low) % bits_;
    }

    redis_connection* redis_;
    std::string key_;
    std::uint64_t bits_ = 0;
    unsigned hashes_ = 0;
};

// --- CPU accounting -------------------------------------------------------------------------

double process_cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

/// CPU seconds all processes of the machine have used (/proc/stat: everything but idle and iowait).
double machine_busy_seconds() {
    std::ifstream stat("/proc/stat");
    std::string cpu;
    stat >> cpu;
    double total = 0, idle = 0;
    for (int field = 0; field < 8; ++field) {
        double value = 0;
        stat >> value;
        total += value;
        if (field == 3 || field == 4) idle += value;
    }
    static const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    return (total - idle) / ticks;
}

/// One extra connection to each node, for INFO: the CPU its server has used.
class server_probes {
public:
    void add(const bkr::endpoint& node) { nodes_.emplace_back(node); }
    [[nodiscard]] std::vector<double> cpu_seconds() {
        std::vector<double> seconds;
        for (redis_connection& node : nodes_)
            seconds.push_back(info_number(node, "cpu", "used_cpu_user") + info_number(node, "cpu", "used_cpu_sys"));
        return seconds;
    }
    static std::string info(redis_connection& node, const char* section) {
        const reply r = node.command("INFO %s", section);
        return std::string(r->str, r->len);
    }
    static std::string info_field(redis_connection& node, const char* section, const std::string& field) {
        std::istringstream lines(info(node, section));
        for (std::string line; std::getline(lines, line);)
            if (line.rfind(field + ":", 0) == 0)
                return line.substr(field.size() + 1, line.find_last_not_of('\r') - field.size());
        throw std::runtime_error("INFO " + std::string(section) + " of " + node.name() + " has no " + field);
    }
    static double info_number(redis_connection& node, const char* section, const std::string& field) {
        return std::stod(info_field(node, section, field));
    }
    std::vector<redis_connection>& nodes() { return nodes_; }

private:
    std::vector<redis_connection> nodes_;
};

// --- Measurement ----------------------------------------------------------------------------

struct timing {
    double seconds = std::numeric_limits<double>::infinity();
    double client_cpu = 0;           // CPU seconds of this process
    std::vector<double> server_cpu;  // per node
    double other_cpu = 0;            // the rest of the machine
};

/// The best of `runs` runs of `op` (prepare(run) before each, check() after each, untimed).
timing best_of(unsigned runs, server_probes& servers, const std::function<void(unsigned)>& prepare,
               const std::function<void()>& op, const std::function<void()>& check) {
    timing best;
    for (unsigned run = 0; run < runs; ++run) {
        prepare(run);
        const std::vector<double> servers_before = servers.cpu_seconds();
        const double busy_before = machine_busy_seconds();
        const double client_before = process_cpu_seconds();
        const auto start = clock_type::now();
        op();
        const double seconds = std::chrono::duration<double>(clock_type::now() - start).count();
        const double client = process_cpu_seconds() - client_before;
        const double busy = machine_busy_seconds() - busy_before;
        const std::vector<double> servers_after = servers.cpu_seconds();
        check();
        if (seconds >= best.seconds) continue;
        best = {seconds, client, {}, 0};
        double server_total = 0;
        for (std::size_t i = 0; i < servers_after.size(); ++i) {
            best.server_cpu.push_back(servers_after[i] - servers_before[i]);
            server_total += best.server_cpu.back();
        }
        best.other_cpu = std::max(0.0, busy - client - server_total);
    }
    return best;
}

struct row {
    std::string structure, where, operation;
    std::uint64_t keys = 0;
    timing t;
    std::string check;  // what was verified
    [[nodiscard]] double rate() const { return static_cast<double>(keys) / t.seconds; }
};

std::string percent(double cpu_seconds, double wall) { return format("%.0f%%", 100 * cpu_seconds / wall); }

std::string server_cpu_text(const timing& t) {
    double total = 0;
    std::string parts;
    for (const double s : t.server_cpu) {
        total += s;
        parts += (parts.empty() ? "" : " + ") + percent(s, t.seconds);
    }
    return t.server_cpu.size() > 1 ? percent(total, t.seconds) + " (" + parts + ")" : parts;
}

std::string shards_text(const bkr::bloom_filter& f) {
    const std::uint64_t shards = f.description().shards;
    return std::to_string(shards) + (shards == 1 ? " shard" : " shards");
}

std::string ratio_text(double ratio) { return std::isfinite(ratio) && ratio > 0 ? format("%.1fx", ratio) : "–"; }

std::string count_text(std::uint64_t n) {
    std::string digits = std::to_string(n), text;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) text += ',';
        text += digits[i];
    }
    return text;
}

// --- Checks ---------------------------------------------------------------------------------

void expect_all_found(const std::string& who, const unsigned char* answers, std::size_t n) {
    const auto found = static_cast<std::size_t>(std::count(answers, answers + n, 1));
    if (found != n)
        throw wrong_answer(who + ": " + std::to_string(n - found) + " of " + std::to_string(n) +
                           " inserted keys not found");
}

/// False positives on `tried` absent keys: near `predicted_fpr` (the filter's fill), allowing
/// for chance (binomial, 6 sigma) and for the model's error (25%).
std::string expect_false_positives(const std::string& who, std::uint64_t found, std::uint64_t tried,
                                   double predicted_fpr) {
    const double expected = predicted_fpr * static_cast<double>(tried),
                 slack = 6 * std::sqrt(expected) + 0.25 * expected + 3;
    const std::string text =
        format("%llu FP (%.3f%%; fill predicts %.3f%%)", static_cast<unsigned long long>(found),
               100.0 * static_cast<double>(found) / static_cast<double>(tried), 100 * predicted_fpr);
    if (std::abs(static_cast<double>(found) - expected) > slack) throw wrong_answer(who + ": " + text);
    return text;
}

/// Inserting `n` distinct keys: each is new unless all its bits were already set, which happens
/// at most at the filter's final FPR.
std::string expect_new(const std::string& who, std::uint64_t added, std::uint64_t n, double final_fpr) {
    const double most_old = final_fpr * static_cast<double>(n) + 6 * std::sqrt(final_fpr * static_cast<double>(n)) + 3;
    const std::string text = count_text(added) + " new";
    if (added > n || static_cast<double>(n - added) > most_old)
        throw wrong_answer(who + ": " + text + " of " + std::to_string(n) + " distinct keys");
    return text;
}

std::uint64_t count_true(const std::vector<unsigned char>& answers) {
    return static_cast<std::uint64_t>(std::count(answers.begin(), answers.end(), 1));
}

// --- Keys -----------------------------------------------------------------------------------

/// Present keys user:<even>, absent ones user:<odd>, scattered over 100000000-999999999.
std::vector<std::string> make_keys(std::uint64_t n, bool present) {
    std::vector<std::string> keys;
    keys.reserve(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t id = 100'000'000 + ((i * 2'654'435'761ULL) % 450'000'000) * 2 + (present ? 0 : 1);
        keys.push_back("user:" + std::to_string(id));
    }
    return keys;
}

std::vector<std::string> first_keys(const std::vector<std::string>& keys, std::uint64_t n) {
    return {keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(n, keys.size()))};
}

// --- Cleanup --------------------------------------------------------------------------------

/// Deletes what the bench made, last made first, when it goes out of scope (also on a throw).
class cleanup {
public:
    void add(std::function<void()> action) { actions_.push_back(std::move(action)); }
    void run() noexcept {
        while (!actions_.empty()) {
            try {
                actions_.back()();
            } catch (const std::exception& e) {
                std::fprintf(stderr, "redis_bench: cleanup: %s\n", e.what());
            }
            actions_.pop_back();
        }
    }
    cleanup() = default;
    cleanup(const cleanup&) = delete;
    cleanup& operator=(const cleanup&) = delete;
    ~cleanup() { run(); }

private:
    std::vector<std::function<void()>> actions_;
};

/// Keys matching PATTERN on a node (SCAN, never KEYS).
std::uint64_t count_matching(redis_connection& node, const std::string& pattern) {
    std::uint64_t count = 0;
    std::string cursor = "0";
    do {
        const reply r = node.command("SCAN %s MATCH %b COUNT 1000", cursor.c_str(), pattern.data(), pattern.size());
        cursor.assign(r->element[0]->str, r->element[0]->len);
        count += r->element[1]->elements;
    } while (cursor != "0");
    return count;
}

// --- The benchmark --------------------------------------------------------------------------

struct settings {
    std::string url, cluster;
    std::uint64_t keys = 200'000;
    std::uint64_t naive_keys = 0;  // 0: keys / 20
    double fpr = 0.01;
    std::size_t depth = 256;
    unsigned runs = 3;
    std::uint64_t spread_capacity = 24'000'000;
    std::uint64_t spread_shard_bytes = std::uint64_t{1} << 20;
    std::string prefix = "bloomkit-bench";
    std::vector<std::string>
        only;  // the parts to run (all when empty): naive, pipelined, bloomkit, windowed, module, cluster

    [[nodiscard]] bool measures(const std::string& part) const {
        return only.empty() || std::find(only.begin(), only.end(), part) != only.end();
    }
};

struct workload {
    std::vector<std::string> present, absent;
    std::vector<std::string> few_present, few_absent;  // for the one-round-trip-per-key clients
};

bkr::filter_options filter_options_of(const settings& s, std::uint64_t shard_bytes = std::uint64_t{32} << 20) {
    bkr::filter_options o;
    o.max_shard_bytes = shard_bytes;
    o.pipeline_depth = s.depth;
    return o;
}

/// Creates NAME, refusing one that exists already (another run's, or leftovers), and registers its drop.
bkr::bloom_filter create_filter(bkr::client& c, const std::string& name, std::uint64_t capacity, double fpr,
                                const bkr::filter_options& o, cleanup& undo) {
    if (!c.command({"EXISTS", name + ":meta"}).starts_with("0"))
        throw std::runtime_error("filter " + name +
                                 " already exists in Redis: another redis_bench is running there, or one was killed; "
                                 "drop it (bloomkit redis drop " +
                                 name + ") or pass another --prefix");
    undo.add([&c, name] { bkr::bloom_filter::drop(c, name); });
    return bkr::bloom_filter::create(c, name, capacity, fpr, o);
}

/// How bench_client drives a client: `insert` returns how many keys were new, `contains` writes
/// 1 or 0 per key.
struct client_calls {
    std::function<void(unsigned run)> before_insert;  // empties the filter where a run must start from scratch
    std::function<std::uint64_t(const std::vector<std::string>&)> insert;
    std::function<void(const std::vector<std::string>&, unsigned char*)> contains;
    std::function<double()> current_fpr;
};

/// The three rows every client is measured by — insert `present`, query them, query `absent` —
/// each the best of `runs` runs, and checked: inserts counted as new, every present key found,
/// false positives near the rate the filter's fill predicts. `who` (and `who_inserting`) name
/// the client in a wrong answer.
std::vector<row> bench_client(const std::string& structure, const std::string& where, const std::string& who,
                              const std::string& who_inserting, unsigned runs, const std::vector<std::string>& present,
                              const std::vector<std::string>& absent, const client_calls& calls,
                              server_probes& servers) {
    std::vector<row> rows;
    const std::uint64_t n = present.size();
    std::uint64_t added = 0;
    std::string check;
    row insert{structure, where, "insert", n, {}, {}};
    insert.t = best_of(
        runs, servers, calls.before_insert, [&] { added = calls.insert(present); },
        [&] { check = expect_new(who_inserting, added, n, calls.current_fpr()); });
    insert.check = check;
    rows.push_back(insert);

    std::vector<unsigned char> answers(n);
    row found{structure, where, "query present", n, {}, "all " + count_text(n) + " found"};
    found.t = best_of(
        runs, servers, [](unsigned) {}, [&] { calls.contains(present, answers.data()); },
        [&] { expect_all_found(who, answers.data(), n); });
    rows.push_back(found);

    const double predicted = calls.current_fpr();
    answers.assign(absent.size(), 0);
    row missing{structure, where, "query absent", absent.size(), {}, {}};
    missing.t = best_of(
        runs, servers, [](unsigned) {}, [&] { calls.contains(absent, answers.data()); },
        [&] { check = expect_false_positives(who, count_true(answers), absent.size(), predicted); });
    missing.check = check;
    rows.push_back(missing);
    return rows;
}

/// The bulk rows of a bloomkit filter: insert (into the filter emptied first if `clear_first`,
/// and before every run but the first), query present, query absent; the best of `runs` runs each.
std::vector<row> bench_bulk(bkr::bloom_filter& f, const std::string& structure, const std::string& where, unsigned runs,
                            bool clear_first, const workload& w, server_probes& servers) {
    const client_calls calls{
        [&](unsigned run) {
            if (clear_first || run > 0) f.clear();
        },
        [&](const std::vector<std::string>& keys) {
            return static_cast<std::uint64_t>(f.insert(keys.begin(), keys.end()));
        },
        [&](const std::vector<std::string>& keys, unsigned char* out) { f.contains(keys.begin(), keys.end(), out); },
        [&] { return f.current_fpr(); }};
    return bench_client(structure, where, structure + " on " + where, structure + " insert on " + where, runs,
                        w.present, w.absent, calls, servers);
}

/// A windowed filter in Redis at steady state: a window's keys added a quarter per generation
/// (times passed with the calls), queried in the last of the four generations.
std::vector<row> bench_windowed(bkr::client& c, const settings& s, const workload& w, const std::string& where,
                                server_probes& servers, cleanup& undo, std::string& about) {
    constexpr std::uint32_t generations = 4;
    const std::chrono::milliseconds window = std::chrono::hours(1);
    const std::string name = s.prefix + ":windowed";
    if (!c.command({"EXISTS", name + ":meta"}).starts_with("0"))
        throw std::runtime_error("filter " + name + " already exists in Redis: drop it or pass another --prefix");
    undo.add([&c, name] { bkr::windowed_filter::drop(c, name); });
    bkr::windowed_filter f =
        bkr::windowed_filter::create(c, name, w.present.size(), s.fpr, window, generations, filter_options_of(s));
    about += format("; windowed: G = %u, %u generations of %llu bits, %llu shard(s)", generations, generations + 1,
                    static_cast<unsigned long long>(f.description().geometry.bits),
                    static_cast<unsigned long long>(f.description().shards));
    // An hour ahead of the server's clock, so that these generations are the newest.
    const bkr::windowed_filter::time_point start = f.server_time() + window;
    const bkr::windowed_filter::time_point asked = start + (generations - 1) * window / generations;
    const auto digests_of = [&](const std::vector<std::string>& keys, std::size_t first, std::size_t last) {
        std::vector<bloomkit::digest> digests;
        for (std::size_t i = first; i < last; ++i) digests.push_back(f.hash_function()(keys[i]));
        return digests;
    };
    const client_calls calls{
        [&](unsigned run) {
            if (run > 0) f.clear();
        },
        [&](const std::vector<std::string>& keys) {
            std::uint64_t added = 0;
            std::unique_ptr<bool[]> answers(new bool[keys.size()]);
            for (std::uint32_t g = 0; g < generations; ++g) {
                const std::size_t first = keys.size() * g / generations, last = keys.size() * (g + 1) / generations;
                const std::vector<bloomkit::digest> digests = digests_of(keys, first, last);
                f.insert_digests(digests, answers.get(), start + g * window / generations);
                added += static_cast<std::uint64_t>(std::count(answers.get(), answers.get() + digests.size(), true));
            }
            return added;
        },
        [&](const std::vector<std::string>& keys, unsigned char* out) {
            std::unique_ptr<bool[]> answers(new bool[keys.size()]);
            f.contains_digests(digests_of(keys, 0, keys.size()), answers.get(), asked);
            std::copy(answers.get(), answers.get() + keys.size(), out);
        },
        [&] { return f.current_fpr(asked); }};
    return bench_client("bloomkit windowed", where, "windowed on " + where, "windowed insert on " + where, s.runs,
                        w.present, w.absent, calls, servers);
}

/// Merges the rows of another run into `best`, keeping the faster of each.
void keep_best(std::vector<row>& best, const std::vector<row>& run) {
    for (const row& x : run) {
        auto same = std::find_if(best.begin(), best.end(), [&](const row& y) {
            return y.structure == x.structure && y.where == x.where && y.operation == x.operation;
        });
        if (same == best.end()) best.push_back(x);
        else if (x.t.seconds < same->t.seconds) *same = x;
    }
}

/// The round trip itself, for scale: PING, one at a time.
row bench_ping(redis_connection& redis, const settings& s, const std::string& where, std::uint64_t few,
               server_probes& servers) {
    row ping{"PING, one at a time", where, "round trip", few, {}, "every reply PONG"};
    ping.t = best_of(
        s.runs, servers, [](unsigned) {},
        [&] {
            for (std::uint64_t i = 0; i < few; ++i)
                if (const reply r = redis.command("PING"); std::string_view(r->str, r->len) != "PONG")
                    throw wrong_answer("PING: not PONG");
        },
        [] {});
    return ping;
}

/// The naive client's key, refused if it exists (another run's, or leftovers), its deletion registered.
std::string claim_naive_key(redis_connection& redis, const settings& s, cleanup& undo) {
    const std::string naive_key = s.prefix + ":naive";
    if (redis_connection::integer(redis.command("EXISTS %s", naive_key.c_str())) != 0)
        throw std::runtime_error("key " + naive_key +
                                 " already exists in Redis: another redis_bench is running there, or one was killed");
    undo.add([&redis, naive_key] { redis.command("DEL %s", naive_key.c_str()); });
    return naive_key;
}

/// Naive: k round trips per key, on the few keys such a client can afford.
std::vector<row> bench_naive(naive_filter& naive, const settings& s, const workload& w, const std::string& where,
                             server_probes& servers) {
    const client_calls calls{[&](unsigned) { naive.clear(); },
                             [&](const std::vector<std::string>& keys) {
                                 std::uint64_t added = 0;
                                 for (const std::string& key : keys) added += naive.insert(key) ? 1 : 0;
                                 return added;
                             },
                             [&](const std::vector<std::string>& keys, unsigned char* out) {
                                 for (std::size_t i = 0; i < keys.size(); ++i) out[i] = naive.contains(keys[i]) ? 1 : 0;
                             },
                             [&] { return naive.current_fpr(); }};
    return bench_client("naive (SETBIT per bit)", where, "naive", "naive insert", s.runs, w.few_present, w.few_absent,
                        calls, servers);
}

/// Naive pipelined: the same commands, --depth keys per round trip; leaves the string empty.
std::vector<row> bench_naive_pipelined(naive_filter& naive, const settings& s, const workload& w,
                                       const std::string& where, server_probes& servers) {
    const client_calls calls{
        [&](unsigned) { naive.clear(); },
        [&](const std::vector<std::string>& keys) { return naive.insert_pipelined(keys, s.depth); },
        [&](const std::vector<std::string>& keys, unsigned char* out) { naive.contains_pipelined(keys, s.depth, out); },
        [&] { return naive.current_fpr(); }};
    std::vector<row> rows = bench_client("naive pipelined", where, "naive pipelined", "naive pipelined insert", s.runs,
                                         w.present, w.absent, calls, servers);
    naive.clear();
    return rows;
}

/// bloomkit's single-key calls: inserts into a fresh filter; queries on the bulk filter `f`,
/// which must answer as its bulk calls do.
std::vector<row> bench_single_keys(bkr::client& c, bkr::bloom_filter& f, const settings& s, const workload& w,
                                   const std::string& where, server_probes& servers, cleanup& undo) {
    std::vector<row> rows;
    const std::uint64_t n = w.present.size(), few = w.few_present.size();
    bkr::bloom_filter g = create_filter(c, s.prefix + ":single", n, s.fpr, filter_options_of(s), undo);
    std::uint64_t added = 0;
    std::string check;
    row insert{"bloomkit single-key", where, "insert", few, {}, {}};
    insert.t = best_of(
        s.runs, servers,
        [&](unsigned run) {
            if (run > 0) g.clear();
        },
        [&] {
            added = 0;
            for (const std::string& key : w.few_present) added += g.insert(key) ? 1 : 0;
        },
        [&] {
            check = expect_new("bloomkit single-key insert", added, few, g.current_fpr());
            std::vector<unsigned char> found(few);
            g.contains(w.few_present.begin(), w.few_present.end(), found.begin());
            expect_all_found("bloomkit single-key insert, then bulk query", found.data(), few);
        });
    insert.check = check;
    rows.push_back(insert);

    for (const bool want_present : {true, false}) {
        const std::vector<std::string>& keys = want_present ? w.few_present : w.few_absent;
        std::vector<unsigned char> single(few), bulk(few);
        f.contains(keys.begin(), keys.end(), bulk.begin());
        row query{"bloomkit single-key", where, want_present ? "query present" : "query absent", few, {}, {}};
        query.t = best_of(
            s.runs, servers, [](unsigned) {},
            [&] {
                for (std::size_t i = 0; i < few; ++i) single[i] = f.contains(keys[i]) ? 1 : 0;
            },
            [&] {
                if (single != bulk) throw wrong_answer("bloomkit: single-key and bulk queries answer differently");
            });
        query.check =
            want_present ? "all " + count_text(few) + " found" : std::to_string(count_true(single)) + " FP, as bulk";
        if (want_present) expect_all_found("bloomkit single-key", single.data(), few);
        rows.push_back(query);
    }
    return rows;
}

// --- The module ------------------------------------------------------------------------------

/// Whether the server loaded bloomkit.so (its BF.* commands are ours).
bool has_module(redis_connection& redis) {
    const reply r = redis.command("MODULE LIST");
    for (std::size_t i = 0; i < r->elements; ++i) {
        const redisReply& fields = *r->element[i];
        for (std::size_t j = 0; j + 1 < fields.elements; j += 2)
            if (std::string_view(fields.element[j]->str, fields.element[j]->len) == "name" &&
                std::string_view(fields.element[j + 1]->str, fields.element[j + 1]->len) == "bloomkit")
                return true;
    }
    return false;
}

/// BF.MADD / BF.MEXISTS of `items` in commands of --depth items, eight commands a round trip
/// (RedisBloom's client pattern); `answer(i, value)` gets each item's 1 or 0.
template <class Answer>
void module_batches(redis_connection& redis, const char* command, const std::string& key,
                    const std::vector<std::string>& items, std::size_t depth, Answer answer) {
    constexpr std::size_t in_flight = 8;
    std::vector<const char*> argv;
    std::vector<std::size_t> lengths;
    for (std::size_t first = 0; first < items.size(); first += depth * in_flight) {
        const std::size_t round_end = std::min(items.size(), first + depth * in_flight);
        for (std::size_t begin = first; begin < round_end; begin += depth) {
            const std::size_t end = std::min(round_end, begin + depth);
            argv.assign({command, key.c_str()});
            lengths.assign({std::strlen(command), key.size()});
            for (std::size_t i = begin; i < end; ++i)
                argv.push_back(items[i].data()), lengths.push_back(items[i].size());
            redis.append_argv(argv, lengths);
        }
        for (std::size_t begin = first; begin < round_end; begin += depth) {
            const reply r = redis.get_reply();
            for (std::size_t i = 0; i < r->elements; ++i) answer(begin + i, r->element[i]->integer);
        }
    }
}

/// bloomkit.so's BF.MADD and BF.MEXISTS on a filter reserved for the keys (non-scaling, so its
/// size is the bulk filter's plan for them).
std::vector<row> bench_module(redis_connection& redis, const settings& s, const workload& w, const std::string& where,
                              server_probes& servers, cleanup& undo, std::string& about) {
    const std::string key = s.prefix + ":module";
    if (redis_connection::integer(redis.command("EXISTS %s", key.c_str())) != 0)
        throw std::runtime_error("key " + key + " already exists in Redis: another redis_bench is running there");
    undo.add([&redis, key] { redis.command("DEL %s", key.c_str()); });
    const auto reserve = [&] {
        redis.command("DEL %s", key.c_str());
        redis.command("BF.RESERVE %s %g %llu NONSCALING", key.c_str(), s.fpr,
                      static_cast<unsigned long long>(w.present.size()));
    };
    reserve();
    about += format("; bloomkit.so: BF.RESERVE NONSCALING (%lld bytes), %zu items per BF.MADD/BF.MEXISTS",
                    redis.command("BF.INFO %s SIZE", key.c_str())->element[0]->integer, s.depth);
    const client_calls calls{[&](unsigned) { reserve(); },
                             [&](const std::vector<std::string>& keys) {
                                 std::uint64_t added = 0;
                                 module_batches(redis, "BF.MADD", key, keys, s.depth,
                                                [&](std::size_t, long long was_new) { added += was_new != 0; });
                                 return added;
                             },
                             [&](const std::vector<std::string>& keys, unsigned char* out) {
                                 module_batches(redis, "BF.MEXISTS", key, keys, s.depth,
                                                [&](std::size_t i, long long found) { out[i] = found != 0; });
                             },
                             [&] { return s.fpr; }};  // what the filter was sized for at these keys
    return bench_client("bloomkit.so BF.MADD/MEXISTS", where, "bloomkit.so", "bloomkit.so BF.MADD", s.runs, w.present,
                        w.absent, calls, servers);
}

/// Naive, naive pipelined and bloomkit (bulk and single keys) on one connection to one server.
std::vector<row> bench_one_connection(bkr::client& c, redis_connection& redis, const settings& s, const workload& w,
                                      server_probes& servers, cleanup& undo, std::string& about) {
    std::vector<row> rows;
    const std::string where = "1 server";
    const std::uint64_t n = w.present.size();
    rows.push_back(bench_ping(redis, s, where, w.few_present.size(), servers));

    naive_filter naive(redis, claim_naive_key(redis, s, undo), n, s.fpr);
    if (s.measures("naive") || s.measures("pipelined"))
        about += format("naive: one string of m = %llu bits (%.0f KB), k = %u, sized for %llu keys; ",
                        static_cast<unsigned long long>(naive.bits()), static_cast<double>(naive.bits()) / 8e3,
                        naive.hashes(), static_cast<unsigned long long>(n));
    if (s.measures("naive"))
        for (row& x : bench_naive(naive, s, w, where, servers)) rows.push_back(x);
    if (s.measures("pipelined"))
        for (row& x : bench_naive_pipelined(naive, s, w, where, servers)) rows.push_back(x);
    if (s.measures("bloomkit")) {
        bkr::bloom_filter f = create_filter(c, s.prefix + ":bulk", n, s.fpr, filter_options_of(s), undo);
        about +=
            format("bloomkit: block filter of %llu bits (%.0f KB), k = %u, %llu shard(s), pipeline depth %zu",
                   static_cast<unsigned long long>(f.geometry().bits), static_cast<double>(f.geometry().bits) / 8e3,
                   f.geometry().hashes, static_cast<unsigned long long>(f.description().shards), s.depth);
        for (row& x : bench_bulk(f, "bloomkit bulk", where, s.runs, false, w, servers)) rows.push_back(x);
        for (row& x : bench_single_keys(c, f, s, w, where, servers, undo)) rows.push_back(x);
    }
    if (s.measures("windowed"))
        for (row& x : bench_windowed(c, s, w, where, servers, undo, about)) rows.push_back(x);
    if (s.measures("module") && has_module(redis))
        for (row& x : bench_module(redis, s, w, where, servers, undo, about)) rows.push_back(x);
    return rows;
}

/// Which node serves each slot, from CLUSTER SLOTS.
std::vector<std::string> slot_owners(redis_connection& node) {
    std::vector<std::string> owners(16384);
    const reply r = node.command("CLUSTER SLOTS");
    for (std::size_t i = 0; i < r->elements; ++i) {
        const redisReply& range = *r->element[i];
        const redisReply& master = *range.element[2];
        const std::string address = std::string(master.element[0]->str, master.element[0]->len) + ":" +
                                    std::to_string(master.element[1]->integer);
        for (long long slot = range.element[0]->integer; slot <= range.element[1]->integer; ++slot)
            owners[static_cast<std::size_t>(slot)] = address;
    }
    return owners;
}

/// "shards 8/8/8, keys 33/34/33%": how a filter's shards and the workload's keys fall on the nodes.
std::string spread_text(const bkr::bloom_filter& f, const std::vector<std::string>& owners,
                        const std::vector<std::string>& nodes, const std::vector<std::string>& keys) {
    const bkr::filter_description& d = f.description();
    std::map<std::string, std::uint64_t> shards, share;
    std::vector<std::string> owner_of_shard;
    for (std::uint64_t s = 0; s < d.shards; ++s) {
        owner_of_shard.push_back(owners[bkr::key_slot(d.shard_key(s))]);
        ++shards[owner_of_shard.back()];
    }
    const bloomkit::block_layout layout(d.geometry);
    for (const std::string& key : keys)
        ++share[owner_of_shard[layout.locate(f.hash_function()(key)).block / d.blocks_per_shard]];
    std::string shard_text, key_text;
    for (const std::string& node : nodes) {
        shard_text += (shard_text.empty() ? "" : "/") + std::to_string(shards[node]);
        key_text += (key_text.empty() ? "" : "/") +
                    format("%.0f", 100.0 * static_cast<double>(share[node]) / static_cast<double>(keys.size()));
    }
    return "shards " + shard_text + ", keys " + key_text + "%";
}

void print_rows(const std::vector<row>& rows, const std::function<std::string(const row&)>& ratio_column) {
    for (const row& x : rows)
        std::printf("| %s | %s | %s | %s | %.3f | %s | %s | %s | %s | %s | %s |\n", x.structure.c_str(),
                    x.where.c_str(), x.operation.c_str(), count_text(x.keys).c_str(), x.t.seconds,
                    count_text(static_cast<std::uint64_t>(x.rate())).c_str(), ratio_column(x).c_str(),
                    percent(x.t.client_cpu, x.t.seconds).c_str(), server_cpu_text(x.t).c_str(),
                    percent(x.t.other_cpu, x.t.seconds).c_str(), x.check.c_str());
}

const row* find_row(const std::vector<row>& rows, const std::string& structure, const std::string& where,
                    const std::string& operation) {
    for (const row& x : rows)
        if (x.structure == structure && x.where == where && x.operation == operation) return &x;
    return nullptr;
}

double rate_ratio(const row* a, const row* b) { return a && b ? a->rate() / b->rate() : std::nan(""); }

/// Whether two rows ran while the rest of the machine took very different CPU (more than half
/// a core apart): their ratio then says as much about that load as about them.
bool loads_differ(const row& a, const row& b) {
    return std::abs(a.t.other_cpu / a.t.seconds - b.t.other_cpu / b.t.seconds) > 0.5;
}

/// "12.3x" for x against base, marked † when their loads differed (and `marked` set); "–" without a base.
std::string comparison(const row& x, const row* base, bool& marked) {
    if (!base) return "–";
    const bool differ = loads_differ(x, *base);
    marked |= differ;
    return ratio_text(rate_ratio(&x, base)) + (differ ? " †" : "");
}

std::string cpu_model() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);)
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown";
}

std::string load_average() {
    std::ifstream loadavg("/proc/loadavg");
    std::string one, five;
    loadavg >> one >> five;
    return one + " " + five;
}

/// The keys: --keys present and as many absent, and the first --naive-keys of each for the
/// clients that pay a round trip per key.
workload make_workload(const settings& s) {
    workload w{make_keys(s.keys, true), make_keys(s.keys, false), {}, {}};
    w.few_present = first_keys(w.present, s.naive_keys);
    w.few_absent = first_keys(w.absent, s.naive_keys);
    return w;
}

/// The cluster's masters, sorted (the order of the per-node figures), each probed with the
/// seed's credentials; returns them, and which of them serves each slot in `owners`.
std::vector<std::string> probe_cluster(const settings& s, bkr::client& many, server_probes& many_probe,
                                       std::vector<std::string>& owners) {
    std::vector<std::string> nodes = many.nodes();
    std::sort(nodes.begin(), nodes.end());
    const bkr::endpoint seed = bkr::parse_url(s.cluster).front();
    for (const std::string& node : nodes) {
        bkr::endpoint e = bkr::parse_url(node).front();
        e.user = seed.user;
        e.password = seed.password;
        many_probe.add(e);
    }
    owners = slot_owners(many_probe.nodes().front());
    return nodes;
}

/// The filter for --keys keys on the cluster, as on one server: one shard, hence one node.
std::vector<row> bench_cluster_one_shard(const settings& s, const workload& w, bkr::client& many,
                                         server_probes& many_probe, const std::vector<std::string>& nodes,
                                         const std::vector<std::string>& owners, const std::string& where,
                                         cleanup& undo) {
    bkr::bloom_filter f = create_filter(many, s.prefix + ":bulk", s.keys, s.fpr, filter_options_of(s), undo);
    std::vector<row> rows = bench_bulk(f, "bloomkit bulk, " + shards_text(f), where, s.runs, false, w, many_probe);
    for (row& x : rows) x.check += "; " + spread_text(f, owners, nodes, w.present);
    bkr::bloom_filter::drop(many, f.name());
    return rows;
}

/// The spread filter on the cluster and on one server (when there is one), their runs
/// alternating so that both see the same machine (another load comes and goes).
std::vector<row> bench_spread(const settings& s, const workload& w, bkr::client& many, server_probes& many_probe,
                              const std::vector<std::string>& nodes, const std::vector<std::string>& owners,
                              const std::string& where, bkr::client* one, server_probes& one_probe, cleanup& undo,
                              std::string& about) {
    const std::string spread = s.prefix + ":spread";
    bkr::bloom_filter f =
        create_filter(many, spread, s.spread_capacity, s.fpr, filter_options_of(s, s.spread_shard_bytes), undo);
    std::optional<bkr::bloom_filter> f_one;
    if (one)
        f_one = create_filter(*one, spread, s.spread_capacity, s.fpr, filter_options_of(s, s.spread_shard_bytes), undo);
    const std::string structure = "bloomkit bulk, " + shards_text(f);
    std::vector<row> on_one, on_many;
    for (unsigned run = 0; run < s.runs; ++run) {
        if (f_one) keep_best(on_one, bench_bulk(*f_one, structure, "1 server", 1, run > 0, w, one_probe));
        keep_best(on_many, bench_bulk(f, structure, where, 1, run > 0, w, many_probe));
    }
    for (row& x : on_many) x.check += "; " + spread_text(f, owners, nodes, w.present);
    about += (about.empty() ? "" : "; ") + format("spread filter: sized for %s keys, %llu shards of <= %llu bytes",
                                                  count_text(s.spread_capacity).c_str(),
                                                  static_cast<unsigned long long>(f.description().shards),
                                                  static_cast<unsigned long long>(s.spread_shard_bytes));
    on_one.insert(on_one.end(), on_many.begin(), on_many.end());
    return on_one;
}

/// Nothing may be left behind: every key under PREFIX: on every node is a leak.
void expect_nothing_left(const settings& s, server_probes& one_probe, server_probes& many_probe) {
    const std::string pattern = s.prefix + ":*";
    std::uint64_t left = 0;
    for (redis_connection& node : one_probe.nodes()) left += count_matching(node, pattern);
    for (redis_connection& node : many_probe.nodes()) left += count_matching(node, pattern);
    if (left > 0)
        throw wrong_answer(std::to_string(left) + " keys matching " + pattern + " left in Redis after the bench");
}

/// The tables: one connection against the naive client, the cluster against one server. A
/// ratio between rows run under very different loads is marked †, and the mark explained.
void print_tables(const settings& s, const workload& w, const std::string& versions, const std::string& about,
                  const std::vector<row>& single_rows, const std::vector<row>& cluster_rows,
                  const std::vector<std::string>& cluster_nodes) {
    std::printf("CPU: %s, %ld cores; %s; hiredis %d.%d.%d; load average (1 min, 5 min) at the end: %s\n",
                cpu_model().c_str(), sysconf(_SC_NPROCESSORS_ONLN), versions.c_str(), HIREDIS_MAJOR, HIREDIS_MINOR,
                HIREDIS_PATCH, load_average().c_str());
    std::printf("%s keys like \"%s\" (absent ones disjoint), FPR %g; best of %u runs per row. %s.\n",
                count_text(s.keys).c_str(), w.present.front().c_str(), s.fpr, s.runs, about.c_str());
    std::printf(
        "CPU columns: %% of one core during the row's run — the bench process (client), the Redis server(s), and "
        "everything "
        "else on the machine (other).\n");
    const char* header =
        "| structure | where | operation | keys | seconds | keys/s | %s | client CPU | server CPU | other CPU | "
        "checked |\n"
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
    bool marked = false;  // a ratio was marked †
    if (!single_rows.empty()) {
        std::printf("\n### One connection to one server (%s)\n\n", bkr::redacted_url(s.url).c_str());
        std::printf(
            "naive: k SETBIT round trips per insert, GETBIT round trips per query stopping at the first 0 bit; naive "
            "pipelined: "
            "all k commands of %zu keys per round trip (queries send all k GETBITs); bloomkit bulk: one BITFIELD per "
            "key, %zu "
            "per round trip; bloomkit single-key: one round trip per key.\n\n",
            s.depth, s.depth);
        std::printf(header, "vs naive");
        print_rows(single_rows, [&](const row& x) {
            return comparison(x, find_row(single_rows, "naive (SETBIT per bit)", x.where, x.operation), marked);
        });
    }
    if (!cluster_rows.empty()) {
        std::printf("\n### Redis Cluster (%zu masters, one connection per node, one thread) against one server\n\n",
                    cluster_nodes.size());
        std::printf("Nodes (in the order of the per-node figures): ");
        for (const std::string& node : cluster_nodes) std::printf("%s ", node.c_str());
        std::printf("\n\n");
        std::printf(header, "vs 1 server");
        print_rows(cluster_rows, [&](const row& x) {
            return comparison(x, find_row(cluster_rows, x.structure, "1 server", x.operation), marked);
        });
    }
    if (marked)
        std::printf(
            "\n†: the two rows compared ran while other processes took very different CPU (other CPU more than 50%% of "
            "a core apart): "
            "the ratio reflects that load too. On a VM, even an idle core changes round-trip latency. Rerun on a quiet "
            "machine.\n");
}

/// The goals the bench was written for: bulk calls ≥ 20x the naive client and ≥ 200,000 keys/s
/// on one connection; the spread filter ≥ 2x on the cluster what it does on one server.
void print_goals(const std::vector<row>& single_rows, const std::vector<row>& cluster_rows) {
    std::printf("\n### Goals\n\n");
    auto ratio_goal = [](const std::string& what, const row& x, const row* base, double target) {
        if (!base) return;
        const double ratio = rate_ratio(&x, base);
        std::printf("- %s: %.1fx (goal >= %.0fx): %s%s\n", what.c_str(), ratio, target,
                    ratio >= target ? "met" : "NOT met",
                    loads_differ(x, *base) ? " (†: measured under different loads)" : "");
    };
    for (const char* operation : {"insert", "query present", "query absent"}) {
        const row* ours = find_row(single_rows, "bloomkit bulk", "1 server", operation);
        if (!ours) continue;
        ratio_goal(std::string("bloomkit bulk ") + operation + " vs naive, one connection", *ours,
                   find_row(single_rows, "naive (SETBIT per bit)", "1 server", operation), 20);
        std::printf("- bloomkit bulk %s on one connection: %s keys/s (goal >= 200,000): %s\n", operation,
                    count_text(static_cast<std::uint64_t>(ours->rate())).c_str(),
                    ours->rate() >= 200'000 ? "met" : "NOT met");
    }
    for (const char* operation : {"insert", "query present", "query absent"})
        if (const row* windowed = find_row(single_rows, "bloomkit windowed", "1 server", operation))
            if (const row* block = find_row(single_rows, "bloomkit bulk", "1 server", operation))
                std::printf("- bloomkit windowed %s (G = 4): %s keys/s, %.2fx the block filter's%s\n", operation,
                            count_text(static_cast<std::uint64_t>(windowed->rate())).c_str(),
                            rate_ratio(windowed, block), loads_differ(*windowed, *block) ? " (†)" : "");
    for (const row& x : cluster_rows)
        if (x.where != "1 server")
            ratio_goal(x.structure + " " + x.operation + ", " + x.where + " vs 1 server", x,
                       find_row(cluster_rows, x.structure, "1 server", x.operation), 2);
}

int run(const settings& s) {
    const workload w = make_workload(s);
    std::vector<row> single_rows, cluster_rows;
    std::string about, versions;

    // The clients outlive `keys`, whose actions use them.
    std::optional<bkr::client> one;
    std::optional<redis_connection> one_raw;
    server_probes one_probe;
    std::optional<bkr::client> many;
    server_probes many_probe;
    std::vector<std::string> cluster_nodes, owners;
    {
        cleanup keys;
        if (!s.url.empty()) {
            const bkr::endpoint server = bkr::parse_url(s.url).front();
            one.emplace(bkr::connection_options{.url = s.url});
            one_raw.emplace(server);
            one_probe.add(server);
            versions = "Redis " + server_probes::info_field(*one_raw, "server", "redis_version");
            if (s.measures("naive") || s.measures("pipelined") || s.measures("bloomkit") || s.measures("windowed") ||
                s.measures("module")) {
                std::fprintf(stderr, "redis_bench: one connection to %s ...\n", bkr::redacted_url(s.url).c_str());
                single_rows = bench_one_connection(*one, *one_raw, s, w, one_probe, keys, about);
            }
        }
        if (!s.cluster.empty() && s.measures("cluster")) {
            many.emplace(bkr::connection_options{.url = s.cluster, .cluster = true});
            cluster_nodes = probe_cluster(s, *many, many_probe, owners);
            if (versions.empty())
                versions = "Redis " + server_probes::info_field(many_probe.nodes().front(), "server", "redis_version");
            const std::string where = std::to_string(cluster_nodes.size()) + "-node cluster";
            std::fprintf(stderr, "redis_bench: cluster of %zu masters ...\n", cluster_nodes.size());
            cluster_rows = bench_cluster_one_shard(s, w, *many, many_probe, cluster_nodes, owners, where, keys);
            const std::vector<row> spread_rows = bench_spread(s, w, *many, many_probe, cluster_nodes, owners, where,
                                                              one ? &*one : nullptr, one_probe, keys, about);
            cluster_rows.insert(cluster_rows.end(), spread_rows.begin(), spread_rows.end());
        }
        keys.run();
    }
    expect_nothing_left(s, one_probe, many_probe);
    print_tables(s, w, versions, about, single_rows, cluster_rows, cluster_nodes);
    print_goals(single_rows, cluster_rows);
    return 0;
}

[[noreturn]] void usage() {
    std::fprintf(
        stderr,
        "usage: redis_bench [--url redis://127.0.0.1:6379] [--cluster HOST:PORT[,HOST:PORT...]] [--keys 200000]\n"
        "                   [--naive-keys KEYS/20] [--fpr 0.01] [--depth 256] [--runs 3]\n"
        "                   [--spread-capacity 24000000] [--spread-shard-bytes 1048576] [--prefix bloomkit-bench]\n"
        "                   [--only naive,pipelined,bloomkit,windowed,module,cluster]\n");
    std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
    settings s;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            if (i + 1 >= argc) usage();
            const std::string value = argv[++i];
            if (arg == "--url") s.url = value;
            else if (arg == "--cluster") s.cluster = value;
            else if (arg == "--keys") s.keys = static_cast<std::uint64_t>(std::stod(value));
            else if (arg == "--naive-keys") s.naive_keys = static_cast<std::uint64_t>(std::stod(value));
            else if (arg == "--fpr") s.fpr = std::stod(value);
            else if (arg == "--depth") s.depth = static_cast<std::size_t>(std::stoul(value));
            else if (arg == "--runs") s.runs = static_cast<unsigned>(std::stoul(value));
            else if (arg == "--spread-capacity") s.spread_capacity = static_cast<std::uint64_t>(std::stod(value));
            else if (arg == "--spread-shard-bytes") s.spread_shard_bytes = static_cast<std::uint64_t>(std::stod(value));
            else if (arg == "--prefix") s.prefix = value;
            else if (arg == "--only") s.only = names(value);
            else usage();
        }
    } catch (const std::exception&) {
        usage();
    }
    if (s.url.empty() && s.cluster.empty()) s.url = "redis://127.0.0.1:6379";
    if (s.naive_keys == 0) s.naive_keys = std::max<std::uint64_t>(1, s.keys / 20);
    for (const std::string& part : s.only)
        if (part != "naive" && part != "pipelined" && part != "bloomkit" && part != "windowed" && part != "module" &&
            part != "cluster")
            usage();
    if (s.keys == 0 || s.depth == 0 || s.runs == 0 || !(s.fpr > 0 && s.fpr < 1)) usage();
    try {
        return run(s);
    } catch (const wrong_answer& e) {
        std::fprintf(stderr, "redis_bench: WRONG ANSWER: %s\n", e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "redis_bench: %s\n", e.what());
    }
    return 1;
}
