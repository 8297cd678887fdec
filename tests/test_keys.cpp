// tests/test_keys.cpp — the one key model (bloomkit/keys.hpp): each format's range, how a line
// spells an integer, which format a filter takes when it is made, read or written to, and that
// a filter's record decides how narrow C++ integers hash.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.hpp"

namespace {

using bloomkit::key_format;
using bloomkit::key_integer;

constexpr std::uint64_t two_63 = std::uint64_t{1} << 63;

TEST(Keys, EachFormatHoldsItsRangeAndNothingElse) {
    const key_integer minus_one = key_integer::of(std::int64_t{-1});
    const key_integer top = key_integer::of(std::numeric_limits<std::uint64_t>::max());
    const key_integer beyond_u32 = key_integer::of(std::uint64_t{0x100000005});
    EXPECT_TRUE(bloomkit::holds(key_format::i64, minus_one));
    EXPECT_FALSE(bloomkit::holds(key_format::u64, minus_one));
    EXPECT_FALSE(bloomkit::holds(key_format::u32, minus_one));
    EXPECT_TRUE(bloomkit::holds(key_format::u64, top));
    EXPECT_FALSE(bloomkit::holds(key_format::i64, top));
    EXPECT_FALSE(bloomkit::holds(key_format::i64, key_integer::of(two_63)));
    EXPECT_TRUE(bloomkit::holds(key_format::i64, key_integer::of(two_63 - 1)));
    EXPECT_FALSE(bloomkit::holds(key_format::u32, beyond_u32));
    EXPECT_TRUE(bloomkit::holds(key_format::u32, key_integer::of(std::uint64_t{0xffffffff})));
    EXPECT_FALSE(bloomkit::holds(key_format::text, key_integer::of(std::uint64_t{7})));
    EXPECT_TRUE(bloomkit::holds(key_format::unrecorded, minus_one));
    // -1 and 2^64 - 1 are one hashed key, but never one value: a format holds one or the other.
    EXPECT_EQ(minus_one.bits, top.bits);
    EXPECT_NE(minus_one, top);
}

TEST(Keys, ARefusalNamesTheValueAndTheFormat) {
    const auto message = [](key_format format, key_integer value, bloomkit::guava_funnel funnel) {
        try {
            bloomkit::require_key(format, value, funnel);
        } catch (const bloomkit::key_error& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    using bloomkit::guava_funnel;
    EXPECT_EQ(message(key_format::u64, key_integer::of(std::int64_t{-1}), guava_funnel::none),
              "-1 is not a u64 key (0 to 18446744073709551615): negative keys need an i64 filter");
    EXPECT_EQ(message(key_format::i64, key_integer::of(two_63), guava_funnel::none),
              "9223372036854775808 is not an i64 key (-9223372036854775808 to 9223372036854775807): keys of 2^63 "
              "and above need a u64 filter");
    EXPECT_EQ(message(key_format::u32, key_integer::of(std::uint64_t{0x100000005}), guava_funnel::none),
              "4294967301 is not a u32 key (0 to 4294967295)");
    EXPECT_EQ(message(key_format::u32, key_integer::of(std::int64_t{-3}), guava_funnel::none),
              "-3 is not a u32 key (0 to 4294967295): negative keys need an i64 filter");
    EXPECT_EQ(
        message(key_format::i64, key_integer::of(std::int64_t{-9'223'372'036'854'775'807 - 1}), guava_funnel::none),
        "accepted");
    // Guava's int funnel takes Java ints; its long funnel Java longs; its string funnel no integer.
    EXPECT_NE(message(key_format::i64, key_integer::of(std::int64_t{1} << 31), guava_funnel::integer)
                  .find("is not a Java int"),
              std::string::npos);
    EXPECT_EQ(message(key_format::i64, key_integer::of(std::int64_t{-(std::int64_t{1} << 31)}), guava_funnel::integer),
              "accepted");
    EXPECT_THROW(
        bloomkit::require_key(key_format::unrecorded, key_integer::of(std::uint64_t{7}), guava_funnel::string_utf8),
        bloomkit::key_type_error);
    EXPECT_THROW(bloomkit::require_key(key_format::text, key_integer::of(std::uint64_t{7})), bloomkit::key_type_error);
    EXPECT_THROW(bloomkit::require_text_key(key_format::u64), bloomkit::key_type_error);
    EXPECT_THROW(bloomkit::require_text_key(key_format::unrecorded, guava_funnel::long_integer),
                 bloomkit::key_type_error);
    EXPECT_NO_THROW(bloomkit::require_text_key(key_format::unrecorded));
}

TEST(Keys, ALineIsANumberOfItsFormatOrNone) {
    using bloomkit::parse_integer_key;
    EXPECT_EQ(parse_integer_key("0007", key_format::u64), key_integer::of(std::uint64_t{7}));
    EXPECT_EQ(parse_integer_key("18446744073709551615", key_format::u64),
              key_integer::of(std::numeric_limits<std::uint64_t>::max()));
    EXPECT_EQ(parse_integer_key("-9223372036854775808", key_format::i64),
              key_integer::of(std::numeric_limits<std::int64_t>::min()));
    EXPECT_EQ(parse_integer_key("-0", key_format::i64), key_integer::of(std::uint64_t{0}));
    EXPECT_EQ(parse_integer_key("4294967295", key_format::u32), key_integer::of(std::uint64_t{0xffffffff}));
    for (const char* bad : {"", "-", " 1", "1 ", "+1", "1x", "0x10", "18446744073709551616", "1e3", "１"})
        EXPECT_FALSE(parse_integer_key(bad, key_format::u64)) << bad;
    EXPECT_FALSE(parse_integer_key("-1", key_format::u64));  // a sign only for i64
    EXPECT_FALSE(parse_integer_key("-0", key_format::u32));
    EXPECT_FALSE(parse_integer_key("9223372036854775808", key_format::i64));
    EXPECT_FALSE(parse_integer_key("-9223372036854775809", key_format::i64));
    EXPECT_FALSE(parse_integer_key("4294967296", key_format::u32));
    EXPECT_FALSE(parse_integer_key("7", key_format::text));
    // Unrecorded reads any value of [-2^63, 2^64).
    EXPECT_EQ(parse_integer_key("-5", key_format::unrecorded), key_integer::of(std::int64_t{-5}));
    EXPECT_EQ(parse_integer_key("18446744073709551615", key_format::unrecorded),
              key_integer::of(std::numeric_limits<std::uint64_t>::max()));
}

TEST(Keys, TheRecordDecidesTheFormatToReadAndToWrite) {
    using bloomkit::key_format_to_read;
    using bloomkit::key_format_to_write;
    EXPECT_EQ(key_format_to_read(key_format::unrecorded, key_format::unrecorded), key_format::text);
    EXPECT_EQ(key_format_to_read(key_format::unrecorded, key_format::u64), key_format::u64);
    EXPECT_EQ(key_format_to_read(key_format::u64, key_format::unrecorded), key_format::u64);
    // An integer format asked of an integer filter reads the filter's own: its range decides.
    EXPECT_EQ(key_format_to_read(key_format::u64, key_format::i64), key_format::u64);
    EXPECT_EQ(key_format_to_read(key_format::u32, key_format::i64), key_format::u32);
    EXPECT_THROW((void)key_format_to_read(key_format::text, key_format::u64), bloomkit::key_type_error);
    EXPECT_THROW((void)key_format_to_read(key_format::i64, key_format::text), bloomkit::key_type_error);
    // Writing: an empty unrecorded filter takes what is said, or text; one with keys needs a word.
    EXPECT_EQ(key_format_to_write(key_format::unrecorded, key_format::unrecorded, false), key_format::text);
    EXPECT_EQ(key_format_to_write(key_format::unrecorded, key_format::i64, true), key_format::i64);
    EXPECT_THROW((void)key_format_to_write(key_format::unrecorded, key_format::unrecorded, true), bloomkit::key_error);
    EXPECT_EQ(bloomkit::key_format_of(bloomkit::key_kind::bytes), key_format::text);
    EXPECT_EQ(bloomkit::key_format_of(bloomkit::key_kind::signed_integer), key_format::i64);
    EXPECT_EQ(bloomkit::key_format_of(bloomkit::key_kind::unsigned_integer), key_format::u64);
    EXPECT_EQ(bloomkit::key_format_named("u32"), key_format::u32);
    EXPECT_FALSE(bloomkit::key_format_named("U64"));
    EXPECT_EQ(bloomkit::to_string(key_integer::of(std::numeric_limits<std::int64_t>::min())), "-9223372036854775808");
}

// C++'s typed keys: a filter made without a format takes its first key's while it is empty.
TEST(Keys, AFilterRecordsTheTypeOfItsFirstKey) {
    bloomkit::bloom_filter ids(1000, 0.01);
    EXPECT_EQ(ids.recorded_key_format(), key_format::unrecorded);
    ids.insert(std::uint64_t{7});
    EXPECT_EQ(ids.recorded_key_format(), key_format::u64);
    ids.insert(std::string("not recorded again"));
    EXPECT_EQ(ids.recorded_key_format(), key_format::u64);

    bloomkit::counting_bloom_filter signed_ids(1000, 0.01);
    const std::vector<int> values = {-1, 2, 3};
    signed_ids.insert(values.begin(), values.end());
    EXPECT_EQ(signed_ids.recorded_key_format(), key_format::i64);

    bloomkit::cuckoo_filter words(1000, 0.01);
    EXPECT_TRUE(words.insert(std::string_view("word")));
    EXPECT_EQ(words.recorded_key_format(), key_format::text);

    bloomkit::scalable_bloom_filter grows(100, 0.01);
    grows.insert(std::int64_t{-4});
    EXPECT_EQ(grows.recorded_key_format(), key_format::i64);

    // One that holds keys already (an old file's) is left as it is: its keys' type is unknown.
    bloomkit::bloom_filter old(1000, 0.01);
    old.insert(bloomkit::digest{1, 2});
    old.insert(std::uint64_t{7});
    EXPECT_EQ(old.recorded_key_format(), key_format::unrecorded);
}

// A recorded integer format means the value as 64 bits under every hash, so that the command's
// --key u32 and C++'s uint32_t keys are one key; only unrecorded xxh64 and xxh3_128 filters hash
// narrower integers in their own width (Parquet's INT32, format version 1).
TEST(Keys, NarrowIntegersHashWidenedOnceTheFormatIsRecorded) {
    for (const auto algorithm : {bloomkit::hash_algorithm::xxh64, bloomkit::hash_algorithm::xxh3_128}) {
        bloomkit::split_block_bloom_filter recorded(1000, 0.01, {.hash = algorithm, .keys = key_format::u32});
        recorded.insert(std::uint32_t{7});
        EXPECT_TRUE(recorded.contains(std::uint64_t{7})) << to_string(algorithm);
        EXPECT_EQ(recorded.hash_function()(std::uint32_t{7}), recorded.hash_function()(std::uint64_t{7}));

        const bloomkit::hasher own_width(algorithm);
        EXPECT_NE(own_width(std::uint32_t{7}), own_width(std::uint64_t{7})) << to_string(algorithm);
        bloomkit::split_block_bloom_filter unrecorded(bloomkit::bloom_geometry{1 << 16, 8}, {.hash = algorithm});
        unrecorded.record_key_format(key_format::unrecorded);
        unrecorded.insert(bloomkit::digest{});  // holds a key: the first typed one records nothing
        EXPECT_EQ(unrecorded.hash_function()(std::int32_t{-7}), own_width(std::int32_t{-7}));
    }
    // The fuse filter built from narrow keys widens them, as the format it records says.
    const std::vector<std::int32_t> keys = {-1, 5, 70000};
    const bloomkit::binary_fuse8_filter fuse(keys, {.hash = bloomkit::hash_algorithm::xxh64});
    EXPECT_EQ(fuse.recorded_key_format(), key_format::i64);
    for (const std::int64_t k : {-1, 5, 70000}) EXPECT_TRUE(fuse.contains(k)) << k;
}

}  // namespace
