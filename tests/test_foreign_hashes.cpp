// test_foreign_hashes.cpp — the hashes of the foreign filters (hash/murmur3.hpp, hash/fnv.hpp,
// hash/guava_funnel.hpp) against their published values: Guava's Murmur3Hash128Test vectors,
// SMHasher's verification value, HashCode bytes of Debian's Guava 31.1 for every stock funnel,
// the FNV-1 64 reference values, and the UTF-8 to UTF-16 transcoding of unencodedCharsFunnel.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/hash.hpp"

namespace {

using namespace bloomkit;

std::span<const std::byte> bytes_of(std::string_view s) { return std::as_bytes(std::span(s.data(), s.size())); }

/// Guava's HashCode.toString(): h1 then h2, each little-endian, as lowercase hex.
std::string hash_code(const digest& d) {
    std::string out;
    char hex[3];
    for (const std::uint64_t half : {d.low, d.high})
        for (int i = 0; i < 8; ++i)
            std::snprintf(hex, sizeof hex, "%02x", unsigned(half >> (8 * i) & 0xff)), out += hex;
    return out;
}

TEST(Murmur3, GuavaKnownValues) {  // Murmur3Hash128Test.testKnownValues: (seed, h1, h2, input)
    struct vector {
        std::uint32_t seed;
        std::uint64_t h1, h2;
        const char* input;
    };
    for (const vector& v :
         {vector{0, 0x629942693e10f867, 0x92db0b82baeb5347, "hell"},
          vector{1, 0xa78ddff5adae8d10, 0x128900ef20900135, "hello"},
          vector{2, 0x8a486b23f422e826, 0xf962a2c58947765f, "hello "},
          vector{3, 0x2ea59f466f6bed8c, 0xc610990acc428a17, "hello w"},
          vector{4, 0x79f6305a386c572c, 0x46305aed3483b94e, "hello wo"},
          vector{5, 0xc2219d213ec1f1b5, 0xa1d8e2e0a52785bd, "hello wor"},
          vector{0, 0xe34bbc7bbc071b6c, 0x7a433ca9c49a9347, "The quick brown fox jumps over the lazy dog"},
          vector{0, 0x658ca970ff85269a, 0x43fee3eaa68e5c3e, "The quick brown fox jumps over the lazy cog"}}) {
        const murmur3_128_hash h = murmur3_x64_128(bytes_of(v.input), v.seed);
        EXPECT_EQ(h.h1, v.h1) << v.input;
        EXPECT_EQ(h.h2, v.h2) << v.input;
    }
}

TEST(Murmur3, SmhasherVerificationValue) {  // SMHasher's VerificationTest, as Guava's testParanoid runs it
    std::vector<std::byte> key(256), hashes(256 * 16);
    for (int i = 0; i < 256; ++i) {
        key[i] = static_cast<std::byte>(i);
        const murmur3_128_hash h = murmur3_x64_128(std::span(key.data(), i), 256 - i);
        for (int b = 0; b < 8; ++b) {
            hashes[16 * i + b] = static_cast<std::byte>(h.h1 >> (8 * b));
            hashes[16 * i + 8 + b] = static_cast<std::byte>(h.h2 >> (8 * b));
        }
    }
    const murmur3_128_hash final = murmur3_x64_128(hashes, 0);
    EXPECT_EQ(static_cast<std::uint32_t>(final.h1), 0x6384BA69u);
}

TEST(GuavaFunnels, HashCodesOfDebiansGuava) {  // spec: HashCode.toString() from Guava 31.1
    const hasher utf8(hash_algorithm::murmur3_128, 0, guava_funnel::string_utf8);
    EXPECT_EQ(hash_code(utf8("")), "00000000000000000000000000000000");
    EXPECT_EQ(hash_code(utf8("a")), "897859f6655555855a890e51483ab5e6");
    EXPECT_EQ(hash_code(utf8("hello")), "029bbd41b3a7d8cb191dae486a901e5b");
    EXPECT_EQ(hash_code(utf8("0123456789abcdef")), "a7d14acf946de04bda08a7635c5bc387");
    EXPECT_EQ(hash_code(utf8("0123456789abcdefg")), "def945aa2d61328eee72c306c2f40008");
    EXPECT_EQ(hash_code(utf8("\xc3\xa9t\xc3\xa9")), "149a9d9b6c5fbf532881418509693336");
    EXPECT_EQ(hash_code(utf8("\xe6\x97\xa5\xe6\x9c\xac")), "8617be787de7d486bd099c30ca8febae");
    EXPECT_EQ(hash_code(utf8("\xf0\x9f\x98\x80")), "5c54e08755b16d15ba04e1cf3f082e29");

    const hasher chars(hash_algorithm::murmur3_128, 0, guava_funnel::unencoded_chars);
    EXPECT_EQ(hash_code(chars("hello")), "87d3bfe18fe12eeec436c3d86272927b");

    const hasher ints(hash_algorithm::murmur3_128, 0, guava_funnel::integer);
    EXPECT_EQ(hash_code(ints(0)), "bc764cd8ddf7a0cff126f51c16239658");
    EXPECT_EQ(hash_code(ints(1)), "feca28aff5a3958840bee985ee7de4d3");
    EXPECT_EQ(hash_code(ints(-1)), "41466634eb45da436c8f8745485715c7");
    EXPECT_EQ(hash_code(ints(std::int64_t{-1})), "41466634eb45da436c8f8745485715c7");   // any width
    EXPECT_EQ(hash_code(ints(~std::uint64_t{0})), "41466634eb45da436c8f8745485715c7");  // -1 as two's complement
    EXPECT_EQ(hash_code(ints(42u)), "cf346e1ce6486f2816b8bc2b6a3dd2e2");

    const hasher longs(hash_algorithm::murmur3_128, 0, guava_funnel::long_integer);
    EXPECT_EQ(hash_code(longs(0)), "cbc357ccb763df2852fee8c4fc7d55f2");
    EXPECT_EQ(hash_code(longs(1)), "4ac405fbb7034400069c6dd3b4cd8a3d");
    EXPECT_EQ(hash_code(longs(-1)), "73edba1a7ab2e4a0af464a6bc9122169");
    EXPECT_EQ(hash_code(longs(std::uint8_t{42})), "f87dd28999c3acb6802ff296fb17b924");

    const hasher raw(hash_algorithm::murmur3_128, 0, guava_funnel::byte_array);
    EXPECT_EQ(raw("hello"), utf8("hello"));
}

TEST(GuavaFunnels, RefuseKeysTheyDoNotTake) {
    const hasher ints(hash_algorithm::murmur3_128, 0, guava_funnel::integer);
    EXPECT_THROW((void)ints("42"), invalid_argument);
    EXPECT_THROW((void)ints(std::int64_t{1} << 31), invalid_argument);  // not a Java int
    EXPECT_THROW((void)ints(std::int64_t{-1} - INT32_MAX - 1), invalid_argument);
    EXPECT_NO_THROW((void)ints(std::int64_t{INT32_MIN}));
    EXPECT_THROW((void)hasher(hash_algorithm::murmur3_128, 0, guava_funnel::long_integer)("x"), invalid_argument);
    EXPECT_THROW((void)hasher(hash_algorithm::murmur3_128, 0, guava_funnel::string_utf8)(7), invalid_argument);
    EXPECT_THROW(hasher(hash_algorithm::murmur3_128, 1), invalid_argument);  // Guava's seed is 0
    EXPECT_THROW(hasher(hash_algorithm::xxh3_mum, 0, guava_funnel::integer), invalid_argument);
    EXPECT_EQ(hasher(hash_algorithm::murmur3_128).funnel(), guava_funnel::string_utf8);
    EXPECT_NE(hasher(hash_algorithm::murmur3_128, 0, guava_funnel::byte_array), hasher(hash_algorithm::murmur3_128));
}

std::string utf16le_hex(std::string_view utf8) {
    std::vector<std::byte> out;
    utf16le_of_utf8(bytes_of(utf8), out);
    std::string hex;
    char two[3];
    for (const std::byte b : out) std::snprintf(two, sizeof two, "%02x", std::to_integer<unsigned>(b)), hex += two;
    return hex;
}

TEST(GuavaFunnels, UnencodedCharsTranscodesAsJavaDecodes) {
    EXPECT_EQ(utf16le_hex("hello"), "680065006c006c006f00");
    EXPECT_EQ(utf16le_hex("\xc3\xa9t\xc3\xa9"), "e9007400e900");
    EXPECT_EQ(utf16le_hex("\xf0\x9f\x98\x80"), "3dd800de");  // U+1F600: a surrogate pair
    EXPECT_EQ(utf16le_hex(""), "");
    // Malformed input: one U+FFFD per maximal subpart, as Java's String(bytes, UTF_8) decodes it.
    EXPECT_EQ(utf16le_hex("a\xff"
                          "b"),
              "6100fdff6200");
    EXPECT_EQ(utf16le_hex("\xe6\x97"), "fdff");                      // a cut-short sequence: one
    EXPECT_EQ(utf16le_hex("\xc0\xaf"), "fdfffdff");                  // an overlong lead: each byte
    EXPECT_EQ(utf16le_hex("\xed\xa0\x80"), "fdff");                  // an encoded surrogate: one
    EXPECT_EQ(utf16le_hex("\xf4\x90\x80\x80"), "fdfffdfffdfffdff");  // beyond U+10FFFF
}

TEST(Fnv, ReferenceValues) {  // FNV-1 64 (not 1a): draft-eastlake-fnv test vectors
    EXPECT_EQ(fnv1_64(bytes_of("")), 0xcbf29ce484222325ULL);
    EXPECT_EQ(fnv1_64(bytes_of("a")), 0xaf63bd4c8601b7beULL);
    EXPECT_EQ(fnv1_64(bytes_of("foobar")), 0x340d8765a4dda9c2ULL);
    EXPECT_EQ(hasher(hash_algorithm::fnv1_64)("foobar").low, 0x340d8765a4dda9c2ULL);
    const hasher dcso(hash_algorithm::fnv1_64);
    EXPECT_EQ(dcso(7), dcso(std::uint64_t{7}));  // an integer is its value, widened, as in every kind
    EXPECT_EQ(dcso(-1), dcso(~std::uint64_t{0}));
    EXPECT_THROW(hasher(hash_algorithm::fnv1_64, 1), invalid_argument);  // DCSO's hash has no seed
}

}  // namespace
