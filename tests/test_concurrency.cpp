// Tests of the concurrent mode (bloom_filter.hpp): writers inserting with
// insert(..., bloomkit::concurrent) while readers query with contains(..., bloomkit::concurrent).
// Also built alone under -fsanitize=thread, so it depends on nothing but the library; sized to
// run there in seconds.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/bulk.hpp"
#include "bloomkit/io/bkf.hpp"
#include "layout_types.hpp"

namespace {

constexpr std::uint64_t key_count = 200'000;
constexpr std::size_t writer_count = 4;
constexpr std::size_t reader_count = 2;
// Writers publish their progress after every chunk; readers check the latest published one.
constexpr std::uint64_t chunk = 1024;
constexpr std::uint64_t slice = key_count / writer_count;
static_assert(key_count % writer_count == 0);

enum class insert_mode { single, bulk };

std::vector<std::uint64_t> make_keys() {
    std::vector<std::uint64_t> keys(key_count);
    std::iota(keys.begin(), keys.end(), std::uint64_t{1} << 32);
    return keys;
}

/// The keys writer `w` inserts; the writers' slices are disjoint.
std::span<const std::uint64_t> slice_of(const std::vector<std::uint64_t>& keys, std::size_t w) {
    return std::span(keys).subspan(w * slice, slice);
}

/// How far each writer has got: the first done[w] keys of its slice are inserted.
struct progress {
    std::array<std::atomic<std::uint64_t>, writer_count> done{};
    std::atomic<bool> writers_finished{false};
};

template <class Filter>
void write_slice(Filter& filter, std::span<const std::uint64_t> keys, insert_mode mode,
                 std::atomic<std::uint64_t>& done) {
    for (std::uint64_t begin = 0; begin < keys.size(); begin += chunk) {
        const auto batch = keys.subspan(begin, std::min<std::uint64_t>(chunk, keys.size() - begin));
        if (mode == insert_mode::bulk) {
            filter.insert(batch.begin(), batch.end(), bloomkit::concurrent);
        } else {
            for (const std::uint64_t key : batch) filter.insert(key, bloomkit::concurrent);
        }
        done.store(begin + batch.size(), std::memory_order_release);
    }
}

/// What a reader saw: how many published keys it checked, and how many of those were missing.
struct reader_result {
    std::uint64_t checked = 0;
    std::uint64_t missing = 0;
    std::uint64_t unpublished_hits = 0;  // any value is right; kept so the queries are not dead code
};

/// Queries while the writers run, one key at a time or in bulk. A key whose insert was
/// published (release/acquire on the progress counter) must be found; the keys after it,
/// which may be being inserted right now, may or may not be.
template <class Filter>
reader_result read_while_writing(const Filter& filter, const std::vector<std::uint64_t>& keys, bool bulk,
                                 const progress& shared) {
    reader_result result;
    std::vector<char> answers(chunk);
    bool last_pass = false;
    // One pass more after the writers finish, so that every reader checks something.
    while (!last_pass) {
        last_pass = shared.writers_finished.load(std::memory_order_acquire);
        for (std::size_t w = 0; w < writer_count; ++w) {
            const std::uint64_t done = shared.done[w].load(std::memory_order_acquire);
            const auto keys_of_w = slice_of(keys, w);
            const auto published = keys_of_w.subspan(done - std::min(done, chunk), std::min(done, chunk));
            if (bulk) {
                const auto end =
                    filter.contains(published.begin(), published.end(), answers.begin(), bloomkit::concurrent);
                result.missing += static_cast<std::uint64_t>(std::count(answers.begin(), end, 0));
            } else {
                for (const std::uint64_t key : published)
                    result.missing += filter.contains(key, bloomkit::concurrent) ? 0 : 1;
            }
            result.checked += published.size();
            for (const std::uint64_t key : keys_of_w.subspan(done, std::min<std::uint64_t>(64, slice - done)))
                result.unpublished_hits += filter.contains(key, bloomkit::concurrent) ? 1 : 0;
        }
        std::this_thread::yield();  // six threads share few cores: let the writers progress
    }
    return result;
}

template <class Filter>
Filter empty_filter() {
    static const Filter empty(key_count, 0.01);  // sizing is slow in Debug builds: do it once
    return empty;
}

/// The filter the concurrent builds must equal: the same keys, inserted one at a time.
template <class Filter>
const Filter& sequential_build(const std::vector<std::uint64_t>& keys) {
    static const Filter built = [&] {
        Filter filter = empty_filter<Filter>();
        for (const std::uint64_t key : keys) filter.insert(key);
        return filter;
    }();
    return built;
}

template <class Filter>
void build_concurrently_and_compare(insert_mode mode) {
    const std::vector<std::uint64_t> keys = make_keys();
    Filter filter = empty_filter<Filter>();
    progress shared;
    std::array<reader_result, reader_count> results{};

    std::vector<std::thread> readers;
    for (std::size_t r = 0; r < reader_count; ++r) {
        const bool bulk = r % 2 == 1;
        readers.emplace_back([&, r, bulk] { results[r] = read_while_writing(filter, keys, bulk, shared); });
    }
    std::vector<std::thread> writers;
    for (std::size_t w = 0; w < writer_count; ++w)
        writers.emplace_back([&, w] { write_slice(filter, slice_of(keys, w), mode, shared.done[w]); });
    for (auto& writer : writers) writer.join();
    shared.writers_finished.store(true, std::memory_order_release);
    for (auto& reader : readers) reader.join();

    for (std::size_t r = 0; r < reader_count; ++r) {
        SCOPED_TRACE("reader " + std::to_string(r));
        EXPECT_GT(results[r].checked, 0U);
        EXPECT_EQ(results[r].missing, 0U) << "published keys not found while writers ran";
    }

    EXPECT_EQ(filter.count_contained(keys.begin(), keys.end()), key_count);

    const Filter& sequential = sequential_build<Filter>(keys);
    EXPECT_EQ(filter.set_bit_count(), sequential.set_bit_count());
    EXPECT_TRUE(filter == sequential) << "the concurrent build differs from the sequential one";

    // Every insert is counted once, whatever the interleaving: a count that lost updates (a
    // non-atomic add) would fall short.
    EXPECT_EQ(filter.inserted_count(), key_count);
}

template <class Filter>
class ConcurrentInsert : public ::testing::Test {};

TYPED_TEST_SUITE(ConcurrentInsert, bloomkit_test::bloom_layouts, bloomkit_test::layout_name);

TYPED_TEST(ConcurrentInsert, SingleKeyInsertsEqualASequentialBuild) {
    build_concurrently_and_compare<TypeParam>(insert_mode::single);
}

TYPED_TEST(ConcurrentInsert, BulkInsertsEqualASequentialBuild) {
    build_concurrently_and_compare<TypeParam>(insert_mode::bulk);
}

// Saving while other threads insert: the checksum covers exactly the bytes written, so every
// snapshot loads; it holds every key published before the save began, and may hold later ones.
TYPED_TEST(ConcurrentInsert, SavingWhileInsertingAlwaysLoads) {
    using Filter = TypeParam;
    const std::vector<std::uint64_t> keys = make_keys();
    Filter filter(key_count, 0.01);
    progress shared;
    std::vector<std::thread> writers;
    for (std::size_t w = 0; w < writer_count; ++w)
        writers.emplace_back([&, w] { write_slice(filter, slice_of(keys, w), insert_mode::bulk, shared.done[w]); });
    std::size_t saves = 0;
    for (bool last = false; !last; ++saves) {
        last =
            std::ranges::all_of(shared.done, [](const auto& d) { return d.load(std::memory_order_acquire) == slice; });
        std::array<std::uint64_t, writer_count> published{};
        for (std::size_t w = 0; w < writer_count; ++w) published[w] = shared.done[w].load(std::memory_order_acquire);
        const std::vector<std::byte> bytes = bloomkit::to_bytes(filter);
        const Filter loaded = bloomkit::from_bytes<Filter>(bytes);  // throws if the checksum does not match
        for (std::size_t w = 0; w < writer_count; ++w) {
            const auto before = slice_of(keys, w).first(published[w]);
            ASSERT_EQ(loaded.count_contained(before.begin(), before.end()), before.size())
                << "a key inserted before the save is missing from it";
        }
    }
    for (auto& writer : writers) writer.join();
    EXPECT_GE(saves, 2U);
    const Filter final_copy = bloomkit::from_bytes<Filter>(bloomkit::to_bytes(filter));
    EXPECT_TRUE(final_copy == filter);
}

// The runtime bulk API's concurrent mode (what the Python bindings' concurrent filters call): any
// kind that takes it, batches from several threads and lookups beside them, no key lost; the
// kinds that cannot are refused, not raced.
TEST(ConcurrentBulk, BatchesFromManyThreadsIntoAnyFilterLoseNoKey) {
    const std::vector<std::uint64_t> keys = make_keys();
    for (bloomkit::any_filter filter : {bloomkit::any_filter(bloomkit::block_bloom_filter(key_count, 0.01)),
                                        bloomkit::any_filter(bloomkit::split_block_bloom_filter(key_count, 0.01))}) {
        ASSERT_TRUE(bloomkit::capabilities(filter).concurrent);
        std::vector<std::thread> writers;
        for (std::size_t w = 0; w < writer_count; ++w)
            writers.emplace_back([&, w] {
                const std::span<const std::uint64_t> mine = slice_of(keys, w);
                std::vector<char> added(mine.size() / 2);
                (void)bloomkit::insert(filter, mine.first(mine.size() / 2), bloomkit::concurrent,
                                       std::span<bool>(reinterpret_cast<bool*>(added.data()), added.size()));
                (void)bloomkit::insert(filter, mine.subspan(mine.size() / 2), bloomkit::concurrent);
                std::vector<char> answers(mine.size());
                bloomkit::contains(filter, mine,
                                   std::span<bool>(reinterpret_cast<bool*>(answers.data()), answers.size()),
                                   bloomkit::concurrent);
                EXPECT_TRUE(std::ranges::all_of(answers, [](char a) { return a != 0; })) << "a thread lost its own key";
            });
        for (auto& writer : writers) writer.join();
        std::vector<char> answers(keys.size());
        bloomkit::contains(filter, std::span<const std::uint64_t>(keys),
                           std::span<bool>(reinterpret_cast<bool*>(answers.data()), answers.size()));
        EXPECT_TRUE(std::ranges::all_of(answers, [](char a) { return a != 0; }));
    }
    bloomkit::any_filter counting = bloomkit::counting_bloom_filter(100, 0.01);
    EXPECT_FALSE(bloomkit::capabilities(counting).concurrent);
    EXPECT_THROW((void)bloomkit::insert(counting, std::span<const std::uint64_t>(keys).first(1), bloomkit::concurrent),
                 bloomkit::invalid_argument);
}

}  // namespace
