// Tests of the ordered pipeline (jobs/ordered_pipeline.hpp) over real files and pipes: every
// block consumed in input order with its work done, whatever the number of threads; the first
// exception of a work, a consume or the reading stops it and comes out of it; and a pipeline that
// fails while its reader waits on an idle pipe returns at once (the reads_interrupted machinery
// of signals.hpp), leaving no interruption behind. Idle work is done on the consuming thread,
// between two blocks, while the input waits; its exception stops the pipeline too.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <stdexcept>
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
            if (origin.first_line == 1) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // finishes last
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

TEST(OrderedPipeline, AFailureInterruptsAReadWaitingOnAnIdlePipe) {
    pipe_ends pipe;
    pipe.put("1\n2\n3\n");  // then nothing, and the writer stays: the reader waits in read()
    line_reader reader({pipe.read_path()});
    std::atomic<bool> done{false};
    std::jthread watchdog([&] {  // should the interruption fail, the test ends all the same
        for (int i = 0; i < 2000 && !done.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (!done.load()) pipe.close_write();
    });
    const auto start = std::chrono::steady_clock::now();
    EXPECT_THROW(for_each_block_in_order<int>(
                     reader, 2, [](batch, const line_origin&, int&) { throw stop_here("the work failed"); },
                     [](batch, const line_origin&, int&) {}),
                 stop_here);
    done.store(true);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_FALSE(bloomkit::jobs::reads_are_interrupted());
}

/// Closes `pipe`'s write end after 20 s unless `done`: should the pipeline wait for input that
/// never comes, the test ends all the same.
std::jthread watchdog_closing(pipe_ends& pipe, const std::atomic<bool>& done) {
    return std::jthread([&] {
        for (int i = 0; i < 2000 && !done.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (!done.load()) pipe.close_write();
    });
}

TEST(OrderedPipeline, IdleWorkIsDoneOnTheConsumingThreadWhileTheInputWaits) {
    using clock = std::chrono::steady_clock;
    for (const unsigned threads : {1U, 2U}) {
        pipe_ends pipe;
        pipe.put("1\n2\n3\n");  // then nothing, the writer open: only the idle work ends the input
        line_reader reader({pipe.read_path()});
        std::atomic<bool> done{false};
        const std::jthread watchdog = watchdog_closing(pipe, done);
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
        done.store(true);
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
        std::atomic<bool> done{false};
        const std::jthread watchdog = watchdog_closing(pipe, done);
        const idle_work failing{[] { return std::chrono::steady_clock::now(); }, [] { throw stop_here("idle"); }};
        EXPECT_THROW(for_each_block_in_order<int>(
                         reader, threads, [](batch, const line_origin&, int&) {},
                         [](batch, const line_origin&, int&) {}, failing),
                     stop_here)
            << threads;
        done.store(true);
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
