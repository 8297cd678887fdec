// tests/redis/servers.hpp — throwaway real Redis servers for the Redis filter's GoogleTest
// programs, benchmarks and examples: one standalone server or a local Redis Cluster (with
// replicas), on free loopback ports, started by scripts/redis-cluster.sh in a fresh temporary
// directory and stopped (directory removed) by the destructor. Header-only; needs no hiredis.
//
//   auto redis = bloomkit_test::redis_servers::cluster(3, 1);   // 3 masters, 1 replica each
//   connect(redis.seeds());                                      // "127.0.0.1:P1,127.0.0.1:P2,..."
//   redis.cli(redis.masters()[0], "CONFIG", "SET", "maxmemory", "1mb");
//   redis.cli(redis.ports()[0], "-c", "DEL", "key");            // -c follows MOVED / ASK
//   auto moving = redis.reshard_async(redis.masters()[0], redis.masters()[1], 500);
//   ... insert meanwhile ...; moving.get();                      // rethrows a failed reshard
//   int master = redis.masters()[1];
//   redis.kill(master); redis.wait_failover(master);             // needs >= 3 masters, replicas
//
// The factories throw std::runtime_error when the servers do not come up, and say to run
// scripts/install-deps.sh when redis-server / redis-cli are missing (available() tells
// beforehand, for tests that prefer GTEST_SKIP). The script also watches this process: if it
// dies without running the destructor (a crash, a ctest timeout), the servers stop within ~1 s.
// Every server runs without persistence and with DEBUG allowed from loopback.
// Needs BLOOMKIT_SOURCE_DIR, the project root as a string literal (the CMake defines it).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef BLOOMKIT_SOURCE_DIR
#error "define BLOOMKIT_SOURCE_DIR as the project root, e.g. -DBLOOMKIT_SOURCE_DIR='\"/src/bloomkit\"'"
#endif

namespace bloomkit_test {

class redis_servers {
public:
    // True when redis-server and redis-cli are on PATH.
    static bool available() { return on_path("redis-server") && on_path("redis-cli"); }

    // One non-cluster server; extra_args go to redis-server ("--maxmemory", "1mb", ...).
    static redis_servers standalone(std::vector<std::string> extra_args = {}) {
        return start({"--standalone"}, extra_args);
    }

    // A cluster of `masters` masters with `replicas` replicas each, all slots covered, every node
    // ok and every replica in sync when this returns. Fewer than 3 masters work too (set up by
    // hand; redis-cli --cluster create refuses them), but then no failover can happen.
    static redis_servers cluster(int masters = 3, int replicas = 0, std::vector<std::string> extra_args = {}) {
        return start({"--masters", std::to_string(masters), "--replicas", std::to_string(replicas)}, extra_args);
    }

    redis_servers(const redis_servers&) = delete;
    redis_servers& operator=(const redis_servers&) = delete;
    redis_servers(redis_servers&& other) noexcept
        : dir_(std::exchange(other.dir_, {})), ports_(std::move(other.ports_)) {}
    redis_servers& operator=(redis_servers&& other) noexcept {
        if (this != &other) {
            stop();
            dir_ = std::exchange(other.dir_, {});
            ports_ = std::move(other.ports_);
        }
        return *this;
    }
    ~redis_servers() { stop(); }

    // Shuts every server down and removes the directory (the destructor does it too).
    void stop() noexcept {
        if (dir_.empty()) return;
        try {
            const result r = run({script(), "stop", dir_});
            if (r.status != 0) std::fprintf(stderr, "redis_servers: stop %s: %s\n", dir_.c_str(), r.output.c_str());
        } catch (...) {}
        dir_.clear();
    }

    // All ports, masters first (in slot order), then replicas (in their masters' order).
    const std::vector<int>& ports() const { return ports_; }
    // The current masters and replicas (after wait_failover: the promoted replica is a master,
    // the killed node is in neither).
    std::vector<int> masters() const { return read_ports("masters"); }
    std::vector<int> replicas() const { return read_ports("replicas"); }
    // The servers' directory: DIR/<port>/redis.log holds each server's log.
    const std::string& dir() const { return dir_; }

    // "redis://127.0.0.1:PORT" of the first node.
    std::string url() const { return "redis://127.0.0.1:" + std::to_string(ports_.at(0)); }
    // "127.0.0.1:P1,127.0.0.1:P2,...": every node.
    std::string seeds() const {
        std::string out;
        for (int port : ports_) {  // appends, not "a" + b: GCC 12 -O3 warns falsely (-Wrestrict) on those
            if (!out.empty()) out.push_back(',');
            out.append("127.0.0.1:").append(std::to_string(port));
        }
        return out;
    }

    // Runs `redis-cli -p PORT args...` and returns its output, trimmed (stderr included, so a
    // connection error shows; an error reply reads e.g. "ERR ..." or "NOAUTH ..."). Arguments are
    // strings or numbers; a leading "-c" follows cluster redirections, "--user U --pass P" logs in.
    template <class... Args>
    std::string cli(int port, const Args&... args) const {
        std::vector<std::string> argv{"redis-cli",         "-h",           "127.0.0.1", "-p", std::to_string(port),
                                      "--no-auth-warning", to_arg(args)...};
        return trim(run(argv).output);
    }

    // SIGKILLs one server (and waits until it is gone).
    void kill(int port) const { checked({"kill", dir_, std::to_string(port)}); }
    // After kill(master): waits (<= 20 s) until its replica has taken over and every surviving
    // node reports cluster_state:ok.
    void wait_failover(int port) const { checked({"wait-failover", dir_, std::to_string(port)}); }
    // Moves `slots` slots from master `from` to master `to`, and waits until all nodes agree.
    void reshard(int from, int to, int slots) const {
        checked({"reshard", dir_, std::to_string(from), std::to_string(to), std::to_string(slots)});
    }
    // The same in a thread, for clients to keep working meanwhile: get() waits and rethrows a
    // failure. (Call get() before this object goes away.)
    std::future<void> reshard_async(int from, int to, int slots) const {
        std::vector<std::string> argv{
            script(), "reshard", dir_, std::to_string(from), std::to_string(to), std::to_string(slots)};
        return std::async(std::launch::async, [argv] { check(run(argv), argv); });
    }

private:
    struct result {
        int status;          // exit status; -1 when it did not exit normally
        std::string output;  // stdout and stderr
    };

    redis_servers(std::string dir, std::vector<int> ports) : dir_(std::move(dir)), ports_(std::move(ports)) {}

    static std::string script() { return std::string(BLOOMKIT_SOURCE_DIR) + "/scripts/redis-cluster.sh"; }

    static redis_servers start(std::vector<std::string> options, const std::vector<std::string>& extra_args) {
        const char* tmp = std::getenv("TMPDIR");
        std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/bloomkit-redis.XXXXXX";
        if (!mkdtemp(dir.data())) throw std::runtime_error("redis_servers: mkdtemp failed for " + dir);
        std::vector<std::string> argv{script(), "start", dir, "--owner", std::to_string(getpid())};
        argv.insert(argv.end(), options.begin(), options.end());
        argv.emplace_back("--");
        argv.insert(argv.end(), extra_args.begin(), extra_args.end());
        result r = run(argv);
        if (r.status != 0) {
            std::error_code ignored;
            std::filesystem::remove(dir, ignored);  // still there (empty) when the script stopped early
            if (r.status == 3)
                throw std::runtime_error(
                    "redis_servers: redis-server or redis-cli is not installed; run "
                    "scripts/install-deps.sh (Debian packages redis-server redis-tools)");
            throw std::runtime_error("redis_servers: " + join(argv) + " failed:\n" + r.output);
        }
        redis_servers servers(dir, {});
        servers.ports_ = servers.read_ports("ports");
        if (servers.ports_.empty()) throw std::runtime_error("redis_servers: no ports in " + dir + "/ports");
        return servers;
    }

    std::vector<int> read_ports(const char* file) const {
        std::vector<int> ports;
        std::ifstream in(dir_ + "/" + file);
        for (int port; in >> port;) ports.push_back(port);
        return ports;
    }

    void checked(std::vector<std::string> args) const {
        args.insert(args.begin(), script());
        check(run(args), args);
    }
    static void check(const result& r, const std::vector<std::string>& argv) {
        if (r.status != 0) throw std::runtime_error("redis_servers: " + join(argv) + " failed:\n" + r.output);
    }

    // Runs argv (through sh, each word quoted) with stderr into stdout; collects the output.
    static result run(const std::vector<std::string>& argv) {
        std::string command = join(argv) + " 2>&1";
        FILE* pipe = popen(command.c_str(), "r");
        if (!pipe) throw std::runtime_error("redis_servers: popen failed for " + command);
        std::string output;
        char buffer[4096];
        for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
        int status = pclose(pipe);
        return {status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1, std::move(output)};
    }

    static std::string quote(std::string_view word) {
        std::string out = "'";
        for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        return out + "'";
    }
    static std::string join(const std::vector<std::string>& argv) {
        std::string out;
        for (const auto& word : argv) {
            if (!out.empty()) out.push_back(' ');
            out.append(quote(word));
        }
        return out;
    }
    static std::string trim(std::string_view s) {
        const auto first = s.find_first_not_of(" \t\r\n");
        if (first == std::string_view::npos) return {};
        return std::string(s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1));
    }
    template <class T>
    static std::string to_arg(const T& value) {
        if constexpr (std::is_arithmetic_v<T>) return std::to_string(value);
        else return std::string(std::string_view(value));
    }
    static bool on_path(std::string_view program) {
        const char* path = std::getenv("PATH");
        std::string_view dirs = path ? path : "/usr/bin:/bin";
        while (!dirs.empty()) {
            const auto end = dirs.find(':');
            std::string file = std::string(dirs.substr(0, end)) + "/" + std::string(program);
            if (access(file.c_str(), X_OK) == 0) return true;
            dirs = end == std::string_view::npos ? std::string_view{} : dirs.substr(end + 1);
        }
        return false;
    }

    std::string dir_;  // empty once stopped (or moved from)
    std::vector<int> ports_;
};

}  // namespace bloomkit_test
