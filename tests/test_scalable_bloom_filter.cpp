// Tests of bloomkit/scalable_bloom_filter.hpp: known answers, the chain of stages, growth by
// 1000x with the measured FPR still within the target, insert semantics (keys held by any
// stage are not inserted again; stages open lazily), bulk = single (the same stages opened at
// the same keys), union and its refusals, clear, bad options, a stage that cannot be sized,
// and files (load rebuilds the stages; a mapped filter answers queries and refuses changes).
// test_file_kinds.cpp checks the byte layout and that forged stage tables are refused.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/file.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"
#include "filter_checks.hpp"
#include "key_sets.hpp"

namespace {

using namespace bloomkit;

using bloomkit_test::random_numbers;
using bloomkit_test::string_keys;

/// One checksum over every stage's words, in order.
std::uint64_t words_checksum(const scalable_bloom_filter& filter) {
    std::uint64_t checksum = 0;
    for (const auto& stage : filter.stages())
        checksum = XXH3_64bits_withSeed(stage.words().data(), stage.words().size_bytes(), checksum);
    return checksum;
}

// --- Known answers: these bytes will be the file format's payload; they must never change. --

TEST(KnownAnswer, ScalableFilterStagesAndWords) {
    // Keys hashed by xxh3_mum (XXH3-128), the default of the files that froze these bytes.
    scalable_bloom_filter filter(100, 0.01, {.seed = 0x5eed, .hash = hash_algorithm::xxh3_mum});
    for (int i = 0; i < 1000; ++i) filter.insert("key-" + std::to_string(i));
    ASSERT_EQ(filter.stage_count(), 4U);  // 100 + 200 + 400 + 800 >= 1000
    std::uint64_t set_bits = 0;
    for (const auto& stage : filter.stages()) set_bits += stage.set_bit_count();
    EXPECT_EQ(set_bits, 7208U);
    EXPECT_EQ(words_checksum(filter), 0x27d9f4db9e7fc2fdULL);
}

// --- The chain of stages --------------------------------------------------------------------

TEST(ScalableBloomFilter, StagesFollowTheDocumentedChain) {
    scalable_bloom_filter filter(1000, 0.02, {.growth = 3, .tightening = 0.8});
    EXPECT_EQ(filter.planned_stage(0), (scalable_stage_plan{1000, 0.02 * (1 - 0.8)}));
    EXPECT_EQ(filter.planned_stage(1), (scalable_stage_plan{3000, 0.02 * (1 - 0.8) * 0.8}));
    EXPECT_EQ(filter.planned_stage(2).capacity, 9000U);
    double targets = 0;
    for (std::size_t i = 0; i < 30; ++i) targets += filter.planned_stage(i).fpr;
    EXPECT_LT(targets, 0.02);  // Σ p0·r^i < p0 / (1 - r) = p

    filter.insert_range(random_numbers(30000, 1));
    ASSERT_EQ(filter.stage_count(), 4U);  // 1000 + 3000 + 9000 < 30000 <= 1000 + 3000 + 9000 + 27000
    for (std::size_t i = 0; i < filter.stage_count(); ++i) {
        const auto& stage = filter.stages()[i];
        const auto plan = filter.planned_stage(i);
        EXPECT_EQ(stage.expected_keys(), plan.capacity);
        EXPECT_EQ(stage.target_fpr(), plan.fpr);
        EXPECT_EQ(stage.geometry(),
                  plan_bloom(bloom_layout::block, static_cast<double>(plan.capacity), plan.fpr).geometry);
        EXPECT_EQ(stage.hash_function(), filter.hash_function());
    }
}

TEST(ScalableBloomFilter, NonIntegerGrowthRoundsCapacitiesUp) {
    scalable_bloom_filter filter(7, 0.01, {.growth = 1.5});
    EXPECT_EQ(filter.planned_stage(1).capacity, 11U);  // ⌈10.5⌉
    EXPECT_EQ(filter.planned_stage(2).capacity, 17U);  // ⌈16.5⌉
    scalable_bloom_filter flat(7, 0.01, {.growth = 1});
    EXPECT_EQ(flat.planned_stage(5).capacity, 7U);
}

/// Inserts 1000x the initial capacity and checks the stage count, the memory (the sum of the
/// stages' planned sizes), that no key is lost, and the measured FPR against the target.
void check_growth(std::uint64_t initial, double p, scalable_options options, std::size_t expected_stages) {
    scalable_bloom_filter filter(initial, p, options);
    const std::uint64_t n = initial * 1000;
    const auto keys = random_numbers(n, 7);
    filter.insert(keys.begin(), keys.end());
    SCOPED_TRACE(testing::Message() << "growth " << options.growth << " tightening " << options.tightening);
    EXPECT_EQ(filter.stage_count(), expected_stages);
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < filter.stage_count(); ++i) {
        const auto plan = filter.planned_stage(i);
        bytes += plan_bloom(bloom_layout::block, static_cast<double>(plan.capacity), plan.fpr).bytes();
        if (i + 1 < filter.stage_count()) {
            EXPECT_EQ(filter.stages()[i].inserted_count(), plan.capacity) << "stage " << i;
        }
    }
    EXPECT_EQ(filter.size_in_bytes(), bytes);
    EXPECT_EQ(filter.count_contained(keys.begin(), keys.end()), n) << "false negatives";

    const auto probes = random_numbers(2'000'000, 8);  // never inserted (collision ~2^-44)
    const double queries = static_cast<double>(probes.size());
    const double measured = static_cast<double>(filter.count_contained(probes.begin(), probes.end())) / queries;
    std::printf(
        "scalable initial=%llu x1000, p=%g, s=%g, r=%g: %zu stages, %.2f bits/key, measured FPR %.4f%%, "
        "current_fpr %.4f%%\n",
        static_cast<unsigned long long>(initial), p, options.growth, options.tightening, filter.stage_count(),
        8.0 * static_cast<double>(filter.size_in_bytes()) / static_cast<double>(n), 100 * measured,
        100 * filter.current_fpr());
    EXPECT_LE(measured, p + 5 * std::sqrt(p / queries));  // 5 standard deviations of the queries
    EXPECT_LE(filter.current_fpr(), p);
    EXPECT_NEAR(filter.approximate_count() / static_cast<double>(n), 1.0, 0.03);
}

TEST(ScalableBloomFilter, GrowsAThousandfoldWithinTheTargetFpr) {
    check_growth(100, 0.01, {}, 10);                                // 100·(2^10 - 1) >= 100k
    check_growth(100, 0.001, {.growth = 4, .tightening = 0.8}, 6);  // 100·(4^6 - 1)/3 >= 100k
    check_growth(1000, 0.01, {.growth = 2, .tightening = 0.9}, 10);
}

// --- Inserting ------------------------------------------------------------------------------

TEST(ScalableBloomFilter, InsertReportsWhetherTheKeyWasNew) {
    scalable_bloom_filter filter(1000, 0.01);
    EXPECT_FALSE(filter.contains("alpha"));
    EXPECT_TRUE(filter.insert("alpha"));
    EXPECT_FALSE(filter.insert("alpha"));
    EXPECT_TRUE(filter.contains("alpha"));
    EXPECT_EQ(filter.inserted_count(), 1U);
    EXPECT_EQ(filter.initial_capacity(), 1000U);
    EXPECT_DOUBLE_EQ(filter.target_fpr(), 0.01);
    EXPECT_DOUBLE_EQ(filter.growth(), 2.0);
    EXPECT_DOUBLE_EQ(filter.tightening(), 0.5);
    EXPECT_EQ(filter.hash_function(), hasher());
}

TEST(ScalableBloomFilter, StagesOpenWhenTheNewestIsFullAndAKeyIsNew) {
    scalable_bloom_filter filter(10, 0.01);
    const auto keys = string_keys(10, 1);
    for (const auto& key : keys) ASSERT_TRUE(filter.insert(key));
    EXPECT_EQ(filter.stage_count(), 1U);  // full, but no key has needed more room yet
    const auto first_size = filter.size_in_bytes();
    EXPECT_FALSE(filter.insert(keys[3]));  // held: no new stage
    EXPECT_EQ(filter.stage_count(), 1U);
    EXPECT_TRUE(filter.insert("eleventh"));
    ASSERT_EQ(filter.stage_count(), 2U);
    EXPECT_GT(filter.size_in_bytes(), first_size);
    // A key the first stage holds is not inserted into the second.
    EXPECT_FALSE(filter.insert(keys[0]));
    EXPECT_EQ(filter.stages()[1].inserted_count(), 1U);
    EXPECT_EQ(filter.inserted_count(), 11U);
    for (const auto& key : keys) EXPECT_TRUE(filter.contains(key));
}

TEST(ScalableBloomFilter, BulkOperationsAgreeWithSingleOnes) {
    // Growth across many stages and chunks, with repeated keys inside and across chunks.
    auto keys = string_keys(12000, 11);
    const auto repeats = std::vector<std::string>(keys.begin(), keys.begin() + 6000);
    keys.insert(keys.begin() + 9000, repeats.begin(), repeats.end());
    scalable_bloom_filter single(50, 0.01), bulk(50, 0.01);
    std::uint64_t new_single = 0;
    for (const auto& key : keys) new_single += single.insert(key) ? 1 : 0;
    const std::uint64_t new_bulk = bulk.insert(keys.begin(), keys.end());
    EXPECT_EQ(single.stage_count(), bulk.stage_count());
    EXPECT_EQ(single, bulk);
    EXPECT_EQ(new_single, new_bulk);
    EXPECT_EQ(bulk.inserted_count(), new_bulk);
    EXPECT_GT(bulk.stage_count(), 6U);

    const auto probes = string_keys(10000, 12);
    const std::uint64_t maybe = bloomkit_test::expect_bulk_answers_match_single(bulk, single, probes);
    EXPECT_GT(maybe, 0U);  // some false positives: the comparison means something
    EXPECT_EQ(bulk.count_contained(keys.begin(), keys.end()), keys.size());

    scalable_bloom_filter ranged(50, 0.01);
    ranged.insert_range(keys);
    EXPECT_EQ(ranged, bulk);
}

TEST(ScalableBloomFilter, BulkInsertsOpenStagesAtTheSameKeysAsSingleInserts) {
    // Slices of assorted sizes (around the 32-key batches and 4096-key chunks of the bulk
    // operations) into a chain of 7, 11, 17, 26... keys, with keys repeated a few keys after
    // their first insert (often across a stage opening) and long after.
    const auto fresh = random_numbers(20000, 31);
    std::vector<std::uint64_t> keys;
    for (std::size_t i = 0; i < fresh.size(); ++i) {
        keys.push_back(fresh[i]);
        if (i % 3 == 0 && i >= 5) keys.push_back(fresh[i - 5]);
        if (i % 7 == 0) keys.push_back(fresh[i / 2]);
    }
    scalable_bloom_filter single(7, 0.01, {.growth = 1.5}), bulk(7, 0.01, {.growth = 1.5});
    const std::size_t slices[] = {1, 2, 31, 32, 33, 5, 64, 100, 7, 257, 4095, 4097, 9000};
    std::size_t at = 0;
    for (std::size_t slice = 0; at < keys.size(); ++slice) {
        const std::size_t end = std::min(keys.size(), at + slices[slice % std::size(slices)]);
        std::uint64_t new_single = 0;
        for (std::size_t i = at; i < end; ++i) new_single += single.insert(keys[i]) ? 1 : 0;
        const auto begin_at = keys.begin() + static_cast<std::ptrdiff_t>(at);
        ASSERT_EQ(bulk.insert(begin_at, keys.begin() + static_cast<std::ptrdiff_t>(end)), new_single)
            << "slice at " << at;
        ASSERT_EQ(bulk.stage_count(), single.stage_count()) << "slice at " << at;
        for (std::size_t i = 0; i < bulk.stage_count(); ++i)  // the same stages filled to the same point
            ASSERT_EQ(bulk.stages()[i].inserted_count(), single.stages()[i].inserted_count())
                << "stage " << i << ", slice at " << at;
        at = end;
    }
    EXPECT_EQ(bulk, single);
    EXPECT_GT(bulk.stage_count(), 12U);

    scalable_bloom_filter whole(7, 0.01, {.growth = 1.5});  // all in one call
    EXPECT_EQ(whole.insert(keys.begin(), keys.end()), single.inserted_count());
    EXPECT_EQ(whole, single);
}

TEST(ScalableBloomFilter, InsertingDigestsOpensTheSameStagesAsInsertingKeys) {
    // Keys hashed elsewhere (the command hashes on worker threads), in slices around the 4096-key
    // chunks, repeats included: the same stages, answers and counts as inserting the keys.
    const auto fresh = random_numbers(12000, 41);
    std::vector<std::uint64_t> keys;
    for (std::size_t i = 0; i < fresh.size(); ++i) {
        keys.push_back(fresh[i]);
        if (i % 4 == 0) keys.push_back(fresh[i / 2]);
    }
    scalable_bloom_filter by_key(7, 0.01), by_digest(7, 0.01);
    std::vector<char> key_answers, digest_answers;
    by_key.insert(keys.begin(), keys.end(), std::back_inserter(key_answers));
    std::vector<digest> digests;
    for (const std::uint64_t key : keys) digests.push_back(by_digest.hash_function()(key));
    const std::size_t slices[] = {1, 4095, 4097, 33, 9000};
    for (std::size_t at = 0, slice = 0; at < digests.size(); ++slice) {
        const std::size_t size = std::min(digests.size() - at, slices[slice % std::size(slices)]);
        by_digest.insert_digests(std::span<const digest>(digests).subspan(at, size),
                                 std::back_inserter(digest_answers));
        at += size;
    }
    EXPECT_EQ(by_digest, by_key);
    EXPECT_EQ(digest_answers, key_answers);
    EXPECT_EQ(by_digest.stage_count(), by_key.stage_count());
    EXPECT_GT(by_digest.stage_count(), 8U);
    for (std::size_t i = 0; i < keys.size(); i += 97) {
        EXPECT_TRUE(by_digest.contains_digest(digests[i]));
        scalable_bloom_filter one(7, 0.01);
        EXPECT_EQ(one.insert_digest(digests[i]), true);
        EXPECT_TRUE(one.contains(keys[i]));
    }
}

TEST(ScalableBloomFilter, ABulkInsertThatOpensAStageFindsKeysOnBothSides) {
    // One call (one batch): ten keys fill the first stage, the eleventh opens the second, and
    // keys repeated after that are found in the first stage and in the second.
    const auto k = string_keys(12, 41);
    const std::vector<std::string> keys = {k[0], k[1], k[2],  k[3], k[4],  k[5],  k[6], k[7],
                                           k[8], k[9], k[10], k[5], k[10], k[11], k[0], k[11]};
    scalable_bloom_filter filter(10, 0.01), single(10, 0.01);
    for (const auto& key : keys) single.insert(key);
    EXPECT_EQ(filter.insert(keys.begin(), keys.end()), 12U);
    ASSERT_EQ(filter.stage_count(), 2U);
    EXPECT_EQ(filter.stages()[0].inserted_count(), 10U);
    EXPECT_EQ(filter.stages()[1].inserted_count(), 2U);
    EXPECT_EQ(filter, single);
    EXPECT_EQ(filter.count_contained(keys.begin(), keys.end()), keys.size());
}

// --- Whole-filter operations ----------------------------------------------------------------

TEST(ScalableBloomFilter, UnionOrsCommonStagesAndCopiesTheRest) {
    const auto big_keys = string_keys(600, 21), small_keys = string_keys(50, 22);
    scalable_bloom_filter big(100, 0.01), small(100, 0.01);
    big.insert_range(big_keys);      // 100 + 200 + 400: three stages
    small.insert_range(small_keys);  // one stage, half full
    ASSERT_EQ(big.stage_count(), 3U);
    ASSERT_EQ(small.stage_count(), 1U);

    const scalable_bloom_filter merged = small | big;
    EXPECT_EQ(merged.stage_count(), 3U);
    EXPECT_EQ(merged, big | small);  // stage-wise OR commutes; the extra stages are big's
    EXPECT_EQ(merged.count_contained(big_keys.begin(), big_keys.end()), big_keys.size());
    EXPECT_EQ(merged.count_contained(small_keys.begin(), small_keys.end()), small_keys.size());
    EXPECT_EQ(merged.inserted_count(), big.inserted_count() + small.inserted_count());
    EXPECT_EQ(merged.stages()[1], big.stages()[1]);  // copied as they were
    EXPECT_EQ(merged.stages()[2], big.stages()[2]);

    scalable_bloom_filter grown = small;
    grown |= big;
    EXPECT_EQ(grown, merged);
    EXPECT_TRUE(grown.insert("after the union"));  // the copied stages are writable
    EXPECT_TRUE(grown.contains("after the union"));
    EXPECT_NE(grown, merged);
}

TEST(ScalableBloomFilter, IncompatibleFiltersRefuseToCombine) {
    scalable_bloom_filter base(100, 0.01, {.seed = 1});
    base.insert("x");
    auto expect_refusal = [&](const scalable_bloom_filter& other, const char* mentions) {
        bloomkit_test::expect_union_refused(base, other, mentions);
        EXPECT_FALSE(base.compatible_with(other));
    };
    expect_refusal(scalable_bloom_filter(200, 0.01, {.seed = 1}),
                   "different initial capacities (100 keys vs 200 keys)");
    expect_refusal(scalable_bloom_filter(100, 0.02, {.seed = 1}),
                   "different target false-positive rates (0.01 vs 0.02)");
    expect_refusal(scalable_bloom_filter(100, 0.01, {.growth = 4, .seed = 1}), "different growth factors (2 vs 4)");
    expect_refusal(scalable_bloom_filter(100, 0.01, {.tightening = 0.9, .seed = 1}),
                   "different tightening ratios (0.5 vs 0.9)");
    expect_refusal(scalable_bloom_filter(100, 0.01, {.seed = 2}), "different seeds (1 vs 2)");
    expect_refusal(scalable_bloom_filter(100, 0.01, {.seed = 1, .hash = hash_algorithm::xxh64}),
                   "different hash algorithms");
    EXPECT_TRUE(base.compatible_with(scalable_bloom_filter(100, 0.01, {.seed = 1})));
}

TEST(ScalableBloomFilter, EqualityCopyAndClear) {
    scalable_bloom_filter a(10, 0.01), b(10, 0.01), c(10, 0.01, {.seed = 9});
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    a.insert_range(string_keys(100, 5));
    EXPECT_NE(a, b);
    scalable_bloom_filter copy = a;
    EXPECT_EQ(copy, a);
    copy.insert("one more");
    EXPECT_NE(copy, a);  // a deep copy
    const auto initial_bytes = b.size_in_bytes();
    ASSERT_GT(a.stage_count(), 1U);
    a.clear();
    EXPECT_EQ(a.stage_count(), 1U);
    EXPECT_EQ(a.size_in_bytes(), initial_bytes);
    EXPECT_EQ(a.inserted_count(), 0U);
    EXPECT_EQ(a.current_fpr(), 0.0);
    EXPECT_EQ(a, b);
}

// --- Arguments and limits -------------------------------------------------------------------

TEST(ScalableBloomFilter, BadOptionsAreRejected) {
    EXPECT_THROW(scalable_bloom_filter(0, 0.01), invalid_argument);
    EXPECT_THROW(scalable_bloom_filter(100, 0.0), invalid_argument);
    EXPECT_THROW(scalable_bloom_filter(100, 1.0), invalid_argument);
    EXPECT_THROW(scalable_bloom_filter(100, std::nan("")), invalid_argument);
    for (const double growth : {0.0, 0.99, 4294967295.5, 1e300, std::nan(""), -2.0})
        EXPECT_THROW(scalable_bloom_filter(100, 0.01, {.growth = growth}), invalid_argument) << growth;
    for (const double tightening : {0.0, 1.0, -0.5, 1.5, std::nan("")})
        EXPECT_THROW(scalable_bloom_filter(100, 0.01, {.tightening = tightening}), invalid_argument) << tightening;
    EXPECT_NO_THROW(scalable_bloom_filter(100, 0.01, {.growth = 1.0, .tightening = 0.01}));
    EXPECT_NO_THROW(scalable_bloom_filter(100, 0.01, {.growth = 16.0, .tightening = 0.99}));
}

TEST(ScalableBloomFilter, AStageThatCannotBeSizedFailsTheInsertAndChangesNothing) {
    // The second stage would target p ≈ 1e-202: no Bloom filter of 2^64 bits gets there.
    scalable_bloom_filter filter(10, 0.01, {.tightening = 1e-200});
    const auto keys = string_keys(10, 3);
    filter.insert_range(keys);
    const scalable_bloom_filter before = filter;
    try {
        filter.insert("one too many");
        ADD_FAILURE() << "a stage was sized for p = " << filter.planned_stage(1).fpr;
    } catch (const invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("cannot size a scalable Bloom filter stage for 20 keys"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(filter.insert(keys.begin(), keys.end()), 0U);  // none is new: no stage needed
    const std::vector<std::string> with_a_new_key = {keys[0], keys[1], "one too many"};
    EXPECT_THROW(filter.insert(with_a_new_key.begin(), with_a_new_key.end()), invalid_argument);
    EXPECT_EQ(filter, before);
    EXPECT_EQ(filter.count_contained(keys.begin(), keys.end()), keys.size());
}

// --- Files: load rebuilds the stages; a mapped filter is read-only ---------------------------

/// A file path of its own for the running test, removed when the test ends.
class temp_file {
public:
    temp_file() {
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        path_ = std::filesystem::path(::testing::TempDir()) /
                (std::string("bloomkit-test_scalable-") + test->name() + "-" + std::to_string(::getpid()) + ".bloom");
    }
    temp_file(const temp_file&) = delete;
    temp_file& operator=(const temp_file&) = delete;
    ~temp_file() {
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }
    [[nodiscard]] const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

/// `filter` saved and mapped back: a copy of a mapped filter is a view of the same mapping.
scalable_bloom_filter mapped_copy(const scalable_bloom_filter& filter) {
    const temp_file file;
    save(filter, file.path());
    return map<scalable_bloom_filter>(file.path()).filter();  // the stages keep the mapping alive
}

TEST(ScalableFile, LoadRebuildsEveryStage) {
    scalable_bloom_filter original(100, 0.01, {.growth = 3, .tightening = 0.7, .seed = 5});
    original.insert_range(string_keys(1000, 4));
    ASSERT_GT(original.stage_count(), 2U);
    const temp_file file;
    save(original, file.path());
    scalable_bloom_filter loaded = load<scalable_bloom_filter>(file.path());
    EXPECT_FALSE(loaded.read_only());
    EXPECT_EQ(loaded, original);
    EXPECT_EQ(loaded.parameters(), original.parameters());
    EXPECT_EQ(loaded.hash_function(), original.hash_function());
    EXPECT_EQ(loaded.inserted_count(), original.inserted_count());
    for (std::size_t i = 0; i < loaded.stage_count(); ++i)
        EXPECT_EQ(loaded.stages()[i].inserted_count(), original.stages()[i].inserted_count()) << "stage " << i;
    // It grows on as the original does.
    const auto more = string_keys(2000, 5);
    EXPECT_EQ(loaded.insert_range(more), original.insert_range(more));
    EXPECT_EQ(loaded, original);
}

TEST(ScalableFile, MappedStagesAnswerQueriesAndRefuseChanges) {
    scalable_bloom_filter original(10, 0.01);
    const auto keys = string_keys(30, 4);  // 10 + 20: two full stages
    original.insert_range(keys);
    ASSERT_EQ(original.stage_count(), 2U);
    scalable_bloom_filter mapped = mapped_copy(original);
    ASSERT_TRUE(mapped.read_only());
    EXPECT_EQ(mapped, original);
    EXPECT_EQ(mapped.count_contained(keys.begin(), keys.end()), keys.size());
    EXPECT_THROW(mapped.insert("new key"), read_only_filter);  // would open a third, writable stage
    const auto more = string_keys(5, 9);
    EXPECT_THROW(mapped.insert(more.begin(), more.end()), read_only_filter);
    EXPECT_THROW(mapped.clear(), read_only_filter);
    EXPECT_THROW(mapped |= original, read_only_filter);
    EXPECT_EQ(mapped.stage_count(), 2U);
    EXPECT_EQ(mapped, original);

    // A union into an owned filter copies the mapped stages into owned ones.
    scalable_bloom_filter owned(10, 0.01);
    owned |= mapped;
    EXPECT_FALSE(owned.read_only());
    EXPECT_EQ(owned, original);
    EXPECT_TRUE(owned.insert("new key"));
}

TEST(ScalableFile, AMappedFilterWithRoomAnswersHeldKeysAndRefusesNewOnes) {
    scalable_bloom_filter original(10, 0.01);
    const auto keys = string_keys(15, 4);  // 10 + 5: the second stage has room
    original.insert_range(keys);
    ASSERT_EQ(original.stage_count(), 2U);
    scalable_bloom_filter mapped = mapped_copy(original);
    ASSERT_TRUE(mapped.read_only());
    // Keys it holds change nothing, singly or in bulk: answered, not refused.
    EXPECT_FALSE(mapped.insert(keys[12]));
    EXPECT_FALSE(mapped.insert(keys[3]));
    EXPECT_EQ(mapped.insert(keys.begin(), keys.end()), 0U);
    // A new key would go into the newest stage, which has room but is mapped.
    EXPECT_THROW(mapped.insert("new key"), read_only_filter);
    const std::vector<std::string> with_a_new_key = {keys[0], "new key"};
    EXPECT_THROW(mapped.insert(with_a_new_key.begin(), with_a_new_key.end()), read_only_filter);
    EXPECT_EQ(mapped.stage_count(), 2U);
    EXPECT_EQ(mapped, original);
    EXPECT_EQ(mapped.inserted_count(), original.inserted_count());
}

}  // namespace

// --- The limit of 4096 stages: what grows, saves and loads is the same -------------------------

namespace {

/// A scalable filter of `count` full stages, built from parts (sizing 4096 stages by the model
/// would take half a minute): each stage one 512-bit block, as the chain plans its capacity and
/// target.
bloomkit::scalable_bloom_filter full_chain(std::size_t count) {
    using namespace bloomkit;
    const scalable_parameters params{1, 0.01, 1.0, 0.999};
    const hasher h;
    std::vector<block_bloom_filter> stages;
    scalable_stage_plan plan = scalable_first_stage(params);
    for (std::size_t i = 0; i < count; ++i) {
        if (i > 0) plan = scalable_next_stage(params, plan);
        stages.emplace_back(bloom_geometry{512, 1}, h, block_bloom_filter::storage_type(8),
                            sizing_target{plan.capacity, plan.fpr}, plan.capacity);
    }
    return {params, h, std::move(stages)};
}

}  // namespace

TEST(ScalableLimits, AFilterAtTheStageLimitRefusesToGrowWithAClearError) {
    bloomkit::scalable_bloom_filter filter = full_chain(bloomkit::scalable_max_stages);
    ASSERT_EQ(filter.stage_count(), bloomkit::scalable_max_stages);
    try {
        filter.insert("one key too many");
        ADD_FAILURE() << "a full filter at the stage limit took a key";
    } catch (const bloomkit::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("limit of 4096 stages"), std::string::npos) << e.what();
    }
    EXPECT_EQ(filter.stage_count(), bloomkit::scalable_max_stages);
}

TEST(ScalableLimits, SaveAndLoadAcceptTheSameStageCounts) {
    const bloomkit::scalable_bloom_filter at_limit = full_chain(bloomkit::scalable_max_stages);
    const auto bytes = bloomkit::to_bytes(at_limit);
    EXPECT_TRUE(bloomkit::from_bytes<bloomkit::scalable_bloom_filter>(bytes) == at_limit);
    EXPECT_THROW(full_chain(bloomkit::scalable_max_stages + 1), bloomkit::invalid_argument);
}
