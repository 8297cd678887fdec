// src/redis/node_router.hpp — runs batches of commands on one Redis server or across a Redis
// Cluster: each command goes to the node serving its key's slot, in pipelines of `depth`
// commands per node, all nodes at once; redirections and transient refusals are retried.
//
// What hiredis 0.14 leaves to us (Redis Cluster specification, "Redirection and resharding"):
// - the slot map, read from CLUSTER SLOTS at start and again after any MOVED or lost node;
// - MOVED slot host:port: the slot has a new owner: resend there (and refresh the map);
// - ASK slot host:port: the slot is migrating and this key has left: send ASKING then the
//   command to the target, once, without touching the map;
// - TRYAGAIN, CLUSTERDOWN, LOADING, MASTERDOWN and lost connections: retried with backoff
//   (10 ms doubling to 500 ms) until connection_options::retry_window has passed.
// A node has two chunks in flight: the next is sent before the replies of the one before are
// read, so the client's work (encoding, parsing) overlaps the servers'. Each reply is handed
// on exactly once; a batch either gets every reply or throws, and on a
// throw every connection with replies still unread is closed (a new one is made next time).
//
// Resending is safe for the filters' commands: setting bits that are already set changes
// nothing (only the "was new" answer of a re-sent add may then say "not new"), and the scripts
// of scripts.hpp find their own work done (a shard "ours", a write already made, a record
// holding the text a compare-and-set wrote: meta_store takes that for success).
//
// WAIT blocks on the server for up to its timeout before it replies: its reply is awaited that
// long more than any other, so that a replica slow to acknowledge is reported as such
// (replication_error), not as a master that stopped answering.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis.hpp"
#include "command_batch.hpp"
#include "connection.hpp"

namespace bloomkit::redis::detail {

/// Throws invalid_argument, naming `what` and the value, unless `value` is from `least` to
/// connection_options::longest_timeout. (To hiredis a timeout of 0 is none, and so is WAIT's.)
void check_timeout(std::string_view what, std::chrono::milliseconds value, std::chrono::milliseconds least);

class node_router {
public:
    /// Connects to the server, or to the cluster's seed nodes and reads the slot map.
    explicit node_router(connection_options options);

    struct run_options {
        std::size_t depth = 256;                          ///< commands in flight per node
        unsigned replicas = 0;                            ///< WAIT for this many replicas after each node's writes
        std::chrono::milliseconds replica_timeout{5000};  ///< WAIT's timeout (its reply is awaited that long more)
    };
    using reply_handler = std::function<void(std::size_t index, const redisReply& r)>;

    /// Runs every command of `batch`; on_reply(i, r) once for each, in no particular order,
    /// never with an error reply (those throw server_error, naming the command and node).
    void run(const command_batch& batch, const run_options& how, const reply_handler& on_reply);

    [[nodiscard]] const connection_options& options() const noexcept { return options_; }
    [[nodiscard]] bool cluster() const noexcept { return options_.cluster; }
    /// The nodes known: the server, or every node serving slots.
    [[nodiscard]] std::vector<std::string> nodes() const;

private:
    struct pending {
        std::uint32_t index;
        std::string ask;  // ASK target; empty: the slot's owner
    };
    struct round_state;
    struct flight;

    connection& node(const std::string& address);
    void drop(const std::string& address) { connections_.erase(address); }
    // A node's connection failed: drop it, and resend its commands after the round.
    void lose(const std::string& address, round_state& state, const std::string& why);
    // The address serving `slot`, or "" if no node does (yet).
    [[nodiscard]] const std::string& owner(std::uint16_t slot) const;
    void set_owner(std::uint16_t slot, const std::string& address);
    void refresh_slots();
    // Sends the chunk at `offset` of every node's group; returns what is then in flight.
    std::vector<flight> send_chunks(const command_batch& batch, const run_options& how,
                                    std::map<std::string, std::vector<pending>>& groups, std::size_t offset,
                                    round_state& state);
    // Reads the replies of chunks sent by send_chunks.
    void read_chunks(const command_batch& batch, const run_options& how, const std::vector<flight>& flights,
                     round_state& state, const reply_handler& on_reply);
    void handle(const command_batch& batch, const pending& item, const std::string& address, reply r,
                round_state& state, const reply_handler& on_reply);

    connection_options options_;
    endpoint credentials_;            // user, password, db of the seed: used for every node
    std::vector<std::string> seeds_;  // "host:port" as given
    std::map<std::string, std::unique_ptr<connection>> connections_;
    std::vector<std::string> addresses_;     // every node ever seen; slot owners index into it
    std::vector<std::uint16_t> slot_owner_;  // 16384 entries (cluster), index into addresses_
};

}  // namespace bloomkit::redis::detail
