// Tests of the work queue (jobs/work_queue.hpp): first in, first out; bounded (a full queue
// refuses try_push and makes push wait for a pop); close() ends the pops once it is drained. A
// thread meant to wait in push() is seen asleep there before the test goes on: no test assumes
// how soon a thread gets anywhere.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include "jobs/work_queue.hpp"
#include "waiting.hpp"

namespace {

using bloomkit::jobs::work_queue;

TEST(WorkQueue, ItemsComeOutInTheOrderTheyWentIn) {
    work_queue<int> queue(4);
    for (int i = 0; i < 4; ++i) queue.push(i);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(queue.pop(), i);
    EXPECT_EQ(queue.try_pop(), std::nullopt);
}

TEST(WorkQueue, AFullQueueRefusesTryPushAndMakesPushWait) {
    work_queue<int> queue(2);
    EXPECT_TRUE(queue.try_push(1));
    EXPECT_TRUE(queue.try_push(2));
    EXPECT_FALSE(queue.try_push(3));
    std::atomic<bool> pushed{false};
    std::atomic<pid_t> producer_id{0};
    std::jthread producer([&] {
        producer_id.store(bloomkit_test::this_thread_id());
        queue.push(3);
        pushed.store(true);
    });
    // Once it has said who it is, the producer can only fall asleep in push(), waiting for room.
    EXPECT_TRUE(bloomkit_test::eventually([&] {
        const pid_t id = producer_id.load();
        return pushed.load() || (id != 0 && bloomkit_test::asleep(id));
    })) << "the producer never waited";
    EXPECT_FALSE(pushed.load());
    EXPECT_EQ(queue.pop(), 1);
    producer.join();
    EXPECT_TRUE(pushed.load());
    EXPECT_EQ(queue.pop(), 2);
    EXPECT_EQ(queue.pop(), 3);
}

TEST(WorkQueue, CloseEndsThePopsOnceDrained) {
    work_queue<int> queue(8);
    std::vector<int> taken;
    std::jthread consumer([&] {
        while (const std::optional<int> item = queue.pop()) taken.push_back(*item);
    });
    for (int i = 0; i < 100; ++i) queue.push(i);
    queue.close();
    consumer.join();
    ASSERT_EQ(taken.size(), 100U);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(taken[static_cast<std::size_t>(i)], i);
    EXPECT_EQ(queue.pop(), std::nullopt);
}

TEST(WorkQueue, ManyWorkersTakeEveryItemOnce) {
    work_queue<int> queue(4);
    std::atomic<long> sum{0};
    std::atomic<int> count{0};
    {
        std::vector<std::jthread> workers;
        for (int w = 0; w < 4; ++w)
            workers.emplace_back([&] {
                while (const std::optional<int> item = queue.pop()) {
                    sum += *item;
                    ++count;
                }
            });
        for (int i = 1; i <= 10'000; ++i) queue.push(i);
        queue.close();
    }
    EXPECT_EQ(count.load(), 10'000);
    EXPECT_EQ(sum.load(), 10'000L * 10'001 / 2);
}

}  // namespace
