// tests/redis/redis_testing.hpp — what the Redis test programs share: clients connected to the
// servers of servers.hpp, bulk answers, the skip when redis-server is missing, a shard size that
// makes even a small filter several shards, a fixture with one standalone server per test
// program (flushed before each test), and a server stopped (SIGSTOP) for as long as a test
// needs it to answer nothing: a stall that lasts until the test ends it, never one that is
// assumed to be still on (or already over) after some time.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/redis.hpp"
#include "servers.hpp"
#include "waiting.hpp"

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

// The process id of the server on `port` (its INFO server's process_id).
inline pid_t server_pid(const redis_servers& servers, int port) {
    const std::string info = servers.cli(port, "INFO", "server");
    const auto at = info.find("process_id:");
    if (at == std::string::npos)
        throw std::runtime_error("no process_id in INFO server of port " + std::to_string(port));
    return static_cast<pid_t>(std::stol(info.substr(at + 11)));
}

// The server on `port`, stopped (SIGSTOP) while this lives, or until resume(): it answers
// nothing, though its port and connections stay open, as a server that hangs. The constructor
// returns once the process is stopped.
class stopped_server {
public:
    stopped_server(const redis_servers& servers, int port) : pid_(server_pid(servers, port)) {
        if (::kill(pid_, SIGSTOP) != 0)
            throw std::runtime_error("cannot stop the server of port " + std::to_string(port));
        const bool stopped = eventually([&] {
            std::ifstream file("/proc/" + std::to_string(pid_) + "/stat");
            const std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
            const auto name_end = stat.rfind(')');
            return name_end != std::string::npos && name_end + 2 < stat.size() && stat[name_end + 2] == 'T';
        });
        if (!stopped) ADD_FAILURE() << "the server of port " << port << " did not stop";
    }
    ~stopped_server() { resume(); }
    stopped_server(const stopped_server&) = delete;
    stopped_server& operator=(const stopped_server&) = delete;

    // Lets it go on (SIGCONT); it answers what was sent meanwhile.
    void resume() {
        if (pid_ > 0) ::kill(std::exchange(pid_, 0), SIGCONT);
    }

private:
    pid_t pid_;
};

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
