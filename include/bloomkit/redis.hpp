// bloomkit/redis.hpp — a block Bloom filter shared by many processes, its bits in a Redis server
// or a Redis Cluster (library bloomkit::redis over hiredis 0.14, src/redis/; the design and its
// reasons: docs/design/redis.md; the keys' format: docs/FORMAT.md, "A filter in Redis").
//
// - Layout: the bits of a local block_bloom_filter of the same geometry, seed and hash (Redis
//   numbers bits from the top of each byte), split into shards NAME:0 … NAME:S-1 of at most 32 MiB
//   by default, so push() and pull() carry a filter between Redis and a file unchanged. A key's k
//   bits lie in one 512-bit block, so an add is one atomic BITFIELD SET on one shard and a query
//   one BITFIELD_RO. The shards carry no common hash tag and spread over a cluster (a NAME with a
//   hash tag is refused).
// - Fail-closed: each shard starts with a 128-byte header ending in the filter's generation (random,
//   odd; its last bit is always 1), read by every add and query in the same command. A shard read
//   as 0 throws shard_missing, another generation filter_replaced; timeouts and refusals throw
//   too. A batch answers every key or throws, never "definitely not" in place of an error.
// - Nothing not ours is overwritten or deleted: only keys holding our header and generation. An
//   add to a filter dropped and re-created since it was opened lands in the new filter and throws:
//   false positives there, never a lost key.
// - NAME:meta records the filter (docs/FORMAT.md) and is rebuilt from the headers when lost.
//   Creation is claimed by an owner token; a stale claim is taken over only when asked, with a
//   new generation, so the stalled owner can no longer write into the new shards.
// - Cluster: slots, MOVED, ASK, TRYAGAIN and CLUSTERDOWN handled here (hiredis has no cluster
//   support); conditional writes are single-key Lua scripts. Durability: with `replicas = N` each
//   batch of writes ends with WAIT, or throws replication_error.
//
// Thread safety: a client and the filters opened through it are used by one thread at a time.
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

/// What the caller of a failed call can do about it, when the library knows.
enum class error_remedy {
    none,                    ///< nothing the library can suggest
    cluster_mode,            ///< connect in cluster mode (connection_options::cluster)
    single_server_mode,      ///< connect to the one server, without cluster mode
    take_over_or_drop,       ///< take a stopped creator's claim over (filter_options::take_over), or drop
    drop,                    ///< drop the filter (bloom_filter::drop), then make it again if needed
    copy_from_older_format,  ///< pull it with the bloomkit that wrote it, drop it, push it with this one
};

/// Anything that went wrong talking to Redis.
class error : public bloomkit::error {
public:
    /// An error whose message is `what`, with the remedy if known.
    explicit error(const std::string& what, error_remedy remedy = error_remedy::none)
        : bloomkit::error(what), remedy_(remedy) {}
    /// What the caller can do about it.
    [[nodiscard]] error_remedy remedy() const noexcept { return remedy_; }

private:
    error_remedy remedy_;
};

/// A server could not be reached, the connection broke, or a reply did not come in time.
class connection_error : public error {
public:
    using error::error;
};

/// The server refused a command (OOM, NOPERM, WRONGTYPE, a wrong password), or a cluster stayed
/// down or kept redirecting past the retry window.
class server_error : public error {
public:
    using error::error;
};

/// A shard was evicted, flushed or deleted (its generation read 0): its keys are lost.
class shard_missing : public error {
public:
    using error::error;
};

/// Too few replicas acknowledged a batch of adds in time: the master's failure would lose them.
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

/// A shard holds another generation: NAME was dropped and created again since it was opened.
class filter_replaced : public filter_mismatch {
public:
    using filter_mismatch::filter_mismatch;
};

/// Where and how to connect. Timeouts outside 1 ms to longest_timeout (to hiredis 0 is none) and
/// retry windows above it throw invalid_argument.
struct connection_options {
    /// Ten years: a longer timeout could overflow the clock's deadlines.
    static constexpr std::chrono::milliseconds longest_timeout = std::chrono::hours{87'660};

    /// "redis://[user:password@]host[:port][/db]", "unix://[user:password@]/path[?db=N]" or
    /// "host:port"; for a cluster, some nodes comma-separated. Credentials end at the last '@'
    /// (or are percent-encoded); messages mask the password (redacted_url).
    std::string url = "redis://127.0.0.1:6379";
    /// Speak Redis Cluster: route each shard to its slot's node, follow MOVED and ASK.
    bool cluster = false;
    /// ACL user for AUTH (empty: the default user); the URL's credentials take precedence.
    std::string user{};
    /// AUTH's password (see `user`).
    std::string password{};
    /// How long connecting to one node may take.
    std::chrono::milliseconds connect_timeout{2000};
    /// How long one round trip may take before the batch fails.
    std::chrono::milliseconds command_timeout{5000};
    /// How long TRYAGAIN, CLUSTERDOWN, LOADING, MASTERDOWN and lost nodes are retried with
    /// backoff (a failover takes the cluster's node timeout and more); 0: not at all.
    std::chrono::milliseconds retry_window{5000};
};

/// One server of a URL, as parse_url reads it.
struct endpoint {
    std::string host{};  ///< empty for a Unix socket
    /// 6379 when the URL names none.
    std::uint16_t port = 0;
    std::string socket{};  ///< the Unix socket's path
    ///@{
    /// Percent-decoded; a password alone authenticates as the default user.
    std::string user{}, password{};
    ///@}
    /// `/N`, or `?db=N` for a socket; a cluster has only 0.
    int db = 0;
    /// Every field equal.
    friend bool operator==(const endpoint&, const endpoint&) = default;
};
/// One endpoint per comma-separated address of connection_options::url; throws invalid_argument
/// (the address redacted).
[[nodiscard]] std::vector<endpoint> parse_url(std::string_view url);

/// Every password replaced by "***", for messages; on a malformed URL, whatever could be a
/// password and is not a port number is masked.
[[nodiscard]] std::string redacted_url(std::string_view url);

/// The CRC16 (XMODEM) hash slot of a key, hash tags included, as Redis Cluster computes it.
[[nodiscard]] std::uint16_t key_slot(std::string_view key) noexcept;

class client;
namespace detail {
class node_router;
/// The machinery behind a client, for the filters of src/redis only (defined there).
node_router& router_of(client& c) noexcept;
}  // namespace detail

/// Connections to one server or every node of a cluster, for one thread at a time; reconnects.
class client {
public:
    /// Connects at once (cluster: reads the slot map); throws invalid_argument for bad options,
    /// error for several addresses without cluster mode, connection_error or server_error.
    explicit client(connection_options options = {});
    /// The client moved from is left with no connection.
    client(client&&) noexcept;
    /// Closes this client's connections, then takes the other's.
    client& operator=(client&&) noexcept;
    /// Closes every connection.
    ~client();

    /// One binary-safe command, on the node of its second argument; the reply as text (nil as "",
    /// arrays one element a line). Error replies throw server_error. For tools and tests.
    std::string command(const std::vector<std::string>& arguments);

    /// "host:port" of each connected node.
    [[nodiscard]] std::vector<std::string> nodes() const;
    /// The options the client was made with.
    [[nodiscard]] const connection_options& options() const noexcept;

private:
    friend detail::node_router& detail::router_of(client& c) noexcept;
    std::unique_ptr<detail::node_router> router_;
};

/// Layout, durability and claims of a filter in Redis.
struct filter_options {
    /// Recorded at creation; a push keeps the file's (`keys` only where the file records none).
    bloomkit::filter_options hashing{};
    /// One shard's string at most: 64 KiB to 512 MiB (Redis's default string limit).
    std::uint64_t max_shard_bytes = std::uint64_t{32} << 20;
    /// Commands sent per node before their replies are read.
    std::size_t pipeline_depth = 256;
    /// Replicas that must acknowledge each batch of writes (WAIT), else replication_error.
    unsigned replicas = 0;
    /// WAIT's timeout, 1 ms to longest_timeout (0 would be "forever"); default command_timeout.
    std::optional<std::chrono::milliseconds> replica_timeout{};
    /// A creation claim without progress for this long is stale: create stops waiting for it.
    std::chrono::milliseconds stale_claim{30000};
    /// Take a stale claim over instead of refusing; its partial shards are reset.
    bool take_over = false;
};

/// What NAME:meta records (and every shard's header repeats).
struct filter_description {
    /// Bytes before a shard's blocks; the last 8 hold the generation.
    static constexpr std::uint64_t header_bytes = 128;
    /// Most shards, so a hostile NAME:meta cannot make a client allocate more.
    static constexpr std::uint64_t max_shards = std::uint64_t{1} << 20;

    /// The prefix of every Redis key of the filter.
    std::string name{};
    bloom_geometry geometry{};  ///< bits (whole 512-bit blocks) and k
    /// 512-bit blocks in each shard but the last.
    std::uint64_t blocks_per_shard = 0;
    /// Shards NAME:0 to NAME:shards-1.
    std::uint64_t shards = 0;
    /// The hash seed.
    std::uint64_t seed = 0;
    /// The hash algorithm.
    hash_algorithm hash = default_hash_algorithm;
    key_format keys = key_format::unrecorded;  ///< what the keys are (hash.hpp)
    sizing_target target{};                    ///< what it was created for (0, 0 when pushed from a geometry)
    std::uint64_t inserted = 0;    ///< the inserted count of the file it was pushed from (adds do not change it)
    std::uint64_t generation = 0;  ///< random and odd, drawn at creation; 0 until then
    /// A windowed filter's window W in ms (redis_windowed.hpp); 0 for a block filter.
    std::int64_t window_ms = 0;
    /// A windowed filter's G (generations per window); 0 for a block filter.
    std::uint32_t generations = 0;

    /// Copies of the geometry's bits: G + 1 ring slots of a windowed filter, 1 for a block filter.
    /// Each shard holds its blocks once per slot, slot after slot (its regions).
    [[nodiscard]] std::uint64_t slots() const noexcept { return std::uint64_t{generations} + 1; }
    /// 512-bit blocks of one slot (of the whole filter, for a block filter).
    [[nodiscard]] std::uint64_t blocks() const noexcept { return geometry.bits / 512; }
    /// Blocks of each slot held by shard `s` (the last shard may hold fewer).
    [[nodiscard]] std::uint64_t shard_blocks(std::uint64_t s) const noexcept;
    /// Bytes of shard `s`: header and a region of shard_blocks(s) blocks per slot.
    [[nodiscard]] std::uint64_t shard_bytes(std::uint64_t s) const noexcept;
    /// "NAME:s".
    [[nodiscard]] std::string shard_key(std::uint64_t s) const;
    /// "NAME:meta".
    [[nodiscard]] std::string meta_key() const;
};

namespace detail {
/// A filter's shard keys ("NAME:s") and their cluster slots, computed once (src/redis).
struct shard_names {
    explicit shard_names(const filter_description& d);
    std::vector<std::string> keys;
    std::vector<std::uint16_t> slots;
};
}  // namespace detail

/// A block Bloom filter in Redis. Its client must outlive it; one thread at a time.
class bloom_filter {
public:
    /// Counts of keys.
    using size_type = std::uint64_t;

    /// Creates NAME, or opens it if it exists with the same parameters (one creator, the others
    /// wait). Throws filter_mismatch for other parameters, foreign keys or a stale claim.
    static bloom_filter create(client& c, std::string name, size_type expected_keys, double fpr,
                               filter_options options = {});
    /// Throws filter_mismatch if NAME does not exist or is being created or dropped.
    static bloom_filter open(client& c, std::string name, filter_options options = {});
    /// Into a new NAME, ready only once every bit is in; on failure what it wrote is removed.
    static bloom_filter push(client& c, std::string name, const block_bloom_filter& local, filter_options options = {});
    /// False if there was no such filter; filter_mismatch while another process creates it.
    static bool drop(client& c, std::string_view name, filter_options options = {});

    /// A local copy holding every key added before the call began (later ones may be missing).
    [[nodiscard]] block_bloom_filter pull() const;

    /// As NAME:meta recorded it when this client last read it.
    [[nodiscard]] key_format recorded_key_format() const noexcept { return description_.keys; }
    /// A compare-and-set on an unrecorded format: a format another client recorded first stays
    /// (read recorded_key_format()); filter_mismatch if it is of other keys, or filter_replaced.
    void record_key_format(key_format keys);
    /// Re-reads an unrecorded format (its first writer may have recorded it); throws
    /// filter_replaced.
    key_format refresh_key_format();

    template <hashable_key Key>
    /// One round trip; true if the key was new. The first key records its type's format.
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

    /// Writes to `out` whether each key was new; returns once all are acknowledged (and
    /// replicated), or throws with some keys in and none that were in before lost.
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

    /// Resets every bit, the headers kept; only shards holding this filter's generation.
    void clear();

    /// BITCOUNT of every shard's blocks.
    [[nodiscard]] std::uint64_t set_bit_count() const;
    /// No bit is set: the filter holds no key.
    [[nodiscard]] bool empty() const { return set_bit_count() == 0; }
    /// The distinct keys the filter holds, estimated from set_bit_count() (sizing.hpp).
    [[nodiscard]] double approximate_count() const;
    /// The false-positive rate set_bit_count() gives.
    [[nodiscard]] double current_fpr() const;

    /// The filter's record: geometry, shards, hashing, key format, generation.
    [[nodiscard]] const filter_description& description() const noexcept { return description_; }
    /// NAME.
    [[nodiscard]] const std::string& name() const noexcept { return description_.name; }
    /// Bits (whole 512-bit blocks) and probes per key.
    [[nodiscard]] bloom_geometry geometry() const noexcept { return description_.geometry; }
    /// The recorded algorithm and seed: what digests passed to *_digests come from.
    [[nodiscard]] const hasher& hash_function() const noexcept { return hasher_; }
    /// The options the filter was created or opened with.
    [[nodiscard]] const filter_options& options() const noexcept { return options_; }

private:
    bloom_filter(client& c, filter_description description, filter_options options);

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

    // One BITFIELD or BITFIELD_RO per digest, each reading the shard's generation first.
    void run_key_commands(std::span<const digest> digests, bool write, bool* answers) const;
    // Throws shard_missing or filter_replaced unless every shard holds this filter's generation.
    void require_shards() const;
    // Records `keys` when the filter records none and holds no key yet.
    void record_first_keys(key_format keys);

    client* client_;
    filter_description description_;
    filter_options options_;
    hasher hasher_;
    block_layout layout_;
    detail::shard_names shards_;
};

/// NAME's record as Redis holds it, whatever the filter's kind (generations != 0: a windowed
/// filter, redis_windowed.hpp), to open it as what it is. Throws as bloom_filter::open.
[[nodiscard]] filter_description describe_filter(client& c, const std::string& name, filter_options options = {});

/// The bkf file of the filter at `key` of a server running the module bloomkit.so (a BF.* or
/// CF.* key), read through BF.SCANDUMP (`cuckoo`: CF.SCANDUMP, whose dump holds a chain of
/// filters). Throws server_error when the key is missing, of another type, or changes meanwhile.
std::vector<std::byte> dump_module_filter(client& c, const std::string& key, bool cuckoo = false);

/// Makes `key`, which must not exist, the filter of a bkf file (or a CF.SCANDUMP dump, `cuckoo`)
/// on a server running bloomkit.so, through BF.LOADCHUNK in pieces of `piece_bytes`. Throws
/// server_error when the module refuses it (the key exists, the bytes are no filter of its).
void load_module_filter(client& c, const std::string& key, std::span<const std::byte> file, bool cuckoo = false,
                        std::size_t piece_bytes = std::size_t{16} << 20);

}  // namespace bloomkit::redis
