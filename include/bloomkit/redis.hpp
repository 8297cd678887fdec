// bloomkit/redis.hpp — a Bloom filter shared by many processes, its bits in a Redis server or a
// Redis Cluster (compiled library bloomkit::redis, over Debian's hiredis 0.14; src/redis/).
//
// The use it is made for: every instance of a service consults one filter of the keys that
// exist before it asks the cache and the database (the cache-penetration guard), or every
// crawler worker asks one filter whether a URL was seen. The filter must be shared, so it
// lives in Redis — and it must stay correct there:
//
// - The block layout (layouts/block.hpp): all k bits of a key in one 512-bit block. Blocks
//   are split into S shards, Redis strings NAME:0 … NAME:S-1 of at most 32 MiB by default
//   (a little under a jemalloc size class, allocated once at creation). A key touches exactly
//   one shard, so adding it is one atomic `BITFIELD NAME:s SET u1 … 1 …` (whose old bits say
//   whether it was new) and querying it one `BITFIELD_RO NAME:s GET u1 …`. The shards carry
//   no common hash tag: they spread over a cluster's slots and nodes.
// - The bits are exactly those of a local block_bloom_filter with the same geometry, seed and
//   hash (the byte order converted: Redis numbers bits from the top of each byte), so push()
//   serves a filter built offline and pull() brings one back; both answer alike.
// - Fail-closed: the last bit of every shard is a sentinel, set when the shard is created and
//   never a key's bit. Every add and query reads it in the same command; a shard that was
//   evicted, flushed or deleted reads 0 there, and the call throws shard_missing instead of
//   answering "definitely not". Timeouts, lost connections, OOM refusals, ACL refusals and
//   replies of the wrong type throw too: a batch either answers every key or throws.
// - Redis Cluster without a cluster library (hiredis has none): the CRC16 slot of each shard,
//   the slot map from CLUSTER SLOTS, MOVED (the map is fetched again), ASK (ASKING + the one
//   command), TRYAGAIN, CLUSTERDOWN and LOADING (retried with backoff within retry_window),
//   one connection and one pipeline per node.
// - Durability: Redis replicates asynchronously; a master that fails after acknowledging an
//   add may take it with it, and its promoted replica then answers "definitely not" for that
//   key. With `replicas = N`, every batch of adds ends with WAIT on each node it wrote to, and
//   fails unless N replicas acknowledged it.
//
// Thread safety: a client (and the filters opened through it) is used by one thread at a
// time. Give each thread its own client; they share nothing but the server.
//
// The metadata key NAME:meta (text, one "field value" per line) records the kind, geometry,
// seed, hash, shard count and format version; a filter is refused when its metadata does not
// match what the caller asks for, naming the first difference.
#pragma once

#include <chrono>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/options.hpp"

namespace bloomkit::redis {

// --- Errors ----------------------------------------------------------------------------------

/// Anything that went wrong talking to Redis. Derives from bloomkit::error.
class error : public bloomkit::error {
public:
    using bloomkit::error::error;
};

/// A server could not be reached, the connection broke, or a reply did not come in time.
class connection_error : public error {
public:
    using error::error;
};

/// The server refused a command: OOM, NOPERM (ACL), WRONGTYPE, a wrong password, or a
/// cluster that stayed down or kept redirecting past the retry window.
class server_error : public error {
public:
    using error::error;
};

/// A shard's sentinel bit was 0: the shard was evicted, flushed or deleted, and the keys it
/// held are lost. Thrown instead of answering "definitely not".
class shard_missing : public error {
public:
    using error::error;
};

/// WAIT returned before the requested number of replicas acknowledged a batch of adds. The
/// adds are on the master but could be lost if it failed now.
class replication_error : public error {
public:
    using error::error;
};

/// NAME does not exist, exists with other parameters, is not a bloomkit filter, or was left
/// half-created.
class filter_mismatch : public error {
public:
    using error::error;
};

// --- Connecting ------------------------------------------------------------------------------

/// Where and how to connect.
struct connection_options {
    /// One server: "redis://[user:password@]host[:port][/db]", "unix:///path/to/socket", or
    /// "host:port". For a cluster, any of its nodes, comma-separated ("h1:p1,h2:p2"): the
    /// client learns the rest from CLUSTER SLOTS.
    std::string url = "redis://127.0.0.1:6379";
    /// Speak Redis Cluster: route each shard to its slot's node, follow MOVED and ASK.
    bool cluster = false;
    /// AUTH with an ACL user (or the default user when `user` is empty). The URL's user and
    /// password, if any, take precedence.
    std::string user{};
    std::string password{};
    std::chrono::milliseconds connect_timeout{2000};
    /// How long one round trip may take before the batch fails.
    std::chrono::milliseconds command_timeout{5000};
    /// How long TRYAGAIN, CLUSTERDOWN, LOADING, MASTERDOWN and lost nodes are retried, with
    /// backoff, before the call fails (a failover takes the cluster's node timeout and more).
    std::chrono::milliseconds retry_window{5000};
};

/// Parses a URL as connection_options::url describes; throws invalid_argument naming what is
/// wrong in it.
struct endpoint {
    std::string host{};    ///< empty for a Unix socket
    std::uint16_t port = 0;
    std::string socket{};  ///< the Unix socket's path
    std::string user{}, password{};
    int db = 0;
    friend bool operator==(const endpoint&, const endpoint&) = default;
};
[[nodiscard]] std::vector<endpoint> parse_url(std::string_view url);

/// The CRC16 (XMODEM) hash slot of a key, hash tags included, as Redis Cluster computes it.
[[nodiscard]] std::uint16_t key_slot(std::string_view key) noexcept;

namespace detail {
class node_router;
}

/// Connections to one server or to every node of a cluster. Not thread-safe: one per thread.
/// Connects on construction (and reconnects when a connection breaks).
class client {
public:
    explicit client(connection_options options = {});
    client(client&&) noexcept;
    client& operator=(client&&) noexcept;
    ~client();

    /// Runs one command (arguments as given, binary-safe) on the node of its key (the second
    /// argument, as in nearly every command) and returns its reply as text: a status or bulk string as is, an integer in
    /// decimal, nil as "", an array's elements one per line. Errors throw server_error. For
    /// tools and tests; the filters pipeline their own commands.
    std::string command(const std::vector<std::string>& arguments);

    /// The connected nodes ("host:port"), for messages.
    [[nodiscard]] std::vector<std::string> nodes() const;
    [[nodiscard]] const connection_options& options() const noexcept;

    /// The machinery the filters use.
    [[nodiscard]] detail::node_router& router() noexcept { return *router_; }

private:
    std::unique_ptr<detail::node_router> router_;
};

// --- The filter ------------------------------------------------------------------------------

/// How a filter is laid out in Redis and how its adds are made durable.
struct filter_options {
    /// Seed and hash, as for a local filter: a filter pushed from a file keeps the file's.
    bloomkit::filter_options hashing{};
    /// Upper bound of one shard's string, 64 KiB to 512 MiB (Redis's default string limit).
    std::uint64_t max_shard_bytes = std::uint64_t{32} << 20;
    /// Commands sent per node before their replies are read.
    std::size_t pipeline_depth = 256;
    /// After each batch of adds, wait until this many replicas of every node written to have
    /// it (WAIT), or throw replication_error. 0: the master's acknowledgement is enough.
    unsigned replicas = 0;
    std::chrono::milliseconds replica_timeout{2000};
};

/// What NAME:meta records.
struct filter_description {
    std::string name{};
    bloom_geometry geometry{};      ///< bits (whole 512-bit blocks) and k
    std::uint64_t blocks_per_shard = 0;
    std::uint64_t shards = 0;
    std::uint64_t seed = 0;
    hash_algorithm hash = default_hash_algorithm;
    sizing_target target{};         ///< what it was created for (0, 0 when pushed from a geometry)
    [[nodiscard]] std::uint64_t blocks() const noexcept { return geometry.bits / 512; }
    /// Bytes of shard `s`'s string: its blocks plus the sentinel's byte.
    [[nodiscard]] std::uint64_t shard_bytes(std::uint64_t s) const noexcept;
    /// The Redis key of shard `s` ("NAME:s") and of the metadata ("NAME:meta").
    [[nodiscard]] std::string shard_key(std::uint64_t s) const;
    [[nodiscard]] std::string meta_key() const;
};

/// A block Bloom filter whose bits live in Redis. Holds a reference to its client, which must
/// outlive it; like the client, one thread at a time.
class bloom_filter {
public:
    using size_type = std::uint64_t;

    /// Creates NAME sized for `expected_keys` at false-positive rate `fpr`, or opens it if it
    /// already exists with the same parameters (every instance of a service may call create at
    /// start). Throws filter_mismatch when NAME exists with other parameters.
    static bloom_filter create(client& c, std::string name, size_type expected_keys, double fpr,
                               filter_options options = {});
    /// Opens an existing NAME. Throws filter_mismatch if there is none, or it is incomplete.
    static bloom_filter open(client& c, std::string name, filter_options options = {});
    /// Copies a local block filter into Redis as NAME (which must not exist), chunk by chunk.
    static bloom_filter push(client& c, std::string name, const block_bloom_filter& local, filter_options options = {});
    /// Deletes NAME's metadata and shards; false if there was no such filter.
    static bool drop(client& c, std::string_view name);

    /// A local copy of the bits, read chunk by chunk: it holds every key added before the
    /// call began (keys added meanwhile may or may not be in it).
    [[nodiscard]] block_bloom_filter pull() const;

    // Single keys: one round trip each. Prefer the ranges below for more than a few keys.
    template <hashable_key Key>
    bool insert(const Key& key) {
        const digest d = hasher_(key);
        bool added = false;
        insert_digests({&d, 1}, &added);
        return added;
    }
    template <hashable_key Key>
    [[nodiscard]] bool contains(const Key& key) const {
        const digest d = hasher_(key);
        bool maybe = false;
        contains_digests({&d, 1}, &maybe);
        return maybe;
    }

    /// Adds [first, last), writing to `out` whether each key was new. The keys are hashed,
    /// then sent in pipelines per node; returns once every add is acknowledged (and
    /// replicated, with `replicas`), or throws — then some of the keys may be in, none lost
    /// that were in before.
    template <std::input_iterator It, std::sentinel_for<It> S, class Out>
    Out insert(It first, S last, Out out) {
        return batched(hasher_, first, last, out, [this](auto d, bool* a) { insert_digests(d, a); });
    }
    /// Adds [first, last); returns how many were new.
    template <std::input_iterator It, std::sentinel_for<It> S>
    size_type insert(It first, S last) {
        size_type added = 0;
        batched(hasher_, first, last, counter{&added}, [this](auto d, bool* a) { insert_digests(d, a); });
        return added;
    }
    /// Writes to `out`, for each key of [first, last), whether it may be in the filter.
    template <std::input_iterator It, std::sentinel_for<It> S, class Out>
    Out contains(It first, S last, Out out) const {
        return batched(hasher_, first, last, out, [this](auto d, bool* a) { contains_digests(d, a); });
    }

    /// The same for keys hashed by hash_function() elsewhere; answers[i] for digests[i].
    void insert_digests(std::span<const digest> digests, bool* answers);
    void contains_digests(std::span<const digest> digests, bool* answers) const;

    /// Resets every bit (the sentinels stay): each shard is replaced at once.
    void clear();

    /// Bits set (BITCOUNT of every shard, sentinels excluded), the distinct keys they suggest,
    /// and the FPR they give.
    [[nodiscard]] std::uint64_t set_bit_count() const;
    [[nodiscard]] double approximate_count() const;
    [[nodiscard]] double current_fpr() const;

    [[nodiscard]] const filter_description& description() const noexcept { return description_; }
    [[nodiscard]] const std::string& name() const noexcept { return description_.name; }
    [[nodiscard]] bloom_geometry geometry() const noexcept { return description_.geometry; }
    [[nodiscard]] const hasher& hash_function() const noexcept { return hasher_; }
    [[nodiscard]] const filter_options& options() const noexcept { return options_; }

private:
    bloom_filter(client& c, filter_description description, filter_options options);

    // Hashes up to a batch of keys at a time and hands their digests to `run`.
    static constexpr std::size_t keys_per_batch = 4096;
    struct counter {
        size_type* count;
        counter& operator*() { return *this; }
        counter& operator++() { return *this; }
        counter operator++(int) { return *this; }
        counter& operator=(bool added) { *count += added ? 1 : 0; return *this; }
    };
    template <class It, class S, class Out, class Run>
    static Out batched(const hasher& hash, It first, S last, Out out, Run run) {
        std::vector<digest> digests;
        std::unique_ptr<bool[]> answers(new bool[keys_per_batch]);
        while (first != last) {
            digests.clear();
            for (; first != last && digests.size() < keys_per_batch; ++first) digests.push_back(hash(*first));
            run(std::span<const digest>(digests), answers.get());
            for (std::size_t i = 0; i < digests.size(); ++i) *out++ = answers[i];
        }
        return out;
    }

    // One BITFIELD (add) or BITFIELD_RO (query) per digest, each reading the shard's sentinel
    // first; then every reply checked and turned into answers.
    void run_key_commands(std::span<const digest> digests, bool write, bool* answers) const;
    void require_sentinels() const;

    client* client_;
    filter_description description_;
    std::vector<std::string> shard_keys_;
    std::vector<std::uint16_t> shard_slots_;  // their cluster slots
    filter_options options_;
    hasher hasher_;
    block_layout layout_;
};

}  // namespace bloomkit::redis
