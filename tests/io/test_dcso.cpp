// test_dcso.cpp — DCSO's bloom, bit for bit (layouts/dcso.hpp, sizing/dcso.hpp, io/dcso.hpp):
// files Debian's `bloom` 0.2.4 wrote (with and without attached data), its sizing, its count
// of keys that set a bit, and hostile files refused. The round trips with `bloom` itself are
// tests/cli/dcso.sh.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "bloomkit/formats.hpp"
#include "bloomkit/io/dcso.hpp"
#include "io/foreign_suite.hpp"

namespace {

using namespace bloomkit;
using bloomkit_test::from_hex;
using bloomkit_test::to_hex;

// printf 'apple\nbanana\ncherry\n' | bloom create -n 10 -p 0.1 v1.bloom
constexpr std::string_view small_file =
    "01000000000000000a000000000000009a9999999999b93f04000000000000002f00000000000000030000000000000000010"
    "40ca81d0000";
// the same, after `echo meta | bloom set-data v1.bloom`
constexpr std::string_view with_data = "6d6574610a";
// printf 'apple\nbanana\ncherry\n' | bloom create -n 100 -p 0.01 v2.bloom
constexpr std::string_view larger_file =
    "010000000000000064000000000000007b14ae47e17a843f0700000000000000be0300000000000003000000000000000000"
    "0000400000000800001000000100080000001080000000000000040000000008000000000040000000000000080000000000"
    "0000040000000000000000000000000024100000000000000000000000000000004000000000000000000010000000000000"
    "404000800400000000000000000000000000";

dcso_bloom_filter made(std::uint64_t n, double p) {
    dcso_bloom_filter filter(n, p);
    for (const char* key : {"apple", "banana", "cherry"}) filter.insert(key);
    return filter;
}

TEST(DcsoFiles, TheFilesDcsosBloomWrites) {
    EXPECT_EQ(to_hex(io::dcso::to_bytes(made(10, 0.1))), small_file);
    EXPECT_EQ(to_hex(io::dcso::to_bytes(made(100, 0.01))), larger_file);
    const auto data = from_hex(with_data);
    EXPECT_EQ(to_hex(io::dcso::to_bytes(made(10, 0.1), data)), std::string(small_file) + std::string(with_data));
}

TEST(DcsoFiles, SizedAsInitializeSizes) {
    EXPECT_EQ(dcso_geometry(100000, 0.001), (bloom_geometry{1437758, 10}));  // the ceiling of a negative
    EXPECT_EQ(dcso_geometry(10, 0.1), (bloom_geometry{47, 4}));
    EXPECT_EQ(dcso_geometry(100, 0.01), (bloom_geometry{958, 7}));
    EXPECT_THROW((void)dcso_geometry(1, 0.9), invalid_argument);  // 0 bits
}

TEST(DcsoFiles, ReadsWhatItWritesAttachedDataIncluded) {
    std::vector<std::byte> file = from_hex(std::string(small_file) + std::string(with_data)), data;
    const dcso_bloom_filter filter = io::dcso::from_bytes(file, &data);
    EXPECT_EQ(to_hex(data), with_data);
    EXPECT_EQ(filter.expected_keys(), 10u);
    EXPECT_EQ(filter.target_fpr(), 0.1);
    EXPECT_EQ(filter.inserted_count(), 3u);
    for (const char* key : {"apple", "banana", "cherry"}) EXPECT_TRUE(filter.contains(key));
    EXPECT_EQ(io::dcso::to_bytes(filter, data), file);

    std::stringstream stream(std::string(reinterpret_cast<const char*>(file.data()), file.size()));
    std::vector<std::byte> streamed;
    EXPECT_EQ(io::dcso::load(stream, &streamed), filter);
    EXPECT_EQ(streamed, data);

    const io::filter_contents any = io::read_any(file);
    EXPECT_EQ(any.format, "dcso");
    EXPECT_EQ(any.attached, data);
    EXPECT_EQ(io::write_as("dcso", any.filter, any.attached), file);
    // Through bkf: the filter is kept whole (the attached data is DCSO's alone).
    EXPECT_EQ(from_bytes<dcso_bloom_filter>(to_bytes(filter)), filter);
}

TEST(DcsoFiles, CountsOnlyKeysThatSetABit) {  // DCSO's N ("elements present")
    dcso_bloom_filter filter(1000, 0.01);
    filter.insert("a");
    filter.insert("a");
    const std::vector<std::string> more{"b", "c", "b"};
    filter.insert(more.begin(), more.end());
    EXPECT_EQ(filter.inserted_count(), 3u);
}

format_errc reason_of(const std::vector<std::byte>& bytes) {
    return bloomkit_test::refusal_reason([](const auto& b) { return io::dcso::from_bytes(b); }, bytes);
}

TEST(DcsoFiles, HostileFilesAreRefusedBeforeAllocating) {
    std::vector<std::byte> file = from_hex(small_file);
    const auto forged = [&](std::size_t at, std::uint64_t value) {
        std::vector<std::byte> copy = file;
        for (int i = 0; i < 8; ++i) copy[at + i] = static_cast<std::byte>(value >> (8 * i));
        return copy;
    };
    EXPECT_EQ(reason_of({}), format_errc::truncated);
    EXPECT_EQ(reason_of(forged(0, 2)), format_errc::bad_magic);                        // version
    EXPECT_EQ(reason_of(forged(16, 0x3ff0000000000000)), format_errc::invalid_field);  // p = 1
    EXPECT_EQ(reason_of(forged(24, 0)), format_errc::invalid_field);                   // k = 0
    EXPECT_EQ(reason_of(forged(24, 1u << 20)), format_errc::invalid_field);            // k huge
    EXPECT_EQ(reason_of(forged(32, 0)), format_errc::invalid_field);                   // m = 0
    EXPECT_EQ(reason_of(forged(32, std::uint64_t{1} << 40)), format_errc::truncated);  // 128 GiB announced
    EXPECT_EQ(reason_of(std::vector<std::byte>(file.begin(), file.begin() + 50)), format_errc::truncated);
    EXPECT_EQ(reason_of(from_hex("1f8b0800000000000003")), format_errc::bad_magic);  // gzip: said so
    EXPECT_THROW((void)io::dcso::to_bytes(any_filter(bloom_filter(100, 0.01))), invalid_argument);
}

}  // namespace
