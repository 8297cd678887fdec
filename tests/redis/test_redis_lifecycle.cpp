// tests/redis/test_redis_lifecycle.cpp — how a Redis-backed filter (bloomkit/redis.hpp) comes to
// be and goes away, against a real standalone redis-server (tests/redis/servers.hpp): create,
// open, push and drop, with the claims of NAME:meta, its recovery from the shards' headers,
// and everything they must refuse.
//
// What is proven: create is idempotent, races between instances end in one filter, and another
// parameter (the key format too) is refused; a claim is waited for while it makes progress,
// never finished by anyone but its owner, and taken over only when asked — after which the old
// owner, woken up, destroys nothing; a lost NAME:meta is restored, never a reason to wipe the
// shards; keys that are not ours are never overwritten; a drop during adds leaves no key
// behind, and an interrupted drop is finished; a hostile or broken record is refused before
// anything is allocated for it; a name with a hash tag is refused.
//
// Nothing assumes how soon another thread or process gets anywhere: a pusher is held half-way
// by a relay that stops handing it replies once its claim is seen (it cannot go on, however
// fast it runs), a drop comes once an add is done and the adds go on until one has failed after
// it, and a refusal "before anything is allocated" is told by the memory the process took.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "bloomkit/redis.hpp"
#include "key_sets.hpp"
#include "redis_testing.hpp"

using namespace bloomkit;
using namespace std::chrono_literals;
using bloomkit_test::connect;
using bloomkit_test::found_in;
using bloomkit_test::random_numbers;
using bloomkit_test::small_shards;
using bloomkit_test::Standalone;

namespace {

// A TCP relay on a free loopback port to the server on `server_port`: what clients send goes on
// to the server, and the server's replies back to them, until `hold()`, asked before each reply
// is handed on, says yes: from then on the replies are kept back (the client waits for them,
// however fast it runs) until release(). Its thread asks hold(), so hold() may use a client of
// its own.
class holding_relay {
public:
    holding_relay(int server_port, std::function<bool()> hold) : server_port_(server_port), hold_(std::move(hold)) {
        listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address = loopback(0);
        socklen_t size = sizeof address;
        if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
            ::listen(listener_, 8) != 0 ||
            ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size) != 0 ||
            ::pipe2(wake_, O_CLOEXEC) != 0)
            throw std::runtime_error("holding_relay: cannot listen");
        port_ = ntohs(address.sin_port);
        thread_ = std::thread([this] { run(); });
    }
    ~holding_relay() {
        stopping_ = true;
        wake();
        thread_.join();
        for (const link& l : links_) ::close(l.client), ::close(l.server);
        ::close(listener_), ::close(wake_[0]), ::close(wake_[1]);
    }
    holding_relay(const holding_relay&) = delete;
    holding_relay& operator=(const holding_relay&) = delete;

    [[nodiscard]] int port() const { return port_; }
    // Waits until the replies are held back; false if they are not within the patience.
    bool wait_held() const {
        return bloomkit_test::eventually([&] { return held_.load(); });
    }
    // Hands on the replies kept back, and every reply from now on.
    void release() {
        released_ = true;
        wake();
    }

private:
    struct link {
        int client, server;
        std::string kept;  // replies held back
    };

    static sockaddr_in loopback(int port) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        return address;
    }
    static bool send_all(int fd, std::string_view bytes) {
        while (!bytes.empty()) {
            const ::ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
            if (sent <= 0) return false;
            bytes.remove_prefix(static_cast<std::size_t>(sent));
        }
        return true;
    }
    void wake() { (void)!::write(wake_[1], "!", 1); }

    void accept_one() {
        const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) return;
        const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        const sockaddr_in address = loopback(server_port_);
        if (server < 0 || ::connect(server, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
            ::close(client);
            if (server >= 0) ::close(server);
            return;
        }
        links_.push_back({client, server, {}});
    }
    // Moves what `from` has to say; false once it has closed (or failed).
    bool forward(link& l, bool from_server) {
        char buffer[65536];
        const ::ssize_t got = ::recv(from_server ? l.server : l.client, buffer, sizeof buffer, 0);
        if (got <= 0) return false;
        const std::string_view bytes(buffer, static_cast<std::size_t>(got));
        if (!from_server) return send_all(l.server, bytes);
        if (!held_ && !released_ && hold_()) held_ = true;
        if (held_ && !released_) {
            l.kept.append(bytes);
            return true;
        }
        return send_all(l.client, bytes);
    }
    void run() {
        while (!stopping_) {
            if (released_) {
                held_ = false;
                for (link& l : links_) (void)send_all(l.client, std::exchange(l.kept, {}));
            }
            std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {listener_, POLLIN, 0}};
            for (const link& l : links_) fds.push_back({l.client, POLLIN, 0}), fds.push_back({l.server, POLLIN, 0});
            if (::poll(fds.data(), fds.size(), -1) < 0) continue;
            if (fds[0].revents != 0) {
                char drained[64];
                (void)!::read(wake_[0], drained, sizeof drained);
            }
            // The links polled: one accepted now is at the end, with no entry in fds yet.
            const std::size_t polled = links_.size();
            if (fds[1].revents != 0) accept_one();
            for (std::size_t i = polled; i-- > 0;) {
                const short from_client = fds[2 + 2 * i].revents, from_server = fds[3 + 2 * i].revents;
                const bool open =
                    (from_client == 0 || forward(links_[i], false)) && (from_server == 0 || forward(links_[i], true));
                if (!open) {
                    ::close(links_[i].client), ::close(links_[i].server);
                    links_.erase(links_.begin() + static_cast<long>(i));
                }
            }
        }
    }

    int server_port_;
    std::function<bool()> hold_;
    int listener_ = -1, port_ = 0;
    int wake_[2] = {-1, -1};
    std::vector<link> links_;  // the relay's thread's alone
    std::atomic<bool> held_{false}, released_{false}, stopping_{false};
    std::thread thread_;
};

// `text` (NAME:meta's) with the line of each field replaced by "field value" (added when it
// has none, removed when the value is empty).
std::string with_fields(std::string text, const std::vector<std::pair<std::string, std::string>>& fields) {
    for (const auto& [field, value] : fields) {
        const std::string start = field + " ";
        const auto at = text.starts_with(start) ? 0 : text.find("\n" + start);
        const std::string line = value.empty() ? "" : start + value + "\n";
        if (at == std::string::npos) {
            text += line;
        } else {
            const auto begin = at == 0 ? 0 : at + 1;
            text.replace(begin, text.find('\n', begin) + 1 - begin, line);
        }
    }
    return text;
}

constexpr const char* stranger = "0123456789abcdef0123456789abcdef";  // another process's owner token

// The most memory this process has held at once, in KiB (getrusage's ru_maxrss).
long peak_memory_kib() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

class Lifecycle : public Standalone {
protected:
    // The server's clock, in ms (as NAME:meta's "written" is).
    static std::int64_t server_ms() {
        const std::string time = servers().cli(port(), "TIME");
        const auto newline = time.find('\n');
        return std::stoll(time.substr(0, newline)) * 1000 + std::stoll(time.substr(newline + 1)) / 1000;
    }
    // NAME:meta's text (redis-cli trims its last newline; every record ends with one).
    static std::string meta(const std::string& name) { return servers().cli(port(), "GET", name + ":meta") + "\n"; }
    static void set_meta(const std::string& name, const std::string& text) {
        servers().cli(port(), "SET", name + ":meta", text);
    }
};

}  // namespace

TEST_F(Lifecycle, CreateIsIdempotentAndRefusesOtherParameters) {
    redis::client c = connect(servers());
    redis::bloom_filter a =
        redis::bloom_filter::create(c, "shared", 10000, 0.01, {.hashing = {.keys = key_format::u64}});
    a.insert(std::uint64_t{7});
    redis::bloom_filter b = redis::bloom_filter::create(c, "shared", 10000, 0.01);  // another instance, keys unsaid
    EXPECT_TRUE(b.contains(std::uint64_t{7}));
    EXPECT_EQ(b.description().geometry, a.description().geometry);
    EXPECT_EQ(b.recorded_key_format(), key_format::u64);
    try {
        (void)redis::bloom_filter::create(c, "shared", 10000, 0.001);
        FAIL() << "created over a filter of other parameters";
    } catch (const redis::filter_mismatch& e) {
        EXPECT_NE(std::string(e.what()).find("fpr 0.01 in Redis, 0.001 asked"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)redis::bloom_filter::create(c, "shared", 10000, 0.01, {.hashing = {.seed = 7}}),
                 redis::filter_mismatch);
    try {
        (void)redis::bloom_filter::create(c, "shared", 10000, 0.01, {.hashing = {.keys = key_format::text}});
        FAIL() << "created a filter of text keys over one of integers";
    } catch (const redis::filter_mismatch& e) {
        EXPECT_NE(std::string(e.what()).find("keys u64 in Redis, text asked"), std::string::npos) << e.what();
    }
    (void)redis::bloom_filter::create(c, "shared", 10000, 0.01, {.hashing = {.keys = key_format::u64}});
    // u64 and i64 hold different integers (-1 and 2^64 - 1 hash alike): another filter.
    EXPECT_THROW((void)redis::bloom_filter::create(c, "shared", 10000, 0.01, {.hashing = {.keys = key_format::i64}}),
                 redis::filter_mismatch);
    EXPECT_THROW((void)redis::bloom_filter::open(c, "nothing-here"), redis::filter_mismatch);

    // Instances starting at once: one makes the filter, the others wait and open it.
    std::vector<std::uint64_t> generations(4);
    std::vector<std::thread> instances;
    for (std::size_t i = 0; i < generations.size(); ++i)
        instances.emplace_back([&, i] {
            redis::client mine = connect(servers());
            generations[i] =
                redis::bloom_filter::create(mine, "raced", 2000000, 0.01, small_shards).description().generation;
        });
    for (std::thread& t : instances) t.join();
    EXPECT_NE(generations[0], 0U);
    EXPECT_EQ(std::count(generations.begin(), generations.end(), generations[0]), 4);
}

TEST_F(Lifecycle, AKeyFormatIsRecordedOnceAndAContradictionRefused) {
    redis::client c = connect(servers());
    redis::bloom_filter f = redis::bloom_filter::create(c, "ids", 10000, 0.01);  // a program that did not say
    EXPECT_EQ(f.recorded_key_format(), key_format::unrecorded);
    f.record_key_format(key_format::u64);
    EXPECT_EQ(redis::bloom_filter::open(c, "ids").recorded_key_format(), key_format::u64);
    EXPECT_NE(meta("ids").find("keys u64\n"), std::string::npos);
    EXPECT_NO_THROW(f.record_key_format(key_format::i64));  // the same integers: nothing to change
    EXPECT_THROW(f.record_key_format(key_format::text), redis::filter_mismatch);
    // The shards' headers say so too: a record restored from them keeps it.
    servers().cli(port(), "DEL", "ids:meta");
    EXPECT_EQ(redis::bloom_filter::open(c, "ids").recorded_key_format(), key_format::u64);
}

TEST_F(Lifecycle, AFreshClaimIsWaitedForAndAStaleOneTakenOverOnlyWhenAsked) {
    redis::client c = connect(servers());
    (void)redis::bloom_filter::create(c, "model", 10000, 0.01);
    // Counted from before the claim's last progress (its "written"), however long setting it takes:
    // the create cannot refuse before that progress is 600 ms old.
    const auto start = std::chrono::steady_clock::now();
    // As a creator that is at work (or has died) leaves it: state creating, under its owner.
    const std::string claim = with_fields(
        meta("model"), {{"state", "creating"}, {"owner", stranger}, {"written", std::to_string(server_ms())}});
    set_meta("claimed", claim);

    // Waited for while its last progress is recent; then refused, saying whose and how old.
    try {
        (void)redis::bloom_filter::create(c, "claimed", 10000, 0.01, {.stale_claim = 600ms});
        FAIL() << "created over another process's claim";
    } catch (const redis::filter_mismatch& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("process 01234567"), std::string::npos) << what;
        EXPECT_NE(what.find("s ago"), std::string::npos) << what;
        EXPECT_NE(what.find("take its claim over"), std::string::npos) << what;
        EXPECT_EQ(e.remedy(), redis::error_remedy::take_over_or_drop);  // the command words it as its options
    }
    EXPECT_GE(std::chrono::steady_clock::now() - start, 500ms) << "did not wait for a claim making progress";
    // Never finished by anyone else, never opened meanwhile, never pushed over.
    EXPECT_EQ(meta("claimed"), claim);
    EXPECT_EQ(servers().cli(port(), "EXISTS", "claimed:0"), "0");
    EXPECT_THROW((void)redis::bloom_filter::open(c, "claimed"), redis::filter_mismatch);
    const block_bloom_filter local(10000, 0.01);
    EXPECT_THROW((void)redis::bloom_filter::push(c, "claimed", local, {.stale_claim = 600ms}), redis::filter_mismatch);
    EXPECT_EQ(meta("claimed"), claim);

    // Taken over when asked: a new owner and a new generation, then ready.
    redis::bloom_filter f =
        redis::bloom_filter::create(c, "claimed", 10000, 0.01, {.stale_claim = 600ms, .take_over = true});
    EXPECT_TRUE(f.insert(std::string("k")));
    EXPECT_TRUE(redis::bloom_filter::open(c, "claimed").contains(std::string("k")));
    EXPECT_EQ(meta("claimed").find(stranger), std::string::npos);
    const std::string claimed_generation = claim.substr(claim.find("generation "), 27);
    EXPECT_EQ(meta("claimed").find(claimed_generation), std::string::npos);
}

TEST_F(Lifecycle, AStalledPusherThatWakesUpAfterATakeOverDestroysNothing) {
    // A push stopped (SIGSTOP) half-way, its claim taken over by a create with the file's
    // parameters, keys added; then the pusher wakes up and carries on. The pusher talks to the
    // server through a relay that holds its replies back once its claim is there: it is caught
    // half-way whatever its speed.
    block_bloom_filter local(16'000'000, 0.01, {.keys = key_format::u64});  // ~19 MB: 300 shards of 64 KiB
    const auto preloaded = random_numbers(10000, 20);
    local.insert(preloaded.begin(), preloaded.end());
    redis::client watcher = connect(servers());  // the relay's, in its thread
    holding_relay relay(port(), [&] {
        return watcher.command({"GET", "pushed:meta"}).find("state creating") != std::string::npos;
    });
    const pid_t pusher = fork();
    ASSERT_GE(pusher, 0);
    if (pusher == 0) {
        int status = 0;
        try {
            redis::client mine({.url = "redis://127.0.0.1:" + std::to_string(relay.port())});
            redis::filter_options slow = small_shards;
            slow.pipeline_depth = 1;
            (void)redis::bloom_filter::push(mine, "pushed", local, slow);
        } catch (...) {
            status = 1;
        }
        _exit(status);
    }
    redis::client c = connect(servers());
    const bool held = relay.wait_held();
    kill(pusher, SIGSTOP);
    const std::string claim = meta("pushed");
    if (!held || claim.find("state creating") == std::string::npos) {
        kill(pusher, SIGKILL);
        waitpid(pusher, nullptr, 0);
        FAIL() << "the push was not caught half-way: " << claim;
    }

    // Stopped, the pusher makes no progress: 300 ms on its claim is stale (200 ms) however slow the
    // machine, and the create would wait for that anyway.
    std::this_thread::sleep_for(300ms);
    redis::filter_options take_over = small_shards;
    take_over.stale_claim = 200ms;
    take_over.take_over = true;
    redis::bloom_filter f =
        redis::bloom_filter::create(c, "pushed", local.expected_keys(), local.target_fpr(), take_over);
    const auto keys = random_numbers(100000, 21);
    f.insert(keys.begin(), keys.end());

    kill(pusher, SIGCONT);
    relay.release();
    int status = 0;
    waitpid(pusher, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << "the stalled push did not stop";
    EXPECT_EQ(found_in(f, keys), static_cast<long>(keys.size()));
    const redis::bloom_filter reopened = redis::bloom_filter::open(c, "pushed");
    EXPECT_EQ(reopened.description().generation, f.description().generation);
    EXPECT_EQ(found_in(reopened, keys), static_cast<long>(keys.size()));
}

TEST_F(Lifecycle, ALostMetaIsRestoredNeverWiped) {
    redis::client c = connect(servers());
    const redis::filter_options o{.hashing = {.keys = key_format::u64}, .max_shard_bytes = 64 << 10};
    redis::bloom_filter f = redis::bloom_filter::create(c, "users", 200000, 0.01, o);
    ASSERT_GE(f.description().shards, 3U);
    const auto keys = random_numbers(20000, 15);
    f.insert(keys.begin(), keys.end());
    const auto all = static_cast<long>(keys.size());

    // Evicted first under allkeys-lru (it is read only at open), or deleted: the next create
    // (every instance runs one at start) finds the filter in its shards.
    servers().cli(port(), "DEL", "users:meta");
    const redis::bloom_filter again = redis::bloom_filter::create(c, "users", 200000, 0.01, o);
    EXPECT_EQ(again.description().generation, f.description().generation);
    EXPECT_EQ(again.recorded_key_format(), key_format::u64);
    EXPECT_EQ(found_in(again, keys), all);
    EXPECT_NE(meta("users").find("state ready"), std::string::npos);
    // So do open and drop; a create of other parameters is refused, not a wipe.
    servers().cli(port(), "DEL", "users:meta");
    EXPECT_EQ(found_in(redis::bloom_filter::open(c, "users"), keys), all);
    servers().cli(port(), "DEL", "users:meta");
    EXPECT_THROW((void)redis::bloom_filter::create(c, "users", 300000, 0.01, o), redis::filter_mismatch);
    EXPECT_EQ(found_in(f, keys), all);
    // With its first shard gone too, another shard restores it; the lost one fails closed.
    servers().cli(port(), "DEL", "users:meta", "users:0");
    const redis::bloom_filter partial = redis::bloom_filter::create(c, "users", 200000, 0.01, o);
    EXPECT_EQ(partial.description().generation, f.description().generation);
    EXPECT_THROW((void)found_in(partial, keys), redis::shard_missing);
    servers().cli(port(), "DEL", "users:meta");
    EXPECT_TRUE(redis::bloom_filter::drop(c, "users"));
    EXPECT_EQ(servers().cli(port(), "DBSIZE"), "0");
}

TEST_F(Lifecycle, KeysThatAreNotOursAreNeverOverwritten) {
    servers().cli(port(), "HSET", "session:0", "user", "alice");
    servers().cli(port(), "RPUSH", "session:1", "event");
    servers().cli(port(), "SET", "session:2", "plain");
    redis::client c = connect(servers());
    try {
        (void)redis::bloom_filter::create(c, "session", 200000, 0.01, small_shards);
        FAIL() << "created over other data";
    } catch (const redis::filter_mismatch& e) {
        EXPECT_NE(std::string(e.what()).find("session:0 exists and is a hash"), std::string::npos) << e.what();
    }
    const block_bloom_filter local(200000, 0.01);
    EXPECT_THROW((void)redis::bloom_filter::push(c, "session", local, small_shards), redis::filter_mismatch);
    EXPECT_EQ(servers().cli(port(), "TYPE", "session:0"), "hash");
    EXPECT_EQ(servers().cli(port(), "TYPE", "session:1"), "list");
    EXPECT_EQ(servers().cli(port(), "GET", "session:2"), "plain");
    EXPECT_EQ(servers().cli(port(), "DBSIZE"), "3") << "a record or shards were left behind";
    servers().cli(port(), "DEL", "session:0", "session:1");
    try {
        (void)redis::bloom_filter::create(c, "session", 200000, 0.01, small_shards);
        FAIL() << "created over a string";
    } catch (const redis::filter_mismatch& e) {
        EXPECT_NE(std::string(e.what()).find("session:2 exists and is a string of 5 bytes"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(servers().cli(port(), "GET", "session:2"), "plain");
    EXPECT_EQ(servers().cli(port(), "DBSIZE"), "1");
    servers().cli(port(), "HSET", "taken:meta", "a", "b");
    EXPECT_THROW((void)redis::bloom_filter::create(c, "taken", 1000, 0.01), redis::filter_mismatch);
    EXPECT_EQ(servers().cli(port(), "TYPE", "taken:meta"), "hash");
}

TEST_F(Lifecycle, ADropDuringAddsLeavesNoKeysBehind) {
    redis::client c = connect(servers());
    (void)redis::bloom_filter::create(c, "busy", 200000, 0.01, small_shards);
    std::atomic<bool> stop = false;
    std::atomic<int> adds = 0, failures = 0;
    std::thread adder([&] {
        redis::client mine = connect(servers());
        redis::bloom_filter f = redis::bloom_filter::open(mine, "busy");
        const auto keys = random_numbers(2000, 16);
        while (!stop) {
            try {
                f.insert(keys.begin(), keys.end());
                ++adds;
            } catch (const redis::shard_missing&) {
                ++failures;
            }
        }
    });
    // The drop comes while the adds go on (one is done), and they go on until one has failed
    // after it (or, should none fail, for the patience of waiting.hpp).
    EXPECT_TRUE(bloomkit_test::eventually([&] { return adds.load() > 0; })) << "no add ran before the drop";
    EXPECT_TRUE(redis::bloom_filter::drop(c, "busy"));
    (void)bloomkit_test::eventually([&] { return failures.load() > 0; });
    stop = true;
    adder.join();
    EXPECT_GT(failures.load(), 0) << "no add ran after the drop";
    EXPECT_EQ(servers().cli(port(), "DBSIZE"), "0") << servers().cli(port(), "KEYS", "*");
    EXPECT_FALSE(redis::bloom_filter::drop(c, "busy"));
}

TEST_F(Lifecycle, AnInterruptedDropIsFinishedByTheNextDrop) {
    redis::client c = connect(servers());
    redis::bloom_filter f = redis::bloom_filter::create(c, "half", 200000, 0.01, small_shards);
    // As a drop that died after its first step leaves it.
    set_meta("half", with_fields(meta("half"), {{"state", "dropping"},
                                                {"owner", stranger},
                                                {"written", std::to_string(server_ms() - 60000)}}));
    EXPECT_THROW((void)redis::bloom_filter::open(c, "half"), redis::filter_mismatch);
    try {
        (void)redis::bloom_filter::create(c, "half", 200000, 0.01, small_shards);
        FAIL() << "created over an interrupted drop";
    } catch (const redis::filter_mismatch& e) {
        EXPECT_NE(std::string(e.what()).find("finish the drop"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(redis::bloom_filter::drop(c, "half"));
    EXPECT_EQ(servers().cli(port(), "DBSIZE"), "0");
}

TEST_F(Lifecycle, AHostileOrBrokenMetaIsRefusedBeforeAnythingIsAllocated) {
    redis::client c = connect(servers());
    (void)redis::bloom_filter::create(c, "model", 10000, 0.01);
    const std::string good = meta("model");
    const std::pair<std::vector<std::pair<std::string, std::string>>, const char*> cases[] = {
        {{{"bits", "8589934592"}, {"shards", "16777216"}, {"blocks_per_shard", "1"}},
         "16777216 shards is not 1 to 1048576"},
        {{{"blocks_per_shard", "1"}}, "do not hold"},
        {{{"bloomkit-redis", "0"}}, "format version 0 does not exist"},
        {{{"bloomkit-redis", "-7"}}, "format version -7 does not exist"},
        {{{"bloomkit-redis", "1"}}, "older bloomkit"},
        {{{"bloomkit-redis", "99"}}, "newer bloomkit"},
        {{{"generation", "0000000000000002"}}, "is even"},
        {{{"hashes", "65"}}, "geometry is impossible"},
        {{{"fpr", "2"}}, "fpr 2 is not in [0, 1)"},
        {{{"state", "maybe"}}, "unknown state 'maybe'"},
        {{{"owner", stranger}}, "an owner in state ready"},
        {{{"state", "creating"}}, "no 'owner' field"},
        {{{"color", "blue"}}, "unknown field 'color'"},
        {{{"keys", "words"}}, "unknown keys 'words'"},
        {{{"written", ""}}, "no 'written' field"},
    };
    for (const auto& [fields, why] : cases) {
        set_meta("hostile", with_fields(good, fields));
        const long peak_before = peak_memory_kib();
        const auto start = std::chrono::steady_clock::now();
        try {
            (void)redis::bloom_filter::open(c, "hostile");
            ADD_FAILURE() << "opened a filter whose record says " << why;
        } catch (const redis::filter_mismatch& e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
        EXPECT_THROW((void)redis::bloom_filter::drop(c, "hostile"), redis::filter_mismatch) << why;
        // Nothing allocated for it (a table of 16777216 shards alone would be hundreds of MB),
        // and no waiting for it either: refused after a few round trips, far from the half
        // minute (stale_claim) a wait for a claim would take, however slow the machine.
        EXPECT_LT(peak_memory_kib() - peak_before, 64 << 10) << why;
        EXPECT_LT(std::chrono::steady_clock::now() - start, 20s) << why;
    }
    set_meta("hostile", good + "seed 1\n");
    EXPECT_THROW((void)redis::bloom_filter::open(c, "hostile"), redis::filter_mismatch);  // a field twice
    set_meta("hostile", "not a filter");
    EXPECT_THROW((void)redis::bloom_filter::open(c, "hostile"), redis::filter_mismatch);
}

TEST_F(Lifecycle, ANameWithAHashTagIsRefused) {
    redis::client c = connect(servers());
    try {
        (void)redis::bloom_filter::create(c, "users{eu}", 1000, 0.01);
        FAIL() << "made a filter whose shards all share one slot";
    } catch (const bloomkit::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("hash tag ('{eu}')"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)redis::bloom_filter::push(c, "users{eu}", block_bloom_filter(1000, 0.01)),
                 bloomkit::invalid_argument);
    EXPECT_NO_THROW((void)redis::bloom_filter::create(c, "users{}", 1000, 0.01));  // an empty tag is no tag
    EXPECT_EQ(servers().cli(port(), "EXISTS", "users{eu}:meta"), "0");
}
