// bloomkit redis create|add|check|info|push|pull|drop — a filter shared through Redis or a Redis
// Cluster (bloomkit/redis.hpp; with --window, one that forgets: bloomkit/redis_windowed.hpp):
// every process that names it sees the same keys. And load|dump: a Bloom filter file into a BF
// key of the module bloomkit.so (src/redis_module) and out.
//
// Where: --url (default $BLOOMKIT_REDIS_URL, else redis://127.0.0.1:6379) or --cluster
// HOST:PORT,... (any nodes of a cluster); the password in the URL, or kept off the command line
// (--password-file, $BLOOMKIT_REDIS_PASSWORD), and never shown in a message. A lost shard, a
// lost server or a refusal is an error (exit 2), never an answer "absent". What the keys are
// (--key) is recorded in the filter's metadata at create (or push, from the file) and used by
// add and check unless --key says otherwise; a --key that contradicts it is refused.
#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/redis.hpp"
#include "bloomkit/redis_windowed.hpp"
#include "commands/commands.hpp"
#include "jobs/digest_spool.hpp"
#include "jobs/filter/filter_files.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/line_reader.hpp"
#include "jobs/progress.hpp"
#include "support/arguments.hpp"
#include "support/check_report.hpp"
#include "support/common_options.hpp"
#include "support/json_object.hpp"
#include "support/keys.hpp"
#include "support/summary.hpp"

namespace bloomkit::cli {
namespace {

// --- Where the filter is, and how its adds are made durable --------------------------------

struct redis_options {
    std::string name;
    std::string url;
    std::string cluster;
    std::string user;
    std::string password_file;
    std::string timeout = "5";
    std::string pipeline = "256";
    std::string replicas = "0";
};

void add_connection_options(CLI::App& command, redis_options& o, bool writes) {
    command.add_option("name", o.name, "The filter's name in Redis (its keys are NAME:meta, NAME:0, NAME:1...)")
        ->required()
        ->type_name("NAME");
    command
        .add_option("--url", o.url,
                    "Redis server: redis://[user:password@]host[:port][/db] or unix:///path "
                    "(default: $BLOOMKIT_REDIS_URL, else redis://127.0.0.1:6379)")
        ->type_name("URL");
    command.add_option("--cluster", o.cluster, "A Redis Cluster: some of its nodes, HOST:PORT,HOST:PORT...")
        ->type_name("NODES");
    command.add_option("--user", o.user, "ACL user to log in as (unless the URL names one)")->type_name("USER");
    command
        .add_option("--password-file", o.password_file,
                    "Read the password from the first line of FILE, out of sight of ps (else: the URL's, or "
                    "$BLOOMKIT_REDIS_PASSWORD)")
        ->type_name("FILE");
    command
        .add_option("--timeout", o.timeout,
                    "Seconds a round trip may take before it is an error, and that --replicas waits for replicas "
                    "(default 5)")
        ->type_name("SECONDS");
    command.add_option("--pipeline", o.pipeline, "Commands in flight per node (default 256)")->type_name("N");
    if (writes)
        command
            .add_option("--replicas", o.replicas,
                        "Return only once N replicas of each master hold the adds (WAIT); without it an add "
                        "acknowledged by a master that then fails can be lost")
            ->type_name("N");
}

// The first line of a password file, without its line end. The file's content is never shown.
std::string read_password_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw io_error("cannot read the password file '" + path + "'", std::error_code(errno, std::generic_category()));
    std::string password;
    std::getline(in, password);
    if (!password.empty() && password.back() == '\r') password.pop_back();
    if (password.empty()) throw invalid_argument("the password file '" + path + "' has an empty first line");
    return password;
}

// The password, from --password-file or $BLOOMKIT_REDIS_PASSWORD (the URL's, if any, wins over
// the environment; with a file too, it is given twice).
void set_credentials(const redis_options& o, redis::connection_options& c) {
    c.user = o.user;
    const bool url_has_password = [&] {
        for (const redis::endpoint& e : redis::parse_url(c.url))
            if (!e.password.empty()) return true;
        return false;
    }();
    if (!o.password_file.empty()) {
        if (url_has_password)
            throw invalid_argument("the password is given twice: in the address and in --password-file");
        c.password = read_password_file(o.password_file);
    } else if (const char* from_environment = std::getenv("BLOOMKIT_REDIS_PASSWORD"); from_environment != nullptr) {
        c.password = from_environment;
    }
}

redis::client connect(const redis_options& o) {
    if (!o.url.empty() && !o.cluster.empty()) throw invalid_argument("give --url or --cluster, not both");
    redis::connection_options c;
    const char* from_environment = std::getenv("BLOOMKIT_REDIS_URL");
    if (!o.cluster.empty()) {
        c.url = o.cluster;
        c.cluster = true;
    } else if (!o.url.empty()) {
        c.url = o.url;
    } else if (from_environment != nullptr && *from_environment != '\0') {
        c.url = from_environment;
    }
    set_credentials(o, c);
    // Whole milliseconds, rounded up: a timeout below one must not become 0, which is none at
    // all. (To the microsecond first, so that 1.1 s, 1100.0000000000002 ms in a double, is 1100.)
    const double seconds = parse_seconds("--timeout", o.timeout);
    const auto timeout = std::chrono::milliseconds(std::max<long long>(1, (std::llround(seconds * 1e6) + 999) / 1000));
    c.command_timeout = timeout;
    c.connect_timeout = std::min(timeout, std::chrono::milliseconds(2000));
    return redis::client(c);
}

redis::filter_options filter_options_of(const redis_options& o) {
    redis::filter_options f;
    f.pipeline_depth = parse_small_number("--pipeline", o.pipeline);
    if (f.pipeline_depth == 0) throw invalid_argument("--pipeline must be at least 1");
    f.replicas = parse_small_number("--replicas", o.replicas);
    return f;
}

std::string describe(const redis::filter_description& d) {
    const std::string window = d.generations == 0
                                   ? std::string()
                                   : fmt::format(", window {} in {} generations",
                                                 show_duration(std::chrono::milliseconds(d.window_ms)), d.generations);
    return fmt::format("{} in {} shard{}, k = {}, {} keys{}",
                       human_bytes(static_cast<double>(d.blocks() * d.slots() * 64)), d.shards,
                       d.shards == 1 ? "" : "s", d.geometry.hashes, to_string(d.keys), window);
}

// --- NAME, of whichever kind Redis holds -----------------------------------------------------

using time_point = redis::windowed_filter::time_point;

redis::shared_filter open_named(redis::client& c, const redis_options& o) {
    return redis::open_shared(c, o.name, filter_options_of(o));
}

// An add at --now, or by the server's clock; a filter that does not forget has no time.
void add_digests(redis::bloom_filter& f, std::span<const digest> d, bool* answers, const std::optional<time_point>&) {
    f.insert_digests(d, answers);
}
void add_digests(redis::windowed_filter& f, std::span<const digest> d, bool* answers,
                 const std::optional<time_point>& now) {
    f.insert_digests(d, answers, now.value_or(f.server_time()));
}

// A windowed filter in Redis asked at --now, or by the server's clock, with the calls
// report_check makes of a filter.
struct windowed_at {
    const redis::windowed_filter& filter;
    std::optional<time_point> now;
    template <class It, class S, class Out>
    Out contains(It first, S last, Out out) const {
        return filter.contains(first, last, out, now.value_or(filter.server_time()));
    }
};

void add_take_over_option(CLI::App& command, bool& take_over) {
    command.add_flag("--take-over", take_over,
                     "Take over the claim of another process that started making NAME and has stopped (no progress for "
                     "30 s): its partial shards are made anew");
}

// --- The subcommands ------------------------------------------------------------------------

struct create_options {
    redis_options where;
    std::string keys, fpr = "1%", shard_size = "32MiB", seed, key, window, generations;
    bool take_over = false;
};

int run_create(const create_options& o) {
    if (o.keys.empty()) throw invalid_argument("-n is required: the number of keys the filter is for");
    const std::uint64_t n = parse_key_count("-n", o.keys);
    const double p = parse_probability("-p", o.fpr);
    redis::filter_options f = filter_options_of(o.where);
    f.max_shard_bytes = parse_size("--shard-size", o.shard_size);
    if (!o.seed.empty()) f.hashing.seed = parse_seed(o.seed);
    f.hashing.keys = key_format_to_build(o.key);
    f.take_over = o.take_over;
    if (o.window.empty() && !o.generations.empty())
        throw invalid_argument("--generations cuts a window: give --window too");
    redis::client c = connect(o.where);
    const redis::filter_description d =
        o.window.empty() ? redis::bloom_filter::create(c, o.where.name, n, p, f).description()
                         : redis::windowed_filter::create(
                               c, o.where.name, n, p, parse_duration("--window", o.window),
                               o.generations.empty() ? 4 : parse_small_number("--generations", o.generations), f)
                               .description();
    fmt::print(stderr, "bloomkit: filter {} in Redis: {}, for {} keys{} at {:g}%\n", d.name, describe(d), n,
               o.window.empty() ? "" : " a window", 100 * p);
    return success;
}

struct lines_options {
    redis_options where;
    std::vector<std::string> inputs;
    std::string key;  // empty: what the filter records
    std::string now;  // empty: the server's clock
    bool json = false;
    check_report report;
};

/// Keys a `redis add` sends at a time.
constexpr std::size_t redis_batch = 4096;

template <class Filter>
int add_lines(Filter& filter, jobs::line_reader& lines, const lines_options& o) {
    const std::optional<time_point> now = parse_now(o.now);
    const key_format recorded = filter.recorded_key_format();
    key_format keys =
        key_format_to_add(recorded, o.key, filter.name(), recorded == key_format::unrecorded && !filter.empty());
    // A filter that records nothing (made by a program that did not say) learns it from its
    // first writer: from then on, every face reads its keys alike without being told.
    if (recorded == key_format::unrecorded) {
        filter.record_key_format(keys);
        // Another writer may have recorded its first keys' format in between: the lines are read
        // in the one recorded, whose range holds every key of the filter.
        keys = key_format_for(filter.recorded_key_format(), o.key, filter.name());
    }
    // Every line is read and hashed before the first add: a bad line changes nothing.
    jobs::digest_spool digests;
    std::vector<digest> hashed;
    std::uint64_t read = 0, added = 0;
    {
        jobs::progress shown("reading", lines.total_bytes(), jobs::data_output::none);
        const hasher& hash = filter.hash_function();
        lines.read([&](std::span<const std::string_view> batch, const jobs::line_origin& origin) {
            jobs::with_keys(batch, keys, origin, [&](auto keyed) {
                hashed.resize(keyed.size());
                std::ranges::transform(keyed, hashed.begin(), [&](const auto& key) { return hash(key); });
                digests.write(hashed);
            });
            read += batch.size();
            shown.update(lines.bytes_read());
        });
    }
    jobs::progress shown("adding", digests.size(), jobs::data_output::none);
    std::unique_ptr<bool[]> answers(new bool[redis_batch]);
    std::uint64_t done = 0;
    digests.read(redis_batch, [&](std::span<const digest> batch) {
        add_digests(filter, batch, answers.get(), now);
        added += static_cast<std::uint64_t>(std::count(answers.get(), answers.get() + batch.size(), true));
        shown.update(done += batch.size());
    });
    if (job_summary::wanted(o.json))
        job_summary("redis add")
            .count("lines_read", read, "lines read")
            .count("new_keys", added, "new keys")
            .text("name", filter.name(), job_summary::in_line::yes)
            .bytes_read(lines.bytes_read())
            .print(o.json, false);
    return success;
}

int run_add(const lines_options& o) {
    jobs::line_reader lines(o.inputs);
    redis::client c = connect(o.where);
    redis::shared_filter named = open_named(c, o.where);
    return std::visit([&](auto& filter) { return add_lines(filter, lines, o); }, named);
}

int run_check(const lines_options& o) {
    jobs::line_reader lines(o.inputs);
    redis::client c = connect(o.where);
    const redis::shared_filter named = open_named(c, o.where);
    const auto check = [&](const auto& filter, const auto& asked) {
        const key_format keys = key_format_for(filter.recorded_key_format(), o.key, filter.name());
        unrecorded_format_warning warning(filter.recorded_key_format(), o.key, filter.name());
        // One thread: a Redis client is not shared between threads, and the pipeline, not the
        // CPU, is what bounds the rate.
        return report_check(asked, lines,
                            {.keys = keys,
                             .threads = 1,
                             .how = o.report,
                             .totals = json_object("redis check").text("name", filter.name()),
                             .numeric_lines = &warning});
    };
    const bool selected = std::visit(
        [&](const auto& filter) {
            if constexpr (std::is_same_v<std::decay_t<decltype(filter)>, redis::windowed_filter>)
                return check(filter, windowed_at{filter, parse_now(o.now)});
            else return check(filter, filter);
        },
        named);
    return selected ? found : nothing_found;
}

struct info_options {
    redis_options where;
    std::string now;  // empty: the server's clock
    bool json = false;
};

// What info says of a filter's bits: over the whole filter, or a windowed filter's live generations.
struct fill_facts {
    std::uint64_t set_bits = 0;
    double fill = 0, keys = 0, fpr = 0;
    // A windowed filter's live generations at `now`, newest first.
    std::vector<redis::windowed_filter::slot_state> live{};
    time_point now{};
};

fill_facts fill_of(const redis::bloom_filter& f, const std::optional<time_point>&) {
    const bloom_geometry g = f.geometry();
    const std::uint64_t set = f.set_bit_count();
    return {set, static_cast<double>(set) / static_cast<double>(g.bits), estimate_keys(bloom_layout::block, g, set),
            current_fpr(bloom_layout::block, g, set)};
}

fill_facts fill_of(const redis::windowed_filter& f, const std::optional<time_point>& now) {
    fill_facts facts;
    facts.now = now.value_or(f.server_time());
    facts.live = f.live_slots(facts.now);
    double log_all_negative = 0;
    for (const auto& slot : facts.live) {
        facts.set_bits += slot.set_bits;
        facts.keys += estimate_keys(bloom_layout::block, f.description().geometry, slot.set_bits);
        log_all_negative += std::log1p(-current_fpr(bloom_layout::block, f.description().geometry, slot.set_bits));
    }
    facts.fpr = -std::expm1(log_all_negative);
    facts.fill = static_cast<double>(facts.set_bits) /
                 static_cast<double>(f.description().geometry.bits * std::max<std::size_t>(facts.live.size(), 1));
    return facts;
}

// A windowed filter's live generations, as info --json lists them.
std::string generations_json(const redis::windowed_filter& f, const fill_facts& facts) {
    std::string items;
    for (const auto& slot : facts.live) {
        const time_point start = f.generation_start(slot.generation);
        const auto age = std::chrono::duration_cast<std::chrono::milliseconds>(facts.now - start);
        items +=
            (items.empty() ? "" : ",") +
            json_object()
                .count("generation", slot.generation)
                .count("starts_ms",
                       static_cast<std::uint64_t>(
                           std::chrono::duration_cast<std::chrono::milliseconds>(start.time_since_epoch()).count()))
                .number("age_seconds", static_cast<double>(age.count()) / 1000)
                .count("inserted_keys", static_cast<std::uint64_t>(std::llround(estimate_keys(
                                            bloom_layout::block, f.description().geometry, slot.set_bits))))
                .number("current_fpr", current_fpr(bloom_layout::block, f.description().geometry, slot.set_bits))
                .str();
    }
    return "[" + items + "]";
}

// A windowed filter's window and its live generations, as info prints them.
void print_window(const redis::windowed_filter& f, const fill_facts& facts) {
    const std::chrono::milliseconds w = f.window(), step = w / f.generation_count();
    fmt::print("window          {} in {} generations of {}: keys found for {}, gone by {}\n", show_duration(w),
               f.generation_count(), show_duration(step), show_duration(w), show_duration(w + step));
    fmt::print("generations     {} live of {} at {}\n", facts.live.size(), f.generation_count() + 1,
               show_time(facts.now));
    for (const auto& slot : facts.live) {
        const time_point start = f.generation_start(slot.generation);
        fmt::print("    {}: from {} ({} ago), about {:.0f} keys\n", slot.generation, show_time(start),
                   show_duration(std::chrono::duration_cast<std::chrono::milliseconds>(facts.now - start)),
                   estimate_keys(bloom_layout::block, f.description().geometry, slot.set_bits));
    }
}

int run_info(const info_options& o) {
    redis::client c = connect(o.where);
    const redis::shared_filter named = open_named(c, o.where);
    const auto* windowed = std::get_if<redis::windowed_filter>(&named);
    const redis::filter_description& d =
        std::visit([](const auto& f) -> const redis::filter_description& { return f.description(); }, named);
    const fill_facts facts = std::visit([&](const auto& f) { return fill_of(f, parse_now(o.now)); }, named);
    const std::uint64_t set = facts.set_bits;
    const double keys = facts.keys, fpr = facts.fpr, fill = facts.fill;
    if (o.json) {
        json_object info("redis info");
        info.text("name", d.name).text("kind", windowed ? "windowed" : kind_traits<block_bloom_filter>::word);
        if (windowed)
            info.count("window_ms", static_cast<std::uint64_t>(d.window_ms))
                .count("generation_count", d.generations)
                .raw("generations", generations_json(*windowed, facts));
        fmt::print("{}\n",
                   info.text("layout", to_string(bloom_layout::block))
                       .count("bits", d.geometry.bits)
                       .count("filter_bytes", d.blocks() * d.slots() * 64)
                       .count("hashes", d.geometry.hashes)
                       .count("shards", d.shards)
                       .count("blocks_per_shard", d.blocks_per_shard)
                       .text("hash", to_string(d.hash))
                       .text("seed", std::to_string(d.seed))  // a string: a u64 above 2^53 is lost in a double
                       .text_or_null("key_format",
                                     d.keys == key_format::unrecorded ? std::nullopt : std::optional(to_string(d.keys)))
                       .text("generation", fmt::format("{:016x}", d.generation))
                       .count("expected_keys", d.target.expected_keys)
                       .number("target_fpr", d.target.fpr)
                       .count("inserted_keys", d.inserted)
                       .count("set_bits", set)
                       .number("fill", fill)
                       .number("estimated_keys", keys)
                       .number("current_fpr", fpr)
                       .raw("nodes", json_text_array(c.nodes()))
                       .str());
        return success;
    }
    std::string nodes;
    for (const std::string& node : c.nodes()) nodes += (nodes.empty() ? "" : ",") + node;
    fmt::print("name            {}\n", d.name);
    fmt::print("kind            {} in Redis ({})\n",
               windowed ? "windowed Bloom filter (forgets)" : "block Bloom filter",
               c.options().cluster ? "cluster" : "one server");
    if (windowed) print_window(*windowed, facts);
    fmt::print("size            {} ({} bits{}), k = {}\n",
               human_bytes(static_cast<double>(d.blocks() * d.slots() * 64)), d.geometry.bits,
               windowed ? " a generation" : "", d.geometry.hashes);
    fmt::print("shards          {} ({}:0{}), {} blocks each\n", d.shards, d.name,
               d.shards == 1 ? std::string() : fmt::format(" … {}:{}", d.name, d.shards - 1), d.blocks_per_shard);
    fmt::print("hash            {}, seed {}\n", to_string(d.hash), d.seed);
    fmt::print("keys            {}\n", to_string(d.keys));
    fmt::print("generation      {:016x}\n", d.generation);
    if (d.target.expected_keys != 0)
        fmt::print("sized for       {} keys at {:g}%\n", d.target.expected_keys, 100 * d.target.fpr);
    fmt::print("fill            {:.4g}% of the bits set\n", 100 * fill);
    fmt::print("distinct keys   about {:.0f}\n", keys);
    fmt::print("current fpr     {:.4g}%\n", 100 * fpr);
    fmt::print("nodes           {}\n", nodes);
    return success;
}

struct transfer_options {
    redis_options where;
    std::string file;
    std::string shard_size = "32MiB";
    std::string key;
    bool take_over = false;
};

void add_shard_size_option(CLI::App& command, std::string& size) {
    command.add_option("--shard-size", size, "Largest Redis string per shard: 64KiB to 512MiB (default 32MiB)")
        ->type_name("SIZE");
}

int run_push(const transfer_options& o) {
    const any_filter local = jobs::read_filter(o.file);
    const auto* block = std::get_if<block_bloom_filter>(&local);
    const auto* windowed = std::get_if<windowed_filter>(&local);
    if (block == nullptr && windowed == nullptr)
        throw invalid_argument(o.file +
                               " is not a block Bloom filter, the layout a Redis filter has, nor a windowed filter: "
                               "build it with bloomkit build (the default kind and layout, or --kind windowed)");
    redis::filter_options f = filter_options_of(o.where);
    f.max_shard_bytes = parse_size("--shard-size", o.shard_size);
    const key_format recorded = block ? block->recorded_key_format() : windowed->recorded_key_format();
    if (!o.key.empty()) f.hashing.keys = key_format_for(recorded, o.key, o.file);
    f.take_over = o.take_over;
    redis::client c = connect(o.where);
    const redis::filter_description d = block
                                            ? redis::bloom_filter::push(c, o.where.name, *block, f).description()
                                            : redis::windowed_filter::push(c, o.where.name, *windowed, f).description();
    fmt::print(stderr, "bloomkit: pushed {} to Redis as {}: {}\n", o.file, d.name, describe(d));
    return success;
}

int run_pull(const transfer_options& o) {
    redis::client c = connect(o.where);
    const redis::shared_filter named = open_named(c, o.where);
    jobs::write_filter(std::visit([](const auto& f) { return any_filter(f.pull()); }, named), o.file);
    return success;
}

/// The kinds a BF key of the module bloomkit.so holds.
bool is_module_bloom_kind(const any_filter& f) {
    return std::holds_alternative<block_bloom_filter>(f) || std::holds_alternative<split_block_bloom_filter>(f) ||
           std::holds_alternative<classic_bloom_filter>(f) || std::holds_alternative<scalable_bloom_filter>(f);
}

int run_load(const transfer_options& o) {
    const any_filter local = jobs::read_filter(o.file);
    if (!is_module_bloom_kind(local))
        throw invalid_argument(o.file + " is a " + std::string(kind_name(local)) +
                               "; a BF key holds a block, split block, classic or scalable Bloom filter");
    const std::vector<std::byte> bytes = std::visit([](const auto& f) { return to_bytes(f); }, local);
    redis::client c = connect(o.where);
    redis::load_module_filter(c, o.where.name, bytes);
    fmt::print(stderr, "bloomkit: loaded {} into Redis as the BF key {} ({} bytes)\n", o.file, o.where.name,
               bytes.size());
    return success;
}

int run_dump(const transfer_options& o) {
    redis::client c = connect(o.where);
    const std::vector<std::byte> bytes = redis::dump_module_filter(c, o.where.name);
    jobs::write_filter(from_bytes<any_filter>(bytes, "BF.SCANDUMP of " + o.where.name), o.file);
    return success;
}

int run_drop(const redis_options& o) {
    redis::client c = connect(o);
    if (redis::bloom_filter::drop(c, o.name, filter_options_of(o))) return success;
    fmt::print(stderr, "bloomkit: no filter named {} in Redis\n", o.name);
    return nothing_found;
}

/// How the command does what a Redis error's remedy asks.
std::string remedy_in_commands(redis::error_remedy remedy) {
    switch (remedy) {
        case redis::error_remedy::cluster_mode: return "--cluster";
        case redis::error_remedy::single_server_mode: return "--url, not --cluster";
        case redis::error_remedy::take_over_or_drop:
            return "bloomkit redis create or push --take-over; bloomkit redis drop";
        case redis::error_remedy::drop: return "bloomkit redis drop";
        case redis::error_remedy::copy_from_older_format:
            return "bloomkit redis pull with the older bloomkit, bloomkit redis drop, then bloomkit redis push with "
                   "this one";
        case redis::error_remedy::none: break;
    }
    return "";
}

}  // namespace

action redis_command(CLI::App& command) {
    command.require_subcommand(1);
    command.footer(
        "Examples:\n"
        "  bloomkit redis create users -n 10M -p 0.1% --key u64  # a filter every service instance shares\n"
        "  psql -Atc 'select id from users' | bloomkit redis add users\n"
        "  bloomkit redis check users ids.txt --cluster 10.0.0.1:6379,10.0.0.2:6379\n"
        "  bloomkit redis create seen -n 1M --window 24h   # forgets: a key is found for a day\n"
        "  bloomkit build -o seen.bkf urls.txt && bloomkit redis push seen.bkf seen   # build offline, serve from "
        "Redis");
    std::vector<std::pair<CLI::App*, action>> actions;

    CLI::App* create = command.add_subcommand(
        "create", "Create a filter in Redis for N keys at rate P (or open it if it exists alike)");
    auto c = std::make_shared<create_options>();
    add_connection_options(*create, c->where, true);
    create->add_option("-n,--keys", c->keys, "Keys the filter is for: 10M, 1e9, 10_000_000")->type_name("N");
    create->add_option("-p,--fpr", c->fpr, "False-positive rate at N keys: 1%, 0.001 (default 1%)")->type_name("P");
    add_shard_size_option(*create, c->shard_size);
    create->add_option("--seed", c->seed, "Hash seed (a secret one when attackers choose the keys)")->type_name("SEED");
    add_key_option(*create, c->key);
    create
        ->add_option("--window", c->window,
                     "Make a filter that forgets: N keys a window W (24h, 90m, 7d) are found for W and gone by "
                     "W(1 + 1/G); its generations turn by the server's clock")
        ->type_name("W");
    create->add_option("--generations", c->generations, "G, generations a window (1 to 64; default 4)")->type_name("G");
    add_take_over_option(*create, c->take_over);
    actions.emplace_back(create, [c] { return run_create(*c); });

    CLI::App* add = command.add_subcommand("add", "Add lines to a filter in Redis");
    auto a = std::make_shared<lines_options>();
    add_connection_options(*add, a->where, true);
    add->add_option("inputs", a->inputs, "Input files; '-' or none reads stdin")->type_name("FILE");
    add_key_option(*add, a->key);
    add_now_option(*add, a->now, "the Redis server's clock");
    add->add_flag("--json", a->json, "Print the summary as JSON (on stdout)");
    actions.emplace_back(add, [a] { return run_add(*a); });

    CLI::App* check =
        command.add_subcommand("check", "Print the lines that may be in a filter in Redis (as check does)");
    auto k = std::make_shared<lines_options>();
    add_connection_options(*check, k->where, false);
    check->add_option("inputs", k->inputs, "Input files; '-' or none reads stdin")->type_name("FILE");
    add_check_report_options(*check, k->report);
    add_key_option(*check, k->key);
    add_now_option(*check, k->now, "the Redis server's clock");
    actions.emplace_back(check, [k] { return run_check(*k); });

    CLI::App* info = command.add_subcommand("info", "Describe a filter in Redis: size, shards, fill, keys, FPR");
    auto i = std::make_shared<info_options>();
    add_connection_options(*info, i->where, false);
    info->add_flag("--json", i->json, "Print it as JSON");
    add_now_option(*info, i->now, "the Redis server's clock");
    actions.emplace_back(info, [i] { return run_info(*i); });

    CLI::App* push = command.add_subcommand("push", "Copy a filter file into Redis as NAME (which must not exist)");
    auto u = std::make_shared<transfer_options>();
    push->add_option("file", u->file, "Filter file (a block Bloom filter or a windowed filter); '-' reads stdin")
        ->required()
        ->type_name("FILE");
    add_connection_options(*push, u->where, true);
    add_shard_size_option(*push, u->shard_size);
    add_key_option(*push, u->key);
    add_take_over_option(*push, u->take_over);
    actions.emplace_back(push, [u] { return run_push(*u); });

    CLI::App* pull = command.add_subcommand("pull", "Copy a filter in Redis into a file");
    auto l = std::make_shared<transfer_options>();
    add_connection_options(*pull, l->where, false);
    pull->add_option("-o,--output", l->file, "Filter file to write ('-': stdout)")->required()->type_name("FILE");
    actions.emplace_back(pull, [l] { return run_pull(*l); });

    CLI::App* load = command.add_subcommand(
        "load", "Copy a Bloom filter file into a BF key NAME of the module bloomkit.so (which must not exist)");
    auto o = std::make_shared<transfer_options>();
    load->add_option("file", o->file, "Filter file (a block, split block, classic or scalable Bloom filter)")
        ->required()
        ->type_name("FILE");
    add_connection_options(*load, o->where, true);
    load->get_option("name")->description("The BF key to make");
    actions.emplace_back(load, [o] { return run_load(*o); });

    CLI::App* dump = command.add_subcommand("dump", "Copy the BF key NAME of the module bloomkit.so into a file");
    auto p = std::make_shared<transfer_options>();
    add_connection_options(*dump, p->where, false);
    dump->get_option("name")->description("The BF key to copy");
    dump->add_option("-o,--output", p->file, "Filter file to write ('-': stdout)")->required()->type_name("FILE");
    actions.emplace_back(dump, [p] { return run_dump(*p); });

    CLI::App* drop = command.add_subcommand("drop", "Delete a filter from Redis");
    auto d = std::make_shared<redis_options>();
    add_connection_options(*drop, *d, false);
    actions.emplace_back(drop, [d] { return run_drop(*d); });

    return [actions] {
        for (const auto& [sub, run] : actions) {
            if (!sub->parsed()) continue;
            try {
                return run();
            } catch (const redis::error& e) {
                if (e.remedy() == redis::error_remedy::none) throw;
                throw error(std::string(e.what()) + " (" + remedy_in_commands(e.remedy()) + ")");
            }
        }
        return static_cast<int>(failure);
    };
}

}  // namespace bloomkit::cli
