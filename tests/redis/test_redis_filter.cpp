// tests/redis/test_redis_filter.cpp — the Redis-backed filter (bloomkit/redis.hpp) answering,
// against real servers: a standalone redis-server, a 3-master Redis Cluster, and clusters with
// replicas, each started on free loopback ports by tests/redis/servers.hpp and stopped afterwards.
// (How filters are created, claimed, restored and dropped: test_redis_lifecycle.cpp.)
//
// What is proven: addresses parsed as users write them and never shown with their password (nor
// quoted back by a server refusing AUTH); timeouts that would be none refused; the same bits as
// a local block filter (so push, pull and local answers agree, and a pulled file is the pushed
// one); no false negatives and the FPR on target; fail-closed on a deleted, flushed or
// evicted shard, a filter dropped and created again under a long-lived client, a killed server,
// an OOM or ACL refusal and a timeout; cluster routing through a reshard; no acknowledged key
// lost in a failover with WAIT, and a stalled replica reported as such.
//
// A server or replica that must not answer is stopped (SIGSTOP, redis_testing.hpp) for as long
// as the test needs, and a kill that must happen while adds or lookups go on is waited for
// before they end: nothing assumes how soon another thread or process gets anywhere.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <latch>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "bloomkit/redis.hpp"
#include "key_sets.hpp"
#include "redis_testing.hpp"

using namespace bloomkit;
using bloomkit_test::answers_of;
using bloomkit_test::connect;
using bloomkit_test::connect_cluster;
using bloomkit_test::found_in;
using bloomkit_test::random_numbers;
using bloomkit_test::redis_servers;
using bloomkit_test::small_shards;
using bloomkit_test::Standalone;
using bloomkit_test::stopped_server;
using bloomkit_test::string_keys;

// --- Without a server -------------------------------------------------------------------------

TEST(RedisAddress, UrlsAsUsersWriteThem) {
    auto one = [](std::string_view url) { return redis::parse_url(url).at(0); };
    EXPECT_EQ(one("redis://127.0.0.1:6380"), (redis::endpoint{.host = "127.0.0.1", .port = 6380}));
    EXPECT_EQ(one("redis://cache.internal"), (redis::endpoint{.host = "cache.internal", .port = 6379}));
    EXPECT_EQ(one("redis://app:s%40cret@h:7000/3"),
              (redis::endpoint{.host = "h", .port = 7000, .user = "app", .password = "s@cret", .db = 3}));
    EXPECT_EQ(one("redis://only-password@h"),
              (redis::endpoint{.host = "h", .port = 6379, .password = "only-password"}));
    EXPECT_EQ(one("unix:///run/redis.sock"), (redis::endpoint{.socket = "/run/redis.sock"}));
    EXPECT_EQ(one("unix://app:pw@/run/redis@7.sock?db=2"),
              (redis::endpoint{.socket = "/run/redis@7.sock", .user = "app", .password = "pw", .db = 2}));
    EXPECT_EQ(one("unix://pw@/run/redis.sock"), (redis::endpoint{.socket = "/run/redis.sock", .password = "pw"}));
    EXPECT_EQ(one("redis://app:p/w:x@h"),
              (redis::endpoint{.host = "h", .port = 6379, .user = "app", .password = "p/w:x"}));
    EXPECT_EQ(redis::parse_url("redis://app:a,b@h1:1,h2:2").size(), 2U);  // a comma in a password is the password's
    EXPECT_EQ(redis::parse_url("redis://app:a,b@h1:1,h2:2")[0].password, "a,b");
    // Credentials end at the last '@' of their address: a password may hold ',' then '/', '@',
    // '#', '?', or be empty; a list of seeds is cut only outside them.
    EXPECT_EQ(one("redis://app:hunter2,x/y@127.0.0.1:7699"),
              (redis::endpoint{.host = "127.0.0.1", .port = 7699, .user = "app", .password = "hunter2,x/y"}));
    EXPECT_EQ(one("redis://app:p@s,s:w@h:1/2"),
              (redis::endpoint{.host = "h", .port = 1, .user = "app", .password = "p@s,s:w", .db = 2}));
    EXPECT_EQ(one("redis://app:p#x?y@h"),
              (redis::endpoint{.host = "h", .port = 6379, .user = "app", .password = "p#x?y"}));
    EXPECT_EQ(one("redis://app:@h"), (redis::endpoint{.host = "h", .port = 6379, .user = "app"}));
    EXPECT_EQ(one("redis://hunter2,@h"), (redis::endpoint{.host = "h", .port = 6379, .password = "hunter2,"}));
    EXPECT_EQ(redis::parse_url("redis://app:a,b/c@h1:1,h2:2,h3:3").size(), 3U);
    EXPECT_EQ(redis::parse_url("redis://app:a,b/c@h1:1,h2:2,h3:3")[2], (redis::endpoint{.host = "h3", .port = 3}));
    const auto two = redis::parse_url("redis://a:x@h1:1,redis://b:y,z@h2:2");
    ASSERT_EQ(two.size(), 2U);
    EXPECT_EQ(two[0], (redis::endpoint{.host = "h1", .port = 1, .user = "a", .password = "x"}));
    EXPECT_EQ(two[1], (redis::endpoint{.host = "h2", .port = 2, .user = "b", .password = "y,z"}));
    EXPECT_EQ(one("redis://a:p,redis://q@h"),  // before any '@', ",redis://" is the password's
              (redis::endpoint{.host = "h", .port = 6379, .user = "a", .password = "p,redis://q"}));
    EXPECT_EQ(one("unix://app:p@/w@/run/r.sock"),
              (redis::endpoint{.socket = "/run/r.sock", .user = "app", .password = "p@/w"}));
    EXPECT_EQ(one("[::1]:7001"), (redis::endpoint{.host = "::1", .port = 7001}));
    EXPECT_EQ(redis::parse_url("a:1,b:2,c:3").size(), 3U);
    for (const char* bad :
         {"redis://h:0", "redis://h:65536", "redis://h:x", "redis://:6379", "http://h", "rediss://h", "unix://relative",
          "a:1,,b:2", "redis://h/db", "secret@h:1", "unix:///s?x=1", "redis://::1", "a:1,"})
        EXPECT_THROW((void)redis::parse_url(bad), bloomkit::invalid_argument) << bad;
}

TEST(RedisAddress, PasswordsAreNeverShown) {
    EXPECT_EQ(redis::redacted_url("redis://app:TopSecret@cache:6379/2"), "redis://app:***@cache:6379/2");
    EXPECT_EQ(redis::redacted_url("redis://TopSecret@cache"), "redis://***@cache");
    EXPECT_EQ(redis::redacted_url("unix://app:TopSecret@/run/r.sock"), "unix://app:***@/run/r.sock");
    EXPECT_EQ(redis::redacted_url("redis://a:Top,Secret@h1:1,h2:2"), "redis://a:***@h1:1,h2:2");
    EXPECT_EQ(redis::redacted_url("h1:1,h2:2"), "h1:1,h2:2");
    EXPECT_EQ(redis::redacted_url("redis://app:hunter2,x/y@127.0.0.1:7699"), "redis://app:***@127.0.0.1:7699");
    EXPECT_EQ(redis::redacted_url("redis://a:x@h1:1,redis://b:y,z@h2:2"), "redis://a:***@h1:1,redis://b:***@h2:2");
    EXPECT_EQ(redis::redacted_url("redis://h:6379/2,[::1]:7001"), "redis://h:6379/2,[::1]:7001");  // nothing to hide
    // The "@host" left out: what could be a port or a password is masked unless it is a number.
    EXPECT_EQ(redis::redacted_url("redis://app:TopSecret/3"), "redis://app:***");
    // Every message about a bad address shows it masked, and quotes no part of it alone: the
    // password is in none of them, whatever is wrong around it.
    for (const char* bad : {"redis://app:TopSecret@cache:x",
                            "redis://app:TopSecret@:6379",
                            "http://app:TopSecret@cache",
                            "redis://app:Top/Secret@cache:x",
                            "TopSecret@cache:6379",
                            "redis://app:Top%zSecret@h",
                            "unix://app:TopSecret@relative",
                            "redis://app:Top,Secret@h:1,,h:2",
                            "redis://app:Top,Secret/x@h:x",
                            "redis://app:Top,Secret/x@h:1,",
                            ",redis://app:Top,Secret@h:1",
                            "redis://app:Top,Secret@",
                            "redis://app:TopSecret",
                            "redis://:TopSecret",
                            "redis://app:TopSecret/3",
                            "redis://app:Top:Secret",
                            "redis://app:Top@Secret@h:x",
                            "redis://app:Top#Secret@:1",
                            "redis://app:Top?Secret@h/x",
                            "redis://app:Top,Secret@[::1",
                            "redis://app:Top,Secret@h1:1,h2:x",
                            "rediss://app:Top,Secret/x@h",
                            "HTTP://app:Top,Secret@h",
                            "h1:1,app:Top,Secret@h2:2",
                            "unix://app:TopSecret",
                            "unix://app:Top,Secret@/s?x=1",
                            "app:TopSecret",
                            "redis://app:Top%2CSecret@h:0",
                            "redis://app:Top,redis://Secret@h:x",
                            "redis://app:Top:Secret:6379"}) {
        EXPECT_EQ(redis::redacted_url(bad).find("Secret"), std::string::npos) << redis::redacted_url(bad);
        try {
            (void)redis::parse_url(bad);
            ADD_FAILURE() << "accepted " << redis::redacted_url(bad);
        } catch (const bloomkit::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()).find("Secret"), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).find("Top"), std::string::npos) << e.what();
        }
    }
    // Nor does connecting with several addresses outside cluster mode, nor failing to connect.
    for (const char* url : {"redis://app:TopSecret@127.0.0.1:1,127.0.0.1:2", "redis://app:Top,Secret/x@127.0.0.1:1",
                            "redis://app:Top,Secret/x@127.0.0.1:1,127.0.0.1:2"}) {
        try {
            redis::client c({.url = url});
            ADD_FAILURE() << "connected";
        } catch (const bloomkit::error& e) {
            EXPECT_EQ(std::string(e.what()).find("Secret"), std::string::npos) << e.what();
        }
    }
}

TEST(RedisAddress, SlotsAsRedisClusterComputesThem) {
    // Verified against a live Redis 7.0 (CLUSTER KEYSLOT) and the cluster specification.
    EXPECT_EQ(redis::key_slot("somekey"), 11058);
    EXPECT_EQ(redis::key_slot("foo{hash_tag}"), 2515);
    EXPECT_EQ(redis::key_slot("foo"), 12182);
    EXPECT_EQ(redis::key_slot("bar"), 5061);
    EXPECT_EQ(redis::key_slot("foo{}{bar}"), 8363);     // an empty tag: the whole key
    EXPECT_EQ(redis::key_slot("foo{{bar}}zap"), 4015);  // hashes "{bar"
    EXPECT_EQ(redis::key_slot("foo{bar}{zap}"), 5061);  // hashes "bar"
    EXPECT_EQ(redis::key_slot(""), 0);
}

TEST(RedisTimeouts, OutOfRangeAreRefusedNamingTheValue) {
    // To hiredis a timeout of 0 is none at all: refused before anything is connected to, as are
    // negative ones and those that would overflow a deadline. A retry window of 0 means no retry.
    using std::chrono::milliseconds;
    const auto refused = [](redis::connection_options o, const std::string& named) {
        o.url = "redis://127.0.0.1:1";
        try {
            redis::client c(o);
            ADD_FAILURE() << "accepted " << named;
        } catch (const bloomkit::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
        }
    };
    refused({.command_timeout = milliseconds(0)}, "command_timeout must be from 1 ms to ten years");
    refused({.command_timeout = milliseconds(0)}, "not 0 ms: 0 would be no timeout at all");
    refused({.connect_timeout = milliseconds(0)}, "connect_timeout must be from 1 ms");
    refused({.connect_timeout = milliseconds(-5)}, "not -5 ms");
    refused({.command_timeout = milliseconds::max()}, "not " + std::to_string(milliseconds::max().count()) + " ms");
    refused({.command_timeout = redis::connection_options::longest_timeout + milliseconds(1)}, "command_timeout");
    refused({.retry_window = milliseconds(-1)}, "retry_window must be from 0 ms to ten years");
    refused({.retry_window = milliseconds::max()}, "retry_window");
    // In range, they reach the connection (here: no server on port 1).
    EXPECT_THROW(redis::client({.url = "redis://127.0.0.1:1",
                                .connect_timeout = milliseconds(1),
                                .command_timeout = redis::connection_options::longest_timeout,
                                .retry_window = milliseconds(0)}),
                 redis::connection_error);
}

// --- One server -------------------------------------------------------------------------------

TEST_F(Standalone, SameBitsAsALocalBlockFilter) {
    // The layout is the local block filter's, so a filter pulled from Redis is the local filter
    // of the same keys, bit for bit.
    redis::client c = connect(servers());
    redis::bloom_filter shared = redis::bloom_filter::create(c, "users", 150000, 0.01, small_shards);
    ASSERT_GT(shared.description().shards, 1U);
    const auto keys = string_keys(100000, 1);
    EXPECT_GT(shared.insert(keys.begin(), keys.end()), keys.size() * 99 / 100);  // all but false positives are new

    block_bloom_filter local(shared.geometry());
    local.insert_range(keys);
    const block_bloom_filter pulled = shared.pull();
    ASSERT_EQ(pulled.geometry(), local.geometry());
    EXPECT_TRUE(std::equal(pulled.words().begin(), pulled.words().end(), local.words().begin()));
    EXPECT_EQ(shared.set_bit_count(), local.set_bit_count());
    EXPECT_NEAR(shared.approximate_count(), 100000, 1000);
}

TEST_F(Standalone, NoFalseNegativesAndTheFprOnTarget) {
    redis::client c = connect(servers());
    redis::bloom_filter f = redis::bloom_filter::create(c, "urls", 100000, 0.01);
    const auto keys = random_numbers(100000, 2);
    f.insert(keys.begin(), keys.end());
    const auto found = answers_of(f, keys);
    EXPECT_EQ(std::count(found.begin(), found.end(), 1), static_cast<long>(keys.size()));
    const auto others = random_numbers(100000, 3);
    const auto wrong = answers_of(f, others);
    const double fpr = static_cast<double>(std::count(wrong.begin(), wrong.end(), 1)) / 100000.0;
    EXPECT_LE(fpr, 0.0115);  // 1% target; 3 standard deviations of 100k trials is 0.1%
    // Single calls agree with the bulk ones, and insert says whether a key was new.
    for (std::size_t i = 0; i < 200; ++i) {
        EXPECT_TRUE(f.contains(keys[i]));
        EXPECT_EQ(f.contains(others[i]), wrong[i] != 0);
    }
    EXPECT_FALSE(f.insert(keys[0]));
    EXPECT_TRUE(f.insert(std::string("a key never seen before")));
    EXPECT_TRUE(f.contains(std::string_view("a key never seen before")));
}

TEST_F(Standalone, ALostShardIsAnErrorNeverAnAbsentKey) {
    redis::client c = connect(servers());
    redis::bloom_filter f = redis::bloom_filter::create(c, "guard", 200000, 0.01, small_shards);
    const auto keys = random_numbers(20000, 4);
    f.insert(keys.begin(), keys.end());
    ASSERT_GE(f.description().shards, 2U);
    servers().cli(port(), "DEL", "guard:1");

    std::vector<char> answers(keys.size(), 2);
    EXPECT_THROW(f.contains(keys.begin(), keys.end(), answers.begin()), redis::shard_missing);
    EXPECT_THROW((void)f.set_bit_count(), redis::shard_missing);
    EXPECT_THROW((void)f.pull(), redis::shard_missing);
    EXPECT_THROW(f.insert(keys.begin(), keys.end()), redis::shard_missing);  // an add does not recreate it
    EXPECT_THROW(f.clear(), redis::shard_missing);
    // Every key of the lost shard keeps failing, whatever was written since.
    bool any_error = false;
    for (const auto key : keys) {
        try {
            EXPECT_TRUE(f.contains(key));
        } catch (const redis::shard_missing& e) {
            any_error = true;
            EXPECT_NE(std::string(e.what()).find("guard:1"), std::string::npos);
        }
    }
    EXPECT_TRUE(any_error);

    servers().cli(port(), "FLUSHALL");  // everything gone, the metadata too
    EXPECT_THROW(f.contains(keys.begin(), keys.end(), answers.begin()), redis::shard_missing);
    EXPECT_THROW((void)redis::bloom_filter::open(c, "guard"), redis::filter_mismatch);
}

TEST_F(Standalone, EvictionUnderMaxmemoryIsAnError) {
    // With an allkeys policy Redis evicts what it likes, filter shards included: the filter must
    // then fail, not answer "absent".
    redis::client c = connect(servers());
    redis::bloom_filter f = redis::bloom_filter::create(c, "evictable", 400000, 0.01, small_shards);
    const auto keys = random_numbers(1000, 5);
    f.insert(keys.begin(), keys.end());
    servers().cli(port(), "CONFIG", "SET", "maxmemory-policy", "allkeys-random");
    servers().cli(port(), "CONFIG", "SET", "maxmemory", "3mb");
    // Other data arrives, and pushes shards out.
    for (int i = 0; i < 200; ++i) {
        try {
            c.command({"SET", "cache:" + std::to_string(i), std::string(100000, 'x')});
        } catch (const redis::server_error&) {}
    }
    servers().cli(port(), "CONFIG", "SET", "maxmemory", "0");
    servers().cli(port(), "CONFIG", "SET", "maxmemory-policy", "noeviction");
    ASSERT_LT(std::stoi(servers().cli(port(), "DBSIZE")), 200 + 1 + static_cast<int>(f.description().shards))
        << "nothing was evicted";
    std::vector<char> answers(keys.size());
    EXPECT_THROW(f.contains(keys.begin(), keys.end(), answers.begin()), redis::shard_missing);
}

TEST_F(Standalone, AnOutOfMemoryRefusalIsAnError) {
    redis::client c = connect(servers());
    servers().cli(port(), "CONFIG", "SET", "maxmemory", "1");  // already above it: writes are refused
    try {
        (void)redis::bloom_filter::create(c, "too-big", 1000000, 0.01);
        FAIL() << "created a filter above maxmemory";
    } catch (const redis::server_error& e) {
        EXPECT_NE(std::string(e.what()).find("OOM"), std::string::npos) << e.what();
    }
    servers().cli(port(), "CONFIG", "SET", "maxmemory", "0");
}

TEST_F(Standalone, AclUsersWithAndWithoutRights) {
    servers().cli(port(), "ACL", "SETUSER", "reader", "on", ">read-pw", "~*", "+get", "+bitfield_ro", "+bitcount",
                  "+getrange");
    servers().cli(port(), "ACL", "SETUSER", "writer", "on", ">write-pw", "~*", "+@all");
    {
        redis::client admin = connect(servers(), {.user = "writer", .password = "write-pw"});
        redis::bloom_filter f = redis::bloom_filter::create(admin, "acl", 1000, 0.01);
        f.insert(std::string("granted"));
    }
    redis::client reader = connect(servers(), {.user = "reader", .password = "read-pw"});
    redis::bloom_filter f = redis::bloom_filter::open(reader, "acl");
    EXPECT_TRUE(f.contains(std::string("granted")));
    try {
        f.insert(std::string("refused"));
        FAIL() << "a read-only user added a key";
    } catch (const redis::server_error& e) {
        EXPECT_NE(std::string(e.what()).find("NOPERM"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)connect(servers(), {.user = "reader", .password = "wrong"}), redis::server_error);
    // The URL carries credentials too.
    redis::client by_url({.url = "redis://reader:read-pw@127.0.0.1:" + std::to_string(port())});
    EXPECT_TRUE(redis::bloom_filter::open(by_url, "acl").contains(std::string("granted")));
    servers().cli(port(), "ACL", "DELUSER", "reader", "writer");
}

TEST_F(Standalone, PushAndPullAreByteIdentical) {
    block_bloom_filter local(100000, 0.001, {.seed = 42, .keys = key_format::text});
    const auto keys = string_keys(50000, 6);
    local.insert_range(keys);
    redis::client c = connect(servers());
    redis::bloom_filter shared = redis::bloom_filter::push(c, "pushed", local, small_shards);
    EXPECT_GT(shared.description().shards, 1U);
    EXPECT_EQ(shared.hash_function(), local.hash_function());
    EXPECT_EQ(shared.recorded_key_format(), key_format::text);  // as the local filter records
    const block_bloom_filter back = shared.pull();
    EXPECT_EQ(back, local);  // same geometry, hashing and bits
    EXPECT_EQ(back.expected_keys(), local.expected_keys());
    EXPECT_EQ(back.inserted_count(), local.inserted_count());  // what the file's header says, kept in the meta
    EXPECT_EQ(back.recorded_key_format(), key_format::text);
    const auto probes = string_keys(20000, 7);
    EXPECT_EQ(answers_of(shared, probes), answers_of(local, probes));
    EXPECT_EQ(answers_of(shared, keys), std::vector<char>(keys.size(), 1));
    EXPECT_THROW((void)redis::bloom_filter::push(c, "pushed", local), redis::filter_mismatch);  // exists
    EXPECT_TRUE(redis::bloom_filter::drop(c, "pushed"));
    EXPECT_FALSE(redis::bloom_filter::drop(c, "pushed"));
    EXPECT_EQ(servers().cli(port(), "DBSIZE"), "0");
}

TEST_F(Standalone, ClearKeepsTheFilterUsable) {
    redis::client c = connect(servers());
    redis::bloom_filter f = redis::bloom_filter::create(c, "cleared", 10000, 0.01, small_shards);
    const auto keys = random_numbers(5000, 8);
    f.insert(keys.begin(), keys.end());
    f.clear();
    EXPECT_EQ(f.set_bit_count(), 0U);
    EXPECT_TRUE(f.insert(keys[0]));
    EXPECT_TRUE(f.contains(keys[0]));
}

TEST_F(Standalone, WaitingForReplicasThatAreNotThereFails) {
    redis::client c = connect(servers());
    (void)redis::bloom_filter::create(c, "durable", 1000, 0.01);
    redis::bloom_filter f =
        redis::bloom_filter::open(c, "durable", {.replicas = 1, .replica_timeout = std::chrono::milliseconds(100)});
    try {
        f.insert(std::string("k"));
        FAIL() << "an add returned without its replica";
    } catch (const redis::replication_error& e) {
        EXPECT_NE(std::string(e.what()).find("0 of 1 replicas"), std::string::npos) << e.what();
    }
}

TEST_F(Standalone, AServerThatStopsAnsweringIsATimeout) {
    redis::client c = connect(servers(), {.command_timeout = std::chrono::milliseconds(1000),
                                          .retry_window = std::chrono::milliseconds(1000)});
    redis::bloom_filter f = redis::bloom_filter::create(c, "slow", 1000, 0.01);
    {
        const stopped_server stopped(servers(), port());  // answers nothing until the end of this block
        EXPECT_THROW((void)f.contains(std::string("k")), redis::connection_error);
    }
    EXPECT_FALSE(f.contains(std::string("k")));  // and it reconnects once the server answers
}

TEST_F(Standalone, TheShortestTimeoutsAreKeptAndWaitsTimeoutIsNeverZero) {
    using std::chrono::milliseconds;
    redis::client c = connect(servers(), {.command_timeout = milliseconds(1), .retry_window = milliseconds(0)});
    EXPECT_EQ(c.options().command_timeout, milliseconds(1));
    EXPECT_EQ(c.options().retry_window, milliseconds(0));
    // WAIT N 0 would wait for ever: a replica timeout of 0 is refused before anything is written.
    redis::client patient = connect(servers());
    for (const auto wait : {milliseconds(0), milliseconds(-1), redis::connection_options::longest_timeout * 2}) {
        try {
            (void)redis::bloom_filter::create(patient, "waits", 1000, 0.01, {.replicas = 1, .replica_timeout = wait});
            ADD_FAILURE() << "a replica timeout of " << wait.count() << " ms accepted";
        } catch (const bloomkit::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("replica_timeout must be from 1 ms"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("not " + std::to_string(wait.count()) + " ms"), std::string::npos)
                << e.what();
        }
    }
    EXPECT_EQ(servers().cli(port(), "DBSIZE"), "0");
}

// A server that does not know AUTH (renamed away here, as some deployments and proxies do)
// answers with the arguments it was given, the password among them: never shown.
TEST(RedisAuth, ARefusalThatQuotesThePasswordIsNotShown) {
    REQUIRE_REDIS_SERVER();
    redis_servers servers = redis_servers::standalone({"--rename-command", "AUTH", "renamed-auth"});
    const std::string address = "127.0.0.1:" + std::to_string(servers.ports().front());
    for (const std::string& url : {"redis://app:Top,Secret/x@" + address, "redis://Top,Secret/x@" + address}) {
        try {
            redis::client c({.url = url});
            ADD_FAILURE() << "connected";
        } catch (const redis::server_error& e) {
            EXPECT_NE(std::string(e.what()).find("refused the credentials"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("ERR (the rest of its reply is not shown"), std::string::npos)
                << e.what();
            EXPECT_EQ(std::string(e.what()).find("Secret"), std::string::npos) << e.what();
        }
    }
}

TEST_F(Standalone, AClusterOptionOnAPlainServerIsRefused) {
    EXPECT_THROW((void)connect_cluster(servers()), redis::server_error);
    EXPECT_THROW((void)redis::client({.url = "redis://127.0.0.1:1"}), redis::connection_error);
}

TEST_F(Standalone, AUnixSocketTakesCredentials) {
    servers().cli(port(), "ACL", "SETUSER", "app", "on", ">TopSecret", "~*", "+@all");
    redis::client c({.url = "unix://app:TopSecret@" + socket()});
    redis::bloom_filter f = redis::bloom_filter::create(c, "local", 1000, 0.01);
    EXPECT_TRUE(f.insert(std::string("over the socket")));
    try {
        redis::client wrong({.url = "unix://app:WrongSecret@" + socket()});
        FAIL() << "logged in with a wrong password";
    } catch (const redis::server_error& e) {
        EXPECT_NE(std::string(e.what()).find("refused the credentials of user 'app'"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find("Secret"), std::string::npos) << e.what();
    }
    servers().cli(port(), "ACL", "DELUSER", "app");
}

TEST_F(Standalone, ALongLivedClientNeverAnswersFromAFilterDroppedAndCreatedAgain) {
    redis::client c = connect(servers());
    redis::bloom_filter f = redis::bloom_filter::create(c, "recreated", 100000, 0.01, small_shards);
    const auto keys = random_numbers(20000, 14);
    f.insert(keys.begin(), keys.end());
    // Another process drops it and makes it again: the same size, another seed.
    redis::client other = connect(servers());
    ASSERT_TRUE(redis::bloom_filter::drop(other, "recreated"));
    redis::filter_options reseeded = small_shards;
    reseeded.hashing.seed = 99;
    const redis::bloom_filter again = redis::bloom_filter::create(other, "recreated", 100000, 0.01, reseeded);
    ASSERT_EQ(again.geometry(), f.geometry());
    // The old client's every call fails: none answers from the new filter's bits.
    std::vector<char> answers(keys.size(), 2);
    EXPECT_THROW(f.contains(keys.begin(), keys.end(), answers.begin()), redis::filter_replaced);
    EXPECT_EQ(std::count(answers.begin(), answers.end(), 0), 0) << "answered absent from the new filter";
    EXPECT_THROW((void)f.contains(keys[0]), redis::filter_replaced);
    EXPECT_THROW((void)f.set_bit_count(), redis::filter_replaced);
    EXPECT_THROW((void)f.pull(), redis::filter_replaced);
    EXPECT_THROW(f.clear(), redis::filter_replaced);
    EXPECT_THROW(f.insert(keys.begin(), keys.end()), redis::filter_replaced);
    // Opened again, it is the new one.
    EXPECT_EQ(redis::bloom_filter::open(c, "recreated").description().generation, again.description().generation);
}

TEST_F(Standalone, AStaleClientsAddsNeverBreakAFilterMadeSince) {
    // A client still holding a filter of 128 KiB shards adds to the one made since under its
    // name, of 64 KiB shards: its bits land after the new shards' headers (at the same place
    // in every filter), and the keys it made for shards that do not exist are removed.
    redis::client c = connect(servers());
    redis::bloom_filter stale = redis::bloom_filter::create(c, "remade", 400000, 0.01, {.max_shard_bytes = 128 << 10});
    redis::client other = connect(servers());
    ASSERT_TRUE(redis::bloom_filter::drop(other, "remade"));
    redis::bloom_filter fresh = redis::bloom_filter::create(other, "remade", 100000, 0.01, small_shards);
    const auto keys = random_numbers(20000, 17);
    fresh.insert(keys.begin(), keys.end());
    const auto more = random_numbers(20000, 18);
    EXPECT_THROW(stale.insert(more.begin(), more.end()), redis::filter_replaced);
    EXPECT_NO_THROW((void)fresh.set_bit_count());
    EXPECT_EQ(found_in(fresh, keys), static_cast<long>(keys.size()));
    EXPECT_EQ(found_in(redis::bloom_filter::open(c, "remade"), keys), static_cast<long>(keys.size()));
    EXPECT_EQ(servers().cli(port(), "DBSIZE"), std::to_string(fresh.description().shards + 1)) << "keys left behind";
}

// A server killed in the middle of a batch: the batch throws; answers already given are true ones.
// The batches go on until the kill is done (it comes once one has been answered whole): it lands
// in one, or between two, and the next then throws at once.
TEST(RedisServerLost, AKilledServerIsAnErrorWithNoAbsentAnswer) {
    REQUIRE_REDIS_SERVER();
    redis_servers servers = redis_servers::standalone();
    redis::client c({.url = servers.url(), .retry_window = std::chrono::milliseconds(500)});
    redis::bloom_filter f = redis::bloom_filter::create(c, "doomed", 300000, 0.01);
    const auto keys = random_numbers(300000, 9);
    f.insert(keys.begin(), keys.end());
    std::vector<char> answers(keys.size(), 2);  // 2: not answered
    std::latch answered_once(1);
    std::atomic<bool> killed{false};
    std::thread killer([&] {
        answered_once.wait();
        servers.kill(servers.ports().front());
        killed = true;
    });
    bool threw = false, counted = false;
    const auto count_once = [&] {
        if (!std::exchange(counted, true)) answered_once.count_down();
    };
    try {
        for (int after_the_kill = 0; after_the_kill < 2;) {
            const bool dead = killed.load();  // the server was gone before this batch began
            f.contains(keys.begin(), keys.end(), answers.begin());
            count_once();
            if (dead) ++after_the_kill;
        }
    } catch (const redis::connection_error&) {
        threw = true;
    }
    count_once();  // should the first batch have thrown, the kill comes all the same
    killer.join();
    EXPECT_TRUE(threw);
    EXPECT_EQ(std::count(answers.begin(), answers.end(), 0), 0) << "an inserted key was answered absent";
}

// Writing to a server that has died raises SIGPIPE, which would kill the process: the client
// keeps it from doing so, and reports a lost connection.
TEST(RedisServerLost, WritingToADeadServerIsAnErrorNotSigpipe) {
    REQUIRE_REDIS_SERVER();
    redis_servers servers = redis_servers::standalone();
    redis::client c({.url = servers.url(), .retry_window = std::chrono::milliseconds(200)});
    redis::bloom_filter f = redis::bloom_filter::create(c, "gone", 100000, 0.01, {.pipeline_depth = 4096});
    const auto keys = random_numbers(100000, 13);
    f.insert(keys.begin(), keys.end());
    servers.kill(servers.ports().front());
    ASSERT_EQ(std::signal(SIGPIPE, SIG_DFL), SIG_DFL);  // the default: SIGPIPE ends the process
    for (int attempt = 0; attempt < 5; ++attempt)
        EXPECT_THROW(f.insert(keys.begin(), keys.end()), redis::connection_error);
}

// --- Replicas ---------------------------------------------------------------------------------

// The replica is stalled by stopping it (SIGSTOP) for as long as the test needs: for the whole
// of the first add's WAIT, and for the second until the master is seen blocked in WAIT.
TEST(RedisReplicas, AStalledReplicaIsReportedAsSuchNotAsALostMaster) {
    REQUIRE_REDIS_SERVER();
    using std::chrono::milliseconds;
    redis_servers servers = redis_servers::cluster(1, 1);
    const int master = servers.masters().at(0), replica = servers.replicas().at(0);
    // WAIT gives up after the command timeout, and its reply is awaited longer than that: the
    // error names the replicas, not a connection to the master.
    redis::client hasty =
        connect_cluster(servers, {.command_timeout = milliseconds(2000), .retry_window = milliseconds(1000)});
    redis::bloom_filter f = redis::bloom_filter::create(hasty, "replicated", 10000, 0.01, {.replicas = 1});
    {
        const stopped_server stalled(servers, replica);
        try {
            f.insert(std::string("k"));
            ADD_FAILURE() << "an add returned without its replica";
        } catch (const redis::replication_error& e) {
            EXPECT_NE(std::string(e.what()).find("0 of 1 replicas"), std::string::npos) << e.what();
        } catch (const redis::error& e) {
            ADD_FAILURE() << "not a replication_error: " << e.what();
        }
    }
    // A replica that is only slow: WAIT waits as long as the command timeout allows (here more
    // than the test ever takes), and the add returns once the replica has caught up.
    redis::client patient = connect_cluster(
        servers, {.command_timeout = std::chrono::duration_cast<milliseconds>(bloomkit_test::patience)});
    redis::bloom_filter g = redis::bloom_filter::open(patient, "replicated", {.replicas = 1});
    stopped_server stalled(servers, replica);
    std::thread waker([&] {
        // Once a client of the master is blocked in WAIT (or after the patience, the test then
        // failing), the replica goes on.
        (void)bloomkit_test::eventually([&] {
            std::istringstream clients(servers.cli(master, "CLIENT", "LIST"));
            for (std::string client; std::getline(clients, client);)
                if (client.find(" flags=b ") != std::string::npos && client.find(" cmd=wait ") != std::string::npos)
                    return true;
            return false;
        });
        stalled.resume();
    });
    EXPECT_NO_THROW(g.insert(std::string("late")));
    waker.join();
}

// --- A cluster --------------------------------------------------------------------------------

TEST(RedisCluster, ShardsSpreadOverTheNodesAndSurviveAReshard) {
    REQUIRE_REDIS_SERVER();
    redis_servers servers = redis_servers::cluster(3, 0);
    redis::client c = connect_cluster(servers);
    EXPECT_EQ(c.nodes().size(), 3U);
    redis::bloom_filter f = redis::bloom_filter::create(c, "crawl", 300000, 0.01, small_shards);
    ASSERT_GE(f.description().shards, 3U);
    std::set<int> owners;  // the shards are on several nodes (no common hash tag)
    for (std::uint64_t s = 0; s < f.description().shards; ++s) {
        for (const int p : servers.masters())
            if (servers.cli(p, "EXISTS", f.description().shard_key(s)) == "1") owners.insert(p);
    }
    EXPECT_GE(owners.size(), 2U);

    // Slots move while keys go in: MOVED and ASK are followed, nothing is lost.
    const auto keys = random_numbers(150000, 10);
    auto moving = servers.reshard_async(servers.masters()[0], servers.masters()[1], 3000);
    std::size_t inserted = 0;
    for (std::size_t i = 0; i < keys.size(); i += 5000) {
        f.insert(keys.begin() + static_cast<long>(i),
                 keys.begin() + static_cast<long>(std::min(keys.size(), i + 5000)));
        inserted = std::min(keys.size(), i + 5000);
        const auto some =
            answers_of(f, std::vector<std::uint64_t>(keys.begin(), keys.begin() + static_cast<long>(inserted)));
        ASSERT_EQ(std::count(some.begin(), some.end(), 1), static_cast<long>(inserted));
    }
    moving.get();
    const auto found = answers_of(f, keys);
    EXPECT_EQ(std::count(found.begin(), found.end(), 1), static_cast<long>(keys.size()));

    // Another client, with a fresh slot map, agrees; and a local copy answers alike.
    redis::client other = connect_cluster(servers);
    const redis::bloom_filter again = redis::bloom_filter::open(other, "crawl");
    const auto probes = random_numbers(50000, 11);
    EXPECT_EQ(answers_of(again, probes), answers_of(f.pull(), probes));
    EXPECT_EQ(answers_of(again, keys), std::vector<char>(keys.size(), 1));
}

TEST(RedisCluster, AnAskRedirectionIsFollowedForOneCommand) {
    REQUIRE_REDIS_SERVER();
    redis_servers servers = redis_servers::cluster(3, 0);
    redis::client c = connect_cluster(servers);
    redis::bloom_filter f = redis::bloom_filter::create(c, "ask", 1000, 0.01);
    f.insert(std::string("before"));
    // Migrate the one shard's slot by hand, the key itself included, leaving the slot
    // MIGRATING/IMPORTING: the old owner answers ASK for it.
    const std::string key = f.description().shard_key(0);
    const int slot = redis::key_slot(key);
    int from = 0, to = 0;
    for (const int p : servers.masters()) {
        if (servers.cli(p, "EXISTS", key) == "1") from = p;
    }
    for (const int p : servers.masters())
        if (p != from) to = p;
    ASSERT_NE(from, 0);
    const std::string from_id = servers.cli(from, "CLUSTER", "MYID"), to_id = servers.cli(to, "CLUSTER", "MYID");
    servers.cli(to, "CLUSTER", "SETSLOT", slot, "IMPORTING", from_id);
    servers.cli(from, "CLUSTER", "SETSLOT", slot, "MIGRATING", to_id);
    servers.cli(from, "MIGRATE", "127.0.0.1", to, key, 0, 5000);
    EXPECT_TRUE(f.contains(std::string("before")));
    EXPECT_TRUE(f.insert(std::string("during")));
    EXPECT_TRUE(f.contains(std::string("during")));
    for (const int p : servers.masters()) servers.cli(p, "CLUSTER", "SETSLOT", slot, "NODE", to_id);
    EXPECT_TRUE(f.contains(std::string("during")));  // now by MOVED
    EXPECT_TRUE(f.contains(std::string("before")));
}

TEST(RedisCluster, NoAcknowledgedKeyIsLostInAFailover) {
    REQUIRE_REDIS_SERVER();
    // Adds with WAIT 1 while a master is killed: those that returned are on a replica, which
    // takes over, so every one of them is still found. (Adds that threw may or may not be in.)
    redis_servers servers = redis_servers::cluster(3, 1);
    redis::client c = connect_cluster(servers, {.retry_window = std::chrono::milliseconds(8000)});
    redis::bloom_filter f = redis::bloom_filter::create(
        c, "durable", 200000, 0.01,
        {.max_shard_bytes = 64 << 10, .replicas = 1, .replica_timeout = std::chrono::milliseconds(500)});
    const int victim = servers.masters()[0];
    const auto keys = random_numbers(30000, 12);
    std::vector<std::uint64_t> acknowledged;
    std::thread killer;
    std::atomic<bool> killed{false};
    std::size_t failed_batches = 0;
    for (std::size_t i = 0; i < keys.size(); i += 2000) {
        if (i == 10000) {
            killer = std::thread([&] {  // while the adds go on
                servers.kill(victim);
                killed = true;
            });
        }
        // The last third of the adds come after the kill, however long it took: they cannot all
        // be acknowledged (the victim is gone, and its successor has no replica).
        if (i == 20000) (void)bloomkit_test::eventually([&] { return killed.load(); });
        const auto first = keys.begin() + static_cast<long>(i);
        const auto last = keys.begin() + static_cast<long>(std::min(keys.size(), i + 2000));
        try {
            f.insert(first, last);
            acknowledged.insert(acknowledged.end(), first, last);
        } catch (const redis::error&) {
            ++failed_batches;  // not acknowledged: the victim died, or its successor has no replica
        }
    }
    killer.join();
    servers.wait_failover(victim);
    EXPECT_GE(acknowledged.size(), 10000U);
    EXPECT_GT(failed_batches, 0U) << "the kill did not happen during the adds";
    redis::client after = connect_cluster(servers);
    const redis::bloom_filter again = redis::bloom_filter::open(after, "durable");
    const auto found = answers_of(again, acknowledged);
    EXPECT_EQ(std::count(found.begin(), found.end(), 0), 0) << "acknowledged keys lost in the failover";
}
