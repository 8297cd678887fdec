// Tests of bloomkit/counting_bloom_filter.hpp: the packed-counter arithmetic, known answers,
// agreement with the block Bloom filter's placement, no false negatives across random
// insert/remove sequences checked against an exact multiset, checked removal, saturation,
// multiplicity, measured FPR, bulk = single, union, the from-parts constructor (read-only views), bad
// arguments, and a filter of more than 2^32 counters.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "filter_checks.hpp"
#include "key_sets.hpp"

namespace {

using namespace bloomkit;

using bloomkit_test::random_numbers;
using bloomkit_test::string_keys;

std::uint64_t words_checksum(const counting_bloom_filter& filter) {
    const auto words = filter.words();
    return XXH3_64bits(words.data(), words.size_bytes());
}

bool all_zero(const counting_bloom_filter& filter) {
    return std::ranges::all_of(filter.words(), [](std::uint64_t w) { return w == 0; });
}

// --- Packed 4-bit counters, against a counter-by-counter reference --------------------------

std::uint64_t counter(std::uint64_t word, unsigned i) { return (word >> (4 * i)) & 15; }

TEST(NibbleCounters, AgreeWithCounterByCounterArithmetic) {
    std::mt19937_64 rng(1);
    for (int round = 0; round < 20000; ++round) {
        // Random words, and words made of extreme counters (0, 1, 7, 8, 14, 15) where carries bite.
        auto word = [&] {
            if (round % 2 == 0) return rng();
            std::uint64_t w = 0;
            for (unsigned i = 0; i < 16; ++i)
                w |= std::uint64_t{std::array<unsigned, 6>{0, 1, 7, 8, 14, 15}[rng() % 6]} << (4 * i);
            return w;
        };
        const std::uint64_t a = word(), b = word(), lanes = rng() & detail::counter_low_bits;
        std::uint64_t nonzero = 0, saturated = 0, sum = 0, least = 15;
        for (unsigned i = 0; i < 16; ++i) {
            nonzero |= std::uint64_t{counter(a, i) != 0} << (4 * i);
            saturated |= std::uint64_t{counter(a, i) == 15} << (4 * i);
            sum |= std::min<std::uint64_t>(counter(a, i) + counter(b, i), 15) << (4 * i);
            if ((lanes >> (4 * i)) & 1) least = std::min(least, counter(a, i));
        }
        ASSERT_EQ(detail::nonzero_counters(a), nonzero) << std::hex << a;
        ASSERT_EQ(detail::saturated_counters(a), saturated) << std::hex << a;
        ASSERT_EQ(detail::saturating_add_counters(a, b), sum) << std::hex << a << " + " << b;
        ASSERT_EQ(detail::min_counter(a, lanes), least) << std::hex << a << " lanes " << lanes;
    }
}

// --- Known answers: these bytes will be the file format's payload; they must never change. --

TEST(KnownAnswer, CountingFilterWords) {
    // Keys hashed by xxh3_mum (XXH3-128), the default of the files that froze these bytes.
    counting_bloom_filter filter(counting_geometry{4096, 7}, {.seed = 0x5eed, .hash = hash_algorithm::xxh3_mum});
    for (int i = 0; i < 100; ++i) filter.insert("key-" + std::to_string(i));
    for (int i = 0; i < 100; i += 3) filter.insert("key-" + std::to_string(i));  // some twice
    for (int i = 0; i < 100; i += 7) filter.remove("key-" + std::to_string(i));
    EXPECT_EQ(filter.nonzero_counter_count(), 574U);
    EXPECT_EQ(words_checksum(filter), 0x1706e095a0ef3e75ULL);
}

TEST(KnownAnswer, CountersFollowTheDocumentedRule) {
    // block = high64(digest.high * blocks); probe i picks counter: top 7 bits of
    // x * 0x9e3779b9^(i+1) mod 2^32; a counter picked twice counts the key once.
    const std::uint64_t blocks = 37;
    counting_bloom_filter filter(counting_geometry{128 * blocks, 9});
    const std::string key = "documented rule";
    filter.insert(key);
    filter.insert(key);
    const digest d = filter.hash_function()(key);
    const auto block = static_cast<std::uint64_t>((static_cast<detail::uint128>(d.high) * blocks) >> 64);
    std::uint64_t expected[8] = {};
    std::uint32_t product = static_cast<std::uint32_t>(d.low);
    for (int i = 0; i < 9; ++i) {
        product *= 0x9e3779b9U;
        const std::uint32_t c = product >> 25;                   // 0..127
        expected[c / 16] |= std::uint64_t{2} << (4 * (c % 16));  // inserted twice: 2, once per key
    }
    const auto words = filter.words();
    for (std::size_t w = 0; w < words.size(); ++w)
        EXPECT_EQ(words[w], w / 8 == block ? expected[w % 8] : 0) << "word " << w;
}

TEST(KnownAnswer, NonzeroCountersAreTheBlockBloomFilterBitsSeenFourAtATime) {
    // The same keys in a block Bloom filter of 4 bits per counter: a counter is nonzero exactly
    // where its 4-bit group of the Bloom filter has a bit set.
    for (const std::uint32_t k : {1U, 3U, 7U, 16U}) {
        counting_bloom_filter counting(counting_geometry{128 * 50, k}, {.seed = 3});
        block_bloom_filter bloom(bloom_geometry{512 * 50, k}, {.seed = 3});
        const auto keys = string_keys(1500, k);
        counting.insert_range(keys);
        bloom.insert_range(keys);
        ASSERT_EQ(counting.words().size(), bloom.words().size());
        for (std::size_t w = 0; w < bloom.words().size(); ++w)
            ASSERT_EQ(detail::nonzero_counters(counting.words()[w]), detail::nonzero_counters(bloom.words()[w]))
                << "k=" << k << " word " << w;
    }
}

// --- Against an exact multiset --------------------------------------------------------------

/// Random inserts and removals (checked and unchecked, but only of keys the model holds) over a
/// pool of keys, checking after every step that each key the model holds is found, with a
/// count no lower than its multiplicity (up to 15). Returns how many counters ended saturated.
std::uint64_t check_against_multiset(counting_geometry g, std::size_t pool_size, int steps, std::uint64_t seed) {
    counting_bloom_filter filter(g, {.seed = seed});
    const auto pool = string_keys(pool_size, seed);
    std::unordered_multiset<std::string> model;
    std::mt19937_64 rng(seed);
    for (int step = 0; step < steps; ++step) {
        const std::string& key = pool[rng() % pool.size()];
        const auto op = rng() % 5;
        if (op < 3) {
            const bool was_absent = !filter.contains(key);
            EXPECT_EQ(filter.insert(key), was_absent);
            model.insert(key);
        } else if (model.count(key) > 0) {
            if (op == 3) EXPECT_TRUE(filter.remove(key)) << "refused a key it holds, step " << step;
            else filter.remove_unchecked(key);
            model.erase(model.find(key));
        }
        EXPECT_EQ(filter.inserted_count(), model.size());
        if (step % 97 != 0 && step != steps - 1) continue;
        for (const std::string& held : pool) {
            const auto multiplicity = static_cast<std::uint32_t>(std::min<std::size_t>(model.count(held), 15));
            if (multiplicity == 0) continue;
            EXPECT_TRUE(filter.contains(held)) << "false negative at step " << step;
            EXPECT_GE(filter.count(held), multiplicity) << "step " << step;
        }
        if (testing::Test::HasFailure()) return 0;
    }
    std::uint64_t saturated = 0;
    for (const auto word : filter.words())
        saturated += static_cast<std::uint64_t>(std::popcount(detail::saturated_counters(word)));
    return saturated;
}

TEST(CountingBloomFilter, NoFalseNegativesAgainstAMultisetInARoomyFilter) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) check_against_multiset({128 * 64, 6}, 400, 6000, seed);
}

TEST(CountingBloomFilter, NoFalseNegativesAgainstAMultisetWhenCountersSaturate) {
    // 2 blocks for 300 keys held ~4 times each: counters collide and saturate all the time.
    for (std::uint64_t seed = 1; seed <= 5; ++seed)
        EXPECT_GT(check_against_multiset({256, 4}, 300, 6000, seed), 20U) << "meant to exercise saturated counters";
}

TEST(CountingBloomFilter, RemovingEverythingEmptiesAnUnsaturatedFilter) {
    counting_bloom_filter filter(10000, 0.01);
    const auto keys = string_keys(5000, 8);
    filter.insert_range(keys);
    filter.insert_range(keys);  // twice each
    for (const auto& key : keys) ASSERT_TRUE(filter.remove(key));
    EXPECT_EQ(filter.count_contained(keys.begin(), keys.end()), keys.size());  // once more each
    for (const auto& key : keys) filter.remove_unchecked(key);
    EXPECT_TRUE(all_zero(filter));
    EXPECT_EQ(filter.inserted_count(), 0U);
    EXPECT_EQ(filter.count_contained(keys.begin(), keys.end()), 0U);
}

// --- Removal, saturation, multiplicity ------------------------------------------------------

TEST(CountingBloomFilter, CheckedRemoveRefusesAbsentKeys) {
    counting_bloom_filter filter(1000, 0.01);
    filter.insert_range(string_keys(500, 2));
    const auto before = std::vector<std::uint64_t>(filter.words().begin(), filter.words().end());
    int refused = 0;
    for (const auto& absent : string_keys(2000, 3)) {
        if (filter.contains(absent)) continue;  // a false positive: not what this test is about
        EXPECT_FALSE(filter.remove(absent));
        ++refused;
    }
    EXPECT_GT(refused, 1900);
    EXPECT_TRUE(std::ranges::equal(filter.words(), before));  // nothing changed
    EXPECT_EQ(filter.inserted_count(), 500U);
}

TEST(CountingBloomFilter, BatchRemoveIsAllOrNothing) {
    counting_bloom_filter filter(1000, 0.01);
    const auto held = string_keys(500, 2);
    filter.insert_range(held);
    bloomkit_test::expect_batch_remove_all_or_nothing(filter, held, string_keys(2000, 3));
}

TEST(CountingBloomFilter, UncheckedRemoveOfAnAbsentKeyCanCauseFalseNegatives) {
    // The documented hazard, demonstrated: an absent key shares counters with a present one.
    counting_bloom_filter filter(counting_geometry{128, 4});  // one block
    filter.insert("present");
    std::uint64_t intruder = 0;
    while (filter.contains(intruder) || filter.count(intruder) != 0 ||
           [&] {  // an absent key sharing at least one counter with "present"
               counting_bloom_filter probe = filter;
               probe.remove_unchecked(intruder);
               return probe.contains("present");
           }())
        ++intruder;
    EXPECT_FALSE(filter.remove(intruder));  // the checked removal refuses it
    EXPECT_TRUE(filter.contains("present"));
    filter.remove_unchecked(intruder);  // the unchecked one does the damage
    EXPECT_FALSE(filter.contains("present"));
}

TEST(CountingBloomFilter, SaturatedCountersAreNeverDecremented) {
    counting_bloom_filter filter(1000, 0.01);
    for (int i = 0; i < 20; ++i) filter.insert("hot key");
    EXPECT_EQ(filter.count("hot key"), counting_bloom_filter::max_count);
    for (int i = 0; i < 20; ++i) ASSERT_TRUE(filter.remove("hot key")) << i;
    EXPECT_TRUE(filter.contains("hot key"));  // its counters stayed at 15
    EXPECT_EQ(filter.count("hot key"), 15U);

    // Below saturation, removals undo insertions exactly.
    counting_bloom_filter other(1000, 0.01);
    for (int i = 0; i < 14; ++i) other.insert("warm key");
    EXPECT_EQ(other.count("warm key"), 14U);
    for (int i = 0; i < 14; ++i) ASSERT_TRUE(other.remove("warm key"));
    EXPECT_FALSE(other.contains("warm key"));
    EXPECT_TRUE(all_zero(other));
}

TEST(CountingBloomFilter, CountEstimatesMultiplicity) {
    counting_bloom_filter filter(10000, 0.001);
    const auto keys = string_keys(100, 5);
    for (std::size_t i = 0; i < keys.size(); ++i)
        for (std::size_t n = 0; n < i % 7; ++n) filter.insert(keys[i]);
    for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(filter.count(keys[i]), i % 7) << i;
    EXPECT_EQ(filter.count("never inserted"), 0U);
}

TEST(CountingBloomFilter, InsertReportsWhetherTheKeyWasNew) {
    counting_bloom_filter filter(1000, 0.01);
    EXPECT_TRUE(filter.insert("alpha"));
    EXPECT_FALSE(filter.insert("alpha"));
    EXPECT_EQ(filter.inserted_count(), 2U);  // with multiplicity
    EXPECT_TRUE(filter.remove("alpha"));
    EXPECT_TRUE(filter.contains("alpha"));
    EXPECT_TRUE(filter.remove("alpha"));
    EXPECT_FALSE(filter.contains("alpha"));
    EXPECT_FALSE(filter.remove("alpha"));
    EXPECT_EQ(filter.inserted_count(), 0U);
    EXPECT_EQ(filter.expected_keys(), 1000U);
    EXPECT_DOUBLE_EQ(filter.target_fpr(), 0.01);
}

// --- Sizing and the measured false-positive rate --------------------------------------------

TEST(CountingSizing, SearchFindsTheFewestCountersForEveryProbeCount) {
    for (const double p : {0.1, 0.01, 0.001, 1e-4}) {
        const counting_plan plan = plan_counting_bloom(1e6, p);
        EXPECT_LE(plan.fpr, p);
        EXPECT_EQ(plan.geometry.counters % 128, 0U);
        // No other k reaches p with fewer counters (exhaustive over the sensible band).
        for (std::uint32_t k = 1; k <= 24; ++k) {
            const double fewer = static_cast<double>(plan.geometry.counters) * 0.995;
            EXPECT_GT(counting_fpr(1e6, {static_cast<std::uint64_t>(fewer), k}), p) << "p=" << p << " k=" << k;
        }
    }
    EXPECT_NEAR(plan_counting_bloom(1e6, 0.01).bits_per_key(1e6), 43.4, 0.1);
    EXPECT_THROW((void)plan_counting_bloom(0, 0.01), invalid_argument);
    EXPECT_THROW((void)plan_counting_bloom(1e30, 0.01), invalid_argument);
    EXPECT_THROW((void)plan_counting_bloom(1000, 1e-250), invalid_argument);  // beyond 64 probes
}

TEST(CountingBloomFilter, MeasuredFprMeetsTheTarget) {
    for (const auto& [n, p] : {std::pair{1'000'000ULL, 0.01}, std::pair{100'000ULL, 0.001}}) {
        counting_bloom_filter filter(n, p, {.seed = n});
        const auto keys = random_numbers(n, n + 1);
        filter.insert(keys.begin(), keys.end());
        ASSERT_EQ(filter.count_contained(keys.begin(), keys.end()), n) << "false negatives";
        const auto probes = random_numbers(2'000'000, n + 2);  // never inserted (collision ~2^-44)
        const double queries = static_cast<double>(probes.size());
        const double measured = static_cast<double>(filter.count_contained(probes.begin(), probes.end())) / queries;
        const double model = counting_fpr(static_cast<double>(n), filter.geometry());
        const double noise = 5 * std::sqrt(model / queries) + 0.03 * model;  // binomial + one filter's spread
        std::printf("counting n=%llu p=%g: %.2f bits/key, k=%u, measured FPR %.5f%%, model %.5f%%\n",
                    static_cast<unsigned long long>(n), p,
                    8.0 * static_cast<double>(filter.size_in_bytes()) / static_cast<double>(n), filter.hash_count(),
                    100 * measured, 100 * model);
        EXPECT_LE(model, p);
        EXPECT_NEAR(measured, model, noise);
        EXPECT_LE(measured, p + noise);
    }
}

TEST(CountingBloomFilter, EstimatesFollowTheNonzeroCounters) {
    counting_bloom_filter filter(100000, 0.01);
    EXPECT_EQ(filter.approximate_count(), 0.0);
    EXPECT_EQ(filter.current_fpr(), 0.0);
    const auto keys = string_keys(100000, 41);
    filter.insert_range(keys);
    filter.insert_range(keys);  // duplicates make no new nonzero counters
    EXPECT_NEAR(filter.approximate_count() / 1e5, 1.0, 0.02);
    EXPECT_NEAR(filter.current_fpr() / 0.01, 1.0, 0.1);
    EXPECT_EQ(filter.inserted_count(), 200000U);

    counting_bloom_filter full(counting_geometry{128, 3});
    for (std::uint64_t i = 0; i < 100000 && full.nonzero_counter_count() < full.counter_count(); ++i) full.insert(i);
    ASSERT_EQ(full.nonzero_counter_count(), full.counter_count());
    EXPECT_TRUE(std::isinf(full.approximate_count()));
    EXPECT_EQ(full.current_fpr(), 1.0);
}

// --- Bulk, whole-filter operations ----------------------------------------------------------

TEST(CountingBloomFilter, BulkOperationsAgreeWithSingleOnes) {
    const auto keys = string_keys(10000, 11);
    counting_bloom_filter single(5000, 0.01), bulk(5000, 0.01);
    std::uint64_t new_single = 0;
    for (const auto& key : keys) new_single += single.insert(key) ? 1 : 0;
    for (int i = 0; i < 3000; ++i) new_single += single.insert(keys[i]) ? 1 : 0;
    std::uint64_t new_bulk = bulk.insert(keys.begin(), keys.end());
    new_bulk += bulk.insert(keys.begin(), keys.begin() + 3000);
    EXPECT_EQ(single, bulk);
    EXPECT_EQ(new_single, new_bulk);
    EXPECT_EQ(bulk.inserted_count(), 13000U);

    const auto probes = string_keys(10000, 12);
    bloomkit_test::expect_bulk_answers_match_single(bulk, single, probes);

    counting_bloom_filter ranged(5000, 0.01);
    ranged.insert_range(keys);
    ranged.insert_range(std::span(keys).first(3000));
    EXPECT_EQ(ranged, bulk);
}

TEST(CountingBloomFilter, UnionIsTheFilterOfAllInserts) {
    const auto left_keys = string_keys(3000, 21), right_keys = string_keys(3000, 22);
    counting_bloom_filter left(6000, 0.01), right(6000, 0.01), both(6000, 0.01);
    for (auto* f : {&left, &both}) f->insert_range(left_keys);
    for (auto* f : {&right, &both}) f->insert_range(right_keys);
    for (int i = 0; i < 12; ++i)  // a key in both, 12 times each side: the sum saturates
        for (auto* f : {&left, &right, &both, &both}) f->insert("shared");
    const counting_bloom_filter merged = left | right;
    EXPECT_EQ(merged, both);  // min(a + b, 15) is what inserting everything here gives
    EXPECT_EQ(merged.count("shared"), 15U);
    EXPECT_EQ(merged.inserted_count(), left.inserted_count() + right.inserted_count());
    left |= right;
    EXPECT_EQ(left, both);
    // Every key of either side can be removed again.
    for (const auto& key : right_keys) ASSERT_TRUE(left.remove(key));
    EXPECT_EQ(left.count_contained(left_keys.begin(), left_keys.end()), left_keys.size());
}

TEST(CountingBloomFilter, IncompatibleFiltersRefuseToCombine) {
    counting_bloom_filter base(counting_geometry{4096, 5}, {.seed = 1});
    base.insert("x");
    auto expect_refusal = [&](const counting_bloom_filter& other, const char* mentions) {
        bloomkit_test::expect_union_refused(base, other, mentions);
        EXPECT_FALSE(base.compatible_with(other));
    };
    expect_refusal(counting_bloom_filter(counting_geometry{8192, 5}, {.seed = 1}),
                   "different sizes (4096 counters vs 8192");
    expect_refusal(counting_bloom_filter(counting_geometry{4096, 6}, {.seed = 1}),
                   "different numbers of probes (5 vs 6)");
    expect_refusal(counting_bloom_filter(counting_geometry{4096, 5}, {.seed = 2}), "different seeds (1 vs 2)");
    expect_refusal(counting_bloom_filter(counting_geometry{4096, 5}, {.seed = 1, .hash = hash_algorithm::xxh64}),
                   "different hash algorithms (xxh3-64-mum vs xxh64)");  // xxh3-64-mum: the default
    expect_refusal(counting_bloom_filter(counting_geometry{4096, 5}, {.seed = 1, .hash = hash_algorithm::xxh3_128}),
                   "different hash algorithms (xxh3-64-mum vs xxh3-128)");
}

TEST(CountingBloomFilter, EqualityCopyAndClear) {
    counting_bloom_filter a(1000, 0.01), b(1000, 0.01), c(1000, 0.01, {.seed = 99});
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);  // same (empty) counters, different seed
    a.insert(std::uint64_t{5});
    EXPECT_NE(a, b);
    b.insert(std::uint64_t{5});
    EXPECT_EQ(a, b);
    a.insert(std::uint64_t{5});
    EXPECT_NE(a, b);  // counts differ, though the same keys test present
    counting_bloom_filter copy = a;
    copy.insert(std::uint64_t{6});
    EXPECT_NE(copy, a);  // a deep copy
    copy.clear();
    EXPECT_TRUE(all_zero(copy));
    EXPECT_EQ(copy.inserted_count(), 0U);
    EXPECT_EQ(copy, counting_bloom_filter(1000, 0.01));
}

// --- Geometry, arguments --------------------------------------------------------------------

TEST(CountingBloomFilter, GeometryAndAccessors) {
    counting_bloom_filter explicit_size(counting_geometry{1000, 4}, {.seed = 7, .hash = hash_algorithm::xxh64});
    EXPECT_EQ(explicit_size.counter_count(), 1024U);  // whole blocks of 128
    EXPECT_EQ(explicit_size.hash_count(), 4U);
    EXPECT_EQ(explicit_size.size_in_bytes(), 512U);
    EXPECT_EQ(explicit_size.words().size(), 64U);
    EXPECT_EQ(explicit_size.expected_keys(), 0U);
    EXPECT_EQ(explicit_size.hash_function(), hasher(hash_algorithm::xxh64, 7));
    EXPECT_EQ(counting_bloom_filter(counting_geometry{0, 4}).counter_count(), 128U);

    const counting_bloom_filter sized(1'000'000, 0.01);
    EXPECT_EQ(sized.geometry(), plan_counting_bloom(1e6, 0.01).geometry);
    EXPECT_EQ(sized.hash_function(), hasher());  // XXH3-128, seed 0
    EXPECT_FALSE(sized.read_only());
}

TEST(CountingBloomFilter, AbsurdParametersAreRejected) {
    EXPECT_THROW(counting_bloom_filter(0, 0.01), invalid_argument);
    EXPECT_THROW(counting_bloom_filter(1000, 0.0), invalid_argument);
    EXPECT_THROW(counting_bloom_filter(1000, 1.0), invalid_argument);
    EXPECT_THROW(counting_bloom_filter(1000, std::nan("")), invalid_argument);
    EXPECT_THROW(counting_bloom_filter(counting_geometry{1024, 0}), invalid_argument);
    EXPECT_THROW(counting_bloom_filter(counting_geometry{1024, 65}), invalid_argument);
    EXPECT_THROW(counting_bloom_filter(counting_geometry{~std::uint64_t{0}, 4}), invalid_argument);
    EXPECT_THROW(counting_bloom_filter(counting_geometry{(std::uint64_t{1} << 62) + 1, 4}), invalid_argument);
}

TEST(CountingBloomFilter, CounterCountsOfTwoToThe62AreTooManyForTheRightReason) {
    // 2^62 counters of 4 bits are 2^64 bits: one more than 64-bit sizes hold. The message must
    // say so, for 2^62 itself and for the counts that round up to it, as it does beyond.
    const std::uint64_t two_to_the_62 = std::uint64_t{1} << 62;
    for (const std::uint64_t counters : {two_to_the_62 + 1, two_to_the_62, two_to_the_62 - 1}) {
        try {
            counting_bloom_filter filter(counting_geometry{counters, 4});
            ADD_FAILURE() << counters << " counters accepted";
        } catch (const invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("does not fit in 64-bit sizes"), std::string::npos)
                << counters << ": " << e.what();
        }
    }
}

// --- The from-parts constructor: a read-only view of words, as map() builds --------------------

TEST(CountingFromParts, ReadOnlyViewsAnswerQueriesAndRefuseChanges) {
    counting_bloom_filter owned(counting_geometry{1024, 5}, {.seed = 4});
    const auto keys = string_keys(100, 6);
    owned.insert_range(keys);
    const auto words = owned.words();  // copied to 64-byte aligned memory, like a file's payload
    auto copy = std::make_shared<detail::zeroed_block>(words.size_bytes());
    std::memcpy(copy->data(), words.data(), words.size_bytes());
    counting_bloom_filter view = counting_bloom_filter(
        owned.geometry(), owned.hash_function(),
        detail::word_storage<std::uint64_t>::view(static_cast<const std::uint64_t*>(copy->data()), words.size(), copy));
    ASSERT_TRUE(view.read_only());
    EXPECT_EQ(view, owned);
    EXPECT_EQ(view.count_contained(keys.begin(), keys.end()), keys.size());
    EXPECT_THROW(view.insert("new"), read_only_filter);
    EXPECT_THROW(view.insert(keys.begin(), keys.end()), read_only_filter);
    EXPECT_THROW(view.remove(keys[0]), read_only_filter);
    EXPECT_THROW(view.remove_unchecked(keys[0]), read_only_filter);
    EXPECT_THROW(view.clear(), read_only_filter);
    EXPECT_THROW(view |= owned, read_only_filter);
    EXPECT_EQ(view, owned);  // nothing changed
    EXPECT_EQ(view.inserted_count(), 0U);

    counting_bloom_filter writable = view;  // a copy of a view is a view...
    EXPECT_TRUE(writable.read_only());
    counting_bloom_filter merged(counting_geometry{1024, 5}, {.seed = 4});
    merged |= view;  // ...but a union into an owned filter is owned
    EXPECT_EQ(merged, owned);

    EXPECT_THROW(counting_bloom_filter({1024, 5}, hasher(), detail::word_storage<std::uint64_t>(63)), invalid_argument);
    EXPECT_THROW(counting_bloom_filter({1000, 5}, hasher(), detail::word_storage<std::uint64_t>(63)), invalid_argument);
    EXPECT_THROW(counting_bloom_filter({1024, 0}, hasher(), detail::word_storage<std::uint64_t>(64)), invalid_argument);
}

// --- More than 2^32 counters: positions, sizes and counts are 64-bit throughout --------------

TEST(HugeCountingFilter, BeyondTwoToThe32Counters) {
    constexpr std::uint64_t counters = std::uint64_t{1} << 33;  // 4 GiB, mmap'd lazily; few pages touched
    counting_bloom_filter filter(counting_geometry{counters, 4});
    ASSERT_EQ(filter.counter_count(), counters);
    ASSERT_EQ(filter.size_in_bytes(), counters / 2);
    const auto keys = random_numbers(64, 5);  // each may fault in a 2 MiB huge page
    filter.insert(keys.begin(), keys.end());
    EXPECT_EQ(filter.count_contained(keys.begin(), keys.end()), keys.size());
    for (const auto key : keys) ASSERT_TRUE(filter.remove(key));
    EXPECT_EQ(filter.count_contained(keys.begin(), keys.end()), 0U);
    filter.insert(keys.begin(), keys.end());
    const auto words = filter.words();
    const std::size_t first_high_word = (std::uint64_t{1} << 32) / 16;  // counter 2^32
    std::uint64_t high = 0;
    for (std::size_t i = first_high_word; i < words.size(); ++i) high += words[i] != 0 ? 1 : 0;
    EXPECT_GT(high, keys.size() / 4);  // about half the keys land beyond counter 2^32
}

}  // namespace
