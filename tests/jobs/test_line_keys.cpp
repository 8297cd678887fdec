// Tests of what a line means as a key (jobs/line_keys.hpp): text as it is; u64 and i64 lines as
// the numbers they hold, over their whole ranges; anything else refused naming the line, in
// words the caller can complete with what chose the format.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "bloomkit/hash.hpp"
#include "jobs/line_keys.hpp"

namespace {

using bloomkit::key_format;
using bloomkit::jobs::line_origin;
using bloomkit::jobs::not_a_number;
using bloomkit::jobs::parse_key_number;

const std::string input = "keys.txt";
const line_origin origin{&input, 10};

TEST(LineKeys, NumbersAreParsedOverTheirWholeRange) {
    EXPECT_EQ(parse_key_number("0", key_format::u64, origin, 0), 0U);
    EXPECT_EQ(parse_key_number("18446744073709551615", key_format::u64, origin, 0), UINT64_MAX);
    EXPECT_EQ(parse_key_number("-1", key_format::i64, origin, 0), UINT64_MAX);  // its two's complement
    EXPECT_EQ(parse_key_number("-9223372036854775808", key_format::i64, origin, 0), std::uint64_t{1} << 63);
    EXPECT_EQ(parse_key_number("007", key_format::u64, origin, 0), 7U);
}

TEST(LineKeys, AnythingElseIsRefusedNamingTheLine) {
    for (const std::string_view bad : {"", " 1", "1 ", "+1", "-1", "1x", "18446744073709551616", "0x10"}) {
        EXPECT_THROW(parse_key_number(bad, key_format::u64, origin, 0), not_a_number) << bad;
    }
    EXPECT_THROW(parse_key_number("9223372036854775808", key_format::i64, origin, 0), not_a_number);
    try {
        parse_key_number("12x", key_format::u64, origin, 2);
        FAIL() << "12x was taken for a number";
    } catch (const not_a_number& e) {
        EXPECT_EQ(std::string(e.what()),
                  "line 12 of 'keys.txt' is not a u64 number: '12x' (one decimal number per line, 0 to "
                  "18446744073709551615)");
        EXPECT_EQ(e.explained_by("--key u64"),
                  "line 12 of 'keys.txt' is not a u64 number: '12x' (--key u64 takes one decimal "
                  "number per line, 0 to 18446744073709551615)");
        EXPECT_EQ(e.format(), key_format::u64);
    }
}

TEST(LineKeys, ALongLineIsShortenedInTheMessage) {
    const std::string line(100, '9');
    try {
        parse_key_number(line, key_format::i64, {nullptr, 1}, 0);
        FAIL();
    } catch (const not_a_number& e) {
        EXPECT_EQ(std::string(e.what()), "line 1 of 'input' is not an i64 number: '" + std::string(40, '9') +
                                             "...' (one decimal number per line, -9223372036854775808 to "
                                             "9223372036854775807)");
    }
}

TEST(LineKeys, WithKeysHandsOutTextOrNumbers) {
    const std::vector<std::string_view> lines = {"1", "20", "300"};
    bloomkit::jobs::with_keys(lines, key_format::text, origin, [&](auto keys) {
        EXPECT_TRUE((std::is_same_v<typename decltype(keys)::value_type, std::string_view>));
        EXPECT_EQ(keys.size(), 3U);
    });
    bloomkit::jobs::with_keys(lines, key_format::u64, origin, [&](auto keys) {
        if constexpr (std::is_same_v<typename decltype(keys)::value_type, std::uint64_t>)
            EXPECT_EQ(std::vector<std::uint64_t>(keys.begin(), keys.end()), (std::vector<std::uint64_t>{1, 20, 300}));
        else ADD_FAILURE() << "u64 lines were handed out as text";
    });
}

}  // namespace
