// test_guava.cpp — Guava's BloomFilter, bit for bit (layouts/guava.hpp, sizing/guava.hpp,
// io/guava.hpp): the streams Debian's Guava 31.1 writes for the published vectors, its sizing
// table, the probe positions of both strategies, Guava's own known-false-positive tests, and
// hostile streams refused before anything is allocated. The round trips with Java itself are
// tests/cli/guava.sh.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "bloomkit/formats.hpp"
#include "bloomkit/io/guava.hpp"
#include "io/foreign_suite.hpp"

namespace {

using namespace bloomkit;
using bloomkit_test::from_hex;
using bloomkit_test::to_hex;

template <class F = guava_bloom_filter>
F made(std::uint64_t n, double p, guava_funnel funnel) {
    return F(n, p, {.funnel = funnel});
}

TEST(GuavaSizing, AsCreateSizes) {  // spec: Guava 31.1's SIZE lines
    struct row {
        double n, p;
        std::uint64_t bits;
        std::uint32_t k;
    };
    for (const row& r :
         {row{1, 0.01, 64, 6}, row{10, 0.03, 128, 5}, row{100, 0.03, 768, 5}, row{1000, 0.01, 9600, 7},
          row{10000, 0.001, 143808, 10}, row{1000000, 0.03, 7298496, 5}, row{100000000, 1e-6, 2875517568, 20}}) {
        const bloom_geometry g = plan_bloom(bloom_layout::guava, r.n, r.p).geometry;
        EXPECT_EQ(g.bits, r.bits) << r.n << " " << r.p;
        EXPECT_EQ(g.hashes, r.k) << r.n << " " << r.p;
    }
    EXPECT_THROW((void)guava_geometry(1e12, 1e-9), invalid_argument);  // more than 2^31 - 1 longs
}

TEST(GuavaStreams, TheFiltersDebiansGuavaWrites) {  // spec §7.4, every stock funnel
    auto empty = made(1, 0.5, guava_funnel::string_utf8);
    EXPECT_EQ(to_hex(io::guava::to_bytes(empty)), "0101000000010000000000000000");

    auto chars = made(5, 0.1, guava_funnel::unencoded_chars);
    chars.insert("hello");
    chars.insert("\xc3\xa9t\xc3\xa9");
    EXPECT_EQ(to_hex(io::guava::to_bytes(chars)), "0103000000010080000010048880");

    auto longs = made(10, 0.001, guava_funnel::long_integer);
    for (std::int64_t i = 0; i < 10; ++i) longs.insert(i * 1000003);
    EXPECT_EQ(to_hex(io::guava::to_bytes(longs)), "010a000000033b40faa7cc12e3c606b847110a2a9400a4bb8878e3e95c62");

    auto ints = made(100, 0.03, guava_funnel::integer);
    for (std::int32_t i = 0; i < 50; ++i) ints.insert(i);
    EXPECT_EQ(to_hex(io::guava::to_bytes(ints)),
              "01050000000cac0809a101c1481840e0025311060bc2002330000008bcc2081a10130f980337000084a0417200931620350361"
              "248002d28421a100084824c08004ac22488860468c622095d008b534c2ea24b080892006118000d999dc01070b80921c5005e0");

    auto raw = made(1, 0.5, guava_funnel::byte_array);
    raw.insert(std::string_view{});  // the empty key hashes to 0: bit 0
    EXPECT_EQ(to_hex(io::guava::to_bytes(raw)), "0101000000010000000000000001");
}

TEST(GuavaStreams, ProbesOfBothStrategies) {  // spec §3.4: "apple", n = 1000, p = 0.01
    const auto set_bits = [](const auto& f) {
        std::vector<std::uint64_t> bits;
        for (std::size_t w = 0; w < f.words().size(); ++w)
            for (int b = 0; b < 64; ++b)
                if (f.words()[w] >> b & 1) bits.push_back(64 * w + b);
        return bits;
    };
    auto mitz64 = made(1000, 0.01, guava_funnel::string_utf8);
    mitz64.insert("apple");
    EXPECT_EQ(set_bits(mitz64), (std::vector<std::uint64_t>{274, 581, 2484, 2791, 3969, 6179, 6486}));
    auto mitz32 = made<guava_mitz32_bloom_filter>(1000, 0.01, guava_funnel::string_utf8);
    mitz32.insert("apple");
    EXPECT_EQ(set_bits(mitz32), (std::vector<std::uint64_t>{4979, 5833, 6192, 7046, 7405, 8259, 8618}));
    EXPECT_EQ(io::guava::to_bytes(mitz32)[0], std::byte{0});
}

// BloomFilterTest's known false positives: Integer.toString(i) for even i in [0, 2e6) into
// create(funnel, 1e6, 0.03, strategy), then the odd ones asked.
template <class F>
std::vector<int> known_false_positives(guava_funnel funnel, std::uint64_t& total) {
    auto filter = made<F>(1000000, 0.03, funnel);
    for (int i = 0; i < 2000000; i += 2) filter.insert(std::to_string(i));
    std::vector<int> below_900;
    total = 0;
    for (int i = 1; i < 2000000; i += 2)
        if (filter.contains(std::to_string(i))) {
            ++total;
            if (i < 900) below_900.push_back(i);
        }
    return below_900;
}

TEST(GuavaStreams, GuavasKnownFalsePositives) {
    std::uint64_t total = 0;
    EXPECT_EQ(known_false_positives<guava_bloom_filter>(guava_funnel::string_utf8, total),
              (std::vector<int>{89, 129, 471, 723, 751, 835, 871}));
    EXPECT_EQ(total, 29763u);
    EXPECT_EQ(known_false_positives<guava_bloom_filter>(guava_funnel::unencoded_chars, total),
              (std::vector<int>{15, 25, 287, 319, 381, 399, 421, 465, 529, 697, 767, 857}));
    EXPECT_EQ(total, 30104u);
    EXPECT_EQ(known_false_positives<guava_mitz32_bloom_filter>(guava_funnel::unencoded_chars, total),
              (std::vector<int>{49, 51, 59, 163, 199, 321, 325, 363, 367, 469, 545, 561, 727, 769, 773, 781}));
    EXPECT_EQ(total, 29824u);
}

TEST(GuavaStreams, RoundTripsThroughBytesStreamsAndBkf) {
    auto filter = made(1000, 0.01, guava_funnel::unencoded_chars);
    for (int i = 0; i < 500; ++i) filter.insert("key " + std::to_string(i));
    const auto bytes = io::guava::to_bytes(filter);

    const auto back = io::guava::from_bytes<guava_bloom_filter>(bytes, guava_funnel::unencoded_chars);
    EXPECT_EQ(back, filter);
    EXPECT_EQ(back.recorded_key_format(), key_format::text);
    for (int i = 0; i < 500; ++i) EXPECT_TRUE(back.contains("key " + std::to_string(i)));

    std::stringstream stream;
    io::guava::save(filter, stream);
    io::guava::save(filter, stream);  // two in one stream, as Java's readFrom allows
    const any_filter first = io::guava::load(stream, guava_funnel::unencoded_chars);
    const any_filter second = io::guava::load(stream, guava_funnel::unencoded_chars);
    EXPECT_EQ(std::get<guava_bloom_filter>(first), filter);
    EXPECT_EQ(std::get<guava_bloom_filter>(second), filter);

    // Into bkf and back: the funnel is recorded there, so the filter answers alike.
    const auto bkf = to_bytes(filter);
    const auto from_bkf = from_bytes<guava_bloom_filter>(bkf);
    EXPECT_EQ(from_bkf, filter);
    EXPECT_EQ(from_bkf.hash_function().funnel(), guava_funnel::unencoded_chars);
    EXPECT_EQ(io::guava::to_bytes(from_bkf), bytes);

    // The formats registry tells them apart by their bytes.
    EXPECT_EQ(io::detect_format(bytes), "guava");
    EXPECT_EQ(io::detect_format(bkf), "bkf");
    EXPECT_EQ(io::write_as("guava", io::read_any(bkf).filter), bytes);
}

TEST(GuavaStreams, TheOtherStrategyIsAnotherType) {
    const auto bytes = io::guava::to_bytes(made<guava_mitz32_bloom_filter>(10, 0.01, guava_funnel::string_utf8));
    EXPECT_THROW((void)io::guava::from_bytes<guava_bloom_filter>(bytes), file_format_error);
    EXPECT_NO_THROW((void)io::guava::from_bytes<guava_mitz32_bloom_filter>(bytes));
    EXPECT_TRUE(std::holds_alternative<guava_mitz32_bloom_filter>(io::guava::from_bytes(bytes)));
}

format_errc reason_of(const std::vector<std::byte>& bytes) {
    return bloomkit_test::refusal_reason([](const auto& b) { return io::guava::from_bytes(b); }, bytes);
}

TEST(GuavaStreams, HostileStreamsAreRefusedBeforeAllocating) {
    EXPECT_EQ(reason_of(from_hex("")), format_errc::truncated);
    EXPECT_EQ(reason_of(from_hex("0105000000")), format_errc::truncated);
    EXPECT_EQ(reason_of(from_hex("020500000001"
                                 "0000000000000000")),
              format_errc::bad_magic);  // strategy 2
    EXPECT_EQ(reason_of(from_hex("ff0500000001"
                                 "0000000000000000")),
              format_errc::bad_magic);  // strategy -1
    EXPECT_EQ(reason_of(from_hex("010000000001"
                                 "0000000000000000")),
              format_errc::invalid_field);                                       // k = 0
    EXPECT_EQ(reason_of(from_hex("010500000000")), format_errc::invalid_field);  // N = 0
    EXPECT_EQ(reason_of(from_hex("010580000000")), format_errc::invalid_field);  // N < 0
    EXPECT_EQ(reason_of(from_hex("01057fffffff"
                                 "00")),
              format_errc::truncated);  // 16 GiB announced
    EXPECT_EQ(reason_of(from_hex("010500000001"
                                 "0000000000000000"
                                 "00")),
              format_errc::invalid_field);  // extra
    std::stringstream huge(
        std::string("\x01\x05\x7f\xff\xff\xff"
                    "abc",
                    9));
    EXPECT_THROW((void)io::guava::load(huge), file_format_error);

    // A filter of another kind has no Guava stream.
    EXPECT_THROW((void)io::guava::to_bytes(any_filter(bloom_filter(100, 0.01))), invalid_argument);
    EXPECT_FALSE(io::refusal("guava", any_filter(bloom_filter(100, 0.01))).empty());
}

TEST(GuavaFilters, MergeOnlyWithTheSameFunnel) {
    auto a = made(100, 0.01, guava_funnel::string_utf8), b = made(100, 0.01, guava_funnel::string_utf8);
    a.insert("a");
    b.insert("b");
    a |= b;
    EXPECT_TRUE(a.contains("a") && a.contains("b"));
    auto other = made(100, 0.01, guava_funnel::byte_array);
    EXPECT_THROW(a |= other, incompatible_filters);
    EXPECT_THROW(guava_bloom_filter(100, 0.01, {.hash = hash_algorithm::xxh3_mum}), invalid_argument);
}

}  // namespace
