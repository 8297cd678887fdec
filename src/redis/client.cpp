// src/redis/client.cpp — the public client: a node_router behind a stable interface.
#include "bloomkit/redis.hpp"
#include "node_router.hpp"

namespace bloomkit::redis {

client::client(connection_options options) : router_(std::make_unique<detail::node_router>(std::move(options))) {}
client::client(client&&) noexcept = default;
client& client::operator=(client&&) noexcept = default;
client::~client() = default;

std::string client::command(const std::vector<std::string>& arguments) {
    if (arguments.empty()) throw invalid_argument("a Redis command needs at least its name");
    detail::command_batch batch;
    if (arguments.size() == 1) batch.start_without_key(1, arguments[0]);
    else batch.start(arguments.size(), arguments[0], arguments[1], true);
    for (std::size_t i = 2; i < arguments.size(); ++i) batch.argument(arguments[i]);
    std::string text;
    router_->run(batch, {}, [&](std::size_t, const redisReply& r) { text = detail::reply_text(r); });
    return text;
}

std::vector<std::string> client::nodes() const { return router_->nodes(); }
const connection_options& client::options() const noexcept { return router_->options(); }

detail::node_router& detail::router_of(client& c) noexcept { return *c.router_; }

}  // namespace bloomkit::redis
