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
//   no common hash tag: they spread over a cluster's slots and nodes (a NAME holding a hash
//   tag "{…}" would put them all in one slot, and is refused).
// - The bits are exactly those of a local block_bloom_filter with the same geometry, seed and
//   hash (the byte order converted: Redis numbers bits from the top of each byte), so push()
//   serves a filter built offline and pull() brings it back — with its key format and
//   inserted count, so that the file of a pushed filter comes back byte for byte; both answer
//   alike.
// - Every shard starts with a 128-byte header (docs/FORMAT.md, "A filter in Redis"): a copy of
//   the filter's description, and last the filter's generation — a random odd 64-bit number
//   drawn when the filter is created, also in NAME:meta. Its last bit (bit 1023 of the shard)
//   is the sentinel: never a key's bit, 1 in every shard that exists. The blocks follow.
// - Fail-closed: every add and query reads the shard's generation in the same command
//   (`GET i64 960`). A shard that was evicted, flushed or deleted reads 0: the call throws
//   shard_missing. One that holds another generation belongs to a filter dropped and created
//   again since this one was opened: the call throws filter_replaced. Neither answers
//   "definitely not". Timeouts, lost connections, OOM refusals, ACL refusals and replies of
//   the wrong type throw too: a batch either answers every key or throws.
// - Nothing that is not ours is overwritten or deleted: creating and pushing refuse a shard
//   key that exists without our header (a hash, a list, someone's string), and shards are
//   deleted only when they hold the generation of the filter being dropped (or are what an
//   add left: BITFIELD SET makes the key it writes to, so an add to a shard that was gone
//   makes a headerless string, which it removes before it throws). One thing a client cannot
//   check before it writes: an add to a filter dropped and created again since it was opened
//   sets its bits in the new filter, then throws — false positives there, never a lost key
//   (the bits land after the header, which is at the same place in every filter).
// - NAME:meta, the filter's record, is rebuilt from the shards' headers when it is lost
//   (evicted under an allkeys policy, deleted): open, create and drop restore it, and a
//   create never mistakes the live shards of a filter whose record is gone for leftovers.
// - Creation is claimed: NAME:meta in state "creating" names an owner (a random token) and
//   the time of its last progress (the server's clock). Only the owner marks the filter
//   ready; others wait while it makes progress. A claim that stopped making progress for
//   filter_options::stale_claim is taken over only when asked (filter_options::take_over):
//   the new owner draws a new generation, so that the stalled one, if it wakes up, writes
//   into and deletes nothing of the new owner's shards (its writes and deletes are
//   conditional on its own generation), and its next step finds the claim gone and stops.
// - Redis Cluster without a cluster library (hiredis has none): the CRC16 slot of each shard,
//   the slot map from CLUSTER SLOTS, MOVED (the map is fetched again), ASK (ASKING + the one
//   command), TRYAGAIN, CLUSTERDOWN and LOADING (retried with backoff within retry_window),
//   one connection and one pipeline per node. The compare-and-set of NAME:meta and the
//   conditional writes to a shard are small Lua scripts (EVAL) on one key, so one slot.
// - Durability: Redis replicates asynchronously; a master that fails after acknowledging an
//   add may take it with it, and its promoted replica then answers "definitely not" for that
//   key. With `replicas = N`, every batch of writes ends with WAIT on each node it wrote to,
//   and fails with replication_error unless N replicas acknowledged it in time.
//
// Thread safety: a client (and the filters opened through it) is used by one thread at a
// time. Give each thread its own client; they share nothing but the server.
//
// The metadata key NAME:meta (text, one "field value" per line; docs/FORMAT.md) records the
// format version, state, owner, generation, geometry, shard count, hash, seed, key format,
// inserted count, target and the server's time it was written; a filter is refused when its
// metadata does not match what the caller asks for, naming the first difference, and when any
// of its fields is out of range (no more than max_shards shards, and so on).
#pragma once

#include <chrono>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
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

/// What the caller of a failed call can do about it, when the library knows; a program that
/// catches the error says how in its own terms (the command names its options).
enum class error_remedy {
    none,                    ///< nothing the library can suggest
    cluster_mode,            ///< connect in cluster mode (connection_options::cluster)
    single_server_mode,      ///< connect to the one server, without cluster mode
    take_over_or_drop,       ///< take a stopped creator's claim over (filter_options::take_over), or drop
    drop,                    ///< drop the filter (bloom_filter::drop), then make it again if needed
    copy_from_older_format,  ///< pull it with the bloomkit that wrote it, drop it, push it with this one
};

/// Anything that went wrong talking to Redis. Derives from bloomkit::error.
class error : public bloomkit::error {
public:
    /// An error whose message is `what`; `remedy` is what the caller can do about it, if the
    /// library knows.
    explicit error(const std::string& what, error_remedy remedy = error_remedy::none)
        : bloomkit::error(what), remedy_(remedy) {}
    /// What the caller can do about it, when the library knows.
    [[nodiscard]] error_remedy remedy() const noexcept { return remedy_; }

private:
    error_remedy remedy_;
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

/// A shard's generation (and sentinel) read 0: the shard was evicted, flushed or deleted, and
/// the keys it held are lost. Thrown instead of answering "definitely not".
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

/// NAME does not exist, exists with other parameters, is not a bloomkit filter, is being
/// created or dropped by another process, or its keys are not ours to overwrite.
class filter_mismatch : public error {
public:
    using error::error;
};

/// A shard holds another generation than the filter opened: NAME was dropped and created again
/// since. Open it again (its parameters may differ).
class filter_replaced : public filter_mismatch {
public:
    using filter_mismatch::filter_mismatch;
};

// --- Connecting ------------------------------------------------------------------------------

/// Where and how to connect. The client refuses (invalid_argument, naming the value) a timeout
/// outside 1 ms to longest_timeout, and a retry_window outside 0 to longest_timeout: to hiredis
/// a timeout of 0 is no timeout at all.
struct connection_options {
    /// The longest timeout or retry window taken: ten years of 365.25 days (a longer one could
    /// overflow the clock's deadlines).
    static constexpr std::chrono::milliseconds longest_timeout = std::chrono::hours{87'660};

    /// One server: "redis://[user:password@]host[:port][/db]",
    /// "unix://[user:password@]/path/to/socket[?db=N]", or "host:port". For a cluster, any of
    /// its nodes, comma-separated ("h1:p1,h2:p2"): the client learns the rest from CLUSTER
    /// SLOTS. A password may hold any character, ',' '/' ':' '@' included: the credentials end
    /// at the last '@' of their address (or are percent-encoded, "%40"). Messages show it with
    /// the password masked (redacted_url).
    std::string url = "redis://127.0.0.1:6379";
    /// Speak Redis Cluster: route each shard to its slot's node, follow MOVED and ASK.
    bool cluster = false;
    /// AUTH with an ACL user (or the default user when `user` is empty). The URL's user and
    /// password, if any, take precedence. A password given here rather than in the URL stays
    /// out of command lines (`bloomkit redis --password-file`, $BLOOMKIT_REDIS_PASSWORD).
    std::string user{};
    /// AUTH's password (see `user`).
    std::string password{};
    /// How long connecting to one node may take before the client gives up on it.
    std::chrono::milliseconds connect_timeout{2000};
    /// How long one round trip may take before the batch fails.
    std::chrono::milliseconds command_timeout{5000};
    /// How long TRYAGAIN, CLUSTERDOWN, LOADING, MASTERDOWN and lost nodes are retried, with
    /// backoff, before the call fails (a failover takes the cluster's node timeout and more);
    /// 0: the first such refusal fails the call.
    std::chrono::milliseconds retry_window{5000};
};

/// One server of a URL, as parse_url reads it.
struct endpoint {
    std::string host{};  ///< empty for a Unix socket
    /// The TCP port; 6379 when the URL names none.
    std::uint16_t port = 0;
    std::string socket{};  ///< the Unix socket's path
    ///@{
    /// The URL's ACL user and password, percent-decoded; a password alone authenticates as the
    /// default user.
    std::string user{}, password{};
    ///@}
    /// The database selected after connecting (`/N`, or `?db=N` for a socket); a cluster has
    /// only 0.
    int db = 0;
    /// Every field equal.
    friend bool operator==(const endpoint&, const endpoint&) = default;
};
/// Parses a URL as connection_options::url describes, one endpoint per comma-separated
/// address; throws invalid_argument naming what is wrong in it (the address shown redacted,
/// and no part of it quoted otherwise).
[[nodiscard]] std::vector<endpoint> parse_url(std::string_view url);

/// The URL with every password replaced by "***" ("redis://app:***@cache:6379"), for messages
/// and logs. Works on malformed URLs too: where a text could be a password or a port (the
/// "@host" of "redis://app:secret" left out), what is not a port number is masked.
[[nodiscard]] std::string redacted_url(std::string_view url);

/// The CRC16 (XMODEM) hash slot of a key, hash tags included, as Redis Cluster computes it.
[[nodiscard]] std::uint16_t key_slot(std::string_view key) noexcept;

class client;
namespace detail {
class node_router;
/// The machinery behind a client, for the filters of src/redis only (defined there).
node_router& router_of(client& c) noexcept;
}  // namespace detail

/// Connections to one server or to every node of a cluster. Not thread-safe: one per thread.
/// Connects on construction (and reconnects when a connection breaks).
class client {
public:
    /// Connects at once, so that a wrong address or password is reported here; in cluster mode,
    /// reads the slot map (CLUSTER SLOTS) from the given nodes and connects to each node when it
    /// is first needed. Throws invalid_argument for a malformed URL or a timeout out of range
    /// (connection_options), error for several addresses without cluster mode,
    /// connection_error or server_error when no node can be used.
    explicit client(connection_options options = {});
    /// Takes over the connections of the client moved from, which is left with none.
    client(client&&) noexcept;
    /// Closes this client's connections and takes over those of the client moved from.
    client& operator=(client&&) noexcept;
    /// Closes every connection.
    ~client();

    /// Runs one command (arguments as given, binary-safe) on the node of its key (the second
    /// argument, as in nearly every command) and returns its reply as text: a status or bulk string as is, an integer
    /// in decimal, nil as "", an array's elements one per line. Errors throw server_error. For tools and tests; the
    /// filters pipeline their own commands.
    std::string command(const std::vector<std::string>& arguments);

    /// The connected nodes ("host:port"), for messages.
    [[nodiscard]] std::vector<std::string> nodes() const;
    /// The options the client was made with.
    [[nodiscard]] const connection_options& options() const noexcept;

private:
    friend detail::node_router& detail::router_of(client& c) noexcept;
    std::unique_ptr<detail::node_router> router_;
};

// --- The filter ------------------------------------------------------------------------------

/// How a filter is laid out in Redis, how its writes are made durable, and how a creation
/// claimed by another process is treated.
struct filter_options {
    /// Seed, hash and key format, as for a local filter: recorded at creation (a create of an
    /// existing filter is refused when they differ). A filter pushed from a file keeps the
    /// file's; `keys` then says what they are when the file does not record it.
    bloomkit::filter_options hashing{};
    /// Upper bound of one shard's string, 64 KiB to 512 MiB (Redis's default string limit).
    std::uint64_t max_shard_bytes = std::uint64_t{32} << 20;
    /// Commands sent per node before their replies are read.
    std::size_t pipeline_depth = 256;
    /// After each batch of writes, wait until this many replicas of every node written to
    /// have it (WAIT), or throw replication_error. 0: the master's acknowledgement is enough.
    unsigned replicas = 0;
    /// How long WAIT waits for them, 1 ms to connection_options::longest_timeout (WAIT takes 0
    /// for "forever": refused, invalid_argument). Default: the client's command_timeout (the
    /// reply is then awaited for that long more, so that a slow replica is reported as such,
    /// not as a lost master).
    std::optional<std::chrono::milliseconds> replica_timeout{};
    /// A claim (NAME:meta in state "creating") whose owner has made no progress for this long
    /// is stale: create stops waiting for it, and takes it over if take_over is set.
    std::chrono::milliseconds stale_claim{30000};
    /// Take over a stale claim of another process (one that died, or hangs, while creating or
    /// pushing NAME) instead of refusing. Its partial shards are reset; it cannot touch them
    /// any more if it wakes up.
    bool take_over = false;
};

/// What NAME:meta records (and every shard's header repeats).
struct filter_description {
    /// Bytes before a shard's blocks: the filter's description and, in its last 8, the generation.
    static constexpr std::uint64_t header_bytes = 128;
    /// Most shards a filter may have (a hostile NAME:meta cannot make a client allocate more).
    static constexpr std::uint64_t max_shards = std::uint64_t{1} << 20;

    /// NAME: the prefix of every Redis key of the filter (NAME:0 …, NAME:meta).
    std::string name{};
    bloom_geometry geometry{};  ///< bits (whole 512-bit blocks) and k
    /// 512-bit blocks in each shard but the last, from filter_options::max_shard_bytes.
    std::uint64_t blocks_per_shard = 0;
    /// Shards, NAME:0 to NAME:shards-1; at most max_shards.
    std::uint64_t shards = 0;
    /// The hash seed (filter_options::hashing).
    std::uint64_t seed = 0;
    /// The hash algorithm (filter_options::hashing).
    hash_algorithm hash = default_hash_algorithm;
    key_format keys = key_format::unrecorded;  ///< what the keys are (hash.hpp)
    sizing_target target{};                    ///< what it was created for (0, 0 when pushed from a geometry)
    std::uint64_t inserted = 0;    ///< the inserted count of the file it was pushed from (adds do not change it)
    std::uint64_t generation = 0;  ///< random and odd, drawn at creation; 0 until then
    /// The filter's 512-bit blocks, over all shards.
    [[nodiscard]] std::uint64_t blocks() const noexcept { return geometry.bits / 512; }
    /// Blocks held by shard `s` (the last shard may hold fewer).
    [[nodiscard]] std::uint64_t shard_blocks(std::uint64_t s) const noexcept;
    /// Bytes of shard `s`'s string: its header and its blocks.
    [[nodiscard]] std::uint64_t shard_bytes(std::uint64_t s) const noexcept;
    /// The Redis key of shard `s`: "NAME:s".
    [[nodiscard]] std::string shard_key(std::uint64_t s) const;
    /// The Redis key of the metadata: "NAME:meta".
    [[nodiscard]] std::string meta_key() const;
};

/// A block Bloom filter whose bits live in Redis. Holds a reference to its client, which must
/// outlive it; like the client, one thread at a time.
class bloom_filter {
public:
    /// Counts of keys.
    using size_type = std::uint64_t;

    /// Creates NAME sized for `expected_keys` at false-positive rate `fpr`, or opens it if it
    /// already exists with the same parameters (every instance of a service may call create at
    /// start: one creates, the others wait for it). Throws filter_mismatch when NAME exists
    /// with other parameters, when a key NAME:s exists that is not one of its shards, and when
    /// another process's claim on NAME is stale (unless options.take_over).
    static bloom_filter create(client& c, std::string name, size_type expected_keys, double fpr,
                               filter_options options = {});
    /// Opens an existing NAME (restoring a lost NAME:meta from the shards). Throws
    /// filter_mismatch if there is none, or it is being created or dropped.
    static bloom_filter open(client& c, std::string name, filter_options options = {});
    /// Copies a local block filter into Redis as NAME (which must not exist), chunk by chunk;
    /// NAME is ready only once every bit is in. On failure, what it wrote is removed.
    static bloom_filter push(client& c, std::string name, const block_bloom_filter& local, filter_options options = {});
    /// Deletes NAME's shards, then its metadata; false if there was no such filter. Refuses
    /// (filter_mismatch) while another process is creating it; finishes a drop that was
    /// interrupted.
    static bool drop(client& c, std::string_view name, filter_options options = {});

    /// A local copy of the bits, read chunk by chunk: it holds every key added before the
    /// call began (keys added meanwhile may or may not be in it). It records the filter's key
    /// format and (for a pushed filter) the file's inserted count.
    [[nodiscard]] block_bloom_filter pull() const;

    /// What the keys are, as NAME:meta recorded it when this client last read it.
    [[nodiscard]] key_format recorded_key_format() const noexcept { return description_.keys; }
    /// Records what the keys are, in NAME:meta and every shard's header, for a filter that
    /// records nothing yet (a compare-and-set: of two first writers, one records). When another
    /// client recorded an integer format since, that one stays and recorded_key_format() says it:
    /// the caller checks that its keys fit it. Throws filter_mismatch when the record is of other
    /// keys (text against integers), filter_replaced when NAME is no longer this filter.
    void record_key_format(key_format keys);
    /// Reads again what NAME:meta records of the keys, for a client that opened a filter that
    /// recorded nothing: another may have recorded it since (only that can change, once, by the
    /// filter's first writer). Returns recorded_key_format(); costs a round trip only while it
    /// is unrecorded. Throws filter_replaced when NAME is no longer this filter.
    key_format refresh_key_format();

    // Single keys: one round trip each. Prefer the ranges below for more than a few keys.
    template <hashable_key Key>
    /// Adds a key; returns true if it was new (one of its bits was clear). The first key of a
    /// filter that records no key format records its type's (key_format_of), as a local
    /// filter's does, while the filter is empty.
    bool insert(const Key& key) {
        record_first_keys(key_format_of<Key>());
        const digest d = hasher_(key);
        bool added = false;
        insert_digests({&d, 1}, &added);
        return added;
    }
    template <hashable_key Key>
    /// False: the key was never added. True: it probably was (or is a false positive).
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
        record_first_keys(key_format_of<std::iter_value_t<It>>());
        return batched(hasher_, first, last, out, [this](auto d, bool* a) { insert_digests(d, a); });
    }
    /// Adds [first, last); returns how many were new.
    template <std::input_iterator It, std::sentinel_for<It> S>
    size_type insert(It first, S last) {
        record_first_keys(key_format_of<std::iter_value_t<It>>());
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
    /// answers[i]: whether the key of digests[i] may be in the filter.
    void contains_digests(std::span<const digest> digests, bool* answers) const;

    /// Resets every bit (the headers stay): each shard is replaced at once, only if it still
    /// holds this filter's generation.
    void clear();

    /// Bits set: BITCOUNT of every shard's blocks, the headers excluded.
    [[nodiscard]] std::uint64_t set_bit_count() const;
    /// The distinct keys the filter holds, estimated from set_bit_count() (sizing.hpp).
    [[nodiscard]] double approximate_count() const;
    /// The false-positive rate that set_bit_count() gives.
    [[nodiscard]] double current_fpr() const;

    /// The filter's record: geometry, shards, hashing, key format, generation.
    [[nodiscard]] const filter_description& description() const noexcept { return description_; }
    /// NAME.
    [[nodiscard]] const std::string& name() const noexcept { return description_.name; }
    /// Bits (whole 512-bit blocks) and probes per key.
    [[nodiscard]] bloom_geometry geometry() const noexcept { return description_.geometry; }
    /// How keys are hashed (the recorded algorithm and seed); digests for insert_digests and
    /// contains_digests come from it.
    [[nodiscard]] const hasher& hash_function() const noexcept { return hasher_; }
    /// The options the filter was created or opened with.
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
        counter& operator=(bool added) {
            *count += added ? 1 : 0;
            return *this;
        }
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

    // One BITFIELD (add) or BITFIELD_RO (query) per digest, each reading the shard's
    // generation first; then every reply checked and turned into answers.
    void run_key_commands(std::span<const digest> digests, bool write, bool* answers) const;
    // Throws shard_missing or filter_replaced unless every shard holds this filter's generation.
    void require_shards() const;
    // Records `keys`, the format of a typed insert's keys, when the filter records none and
    // holds no key yet.
    void record_first_keys(key_format keys);

    client* client_;
    filter_description description_;
    std::vector<std::string> shard_keys_;
    std::vector<std::uint16_t> shard_slots_;  // their cluster slots
    filter_options options_;
    hasher hasher_;
    block_layout layout_;
};

}  // namespace bloomkit::redis
