// Tests of bloomkit/bloom_filter.hpp: known answers per layout, no false negatives, the API's
// contracts (insert's answer, bulk = single, clear, union, intersection, equality, estimates),
// bad arguments, and a filter of more than 2^32 bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "filter_checks.hpp"
#include "key_sets.hpp"
#include "layout_types.hpp"

namespace {

using namespace bloomkit;

using bloomkit_test::string_keys;

std::uint64_t words_checksum(const auto& filter) {
    const auto words = filter.words();
    return XXH3_64bits(words.data(), words.size_bytes());
}

template <class Filter>
Filter filter_of_100_keys(bloom_geometry geometry, std::uint64_t seed, std::optional<hash_algorithm> hash = {}) {
    Filter filter(geometry, {.seed = seed, .hash = hash});
    for (int i = 0; i < 100; ++i) filter.insert("key-" + std::to_string(i));
    return filter;
}

// --- Known answers: these bytes are the file format's payload; they must never change. ------

// Under the default hash (xxh3_64_mum), and under xxh3_mum (XXH3-128), the default of files
// written before it, whose filters must go on answering as they were built.
TEST(KnownAnswer, ClassicLayout) {
    const auto filter = filter_of_100_keys<classic_bloom_filter>({4000, 7}, 0x5eed);
    EXPECT_EQ(filter.set_bit_count(), 645U);
    EXPECT_EQ(words_checksum(filter), 0xdb907622990264f1ULL);
    const auto hash_4 = filter_of_100_keys<classic_bloom_filter>({4000, 7}, 0x5eed, hash_algorithm::xxh3_mum);
    EXPECT_EQ(hash_4.set_bit_count(), 636U);
    EXPECT_EQ(words_checksum(hash_4), 0xb4c8b1520908c84fULL);
}

TEST(KnownAnswer, BlockLayout) {
    const auto filter = filter_of_100_keys<block_bloom_filter>({4096, 7}, 0x5eed);
    EXPECT_EQ(filter.set_bit_count(), 653U);
    EXPECT_EQ(words_checksum(filter), 0x76ceb8be76c85666ULL);
    const auto hash_4 = filter_of_100_keys<block_bloom_filter>({4096, 7}, 0x5eed, hash_algorithm::xxh3_mum);
    EXPECT_EQ(hash_4.set_bit_count(), 654U);
    EXPECT_EQ(words_checksum(hash_4), 0x3794a95cf32251fcULL);
}

TEST(KnownAnswer, SplitBlockLayout) {
    const auto filter = filter_of_100_keys<split_block_bloom_filter>({4096, 8}, 0);
    EXPECT_EQ(filter.set_bit_count(), 726U);
    EXPECT_EQ(words_checksum(filter), 0x330fd244826bd53fULL);
}

TEST(KnownAnswer, SplitBlockFollowsTheParquetSpecByHand) {
    // Parquet BloomFilter.md, worked by hand for the empty key (a zero-length BYTE_ARRAY):
    //   h = XXH64("", seed 0) = 0xEF46DB37'51D8E999; z = 32 blocks (8192 bits)
    //   block = ((h >> 32) * z) >> 32 = (0xEF46DB37 * 32) >> 32 = 29
    //   x = 0x51D8E999; word i gets bit (x * salt[i] mod 2^32) >> 27:
    //   salts 0x47b6137b 0x44974d91 0x8824ad5b 0xa2b7289d 0x705495c7 0x2df1424b 0x9efc4947 0x5c6bfb31
    //   bits   29         0          25         28         14         22         29         30
    split_block_bloom_filter filter(bloom_geometry{8192, 8});
    EXPECT_EQ(filter.hash_function().algorithm(), hash_algorithm::xxh64);
    EXPECT_TRUE(filter.insert(std::string_view{}));
    const std::uint32_t expected_bits[8] = {29, 0, 25, 28, 14, 22, 29, 30};
    const auto words = filter.words();
    for (std::size_t word = 0; word < words.size(); ++word) {
        const std::size_t block = word / 8;
        const std::uint32_t expected = block == 29 ? std::uint32_t{1} << expected_bits[word % 8] : 0;
        EXPECT_EQ(words[word], expected) << "word " << word;
    }
}

TEST(KnownAnswer, BlockLayoutFollowsItsDocumentedRule) {
    // block = high64(digest.high * blocks); bit i = top 9 bits of x * 0x9e3779b9^(i+1) mod 2^32.
    const bloom_geometry g{512 * 37, 5};
    block_bloom_filter filter(g);
    const std::string key = "documented rule";
    filter.insert(key);
    const digest d = filter.hash_function()(key);
    const auto block = static_cast<std::uint64_t>((static_cast<detail::uint128>(d.high) * 37) >> 64);
    std::uint64_t expected[8] = {};
    std::uint32_t product = static_cast<std::uint32_t>(d.low);
    for (int i = 0; i < 5; ++i) {
        product *= 0x9e3779b9U;
        expected[product >> 29] |= std::uint64_t{1} << ((product >> 23) & 63);
    }
    const auto words = filter.words();
    for (std::size_t w = 0; w < words.size(); ++w)
        EXPECT_EQ(words[w], w / 8 == block ? expected[w % 8] : 0) << "word " << w;
}

TEST(KnownAnswer, ClassicLayoutFollowsEnhancedDoubleHashing) {
    const bloom_geometry g{1000, 6};
    classic_bloom_filter filter(g);
    filter.insert(std::uint64_t{42});
    const digest d = filter.hash_function()(std::uint64_t{42});
    std::vector<std::uint64_t> expected(filter.words().size());
    std::uint64_t x = d.low, y = d.high;
    for (std::uint64_t i = 0; i < 6; ++i) {
        const auto bit = static_cast<std::uint64_t>((static_cast<detail::uint128>(x) * 1000) >> 64);
        expected[bit / 64] |= std::uint64_t{1} << (bit % 64);
        x += y;
        y += i;
    }
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), filter.words().begin()));
}

// --- Behaviour common to every layout -------------------------------------------------------

template <class Filter>
class EveryLayout : public testing::Test {};
TYPED_TEST_SUITE(EveryLayout, bloomkit_test::bloom_layouts, bloomkit_test::layout_name);

TYPED_TEST(EveryLayout, NoFalseNegativesAcrossRandomSizes) {
    std::mt19937_64 rng(7);
    for (int round = 0; round < 60; ++round) {
        // Power-of-two sizes and odd ones, tiny to moderate, over- and under-filled.
        const std::uint64_t bits = round % 3 == 0 ? (std::uint64_t{1} << (9 + rng() % 12)) : 1 + rng() % 300000;
        const std::uint32_t hashes = TypeParam::layout() == bloom_layout::split_block ? 8 : 1 + rng() % 16;
        TypeParam filter(bloom_geometry{bits, hashes}, {.seed = rng()});
        const auto keys = string_keys(1 + rng() % 5000, rng());
        for (const auto& key : keys) filter.insert(key);
        std::vector<std::uint64_t> numbers(1 + rng() % 3000);
        for (auto& n : numbers) n = rng();
        filter.insert(numbers.begin(), numbers.end());
        for (const auto& key : keys) ASSERT_TRUE(filter.contains(key)) << "bits=" << bits << " k=" << hashes;
        for (const auto n : numbers) ASSERT_TRUE(filter.contains(n)) << "bits=" << bits << " k=" << hashes;
    }
}

TYPED_TEST(EveryLayout, InsertReportsWhetherTheKeyWasNew) {
    TypeParam filter(1000, 0.01);
    EXPECT_FALSE(filter.contains("alpha"));
    EXPECT_TRUE(filter.insert("alpha"));
    EXPECT_FALSE(filter.insert("alpha"));  // no bit changed
    EXPECT_TRUE(filter.contains("alpha"));
    EXPECT_EQ(filter.inserted_count(), 2U);  // every insert counts, repeats included
    EXPECT_EQ(filter.expected_keys(), 1000U);
    EXPECT_DOUBLE_EQ(filter.target_fpr(), 0.01);
}

TYPED_TEST(EveryLayout, BulkOperationsAgreeWithSingleOnes) {
    const auto keys = string_keys(10000, 11);
    TypeParam single(5000, 0.01), bulk(5000, 0.01);
    std::uint64_t new_single = 0;
    for (const auto& key : keys) new_single += single.insert(key) ? 1 : 0;
    const std::uint64_t new_bulk = bulk.insert(keys.begin(), keys.end());
    EXPECT_EQ(single, bulk);
    EXPECT_EQ(new_single, new_bulk);
    EXPECT_EQ(bulk.inserted_count(), keys.size());
    EXPECT_EQ(single.inserted_count(), keys.size());

    const auto probes = string_keys(10000, 12);
    bloomkit_test::expect_bulk_answers_match_single(bulk, single, probes);
    EXPECT_EQ(bulk.count_contained(keys.begin(), keys.end()), keys.size());

    TypeParam ranged(5000, 0.01);
    ranged.insert_range(keys);
    EXPECT_EQ(ranged, bulk);
}

/// Single lookups of each probe, and of its digest, answer as the bulk lookup; every key is found.
template <class Key>
void expect_single_integer_lookups_answer_as_bulk(const auto& filter, const std::vector<Key>& keys,
                                                  const std::vector<Key>& probes) {
    std::vector<bool> bulk;
    filter.contains(probes.begin(), probes.end(), std::back_inserter(bulk));
    for (std::size_t i = 0; i < probes.size(); ++i) {
        ASSERT_EQ(filter.contains(probes[i]), bulk[i]) << probes[i];
        ASSERT_EQ(filter.contains(filter.hash_function()(probes[i])), bulk[i]) << probes[i];
    }
    for (const Key key : keys) ASSERT_TRUE(filter.contains(key)) << key;
}

TYPED_TEST(EveryLayout, SingleIntegerLookupsAnswerAsBulkOnesUnderEveryHash) {
    // A single lookup of an integer key takes the plain path — the layout's default hash with no
    // test of the algorithm, then its one-key SIMD step — when the filter's hash is that default
    // and a step serves its k at the SIMD level in use; every other filter takes the general
    // path. Both answer as the bulk lookup and the digest do, for keys of every width (XXH64
    // hashes 4- and 8-byte keys by its short path, others by their bytes).
    const std::vector<std::uint32_t> ks = TypeParam::layout() == bloom_layout::split_block
                                              ? std::vector<std::uint32_t>{8}
                                              : std::vector<std::uint32_t>{6, 8, 12};
    for (const hash_algorithm algorithm : {hash_algorithm::xxh3_64_mum, hash_algorithm::xxh3_mum,
                                           hash_algorithm::xxh3_mix, hash_algorithm::xxh64, hash_algorithm::fnv1_64}) {
        for (const std::uint32_t k : ks) {
            SCOPED_TRACE(testing::Message() << to_string(algorithm) << " k=" << k);
            const filter_options options{.seed = algorithm == hash_algorithm::fnv1_64 ? 0U : 5U, .hash = algorithm};
            TypeParam wide(bloom_geometry{512 * 64, k}, options), narrow(bloom_geometry{512 * 64, k}, options);
            std::vector<std::uint64_t> wide_keys, wide_probes;
            std::vector<std::uint16_t> narrow_keys, narrow_probes;
            for (std::uint64_t i = 0; i < 4000; ++i) {
                wide_probes.push_back(i * 0x9e3779b97f4a7c15ULL);
                narrow_probes.push_back(static_cast<std::uint16_t>(i * 7));
                if (i % 2 == 1) continue;
                wide_keys.push_back(wide_probes.back());
                narrow_keys.push_back(narrow_probes.back());
            }
            wide.insert(wide_keys.begin(), wide_keys.end());
            narrow.insert(narrow_keys.begin(), narrow_keys.end());
            expect_single_integer_lookups_answer_as_bulk(wide, wide_keys, wide_probes);
            expect_single_integer_lookups_answer_as_bulk(narrow, narrow_keys, narrow_probes);
        }
    }
}

TYPED_TEST(EveryLayout, WordsReadAroundASingleInsertShowIt) {
    // A single insert may write its block through a type of its own (split block: a vector of
    // its 32-bit words, so that the compiler keeps the filter's other fields in registers). A
    // word read before and after it in the same function must be read again, not taken as
    // unchanged: the key's first word grows exactly when the insert set a bit in it.
    TypeParam filter(bloom_geometry{512 * 8, TypeParam::layout() == bloom_layout::split_block ? 8U : 6U}, {.seed = 3});
    const auto* words = filter.words().data();
    std::uint64_t grown = 0;
    for (std::uint64_t key = 0; key < 2000; ++key) {
        std::uint64_t first = 0;
        filter.for_each_word_range(filter.hash_function()(key), [&](std::uint64_t at, std::uint64_t) { first = at; });
        const auto before = words[first];
        const bool is_new = filter.insert(key);
        const auto after = words[first];
        ASSERT_EQ(after & before, before) << key;  // bits are only ever set
        if (after != before) {
            ASSERT_TRUE(is_new) << key;
            ++grown;
        }
    }
    EXPECT_GT(grown, 100U);
}

TYPED_TEST(EveryLayout, InsertingDigestsIsInsertingTheirKeys) {
    // Keys hashed elsewhere (the command hashes on worker threads) go in with the same bits,
    // answers and count; a key repeated in the range is new only the first time.
    auto keys = string_keys(5000, 21);
    const std::vector<std::string> repeats(keys.begin(), keys.begin() + 100);  // not a range of keys itself
    keys.insert(keys.end(), repeats.begin(), repeats.end());
    TypeParam by_key(4000, 0.01), by_digest(4000, 0.01);
    std::vector<char> key_answers, digest_answers;
    by_key.insert(keys.begin(), keys.end(), std::back_inserter(key_answers));
    std::vector<digest> digests;
    for (const auto& key : keys) digests.push_back(by_digest.hash_function()(key));
    by_digest.insert_digests(digests, std::back_inserter(digest_answers));
    EXPECT_EQ(by_digest, by_key);
    EXPECT_EQ(digest_answers, key_answers);
    EXPECT_EQ(by_digest.inserted_count(), keys.size());
    EXPECT_EQ(std::count(digest_answers.end() - 100, digest_answers.end(), 1), 0);  // the repeats
}

/// An output iterator that throws at its `limit`-th answer, as one that allocates may.
struct throwing_output {
    using difference_type = std::ptrdiff_t;
    std::size_t* written;
    std::size_t limit;
    throwing_output& operator*() { return *this; }
    throwing_output& operator=(bool) {
        if (++*written == limit) throw std::length_error("no room for another answer");
        return *this;
    }
    throwing_output& operator++() { return *this; }
    throwing_output operator++(int) { return *this; }
};

TYPED_TEST(EveryLayout, WhatTheBulkAnswersOutputThrowsReachesTheCaller) {
    // Bulk lookups hand each answer to the output as they go, inside the layout's batch test:
    // an exception from the output must leave the call, not end the program.
    TypeParam filter(5000, 0.01);
    const auto keys = string_keys(3000, 8);
    filter.insert(keys.begin(), keys.end());
    for (const std::size_t limit : {std::size_t{1}, std::size_t{1000}}) {
        std::size_t written = 0;
        EXPECT_THROW(filter.contains(keys.begin(), keys.end(), throwing_output{&written, limit}), std::length_error);
        EXPECT_EQ(written, limit);
        written = 0;
        EXPECT_THROW(filter.contains(keys.begin(), keys.end(), throwing_output{&written, limit}, concurrent),
                     std::length_error);
        EXPECT_EQ(written, limit);
    }
}

TYPED_TEST(EveryLayout, ClearForgetsEverything) {
    TypeParam filter(1000, 0.01);
    const auto keys = string_keys(500, 3);
    filter.insert_range(keys);
    EXPECT_GT(filter.set_bit_count(), 0U);
    filter.clear();
    EXPECT_EQ(filter.set_bit_count(), 0U);
    EXPECT_EQ(filter.inserted_count(), 0U);
    EXPECT_EQ(filter.count_contained(keys.begin(), keys.end()), 0U);
    EXPECT_EQ(filter, TypeParam(1000, 0.01));
}

TYPED_TEST(EveryLayout, UnionIsTheFilterOfAllKeys) {
    const auto left_keys = string_keys(3000, 21), right_keys = string_keys(3000, 22);
    TypeParam left(6000, 0.01), right(6000, 0.01), both(6000, 0.01);
    left.insert_range(left_keys);
    right.insert_range(right_keys);
    both.insert_range(left_keys);
    both.insert_range(right_keys);
    const TypeParam merged = left | right;
    EXPECT_EQ(merged, both);  // exact: OR of the words
    EXPECT_EQ(merged.inserted_count(), left.inserted_count() + right.inserted_count());
    left |= right;
    EXPECT_EQ(left, both);
}

TYPED_TEST(EveryLayout, IntersectionKeepsTheCommonKeys) {
    const auto common = string_keys(2000, 31), only_left = string_keys(2000, 32), only_right = string_keys(2000, 33);
    TypeParam left(6000, 0.01), right(6000, 0.01);
    left.insert_range(common);
    left.insert_range(only_left);
    right.insert_range(common);
    right.insert_range(only_right);
    const TypeParam intersection = left & right;
    EXPECT_EQ(intersection.count_contained(common.begin(), common.end()), common.size());
    // Keys on one side only survive as (rare) false positives.
    EXPECT_LT(intersection.count_contained(only_left.begin(), only_left.end()), only_left.size() / 10);
    EXPECT_LE(intersection.set_bit_count(), std::min(left.set_bit_count(), right.set_bit_count()));
    EXPECT_NEAR(static_cast<double>(intersection.inserted_count()), intersection.approximate_count(), 1.0);
}

TYPED_TEST(EveryLayout, IncompatibleFiltersRefuseToCombine) {
    const std::uint32_t k = TypeParam::layout() == bloom_layout::split_block ? 8 : 5;
    TypeParam base(bloom_geometry{4096, k}, {.seed = 1});
    auto expect_refusal = [&](const TypeParam& other, const char* mentions) {
        bloomkit_test::expect_union_refused(base, other, mentions);
        TypeParam copy = base;
        EXPECT_THROW(copy &= other, incompatible_filters);
        EXPECT_EQ(copy, base);  // untouched by the refused intersection
    };
    expect_refusal(TypeParam(bloom_geometry{8192, k}, {.seed = 1}), "sizes");
    expect_refusal(TypeParam(bloom_geometry{4096, k}, {.seed = 2}), "seeds");
    expect_refusal(TypeParam(bloom_geometry{4096, k}, {.seed = 1,
                                                       .hash = hash_algorithm::xxh64 == base.hash_function().algorithm()
                                                                   ? hash_algorithm::xxh3_128
                                                                   : hash_algorithm::xxh64}),
                   "hash algorithms");
    if (TypeParam::layout() != bloom_layout::split_block)
        expect_refusal(TypeParam(bloom_geometry{4096, 6}, {.seed = 1}), "probes");
}

TYPED_TEST(EveryLayout, EqualityComparesBitsAndHashing) {
    TypeParam a(1000, 0.01), b(1000, 0.01), c(1000, 0.01, {.seed = 99});
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);  // same (empty) bits, different seed
    a.insert(std::uint64_t{5});
    EXPECT_NE(a, b);
    b.insert(std::uint64_t{5});
    EXPECT_EQ(a, b);
    TypeParam copy = a;
    EXPECT_EQ(copy, a);
    copy.insert(std::uint64_t{6});
    EXPECT_NE(copy, a);  // a deep copy
}

TYPED_TEST(EveryLayout, EstimatesFollowTheFill) {
    TypeParam filter(100000, 0.01);
    EXPECT_EQ(filter.approximate_count(), 0.0);
    EXPECT_EQ(filter.current_fpr(), 0.0);
    const auto keys = string_keys(100000, 41);
    filter.insert_range(keys);
    EXPECT_NEAR(filter.approximate_count() / 1e5, 1.0, 0.02);
    EXPECT_NEAR(filter.current_fpr() / 0.01, 1.0, 0.1);
    EXPECT_NEAR(static_cast<double>(filter.inserted_count()) / 1e5, 1.0, 0.02);
    EXPECT_GE(filter.size_in_bytes() * 8, filter.bit_count());
}

TYPED_TEST(EveryLayout, FullFilterAnswersMaybeToEverything) {
    const std::uint32_t k = TypeParam::layout() == bloom_layout::split_block ? 8 : 3;
    TypeParam filter(bloom_geometry{512, k});
    for (std::uint64_t i = 0; i < 100000 && filter.set_bit_count() < filter.bit_count(); ++i) filter.insert(i);
    ASSERT_EQ(filter.set_bit_count(), filter.bit_count());
    EXPECT_TRUE(std::isinf(filter.approximate_count()));
    EXPECT_EQ(filter.current_fpr(), 1.0);
    EXPECT_TRUE(filter.contains("never inserted"));
}

TYPED_TEST(EveryLayout, AbsurdParametersAreRejected) {
    EXPECT_THROW(TypeParam(0, 0.01), invalid_argument);
    EXPECT_THROW(TypeParam(1000, 0.0), invalid_argument);
    EXPECT_THROW(TypeParam(1000, 1.0), invalid_argument);
    EXPECT_THROW(TypeParam(1000, std::nan("")), invalid_argument);
    EXPECT_THROW(TypeParam(bloom_geometry{1024, 0}), invalid_argument);
    EXPECT_THROW(TypeParam(bloom_geometry{1024, 65}), invalid_argument);
    EXPECT_THROW(TypeParam(bloom_geometry{~std::uint64_t{0}, 8}), std::exception);  // too large
}

TEST(BloomFilter, SplitBlockSetsExactlyEightBits) {
    EXPECT_THROW(split_block_bloom_filter(bloom_geometry{1024, 7}), invalid_argument);
    split_block_bloom_filter filter(bloom_geometry{1024, 8});
    filter.insert("one key");
    EXPECT_EQ(filter.set_bit_count(), 8U);
}

TEST(BloomFilter, ExplicitGeometryRoundsUpToWholeBlocks) {
    EXPECT_EQ(block_bloom_filter(bloom_geometry{1000, 7}).bit_count(), 1024U);
    EXPECT_EQ(split_block_bloom_filter(bloom_geometry{300, 8}).bit_count(), 512U);
    EXPECT_EQ(classic_bloom_filter(bloom_geometry{1000, 7}).bit_count(), 1000U);
    EXPECT_EQ(classic_bloom_filter(bloom_geometry{1000, 7}).size_in_bytes(), 128U);
}

TEST(BloomFilter, DefaultIsTheBlockLayoutWithXxh3) {
    // The default hash is xxh3_64_mum: XXH3-64 over byte keys, integer keys widened to 64 bits
    // and mixed as xxh3_mum does (it replaced xxh3_mum and xxh3_mix, whose filters still load).
    // Split block keeps Parquet's XXH64.
    bloom_filter filter(1000, 0.01);
    EXPECT_EQ(filter.layout(), bloom_layout::block);
    EXPECT_EQ(filter.hash_function().algorithm(), hash_algorithm::xxh3_64_mum);
    EXPECT_EQ(filter.hash_function(), hasher());
    EXPECT_EQ(filter.hash_function().seed(), default_seed);
    EXPECT_EQ(classic_bloom_filter(1000, 0.01).hash_function().algorithm(), hash_algorithm::xxh3_64_mum);
    EXPECT_EQ(split_block_bloom_filter(1000, 0.01).hash_function().algorithm(), hash_algorithm::xxh64);
    EXPECT_EQ(bloom_filter(1000, 0.01, {.hash = hash_algorithm::xxh3_128}).hash_function().algorithm(),
              hash_algorithm::xxh3_128);
}

TEST(BloomFilter, SeedChangesWhichBitsAKeySets) {
    bloom_filter a(1000, 0.01, {.seed = 1}), b(1000, 0.01, {.seed = 2});
    a.insert("same key");
    b.insert("same key");
    EXPECT_FALSE(std::equal(a.words().begin(), a.words().end(), b.words().begin()));
}

// --- More than 2^32 bits: positions, sizes and counts are 64-bit throughout -----------------

template <class Filter>
void check_huge_filter() {
    constexpr std::uint64_t bits = std::uint64_t{1} << 33;  // 1 GiB; mmap'd lazily
    const std::uint32_t k = Filter::layout() == bloom_layout::split_block ? 8 : 4;
    Filter filter(bloom_geometry{bits, k});
    ASSERT_EQ(filter.bit_count(), bits);
    ASSERT_EQ(filter.size_in_bytes(), bits / 8);
    std::vector<std::uint64_t> keys(20000);
    std::mt19937_64 rng(5);
    for (auto& key : keys) key = rng();
    filter.insert(keys.begin(), keys.end());
    EXPECT_EQ(filter.count_contained(keys.begin(), keys.end()), keys.size());
    // Bits land above 2^32 (half of all keys should), not only in the low 512 MiB.
    const auto words = filter.words();
    const std::size_t words_below_2_32 = (std::uint64_t{1} << 32) / (sizeof(words[0]) * 8);
    std::uint64_t high_bits = 0;
    for (std::size_t i = words_below_2_32; i < words.size(); ++i) high_bits += words[i] != 0 ? 1 : 0;
    EXPECT_GT(high_bits, keys.size() / 4);
}

TEST(HugeFilter, ClassicBeyondTwoToThe32Bits) { check_huge_filter<classic_bloom_filter>(); }
TEST(HugeFilter, BlockBeyondTwoToThe32Bits) { check_huge_filter<block_bloom_filter>(); }
TEST(HugeFilter, SplitBlockBeyondTwoToThe32Bits) { check_huge_filter<split_block_bloom_filter>(); }

}  // namespace
