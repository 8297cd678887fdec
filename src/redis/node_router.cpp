// src/redis/node_router.cpp — see node_router.hpp.
#include "node_router.hpp"

#include <algorithm>
#include <charconv>
#include <set>
#include <thread>

namespace bloomkit::redis::detail {
namespace {

constexpr std::uint16_t no_owner = 0xFFFF;
constexpr std::size_t slot_count = 16384;

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// "MOVED 3999 127.0.0.1:6381" → slot and address. An empty host means the one we asked.
std::pair<std::uint16_t, std::string> redirect_target(std::string_view text, const std::string& asked) {
    const auto first = text.find(' ');
    const auto second = text.find(' ', first + 1);
    unsigned slot = 0;
    std::from_chars(text.data() + first + 1, text.data() + second, slot);
    std::string address(text.substr(second + 1));
    if (!address.empty() && address.front() == ':') address = asked.substr(0, asked.rfind(':')) + address;
    return {static_cast<std::uint16_t>(slot % slot_count), address};
}

// Refusals that go away by themselves: a slot in migration (TRYAGAIN), a cluster electing a new
// master (CLUSTERDOWN, MASTERDOWN), a server loading its data (LOADING).
bool transient(std::string_view text) {
    return starts_with(text, "TRYAGAIN") || starts_with(text, "CLUSTERDOWN") || starts_with(text, "LOADING") ||
           starts_with(text, "MASTERDOWN");
}

std::string describe(const command_batch& batch, std::size_t i, const std::string& address) {
    return std::string(batch.name(i)) + " " + std::string(batch.key(i)) + " on " + address;
}

}  // namespace

// What one pass over the pending commands learned: what to resend, and whether to wait or
// read the slot map first.
struct node_router::round_state {
    std::vector<pending> retry;
    bool refresh = false;
    bool back_off = false;
    std::string problem;  // the last reason for a retry, for the message if retries run out
    bool problem_is_connection = false;
    std::set<std::string> lost;  // nodes whose connection failed in this round

    void retry_later(pending item, std::string why, bool connection_problem) {
        retry.push_back(std::move(item));
        back_off = true;
        problem = std::move(why);
        problem_is_connection = connection_problem;
    }
};

void check_timeout(std::string_view what, std::chrono::milliseconds value, std::chrono::milliseconds least) {
    if (value >= least && value <= connection_options::longest_timeout) return;
    throw invalid_argument(std::string(what) + " must be from " + std::to_string(least.count()) + " ms to ten years (" +
                           std::to_string(connection_options::longest_timeout.count()) + " ms), not " +
                           std::to_string(value.count()) + " ms" +
                           (value.count() == 0 ? ": 0 would be no timeout at all" : ""));
}

node_router::node_router(connection_options options) : options_(std::move(options)) {
    check_timeout("connection_options::connect_timeout", options_.connect_timeout, std::chrono::milliseconds(1));
    check_timeout("connection_options::command_timeout", options_.command_timeout, std::chrono::milliseconds(1));
    check_timeout("connection_options::retry_window", options_.retry_window, std::chrono::milliseconds(0));
    const std::vector<endpoint> endpoints = parse_url(options_.url);
    credentials_ = endpoints.front();
    if (!options_.cluster && endpoints.size() > 1)
        throw error("several Redis addresses given (" + redacted_url(options_.url) +
                        ") without cluster mode: give one server, or connect to a cluster's seeds in cluster mode",
                    error_remedy::cluster_mode);
    for (const endpoint& e : endpoints) seeds_.push_back(address_of(e));
    if (options_.cluster) {
        if (credentials_.db != 0)
            throw invalid_argument("a Redis Cluster has only database 0, not " + std::to_string(credentials_.db));
        slot_owner_.assign(slot_count, no_owner);
        refresh_slots();
    } else {
        addresses_.push_back(seeds_.front());
        node(seeds_.front());  // connect now: a wrong address or password is reported at once
    }
}

connection& node_router::node(const std::string& address) {
    auto found = connections_.find(address);
    if (found != connections_.end()) return *found->second;
    endpoint to = credentials_;
    if (options_.cluster || address != seeds_.front()) {  // a cluster node: same credentials, its own address
        to.socket.clear();
        const auto colon = address.rfind(':');
        to.host = address.substr(0, colon);
        if (to.host.size() > 2 && to.host.front() == '[') to.host = to.host.substr(1, to.host.size() - 2);
        to.port = static_cast<std::uint16_t>(std::stoi(address.substr(colon + 1)));
    }
    auto made = std::make_unique<connection>(to, options_);
    return *connections_.emplace(address, std::move(made)).first->second;
}

const std::string& node_router::owner(std::uint16_t slot) const {
    static const std::string none;
    if (!options_.cluster) return addresses_.front();
    const std::uint16_t i = slot_owner_[slot];
    return i == no_owner ? none : addresses_[i];
}

void node_router::set_owner(std::uint16_t slot, const std::string& address) {
    auto it = std::find(addresses_.begin(), addresses_.end(), address);
    if (it == addresses_.end()) it = addresses_.insert(addresses_.end(), address);
    slot_owner_[slot] = static_cast<std::uint16_t>(it - addresses_.begin());
}

void node_router::refresh_slots() {
    // Ask the nodes we know (then the seeds) until one answers: any node knows the whole map.
    std::vector<std::string> candidates = addresses_;
    candidates.insert(candidates.end(), seeds_.begin(), seeds_.end());
    std::string last_error = "no node to ask";
    command_batch ask;
    ask.start(2, "CLUSTER", "SLOTS", false);
    for (const std::string& address : candidates) {
        reply r;
        try {
            r = node(address).call(ask.resp(0));
        } catch (const connection_error& e) {
            drop(address);
            last_error = e.what();
            continue;
        }
        if (r->type == REDIS_REPLY_ERROR) {
            const std::string_view text = error_text(*r);
            if (text.find("cluster support disabled") != std::string_view::npos)
                throw server_error("Redis at " + address + " is not a cluster node: connect without cluster mode",
                                   error_remedy::single_server_mode);
            last_error = address + ": " + std::string(text);
            continue;
        }
        if (r->type != REDIS_REPLY_ARRAY) {
            last_error = address + ": CLUSTER SLOTS did not reply with an array";
            continue;
        }
        std::fill(slot_owner_.begin(), slot_owner_.end(), no_owner);
        for (std::size_t i = 0; i < r->elements; ++i) {
            const redisReply& range = *r->element[i];
            if (range.type != REDIS_REPLY_ARRAY || range.elements < 3 ||
                range.element[0]->type != REDIS_REPLY_INTEGER || range.element[1]->type != REDIS_REPLY_INTEGER ||
                range.element[2]->type != REDIS_REPLY_ARRAY || range.element[2]->elements < 2 ||
                range.element[2]->element[1]->type != REDIS_REPLY_INTEGER)
                throw server_error("Redis at " + address + " gave a CLUSTER SLOTS reply of an unexpected shape");
            const redisReply& master = *range.element[2];
            std::string host = master.element[0]->type == REDIS_REPLY_STRING
                                   ? std::string(master.element[0]->str, master.element[0]->len)
                                   : "";
            if (host.empty() || host == "?") host = address.substr(0, address.rfind(':'));  // "same host as asked"
            if (host.find(':') != std::string::npos) host = "[" + host + "]";
            const std::string node_address = host + ":" + std::to_string(master.element[1]->integer);
            const auto first = static_cast<std::size_t>(range.element[0]->integer);
            const auto last = static_cast<std::size_t>(range.element[1]->integer);
            for (std::size_t slot = first; slot <= last && slot < slot_count; ++slot)
                set_owner(static_cast<std::uint16_t>(slot), node_address);
        }
        return;
    }
    throw connection_error("cannot read the slot map of the Redis Cluster: " + last_error);
}

std::vector<std::string> node_router::nodes() const {
    if (!options_.cluster) return addresses_;
    std::vector<std::string> serving;
    for (const std::uint16_t i : slot_owner_)
        if (i != no_owner && std::find(serving.begin(), serving.end(), addresses_[i]) == serving.end())
            serving.push_back(addresses_[i]);
    return serving;
}

void node_router::handle(const command_batch& batch, const pending& item, const std::string& address, reply r,
                         round_state& state, const reply_handler& on_reply) {
    if (r->type != REDIS_REPLY_ERROR) {
        on_reply(item.index, *r);
        return;
    }
    const std::string_view text = error_text(*r);
    if (starts_with(text, "MOVED ") || starts_with(text, "ASK ")) {
        if (!options_.cluster)
            throw server_error("Redis at " + address + " is a Redis Cluster node (it answered " + std::string(text) +
                                   "): connect in cluster mode",
                               error_remedy::cluster_mode);
        const auto [slot, target] = redirect_target(text, address);
        if (starts_with(text, "ASK ")) {
            state.retry.push_back({item.index, target});
        } else {
            set_owner(slot, target);  // resend there at once; the whole map is read again after the round
            state.retry.push_back({item.index, {}});
            state.refresh = true;
        }
        state.problem = describe(batch, item.index, address) + ": redirected (" + std::string(text) + ")";
        return;
    }
    if (transient(text)) {
        state.retry_later({item.index, {}}, describe(batch, item.index, address) + ": " + std::string(text), false);
        state.refresh = options_.cluster;
        return;
    }
    throw server_error(describe(batch, item.index, address) + ": " + std::string(text));
}

// A chunk of one node's commands, sent and not yet read.
struct node_router::flight {
    const std::string* address;
    connection* to;
    std::span<const pending> items;
    bool wait;
};

std::vector<node_router::flight> node_router::send_chunks(const command_batch& batch, const run_options& how,
                                                          std::map<std::string, std::vector<pending>>& groups,
                                                          std::size_t offset, round_state& state) {
    std::vector<flight> flights;
    const std::string_view asking = "*1\r\n$6\r\nASKING\r\n";
    command_batch wait;
    wait.start(3, "WAIT", std::to_string(how.replicas), false);
    wait.argument(static_cast<std::uint64_t>(how.replica_timeout.count()));
    for (auto& [address, items] : groups) {
        if (offset >= items.size()) continue;
        const std::span<const pending> chunk(items.data() + offset, std::min(how.depth, items.size() - offset));
        if (state.lost.contains(address)) {  // failed earlier in this round: resend the lot later
            for (const pending& item : chunk) state.retry_later(item, state.problem, true);
            continue;
        }
        try {
            connection& to = node(address);
            bool writes = false;
            for (const pending& item : chunk) {
                if (!item.ask.empty()) to.append(asking);
                to.append(batch.resp(item.index));
                writes |= batch[item.index].write;
            }
            const bool waits = writes && how.replicas > 0;
            if (waits) to.append(wait.resp(0));
            to.flush();
            flights.push_back({&address, &to, chunk, waits});
        } catch (const connection_error& e) {
            lose(address, state, e.what());
            for (const pending& item : chunk) state.retry_later(item, e.what(), true);
        }
    }
    return flights;
}

void node_router::read_chunks(const command_batch& batch, const run_options& how, const std::vector<flight>& flights,
                              round_state& state, const reply_handler& on_reply) {
    for (const flight& f : flights) {
        if (state.lost.contains(*f.address)) {  // its connection is gone (and f.to with it)
            for (const pending& item : f.items) state.retry_later(item, state.problem, true);
            continue;
        }
        std::size_t answered = 0;
        try {
            for (const pending& item : f.items) {
                if (!item.ask.empty()) {
                    const reply ok = f.to->read();
                    if (ok->type == REDIS_REPLY_ERROR)
                        throw server_error("ASKING on " + *f.address + ": " + std::string(error_text(*ok)));
                }
                handle(batch, item, *f.address, f.to->read(), state, on_reply);
                ++answered;
            }
            if (f.wait) {
                const reply acknowledged = f.to->read_after(how.replica_timeout);
                if (acknowledged->type != REDIS_REPLY_INTEGER)
                    throw server_error("WAIT on " + *f.address + ": " +
                                       (acknowledged->type == REDIS_REPLY_ERROR ? std::string(error_text(*acknowledged))
                                                                                : std::string("not an integer reply")));
                if (acknowledged->integer < static_cast<long long>(how.replicas))
                    throw replication_error("only " + std::to_string(acknowledged->integer) + " of " +
                                            std::to_string(how.replicas) + " replicas of " + *f.address +
                                            " acknowledged the adds within " +
                                            std::to_string(how.replica_timeout.count()) +
                                            " ms: they are on the master, and would be lost if it failed now");
            }
        } catch (const connection_error& e) {
            // The replies not read may or may not have been applied: resend those commands once
            // the node, or its replacement, answers; if only the WAIT's reply was lost, the
            // writes are in but their replication unknown: resend them all (and WAIT again).
            const std::string address = *f.address;
            lose(address, state, e.what());
            const std::size_t first = f.wait && answered == f.items.size() ? 0 : answered;
            for (std::size_t i = first; i < f.items.size(); ++i) state.retry_later(f.items[i], e.what(), true);
        }
    }
}

void node_router::lose(const std::string& address, round_state& state, const std::string& why) {
    drop(address);
    state.lost.insert(address);
    state.problem = why;
    state.problem_is_connection = true;
    state.refresh = options_.cluster;
}

void node_router::run(const command_batch& batch, const run_options& how, const reply_handler& on_reply) {
    std::vector<pending> todo;
    todo.reserve(batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) todo.push_back({static_cast<std::uint32_t>(i), {}});
    const auto deadline = std::chrono::steady_clock::now() + options_.retry_window;
    auto backoff = std::chrono::milliseconds(10);
    try {
        for (unsigned rounds = 1; !todo.empty(); ++rounds) {
            round_state state;
            std::map<std::string, std::vector<pending>> groups;
            std::size_t largest = 0;
            for (pending& item : todo) {
                const std::string& address = item.ask.empty() ? owner(batch[item.index].slot) : item.ask;
                if (address.empty()) {
                    state.retry_later(std::move(item), "no node serves slot " + std::to_string(batch[item.index].slot),
                                      false);
                    state.refresh = true;
                    continue;
                }
                auto& group = groups[address];
                group.push_back(std::move(item));
                largest = std::max(largest, group.size());
            }
            // Two chunks in flight per node: send the next, then read the one before.
            std::vector<flight> in_flight = send_chunks(batch, how, groups, 0, state);
            for (std::size_t offset = how.depth; !in_flight.empty(); offset += how.depth) {
                std::vector<flight> next =
                    offset < largest ? send_chunks(batch, how, groups, offset, state) : std::vector<flight>{};
                read_chunks(batch, how, in_flight, state, on_reply);
                in_flight = std::move(next);
            }
            if (state.retry.empty()) return;

            if (std::chrono::steady_clock::now() >= deadline) {
                const std::string what = state.problem + " (still failing after retrying for " +
                                         std::to_string(options_.retry_window.count()) + " ms)";
                if (state.problem_is_connection) throw connection_error(what);
                throw server_error(what);
            }
            // Redirections are followed at once, but a slot bouncing between nodes must not
            // spin: after a few rounds every retry waits.
            if (state.back_off || rounds > 4) {
                std::this_thread::sleep_for(backoff);
                backoff = std::min(backoff * 2, std::chrono::milliseconds(500));
            }
            if (state.refresh && options_.cluster) {
                try {
                    refresh_slots();
                } catch (const connection_error&) {
                    // No node answers yet (a failover in progress): the next round retries.
                }
            }
            todo = std::move(state.retry);
        }
    } catch (...) {
        // Replies may be left unread on any connection of this batch: start afresh next time.
        connections_.clear();
        throw;
    }
}

}  // namespace bloomkit::redis::detail
