// tests/redis/redis_testing.hpp — what the Redis test programs share: clients connected to the
// servers of servers.hpp, bulk answers, the skip when redis-server is missing, a shard size that
// makes even a small filter several shards, and a fixture with one standalone server per test
// program (flushed before each test).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/redis.hpp"
#include "servers.hpp"

namespace bloomkit_test {

inline bloomkit::redis::client connect(const redis_servers& servers, bloomkit::redis::connection_options o = {}) {
    o.url = servers.url();
    return bloomkit::redis::client(o);
}

inline bloomkit::redis::client connect_cluster(const redis_servers& servers,
                                               bloomkit::redis::connection_options o = {}) {
    o.url = servers.seeds();
    o.cluster = true;
    return bloomkit::redis::client(o);
}

// Answers of `f` for `keys`, in bulk.
template <class Filter, class Keys>
std::vector<char> answers_of(const Filter& f, const Keys& keys) {
    std::vector<char> out(keys.size());
    f.contains(keys.begin(), keys.end(), out.begin());
    return out;
}

// How many of `keys` `f` answers present.
template <class Filter, class Keys>
long found_in(const Filter& f, const Keys& keys) {
    const std::vector<char> answers = answers_of(f, keys);
    return static_cast<long>(std::count(answers.begin(), answers.end(), 1));
}

// A filter in a tiny shard size, so that even a small one has several shards.
inline constexpr bloomkit::redis::filter_options small_shards{.max_shard_bytes = 64 << 10};

// One standalone server for the whole program, flushed before each test; it listens on a Unix
// socket too (socket()).
class Standalone : public testing::Test {
protected:
    static void SetUpTestSuite() {
        if (redis_servers::available())
            servers_ = std::make_unique<redis_servers>(
                redis_servers::standalone({"--unixsocket", socket(), "--unixsocketperm", "700"}));
    }
    static void TearDownTestSuite() { servers_.reset(); }
    void SetUp() override {
        if (!redis_servers::available()) GTEST_SKIP() << "redis-server is not installed (scripts/install-deps.sh)";
        servers_->cli(port(), "FLUSHALL");
    }
    static int port() { return servers_->ports().front(); }
    static std::string socket() { return "/tmp/bloomkit-test-" + std::to_string(getpid()) + ".sock"; }
    static redis_servers& servers() { return *servers_; }
    static inline std::unique_ptr<redis_servers> servers_;
};

}  // namespace bloomkit_test

// Without redis-server (a plain build on a machine without scripts/install-deps.sh), the tests
// that need one are skipped, saying why; make test installs it.
#define REQUIRE_REDIS_SERVER()                      \
    if (!bloomkit_test::redis_servers::available()) \
    GTEST_SKIP() << "redis-server is not installed (scripts/install-deps.sh)"
