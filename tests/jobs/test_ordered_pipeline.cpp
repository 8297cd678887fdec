// Tests of the ordered pipeline (jobs/ordered_pipeline.hpp) over real files and pipes: every
// block consumed in input order with its work done, whatever the number of threads; the first
// exception of a work, a consume or the reading stops it and comes out of it; and a pipeline that
// fails while its reader waits on an idle pipe returns at once (the reads_interrupted machinery
// of signals.hpp), leaving no interruption behind. Idle work is done on the consuming thread,
// between two blocks, while the input waits; its exception stops the pipeline too. A pipe the
// pipeline waits on is closed by a watchdog only should the test not be done after a minute:
// "at once" is "before the watchdog had to", however slow the machine.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/file.hpp"
#include "jobs/line_reader.hpp"
#include "jobs/ordered_pipeline.hpp"
#include "jobs/signals.hpp"
#include "jobs_testing.hpp"
#include "waiting.hpp"

namespace {

using namespace bloomkit_test;
using bloomkit::jobs::for_each_block_in_order;
using bloomkit::jobs::idle_work;
using bloomkit::jobs::line_origin;
using bloomkit::jobs::line_reader;
using batch = std::span<const std::string_view>;

constexpr std::uint64_t line_count = 300'000;  // ~2 MB: half a dozen blocks

struct stop_here : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The numbers of a file's lines, as the work parses them and the consumer sees them.
std::vector<std::uint64_t> consumed_numbers(const fs::path& path, unsigned threads) {
    line_reader reader({path.string()});
    std::vector<std::uint64_t> seen;
    for_each_block_in_order<std::vector<std::uint64_t>>(
        reader, threads,
        [](batch lines, const line_origin& origin, std::vector<std::uint64_t>& numbers) {
            numbers.clear();
            for (std::size_t i = 0; i < lines.size(); ++i) {
                if (std::stoull(std::string(lines[i])) != origin.first_line + i) throw stop_here("a line out of place");
                numbers.push_back(origin.first_line + i);
            }
            // Most likely the last to finish (the order checked is the input's however the threads run).
            if (origin.first_line == 1) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        },
        [&](batch lines, const line_origin&, const std::vector<std::uint64_t>& numbers) {
            if (numbers.size() != lines.size()) throw stop_here("a block consumed without its work");
            seen.insert(seen.end(), numbers.begin(), numbers.end());
        });
    return seen;
}

TEST(OrderedPipeline, BlocksAreConsumedInInputOrderWhateverTheThreads) {
    const temp_dir dir;
    write_file(dir / "lines.txt", numbered_lines(line_count));
    std::vector<std::uint64_t> expected(line_count);
    for (std::uint64_t i = 0; i < line_count; ++i) expected[i] = i + 1;
    for (const unsigned threads : {1U, 2U, 3U, 8U})
        EXPECT_EQ(consumed_numbers(dir / "lines.txt", threads), expected) << threads;
}

/// Runs a pipeline over `path` whose work or consume throws stop_here at the block that starts
/// past line `failing_line`; returns the lines consumed before.
std::uint64_t consumed_before_failure(const fs::path& path, unsigned threads, bool in_work,
                                      std::uint64_t failing_line) {
    line_reader reader({path.string()});
    std::uint64_t consumed = 0;
    const auto fail_past = [&](const line_origin& origin) {
        if (origin.first_line > failing_line) throw stop_here("failed");
    };
    EXPECT_THROW(for_each_block_in_order<int>(
                     reader, threads,
                     [&](batch, const line_origin& origin, int&) {
                         if (in_work) fail_past(origin);
                     },
                     [&](batch lines, const line_origin& origin, int&) {
                         if (!in_work) fail_past(origin);
                         consumed += lines.size();
                     }),
                 stop_here);
    return consumed;
}

TEST(OrderedPipeline, AnExceptionInAWorkOrAConsumeStopsItAndComesOut) {
    const temp_dir dir;
    write_file(dir / "lines.txt", numbered_lines(line_count));
    for (const unsigned threads : {1U, 4U}) {
        for (const bool in_work : {true, false}) {
            const std::uint64_t consumed = consumed_before_failure(dir / "lines.txt", threads, in_work, 1);
            EXPECT_LT(consumed, line_count) << threads;
            // A consume fails at the second block, after the first; a work may fail before it.
            if (!in_work) {
                EXPECT_GT(consumed, 0U) << threads;
            }
        }
    }
}

TEST(OrderedPipeline, AReadingErrorComesOut) {
    const temp_dir dir;
    write_file(dir / "lines.txt", "1\n2\n");
    bloomkit::save(bloomkit::block_bloom_filter(100, 0.01), (dir / "f.bkf").string());
    line_reader reader({(dir / "lines.txt").string(), (dir / "f.bkf").string()});
    EXPECT_THROW(for_each_block_in_order<int>(
                     reader, 3, [](batch, const line_origin&, int&) {}, [](batch, const line_origin&, int&) {}),
                 bloomkit::jobs::filter_file_as_lines);
}

/// Closes `pipe`'s write end, ending its input, unless done() is called within a minute (the
/// patience of waiting.hpp): should a pipeline wait for input that never comes, the test ends all
/// the same. fired() then says it had to.
class watchdog {
public:
    explicit watchdog(pipe_ends& pipe)
        : thread_([this, &pipe](const std::stop_token& done) {
              std::mutex mutex;
              std::condition_variable_any wake;
              std::unique_lock lock(mutex);
              (void)wake.wait_for(lock, done, bloomkit_test::patience, [] { return false; });
              if (done.stop_requested()) return;
              fired_.store(true);
              pipe.close_write();
          }) {}

    /// The test is done with the pipe: the watchdog stands down (at once) and is gone.
    void done() {
        thread_.request_stop();
        thread_.join();
    }
    /// Whether it closed the pipe.
    [[nodiscard]] bool fired() const { return fired_.load(); }

private:
    std::atomic<bool> fired_{false};
    std::jthread thread_;
};

TEST(OrderedPipeline, AFailureInterruptsAReadWaitingOnAnIdlePipe) {
    pipe_ends pipe;
    pipe.put("1\n2\n3\n");  // then nothing, and the writer stays: the reader waits in read()
    line_reader reader({pipe.read_path()});
    watchdog dog(pipe);  // should the interruption fail, the test ends all the same
    EXPECT_THROW(for_each_block_in_order<int>(
                     reader, 2, [](batch, const line_origin&, int&) { throw stop_here("the work failed"); },
                     [](batch, const line_origin&, int&) {}),
                 stop_here);
    dog.done();
    EXPECT_FALSE(dog.fired()) << "the read was not interrupted: it ended only with its input";
    EXPECT_FALSE(bloomkit::jobs::reads_are_interrupted());
}

TEST(OrderedPipeline, IdleWorkIsDoneOnTheConsumingThreadWhileTheInputWaits) {
    using clock = std::chrono::steady_clock;
    for (const unsigned threads : {1U, 2U}) {
        pipe_ends pipe;
        pipe.put("1\n2\n3\n");  // then nothing, the writer open: only the idle work ends the input
        line_reader reader({pipe.read_path()});
        watchdog dog(pipe);
        std::uint64_t consumed = 0, consumed_when_run = 0;
        int runs = 0;
        std::thread::id ran_on;
        // Due at once after the first block, until it has run; it then ends the input.
        const idle_work idle{[&] { return consumed > 0 && runs == 0 ? clock::now() : clock::time_point::max(); },
                             [&] {
                                 ++runs;
                                 consumed_when_run = consumed;
                                 ran_on = std::this_thread::get_id();
                                 pipe.close_write();
                             }};
        for_each_block_in_order<int>(
            reader, threads, [](batch, const line_origin&, int&) {},
            [&](batch lines, const line_origin&, int&) { consumed += lines.size(); }, idle);
        dog.done();
        EXPECT_FALSE(dog.fired()) << threads;
        EXPECT_EQ(runs, 1) << threads;
        // Between two blocks, after the first was consumed (how the three lines fall into
        // blocks, and whether the next is ready when the work falls due, is the scheduler's).
        EXPECT_GE(consumed_when_run, 1U) << threads;
        EXPECT_LE(consumed_when_run, 3U) << threads;
        EXPECT_EQ(ran_on, std::this_thread::get_id()) << threads;
        EXPECT_EQ(consumed, 3U) << threads;
    }
}

TEST(OrderedPipeline, AnExceptionOfTheIdleWorkStopsItAndComesOut) {
    for (const unsigned threads : {1U, 2U}) {
        pipe_ends pipe;
        pipe.put("1\n2\n3\n");
        line_reader reader({pipe.read_path()});
        watchdog dog(pipe);
        const idle_work failing{[] { return std::chrono::steady_clock::now(); }, [] { throw stop_here("idle"); }};
        EXPECT_THROW(for_each_block_in_order<int>(
                         reader, threads, [](batch, const line_origin&, int&) {},
                         [](batch, const line_origin&, int&) {}, failing),
                     stop_here)
            << threads;
        dog.done();
        EXPECT_FALSE(dog.fired()) << threads;
        EXPECT_FALSE(bloomkit::jobs::reads_are_interrupted()) << threads;
    }
}

TEST(OrderedPipeline, InterruptedReadsResumeForTheNextJob) {
    // Interrupting a thread's reads is undone by resume_reads(): the thread reads again.
    const temp_dir dir;
    write_file(dir / "lines.txt", "1\n2\n");
    bloomkit::jobs::interrupt_reads(::pthread_self());
    EXPECT_TRUE(bloomkit::jobs::reads_are_interrupted());
    line_reader reader({(dir / "lines.txt").string()});
    EXPECT_THROW(all_lines(reader), bloomkit::jobs::reads_interrupted);
    bloomkit::jobs::resume_reads(::pthread_self());
    EXPECT_FALSE(bloomkit::jobs::reads_are_interrupted());
    line_reader again({(dir / "lines.txt").string()});
    EXPECT_EQ(all_lines(again), (std::vector<std::string>{"1", "2"}));
    EXPECT_EQ(consumed_numbers(dir / "lines.txt", 2), (std::vector<std::uint64_t>{1, 2}));
}

}  // namespace
