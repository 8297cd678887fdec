// Tests of bloomkit/hash.hpp: key bytes, the customisation point, the hashers' known answers.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "bloomkit/hash.hpp"

namespace {

using bloomkit::digest;
using bloomkit::hash_algorithm;
using bloomkit::hasher;

struct order_id {
    std::uint32_t shard;
    std::string serial;
};

enum class colour : std::uint16_t { red = 0x0102 };

}  // namespace

template <>
struct bloomkit::key_bytes<order_id> {
    template <class Sink>
    void operator()(const order_id& id, Sink& sink) const {
        sink(id.shard);
        sink(static_cast<std::uint64_t>(id.serial.size()));
        sink(id.serial);
    }
};

namespace {

digest bytes_digest(const hasher& h, std::initializer_list<unsigned char> bytes) {
    const std::vector<unsigned char> v(bytes);
    return h.hash_bytes(std::as_bytes(std::span(v)));
}

TEST(Hash, Xxh3KnownAnswers) {
    // XXH3-128 of the empty input, seed 0 (xxHash's own sanity value), under xxh3_mum.
    const digest empty = hasher(hash_algorithm::xxh3_mum, 0)(std::string_view{});
    EXPECT_EQ(empty.low, 0x6001C324468D497FULL);
    EXPECT_EQ(empty.high, 0x99AA06D3014798D8ULL);
    // The library call and the hasher agree for a seeded, longer input.
    const std::string text = "the quick brown fox jumps over the lazy dog";
    const XXH128_hash_t direct = XXH3_128bits_withSeed(text.data(), text.size(), 42);
    const digest ours = hasher(hash_algorithm::xxh3_128, 42)(text);
    EXPECT_EQ(ours.low, direct.low64);
    EXPECT_EQ(ours.high, direct.high64);
}

TEST(Hash, Xxh64KnownAnswer) {
    // XXH64 of the empty input, seed 0: 0xEF46DB3751D8E999 (xxHash's sanity value).
    const digest empty = hasher(hash_algorithm::xxh64)(std::string_view{});
    EXPECT_EQ(empty.low, 0xEF46DB3751D8E999ULL);
    EXPECT_NE(empty.high, empty.low);  // the high half is derived, not a copy
}

TEST(Hash, StringLikeKeysHashAsTheirBytes) {
    const hasher h;
    const digest expected = bytes_digest(h, {'a', 'b', 'c'});
    EXPECT_EQ(h(std::string("abc")), expected);
    EXPECT_EQ(h(std::string_view("abc")), expected);
    EXPECT_EQ(h("abc"), expected);  // a C string: no terminating NUL
    EXPECT_EQ(h(std::vector<char>{'a', 'b', 'c'}), expected);
    EXPECT_EQ(h(std::array<unsigned char, 3>{'a', 'b', 'c'}), expected);
    EXPECT_EQ(h(std::vector<std::byte>{std::byte{'a'}, std::byte{'b'}, std::byte{'c'}}), expected);
    EXPECT_NE(h("abd"), expected);
}

TEST(Hash, EmbeddedNulAndHighBytesAreKeyBytes) {
    const hasher h;
    const std::string with_nul("a\0b", 3);
    EXPECT_EQ(h(with_nul), bytes_digest(h, {'a', 0, 'b'}));
    EXPECT_NE(h(with_nul), h("a"));
    EXPECT_EQ(h(std::string("\xff\xfe")), bytes_digest(h, {0xff, 0xfe}));
}

TEST(Hash, IntegerKeysAreTheirValueWhateverTheirType) {
    // insert(std::uint64_t{7}) then contains(7): the same key (the default algorithm).
    const hasher h;
    ASSERT_EQ(h.algorithm(), hash_algorithm::xxh3_64_mum);
    const digest seven = h(std::uint64_t{7});
    EXPECT_EQ(h(7), seven);
    EXPECT_EQ(h(7U), seven);
    EXPECT_EQ(h(7L), seven);
    EXPECT_EQ(h(std::int8_t{7}), seven);
    EXPECT_EQ(h(std::uint8_t{7}), seven);
    EXPECT_EQ(h(std::int16_t{7}), seven);
    EXPECT_EQ(h(std::uint16_t{7}), seven);
    EXPECT_EQ(h(std::int32_t{7}), seven);
    EXPECT_EQ(h(std::uint32_t{7}), seven);
    EXPECT_EQ(h(std::int64_t{7}), seven);
    EXPECT_EQ(h(static_cast<char>(7)), seven);
    // Negative values are sign-extended: -1 is -1 in every width, and 2^64 - 1 as a uint64.
    const digest minus_one = h(std::int64_t{-1});
    EXPECT_EQ(h(-1), minus_one);
    EXPECT_EQ(h(std::int8_t{-1}), minus_one);
    EXPECT_EQ(h(std::uint64_t{0xffffffffffffffffULL}), minus_one);
    EXPECT_NE(h(std::uint32_t{0xffffffffU}), minus_one);  // 2^32 - 1 is another value
    // Enums are their underlying value, bools 0 and 1.
    EXPECT_EQ(h(colour::red), h(0x0102));
    EXPECT_EQ(h(true), h(1));
    EXPECT_NE(h(7), h(8));
    // Integers are not their bytes: 7 and the one-byte string "\x07" differ.
    EXPECT_NE(h(7), bytes_digest(h, {7}));
}

/// Whether hasher::with_digest_of<Key> hands over a function that digests `key` as h(key) does.
template <class Key>
bool chosen_once_hashes_alike(const hasher& h, const Key& key) {
    return h.with_digest_of<Key>([&](const auto& digest_of) { return digest_of(key) == h(key); });
}

TEST(Hash, AHashChosenOnceForManyKeysIsTheHasherItself) {
    const std::string text = "https://example.com/a";
    for (const hash_algorithm algorithm :
         {hash_algorithm::xxh3_64_mum, hash_algorithm::xxh3_mum, hash_algorithm::xxh3_mix, hash_algorithm::xxh3_128,
          hash_algorithm::xxh64, hash_algorithm::fnv1_64}) {
        SCOPED_TRACE(static_cast<int>(algorithm));
        const hasher h(algorithm, algorithm == hash_algorithm::fnv1_64 ? 0 : 42);
        for (const std::uint64_t value : {std::uint64_t{0}, std::uint64_t{7}, ~std::uint64_t{0}}) {
            EXPECT_TRUE(chosen_once_hashes_alike(h, value));
            EXPECT_TRUE(chosen_once_hashes_alike(h, static_cast<std::uint32_t>(value)));
            EXPECT_TRUE(chosen_once_hashes_alike(h, static_cast<std::int8_t>(value)));
        }
        EXPECT_TRUE(chosen_once_hashes_alike(h, colour::red));
        EXPECT_TRUE(chosen_once_hashes_alike(h, text));
        EXPECT_TRUE(chosen_once_hashes_alike(h, digest{1, 2}));
    }
    // Integers under xxh3_mum's mixer get the integer hash alone, byte keys under XXH3 XXH3
    // alone; the rest the hasher.
    const auto is_the_hasher = [](const auto& digest_of) {
        return std::is_same_v<std::remove_cvref_t<decltype(digest_of)>, hasher>;
    };
    EXPECT_FALSE(hasher().with_digest_of<std::uint64_t>(is_the_hasher));
    EXPECT_FALSE(hasher(hash_algorithm::xxh3_mum).with_digest_of<std::uint64_t>(is_the_hasher));
    EXPECT_FALSE(hasher().with_digest_of<std::string>(is_the_hasher));
    EXPECT_FALSE(hasher(hash_algorithm::xxh3_128).with_digest_of<std::string>(is_the_hasher));
    EXPECT_TRUE(hasher(hash_algorithm::xxh64).with_digest_of<std::string>(is_the_hasher));
    EXPECT_TRUE(hasher(hash_algorithm::fnv1_64).with_digest_of<std::string>(is_the_hasher));
    EXPECT_TRUE(hasher(hash_algorithm::xxh64).with_digest_of<std::uint64_t>(is_the_hasher));
    // The value f returns is with_digest_of's.
    EXPECT_EQ(hasher().with_digest_of<int>([](const auto& digest_of) { return digest_of(7); }), hasher()(7));
}

TEST(Hash, IntegerMixerKnownAnswers) {
    // Frozen by the file format (hash algorithm 4, the default): a change moves every integer
    // key. The values were computed from the formula of docs/design/hashing.md in Python's
    // arbitrary-precision integers, not by this code.
    const digest zero = hasher()(0);
    EXPECT_EQ(zero.low, 0xbb23f0231effa6a3ULL);
    EXPECT_EQ(zero.high, 0x3c52f64167cd9f5fULL);
    EXPECT_EQ(hasher(hash_algorithm::xxh3_mum, 42)(7), (digest{0x0566756eb810c5f2ULL, 0xc647382b7f3574daULL}));
    EXPECT_EQ(hasher()(std::uint64_t{0xffffffffffffffffULL}), (digest{0xe0064fef86c9bcebULL, 0xc0e937cbf6fc5347ULL}));
    EXPECT_EQ(hasher()(-1), hasher()(std::uint64_t{0xffffffffffffffffULL}));
    EXPECT_NE(hasher(hash_algorithm::xxh3_mum, 1)(7), hasher(hash_algorithm::xxh3_mum, 2)(7));

    // Hash algorithm 3 (xxh3_mix, which files of format version 2 may record): frozen as well,
    // so its files answer as they were built.
    const digest mix_zero = hasher(hash_algorithm::xxh3_mix)(0);
    EXPECT_EQ(mix_zero.low, 0x467128bf59623c76ULL);
    EXPECT_EQ(mix_zero.high, 0x8b90a288c8790137ULL);
    // The seed enters through its key, mix64(seed ^ 0x2d358dccaa6c78a5), added to the value.
    EXPECT_EQ(hasher(hash_algorithm::xxh3_mix, 42)(7),
              bloomkit::detail::mix_integer(7, bloomkit::detail::mix64(42 ^ 0x2d358dccaa6c78a5ULL)));
    // The seed changes every key's digest.
    EXPECT_NE(hasher(hash_algorithm::xxh3_mix, 1)(7), hasher(hash_algorithm::xxh3_mix, 2)(7));
}

TEST(Hash, LegacyAndParquetHashingKeepIntegersInTheirOwnWidth) {
    // xxh3_128 (file format version 1) and xxh64 (Parquet: INT32 as 4 bytes) hash an integer as
    // its little-endian bytes, in its own width, so the filters built that way answer as before.
    for (const hash_algorithm algorithm : {hash_algorithm::xxh3_128, hash_algorithm::xxh64}) {
        const hasher h(algorithm);
        EXPECT_EQ(h(std::uint32_t{0x01020304}), bytes_digest(h, {0x04, 0x03, 0x02, 0x01}));
        EXPECT_EQ(h(std::int64_t{-2}), bytes_digest(h, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
        EXPECT_EQ(h(std::uint8_t{7}), bytes_digest(h, {7}));
        EXPECT_EQ(h(colour::red), bytes_digest(h, {0x02, 0x01}));
        EXPECT_EQ(h(true), bytes_digest(h, {1}));
        EXPECT_NE(h(std::int32_t{5}), h(std::int64_t{5}));
    }
}

TEST(Hash, IntegerKeysUnderXxh64AreXxh64OfTheirBytes) {
    // An integer key's XXH64 is written out (detail::xxh64_of_short) for 4- and 8-byte keys: it
    // must equal xxHash's XXH64 of the key's little-endian bytes, for any value and seed.
    std::mt19937_64 random(13);
    for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, random(), random()}) {
        const hasher h(hash_algorithm::xxh64, seed);
        for (int i = 0; i < 2000; ++i) {
            const std::uint64_t value = i < 4 ? std::uint64_t{0} - static_cast<std::uint64_t>(i) : random();
            unsigned char bytes[8];
            for (int b = 0; b < 8; ++b) bytes[b] = static_cast<unsigned char>(value >> (8 * b));
            ASSERT_EQ(h(value), h.hash_bytes(std::as_bytes(std::span(bytes)))) << value;
            ASSERT_EQ(h(static_cast<std::int32_t>(value)), h.hash_bytes(std::as_bytes(std::span(bytes, 4)))) << value;
            ASSERT_EQ(h(static_cast<std::uint32_t>(value)), h.hash_bytes(std::as_bytes(std::span(bytes, 4)))) << value;
        }
    }
}

TEST(Hash, CustomKeysFeedTheirPartsInOrder) {
    const hasher h;
    const order_id id{0x0a0b0c0d, "xyz"};
    const digest expected = bytes_digest(h, {0x0d, 0x0c, 0x0b, 0x0a, 3, 0, 0, 0, 0, 0, 0, 0, 'x', 'y', 'z'});
    EXPECT_EQ(h(id), expected);
    // A long part spills from the inline buffer to the heap with the same result.
    const order_id long_id{1, std::string(1000, 'q')};
    std::vector<unsigned char> bytes = {1, 0, 0, 0, 0xe8, 0x03, 0, 0, 0, 0, 0, 0};
    bytes.insert(bytes.end(), 1000, 'q');
    EXPECT_EQ(h(long_id), h.hash_bytes(std::as_bytes(std::span(bytes))));
}

TEST(Hash, ByteKeysHashTheSameUnderXxh3MixAsUnderXxh3) {
    // xxh3_mix and xxh3_mum change only integer keys: byte keys are XXH3-128 under all three.
    EXPECT_EQ(hasher(hash_algorithm::xxh3_mix, 5)("key"), hasher(hash_algorithm::xxh3_128, 5)("key"));
    EXPECT_EQ(hasher(hash_algorithm::xxh3_mum, 5)("key"), hasher(hash_algorithm::xxh3_128, 5)("key"));
}

TEST(Hash, Xxh3_64_MumHashesBytesByXxh3_64AndIntegersAsXxh3Mum) {
    // Known answers from python3-xxhash's xxh3_64_intdigest (an implementation of its own), the
    // high half MurmurHash3's fmix64 of the low: the empty key, the short, 17-128 and 129-240
    // byte paths and the long one, at seeds 0, small and with the top bit set.
    struct known {
        std::string key;
        std::uint64_t seed;
        digest expected;
    };
    std::string hundred(100, '\0');
    for (std::size_t i = 0; i < hundred.size(); ++i) hundred[i] = static_cast<char>(i);
    const known answers[] = {
        {"key", 5, {0xb2c56dbd6018f7a1ULL, 0x603ca8d67ae97d26ULL}},
        {"", 0, {0x2d06800538d394c2ULL, 0x0e9ebeff1ebd5806ULL}},
        {"https://example.com/a", 42, {0x355aaab40a019dc8ULL, 0xa7f9370c8e942c73ULL}},
        {hundred, 7, {0xf99b79905a88dc51ULL, 0x6d20b03492fd13deULL}},
        {std::string(300, 'q'), std::uint64_t{1} << 63, {0x3fbe9db6a5d668d3ULL, 0x96fa70d11ee8a959ULL}},
    };
    for (const known& k : answers) {
        SCOPED_TRACE(k.key.size());
        const hasher h(hash_algorithm::xxh3_64_mum, k.seed);
        EXPECT_EQ(h(k.key), k.expected);
        EXPECT_EQ(h.hash_bytes(std::as_bytes(std::span(k.key))), k.expected);
        EXPECT_TRUE(chosen_once_hashes_alike(h, k.key));
    }
    for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{42}}) {
        const hasher h(hash_algorithm::xxh3_64_mum, seed);
        const hasher mum(hash_algorithm::xxh3_mum, seed);
        for (const std::uint64_t value : {std::uint64_t{0}, std::uint64_t{7}, ~std::uint64_t{0}}) {
            EXPECT_EQ(h(value), mum(value));
            EXPECT_EQ(h(static_cast<std::int32_t>(value)), mum(static_cast<std::int32_t>(value)));
            EXPECT_EQ(h.integer_digest<hash_algorithm::xxh3_mum>(value), mum(value));
        }
        EXPECT_NE(h("key"), mum("key"));
    }
    EXPECT_EQ(integer_hashing_of(hash_algorithm::xxh3_64_mum), hash_algorithm::xxh3_mum);
    EXPECT_EQ(to_string(hash_algorithm::xxh3_64_mum), "xxh3-64-mum");
    EXPECT_FALSE(is_foreign(hash_algorithm::xxh3_64_mum));
    EXPECT_TRUE(is_foreign(hash_algorithm::murmur3_128) && is_foreign(hash_algorithm::fnv1_64));
}

TEST(Hash, SeedAndAlgorithmChangeTheDigest) {
    EXPECT_NE(hasher(hash_algorithm::xxh3_128, 1)("key"), hasher(hash_algorithm::xxh3_128, 2)("key"));
    EXPECT_NE(hasher(hash_algorithm::xxh64, 0)("key"), hasher(hash_algorithm::xxh3_128, 0)("key"));
    EXPECT_EQ(hasher(hash_algorithm::xxh64, 9), hasher(hash_algorithm::xxh64, 9));
    EXPECT_NE(hasher(hash_algorithm::xxh64, 9), hasher(hash_algorithm::xxh64, 10));
}

TEST(Hash, RandomSeedsDiffer) {
    // Two 64-bit draws from the OS entropy source collide with probability 2^-64.
    EXPECT_NE(bloomkit::random_seed(), bloomkit::random_seed());
}

TEST(Hash, UnknownAlgorithmIsRejected) {
    EXPECT_THROW(hasher(static_cast<hash_algorithm>(9)), bloomkit::invalid_argument);
}

// Keys without a byte representation (pointers, floats) do not compile.
static_assert(!bloomkit::hashable_key<const int*>);
static_assert(!bloomkit::hashable_key<double>);
static_assert(bloomkit::hashable_key<order_id>);
static_assert(bloomkit::hashable_key<std::u8string>);

}  // namespace
