// src/redis/connection.hpp — one connection to one Redis server (a hiredis context), used in
// blocking mode with pipelines: append commands, flush, then read their replies in order.
//
// Every failure throws, and a connection that failed is closed for good (hiredis leaves a
// context that failed mid-pipeline unusable): the router makes a new one.
#pragma once

#include <hiredis/hiredis.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "bloomkit/redis.hpp"

namespace bloomkit::redis::detail {

struct reply_deleter {
    void operator()(redisReply* r) const noexcept { freeReplyObject(r); }
};
/// A reply read from a connection; owns its hiredis objects.
using reply = std::unique_ptr<redisReply, reply_deleter>;

/// An error reply's text ("MOVED 3999 127.0.0.1:6381", "OOM command not allowed…").
[[nodiscard]] inline std::string_view error_text(const redisReply& r) noexcept { return {r.str, r.len}; }

/// A reply as text: a status or string as is, an integer in decimal, nil as "", an array's
/// elements one per line (nested arrays flattened).
[[nodiscard]] std::string reply_text(const redisReply& r);

class connection {
public:
    /// Connects (within options.connect_timeout), sets the command timeout, and
    /// authenticates; selects `to.db` if it is not 0. Throws connection_error or server_error
    /// (a refused password or user).
    connection(const endpoint& to, const connection_options& options);

    connection(const connection&) = delete;
    connection& operator=(const connection&) = delete;

    /// Queues one command, already encoded in RESP, to be sent by flush().
    void append(std::string_view resp);
    /// Sends every queued command.
    void flush();
    /// The next reply, in order. Throws connection_error on a timeout or a lost connection.
    reply read();
    /// The same, for a reply the server may hold back for up to `delay` on purpose (WAIT's):
    /// the command timeout counts from then.
    reply read_after(std::chrono::milliseconds delay);
    /// append + flush + read, for one-off commands.
    reply call(std::string_view resp);

    /// "host:port", or the socket's path.
    [[nodiscard]] const std::string& address() const noexcept { return address_; }

private:
    [[noreturn]] void fail(std::string_view doing);
    void set_timeout(std::chrono::milliseconds timeout);

    struct context_deleter {
        void operator()(redisContext* c) const noexcept { redisFree(c); }
    };
    std::unique_ptr<redisContext, context_deleter> context_;
    std::string address_;
    std::chrono::milliseconds timeout_;
};

/// "host:port" (or the socket's path) of an endpoint.
[[nodiscard]] std::string address_of(const endpoint& e);

}  // namespace bloomkit::redis::detail
