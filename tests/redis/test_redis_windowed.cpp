// tests/redis/test_redis_windowed.cpp — the windowed filter in Redis
// (bloomkit/redis_windowed.hpp) against real servers: a standalone redis-server and a
// 3-master Redis Cluster (tests/redis/servers.hpp).
//
// What is proven: the same keys in the same generations as a local windowed_filter fed alike, so
// that pull gives the local filter's slots bit for bit, and push then lookups agree; no false
// negative for a key looked up at any time inside its window, on a random clock with pauses
// longer than a window, and every key forgotten by W(1 + 1/G); the generation of an add by the
// server's clock; fail-closed on a lost or replaced shard; a lost record rebuilt from the shards'
// headers with its window; kinds and windows that differ refused by name. Times are passed with
// each call: nothing waits for a clock.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "bloomkit/redis_windowed.hpp"
#include "key_sets.hpp"
#include "redis_testing.hpp"

using namespace bloomkit;
using namespace std::chrono_literals;
using bloomkit_test::connect;
using bloomkit_test::connect_cluster;
using bloomkit_test::random_numbers;
using bloomkit_test::redis_servers;
using bloomkit_test::small_shards;
using bloomkit_test::Standalone;

namespace {

using time_point = redis::windowed_filter::time_point;

// An hour ahead of the server's clock: the generations the tests open are the newest, whatever
// the time the test runs at.
time_point ahead_of(const redis::windowed_filter& f) { return f.server_time() + 1h; }

// Whether each of `keys` is found at `t`, in bulk through the digests.
template <class Filter>
std::vector<char> found_at(const Filter& f, const std::vector<std::uint64_t>& keys, time_point t) {
    std::vector<digest> digests;
    for (const std::uint64_t key : keys) digests.push_back(f.hash_function()(key));
    std::unique_ptr<bool[]> answers(new bool[keys.size()]);
    f.contains_digests(digests, answers.get(), t);
    return {answers.get(), answers.get() + keys.size()};
}

void add_at(redis::windowed_filter& f, const std::vector<std::uint64_t>& keys, time_point t) {
    std::vector<digest> digests;
    for (const std::uint64_t key : keys) digests.push_back(f.hash_function()(key));
    std::unique_ptr<bool[]> answers(new bool[keys.size()]);
    f.insert_digests(digests, answers.get(), t);
}

}  // namespace

TEST_F(Standalone, TheSameGenerationsAsALocalWindowedFilter) {
    redis::client c = connect(servers());
    redis::windowed_filter shared = redis::windowed_filter::create(c, "feed", 400000, 0.01, 4s, 4, small_shards);
    // Several shards, each holding its blocks once per ring slot.
    const redis::filter_description& d = shared.description();
    ASSERT_GT(d.shards, 1U);
    ASSERT_EQ(d.shard_bytes(0), redis::filter_description::header_bytes + 5 * d.blocks_per_shard * 64);
    windowed_filter local(400000, 0.01, 4s, {.generations = 4});
    const time_point start = ahead_of(shared);
    // Seven steps of 1.5 s: the ring turns more than once, and every slot is emptied on the way.
    for (int step = 0; step < 7; ++step) {
        const time_point t = start + step * 1500ms;
        const auto keys = random_numbers(3000, 100 + static_cast<std::uint64_t>(step));
        add_at(shared, keys, t);
        for (const std::uint64_t key : keys) local.insert(key, t);

        const windowed_filter pulled = shared.pull();
        for (std::size_t j = 0; j < 5; ++j) {
            ASSERT_EQ(pulled.slot_generations()[j], local.slot_generations()[j]) << "step " << step << " slot " << j;
            const auto ours = pulled.slots()[j].words(), theirs = local.slots()[j].words();
            ASSERT_TRUE(std::equal(ours.begin(), ours.end(), theirs.begin())) << "step " << step << " slot " << j;
        }
        const auto probe = random_numbers(2000, 7);
        std::vector<char> expected;
        for (const std::uint64_t key : probe) expected.push_back(local.contains(key, t) ? 1 : 0);
        EXPECT_EQ(found_at(shared, probe, t), expected);
    }

    // A file pushed back answers as the filter it came from.
    const windowed_filter pulled = shared.pull();
    redis::windowed_filter pushed = redis::windowed_filter::push(c, "feed-copy", pulled, small_shards);
    const auto probe = random_numbers(3000, 106);
    const time_point last = start + 9000ms;
    EXPECT_EQ(found_at(pushed, probe, last), found_at(shared, probe, last));
    const windowed_filter round_trip = pushed.pull();
    for (std::size_t j = 0; j < 5; ++j) {
        EXPECT_EQ(round_trip.slot_generations()[j], pulled.slot_generations()[j]);
        EXPECT_TRUE(std::ranges::equal(round_trip.slots()[j].words(), pulled.slots()[j].words()));
    }
}

TEST_F(Standalone, NoFalseNegativeInsideTheWindowAndForgottenAfterIt) {
    redis::client c = connect(servers());
    for (const std::uint32_t generations : {1U, 3U}) {
        const std::string name = "seen-" + std::to_string(generations);
        redis::windowed_filter f = redis::windowed_filter::create(c, name, 4000, 0.01, 10s, generations, small_shards);
        const auto window = std::chrono::milliseconds(10000);
        const auto forgotten_by = window + window / generations;
        std::mt19937_64 random(generations);
        time_point t = ahead_of(f);
        struct batch {
            std::vector<std::uint64_t> keys;
            time_point added;
        };
        std::vector<batch> added;
        std::uint64_t next_key = 1;
        long checked = 0, false_positives = 0, old_keys = 0;
        for (int step = 0; step < 40; ++step) {
            // Steps of 0 to 4 s, and now and then a pause longer than a window.
            t += std::chrono::milliseconds(random() % 4000) + (step % 13 == 12 ? 25s : 0s);
            batch b{{}, t};
            for (int i = 0; i < 300; ++i) b.keys.push_back(next_key++ * 0x9e3779b97f4a7c15ULL);
            add_at(f, b.keys, t);
            added.push_back(std::move(b));
            for (const batch& earlier : added) {
                const auto age = t - earlier.added;
                if (age > window && age < forgotten_by) continue;  // either answer is right
                const std::vector<char> found = found_at(f, earlier.keys, t);
                const long present = std::count(found.begin(), found.end(), 1);
                if (age <= window) {
                    ASSERT_EQ(present, static_cast<long>(found.size()))
                        << "G " << generations << " age " << age.count();
                    checked += present;
                } else {
                    false_positives += present;
                    old_keys += static_cast<long>(found.size());
                }
            }
        }
        EXPECT_GT(checked, 20000);
        EXPECT_GT(old_keys, 20000);
        EXPECT_LE(static_cast<double>(false_positives) / static_cast<double>(old_keys), 0.02);
    }
}

TEST_F(Standalone, AnAddWithoutATimeFallsInTheGenerationOfTheServersClock) {
    redis::client c = connect(servers());
    redis::windowed_filter f = redis::windowed_filter::create(c, "clocked", 1000, 0.01, 1h, 4);
    const auto server_ms = [&] {
        const std::string reply = c.command({"TIME"});
        const auto newline = reply.find('\n');
        return std::stoll(reply.substr(0, newline)) * 1000 + std::stoll(reply.substr(newline + 1)) / 1000;
    };
    const std::int64_t before = server_ms();
    const std::int64_t estimate =
        std::chrono::floor<std::chrono::milliseconds>(f.server_time()).time_since_epoch().count();
    EXPECT_TRUE(f.insert(std::string("a key")));
    const std::int64_t after = server_ms();
    EXPECT_GE(estimate, before - 1);  // never ahead of the server's clock, never far behind
    EXPECT_LE(estimate, after);
    EXPECT_TRUE(f.contains(std::string("a key")));
    EXPECT_FALSE(f.insert(std::string("a key")));

    // The shard of the key's slot holds the generation of the server's time.
    const std::uint64_t low = f.generation_at(time_point(std::chrono::milliseconds(before)));
    const std::uint64_t high = f.generation_at(time_point(std::chrono::milliseconds(after)));
    std::uint64_t labelled = 0;
    for (const auto& slot : f.slot_states()) labelled = std::max(labelled, slot.generation);
    EXPECT_GE(labelled, low);
    EXPECT_LE(labelled, high);
    const auto live = f.live_slots(f.server_time());
    ASSERT_FALSE(live.empty());
    EXPECT_EQ(live.front().generation, labelled);
    EXPECT_NEAR(f.approximate_count(), 1.0, 0.5);
}

TEST_F(Standalone, ALostOrReplacedShardIsAnErrorNeverAnAbsentKey) {
    redis::client c = connect(servers());
    redis::windowed_filter f = redis::windowed_filter::create(c, "guarded", 40000, 0.01, 1h, 2, small_shards);
    const auto keys = random_numbers(5000, 9);
    const time_point t = ahead_of(f);
    add_at(f, keys, t);
    servers().cli(port(), "DEL", "guarded:1");
    EXPECT_THROW((void)found_at(f, keys, t), redis::shard_missing);
    EXPECT_THROW(add_at(f, keys, t), redis::shard_missing);
    EXPECT_THROW((void)f.pull(), redis::shard_missing);
    EXPECT_THROW((void)f.slot_states(), redis::shard_missing);
    EXPECT_EQ(servers().cli(port(), "EXISTS", "guarded:1"), "0");  // what the add made is removed

    ASSERT_TRUE(redis::windowed_filter::drop(c, "guarded"));
    redis::windowed_filter::create(c, "guarded", 40000, 0.01, 1h, 2, small_shards);
    EXPECT_THROW((void)found_at(f, keys, t), redis::filter_replaced);
}

TEST_F(Standalone, AnAddToALostShardLeavesNothingEvenAtTheShardsLastBit) {
    // The string an add makes of a lost shard reaches its last bit when the key sets the last
    // bit of the last region: as long as a shard, and still removed.
    redis::client c = connect(servers());
    redis::windowed_filter f = redis::windowed_filter::create(c, "edge", 40000, 0.01, 1h, 2, small_shards);
    const redis::filter_description& d = f.description();
    const block_layout layout(d.geometry);
    const std::uint64_t last_block = d.blocks() - 1;
    std::uint64_t key = 0;
    for (bool found = false; !found; ++key) {
        const auto p = layout.locate(f.hash_function()(key));
        layout.for_each_bit(p.pattern, [&](std::uint32_t word, std::uint64_t mask) {
            found = found || (p.block == last_block && word == 7 && mask == std::uint64_t{1} << 56);  // Redis bit 511
        });
    }
    --key;
    // A time whose generation lives in the last region, ahead of the server's clock.
    time_point t = ahead_of(f);
    while (f.generation_at(t) % 3 != 2) t += 20min;
    const std::string last_shard = d.shard_key(d.shards - 1);
    servers().cli(port(), "DEL", last_shard);
    EXPECT_THROW(add_at(f, {key}, t), redis::shard_missing);
    EXPECT_EQ(servers().cli(port(), "EXISTS", last_shard), "0");
}

TEST_F(Standalone, ALostRecordIsRebuiltWithItsWindow) {
    redis::client c = connect(servers());
    redis::windowed_filter f = redis::windowed_filter::create(c, "kept", 20000, 0.001, 90s, 3, small_shards);
    const auto keys = random_numbers(2000, 11);
    const time_point t = ahead_of(f);
    add_at(f, keys, t);
    servers().cli(port(), "DEL", "kept:meta");
    const redis::windowed_filter opened = redis::windowed_filter::open(c, "kept", small_shards);
    EXPECT_EQ(opened.window(), 90s);
    EXPECT_EQ(opened.generation_count(), 3U);
    EXPECT_EQ(opened.description().shards, f.description().shards);
    const auto found = found_at(opened, keys, t);
    EXPECT_EQ(std::count(found.begin(), found.end(), 1), 2000);
    // create, as every instance of a service calls it at start, opens it as it is.
    EXPECT_EQ(redis::windowed_filter::create(c, "kept", 20000, 0.001, 90s, 3, small_shards).description().generation,
              f.description().generation);
}

TEST_F(Standalone, OtherKindsAndWindowsAreRefusedByName) {
    redis::client c = connect(servers());
    (void)redis::windowed_filter::create(c, "w", 1000, 0.01, 1h, 4);
    (void)redis::bloom_filter::create(c, "b", 1000, 0.01);
    auto refused = [](auto call, const std::string& words) {
        try {
            call();
            ADD_FAILURE() << "not refused: " << words;
        } catch (const redis::filter_mismatch& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    refused([&] { (void)redis::bloom_filter::open(c, "w"); }, "is a windowed filter");
    refused([&] { (void)redis::windowed_filter::open(c, "b"); }, "is a block filter");
    refused([&] { (void)redis::windowed_filter::create(c, "w", 1000, 0.01, 2h, 4); }, "window (ms) 3600000 in Redis");
    refused([&] { (void)redis::windowed_filter::create(c, "w", 1000, 0.01, 1h, 2); }, "generations 4 in Redis");
    refused([&] { (void)redis::bloom_filter::create(c, "w", 1000, 0.01); }, "in Redis");
    EXPECT_THROW((void)redis::windowed_filter::create(c, "x", 1000, 0.01, 1h, 0), invalid_argument);
    EXPECT_THROW((void)redis::windowed_filter::create(c, "x", 1000, 0.01, 0ms, 4), invalid_argument);
    // A record that says windowed with a geometry its window does not give is not taken for one.
    std::string meta = servers().cli(port(), "GET", "w:meta");
    meta.replace(meta.find("hashes "), std::string("hashes ").size() + 1, "hashes 9");
    servers().cli(port(), "SET", "w:meta", meta);
    refused([&] { (void)redis::windowed_filter::open(c, "w"); }, "generations of another size");
    EXPECT_TRUE(redis::windowed_filter::drop(c, "w"));
}

TEST(RedisCluster, AWindowedFilterSpreadsOverTheNodesAndAnswers) {
    REQUIRE_REDIS_SERVER();
    redis_servers cluster = redis_servers::cluster(3);
    redis::client c = connect_cluster(cluster);
    redis::windowed_filter f = redis::windowed_filter::create(c, "cluster-feed", 80000, 0.01, 1h, 4, small_shards);
    const auto keys = random_numbers(20000, 12);
    const time_point t = ahead_of(f);
    add_at(f, keys, t);
    const auto found = found_at(f, keys, t);
    EXPECT_EQ(std::count(found.begin(), found.end(), 1), 20000);
    const auto others = found_at(f, random_numbers(20000, 13), t);
    EXPECT_LE(std::count(others.begin(), others.end(), 1), 300);  // 1% target
    EXPECT_TRUE(f.insert(std::string("now")));                    // at the clock of hash slot 0's node
    EXPECT_TRUE(f.contains(std::string("now")));
}
