// Tests of the file format (file.hpp) for every filter kind besides the Bloom filter (whose
// files tests/test_file.cpp covers): the counting Bloom filter, the cuckoo filter (a table with
// its stash occupied, bucket counts that are not powers of two), the scalable Bloom filter
// (grown to several stages: the stage table and its 64-byte aligned offsets) and the four
// binary fuse filters (the empty one too).
//
// For each: save -> load and save -> map round trips (every observable, the answers, read-only
// maps, verify, load_any / map_any, read_header, the bytes written, determinism, a loaded
// filter that keeps working and saves again), then the rejection of files of the wrong kind,
// of forged kind-specific fields (with the checksums recomputed, as a forger would), of
// damaged payloads and of truncated files.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "file_test_support.hpp"

namespace fs = std::filesystem;
using bloomkit::format_errc;
using bloomkit::hash_algorithm;


namespace {

// --- Files and bytes ---------------------------------------------------------------------

using namespace bloomkit_test;
using keys_type = std::vector<std::uint64_t>;

// The header's offsets, spelled out here (docs/FORMAT.md and the comments in
// detail/file_codecs.hpp) so that a change to the format breaks these tests; checked against
// the library's names below.
namespace field {
constexpr std::size_t version = 8, header_size = 10, kind = 12, variant = 14, hash = 15, seed = 16, parameter64 = 24,
                      parameter32a = 32, parameter32b = 36, expected_keys = 40, target_fpp = 48, inserted_count = 56,
                      parameter_aux = 64, payload_offset = 72, payload_size = 80, payload_checksum = 88, extra = 96,
                      header_checksum = 120;
}
namespace hf = bloomkit::detail::header_field;
static_assert(field::version == hf::version && field::header_size == hf::header_size && field::kind == hf::kind &&
              field::variant == hf::variant && field::hash == hf::hash && field::seed == hf::seed &&
              field::parameter64 == hf::parameter64 && field::parameter32a == hf::parameter32a &&
              field::parameter32b == hf::parameter32b && field::expected_keys == hf::expected_keys &&
              field::target_fpp == hf::target_fpp && field::inserted_count == hf::inserted_count &&
              field::parameter_aux == hf::parameter_aux && field::payload_offset == hf::payload_offset &&
              field::payload_size == hf::payload_size && field::payload_checksum == hf::payload_checksum &&
              field::extra == hf::extra && field::header_checksum == hf::header_checksum);

// What each kind keeps in the kind-specific bytes.
namespace counting_field {
constexpr std::size_t layout = 14, counters = 24, hashes = 32, counters_per_block = 36, nonzero = 64, counter_bits = 96;
}
namespace cuckoo_field {
constexpr std::size_t layout = 14, buckets = 24, fingerprint_bits = 32, bucket_size = 36, stored = 56, stash_bucket = 64,
                      stash_fingerprint = 96;
}
namespace scalable_field {
constexpr std::size_t stage_layout = 14, initial_capacity = 24, stages = 32, reserved32 = 36, reserved64 = 64,
                      growth = 96, tightening = 104;
}
namespace fuse_field {
constexpr std::size_t arity = 14, array_length = 24, fingerprint_bits = 32, segment_length = 36, keys = 56,
                      construction_seed = 64, segment_count = 96;
}
// A scalable filter's payload starts with one 64-byte entry per stage.
namespace stage_entry {
constexpr std::size_t size = 64, bits = 0, hashes = 8, expected_keys = 16, target_fpp = 24, inserted_count = 32,
                      set_bits = 40, offset = 48;
}
constexpr std::size_t header_size = 128;




void put_double(bytes& data, std::size_t offset, double value) { put_le(data, offset, std::bit_cast<std::uint64_t>(value), 8); }
double get_double(const bytes& data, std::size_t offset) { return std::bit_cast<double>(get_le(data, offset, 8)); }


/// Recomputes the payload checksum (XXH3-64 of the bytes after the header, at offset 88).
/// The header checksum must be recomputed after it.
void reseal_payload(bytes& data) {
    put_le(data, field::payload_checksum, XXH3_64bits(data.data() + header_size, data.size() - header_size), 8);
}

/// Bytes [from, to) are all zero.
::testing::AssertionResult zero_bytes(const bytes& data, std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i)
        if (data.at(i) != 0) return ::testing::AssertionFailure() << "byte " << i << " is " << int{data[i]};
    return ::testing::AssertionSuccess();
}


/// The words of a filter, little-endian, from `offset` bytes into the file: how many differ.
template <class Word>
std::size_t mismatched_words(const bytes& file, std::size_t offset, std::span<const Word> words) {
    if (file.size() < offset + words.size() * sizeof(Word)) return words.size() + 1;
    std::size_t mismatched = 0;
    for (std::size_t i = 0; i < words.size(); ++i)
        mismatched += get_le(file, offset + i * sizeof(Word), sizeof(Word)) != words[i] ? 1 : 0;
    return mismatched;
}

// --- Expected failures -------------------------------------------------------------------

/// Runs `open`, which must throw file_format_error for `reason` in a message mentioning
/// `part` (and the file's name, unless `names_file` is false).
template <class Open>
void expect_format_error(const char* what, Open open, const fs::path& path, format_errc reason, std::string_view part,
                         bool names_file = true) {
    SCOPED_TRACE(what);
    try {
        open();
        ADD_FAILURE() << "accepted " << path << "; expected rejection for " << ::testing::PrintToString(reason);
    } catch (const bloomkit::file_format_error& e) {
        EXPECT_EQ(e.reason(), reason) << e.what();
        if (names_file) {
            EXPECT_TRUE(mentions(e.what(), path.string()));
        }
        if (!part.empty()) {
            EXPECT_TRUE(mentions(e.what(), part));
        }
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not a file_format_error: " << e.what();
    }
}

/// Every way of opening a file that decodes its header must reject it, for the same reason.
template <class Filter>
void expect_header_rejected(const fs::path& path, format_errc reason, std::string_view part) {
    expect_format_error("read_header", [&] { (void)bloomkit::read_header(path); }, path, reason, part);
    expect_format_error("load", [&] { (void)bloomkit::load<Filter>(path); }, path, reason, part);
    expect_format_error("map", [&] { (void)bloomkit::map<Filter>(path); }, path, reason, part);
    expect_format_error("load_any", [&] { (void)bloomkit::load_any(path); }, path, reason, part);
    expect_format_error("map_any", [&] { (void)bloomkit::map_any(path); }, path, reason, part);
}

/// A file whose header is valid but whose filter cannot be assembled from it: read_header
/// accepts it, every reader that builds the filter must reject it.
template <class Filter>
void expect_assembly_rejected(const fs::path& path, format_errc reason, std::string_view part, bool names_file) {
    EXPECT_NO_THROW((void)bloomkit::read_header(path)) << "the header alone is valid";
    expect_format_error("load", [&] { (void)bloomkit::load<Filter>(path); }, path, reason, part, names_file);
    expect_format_error("map", [&] { (void)bloomkit::map<Filter>(path); }, path, reason, part, names_file);
    expect_format_error("load_any", [&] { (void)bloomkit::load_any(path); }, path, reason, part, names_file);
    expect_format_error("map_any", [&] { (void)bloomkit::map_any(path); }, path, reason, part, names_file);
}

// --- The filters under test --------------------------------------------------------------

using bloomkit::binary_fuse16_4wise_filter;
using bloomkit::binary_fuse16_filter;
using bloomkit::binary_fuse8_4wise_filter;
using bloomkit::binary_fuse8_filter;
using bloomkit::block_bloom_filter;
using bloomkit::counting_bloom_filter;
using bloomkit::cuckoo_filter;
using bloomkit::scalable_bloom_filter;

keys_type key_range(std::uint64_t first, std::uint64_t count) {
    keys_type keys(count);
    for (std::uint64_t i = 0; i < count; ++i) keys[i] = first + i;
    return keys;
}

/// Keys no sample holds (the samples' keys are all below 2^32).
const keys_type& absent_keys() {
    static const keys_type keys = key_range(std::uint64_t{1} << 40, 3000);
    return keys;
}

/// Keys for inserting after a load, held by no sample either.
keys_type fresh_keys(std::uint64_t count) { return key_range(std::uint64_t{1} << 50, count); }

/// A filter saved by the tests, and the keys it must contain.
template <class Filter>
struct sample {
    std::string name;
    Filter filter;
    keys_type keys;
};

template <class Filter>
struct kind_traits;

// Counting Bloom filter: sized and explicit geometry; keys inserted twice, removed, and one
// inserted 20 times (its counters saturate at 15).
template <>
struct kind_traits<counting_bloom_filter> {
    using filter = counting_bloom_filter;
    static constexpr auto kind = bloomkit::filter_kind::counting_bloom;
    static constexpr bool is_mutable = true;
    static constexpr std::size_t removed_by_modify = 30;  // modify() removes the first 30 keys
    static std::string type_name() { return "counting"; }
    static std::string display_name() { return "counting Bloom filter"; }

    static std::vector<sample<filter>> make() {
        std::vector<sample<filter>> out;
        {
            filter f(2000, 0.01, {.seed = 0x5eed'0000'0000'0001, .hash = hash_algorithm::xxh64});
            keys_type keys = key_range(0, 2000);
            for (const auto k : keys) f.insert(k);
            for (std::uint64_t k = 0; k < 100; ++k) f.insert(k);  // twice
            for (std::uint64_t k = 5000; k < 5100; ++k) f.insert(k);
            for (std::uint64_t k = 5000; k < 5100; ++k) EXPECT_TRUE(f.remove(k));  // gone again
            for (int i = 0; i < 20; ++i) f.insert(std::uint64_t{77777});
            keys.push_back(77777);
            out.push_back({"sized", std::move(f), std::move(keys)});
        }
        {
            filter f(bloomkit::counting_geometry{1000, 5});  // rounded up to 1024 counters
            keys_type keys = key_range(100'000, 60);
            for (const auto k : keys) f.insert(k);
            out.push_back({"explicit_geometry", std::move(f), std::move(keys)});
        }
        return out;
    }

    static std::uint64_t answer(const filter& f, std::uint64_t key) { return f.count(key); }

    static void expect_same(const filter& actual, const filter& expected) {
        EXPECT_TRUE(actual == expected) << "the counters differ";
        EXPECT_EQ(actual.geometry(), expected.geometry());
        EXPECT_EQ(actual.counter_count(), expected.counter_count());
        EXPECT_EQ(actual.hash_count(), expected.hash_count());
        EXPECT_EQ(actual.expected_keys(), expected.expected_keys());
        EXPECT_EQ(actual.target_fpp(), expected.target_fpp());
        EXPECT_EQ(actual.inserted_count(), expected.inserted_count());
        EXPECT_EQ(actual.nonzero_counter_count(), expected.nonzero_counter_count());
        EXPECT_EQ(actual.approximate_count(), expected.approximate_count());
        EXPECT_EQ(actual.current_fpr(), expected.current_fpr());
        EXPECT_TRUE(std::ranges::equal(actual.words(), expected.words()));
    }

    static void expect_header(const bloomkit::file_header& h, const bytes& file, const filter& f) {
        EXPECT_EQ(h.counting, f.geometry());
        EXPECT_EQ(h.set_bits, f.nonzero_counter_count());
        EXPECT_EQ(h.expected_keys, f.expected_keys());
        EXPECT_EQ(h.target_fpp, f.target_fpp());
        EXPECT_EQ(h.inserted_count, f.inserted_count());
        EXPECT_EQ(h.approximate_count(), f.approximate_count());
        EXPECT_EQ(h.current_fpr(), f.current_fpr());

        EXPECT_EQ(file.at(counting_field::layout), 1U);
        EXPECT_EQ(get_le(file, counting_field::counters, 8), f.counter_count());
        EXPECT_EQ(get_le(file, counting_field::hashes, 4), f.hash_count());
        EXPECT_EQ(get_le(file, counting_field::counters_per_block, 4), 128U);
        EXPECT_EQ(get_le(file, counting_field::nonzero, 8), f.nonzero_counter_count());
        EXPECT_EQ(get_le(file, counting_field::counter_bits, 4), 4U);
        EXPECT_TRUE(zero_bytes(file, 100, 120));
        EXPECT_EQ(file.size() - header_size, f.counter_count() / 2);
        EXPECT_EQ(mismatched_words(file, header_size, f.words()), 0U);
    }

    static void expect_mutators_refuse(const filter& mapped, const sample<filter>& s) {
        auto copy = mapped;  // a copy shares the read-only view
        EXPECT_TRUE(copy.read_only());
        const keys_type fresh = fresh_keys(3);
        const std::uint64_t present = s.keys.front();
        EXPECT_THROW(copy.insert(fresh[0]), bloomkit::read_only_filter);
        EXPECT_THROW(copy.insert(fresh.begin(), fresh.end()), bloomkit::read_only_filter);
        EXPECT_THROW(copy.insert_range(fresh), bloomkit::read_only_filter);
        EXPECT_THROW(copy.remove(present), bloomkit::read_only_filter);
        EXPECT_THROW(copy.remove_unchecked(present), bloomkit::read_only_filter);
        EXPECT_THROW(copy.clear(), bloomkit::read_only_filter);
        EXPECT_THROW(copy |= s.filter, bloomkit::read_only_filter);
        EXPECT_TRUE(copy == mapped);
        EXPECT_EQ(copy.inserted_count(), mapped.inserted_count());
        EXPECT_EQ(copy.count(present), mapped.count(present));
    }

    /// Removes some keys and inserts others; returns what each call answered.
    static std::vector<std::uint64_t> modify(filter& f, const sample<filter>& s) {
        std::vector<std::uint64_t> log;
        for (std::size_t i = 0; i < 30; ++i) {
            const bool removed = f.remove(s.keys[i]);
            EXPECT_TRUE(removed) << "an inserted key could not be removed after a load";
            log.push_back(removed);
        }
        for (const auto k : fresh_keys(40)) log.push_back(f.insert(k));
        f.remove_unchecked(fresh_keys(1)[0]);
        log.push_back(f.inserted_count());
        return log;
    }
};

// Cuckoo filter: sized (a bucket count that is not a power of two), a full table whose stash is
// occupied, and 16-bit fingerprints hashed with XXH64.
template <>
struct kind_traits<cuckoo_filter> {
    using filter = cuckoo_filter;
    static constexpr auto kind = bloomkit::filter_kind::cuckoo;
    static constexpr bool is_mutable = true;
    static constexpr std::size_t removed_by_modify = 10;
    static std::string type_name() { return "cuckoo"; }
    static std::string display_name() { return "cuckoo filter"; }

    static std::vector<sample<filter>> make() {
        std::vector<sample<filter>> out;
        {
            filter f(2000, 0.01, {.seed = 0x5eed'0000'0000'0002});
            keys_type keys = key_range(0, 2000);
            for (const auto k : keys) EXPECT_TRUE(f.insert(k));
            EXPECT_TRUE(f.insert(std::uint64_t{5}));  // three copies
            EXPECT_TRUE(f.insert(std::uint64_t{5}));
            for (std::size_t i = 1900; i < 2000; ++i) EXPECT_TRUE(f.remove(keys[i]));
            keys.resize(1900);
            out.push_back({"sized", std::move(f), std::move(keys)});
        }
        {
            filter f(bloomkit::cuckoo_geometry{37, 8}, {.seed = 0x5eed'0000'0000'0003});
            keys_type keys;
            for (std::uint64_t k = 1'000'000; k < 1'000'000 + 10 * f.capacity(); ++k) {
                if (!f.insert(k)) break;  // full: a walk failed and its victim waits in the stash
                keys.push_back(k);
            }
            out.push_back({"full_with_stash", std::move(f), std::move(keys)});
        }
        {
            filter f(bloomkit::cuckoo_geometry{100, 16}, {.seed = 0x5eed'0000'0000'0004, .hash = hash_algorithm::xxh64});
            keys_type keys = key_range(300'000, 300);
            for (const auto k : keys) EXPECT_TRUE(f.insert(k));
            out.push_back({"16_bit_xxh64", std::move(f), std::move(keys)});
        }
        return out;
    }

    static std::uint64_t answer(const filter& f, std::uint64_t key) { return f.count(key); }

    static void expect_same(const filter& actual, const filter& expected) {
        EXPECT_TRUE(actual == expected) << "the tables or stashes differ";
        EXPECT_EQ(actual.geometry(), expected.geometry());
        EXPECT_EQ(actual.bucket_count(), expected.bucket_count());
        EXPECT_EQ(actual.fingerprint_bits(), expected.fingerprint_bits());
        EXPECT_EQ(actual.size(), expected.size());
        EXPECT_EQ(actual.empty(), expected.empty());
        EXPECT_EQ(actual.capacity(), expected.capacity());
        EXPECT_EQ(actual.load_factor(), expected.load_factor());
        EXPECT_EQ(actual.current_fpr(), expected.current_fpr());
        EXPECT_EQ(actual.expected_keys(), expected.expected_keys());
        EXPECT_EQ(actual.target_fpp(), expected.target_fpp());
        EXPECT_EQ(actual.stash(), expected.stash());
        EXPECT_EQ(actual.stash().occupied(), expected.stash().occupied());
        EXPECT_EQ(actual.count_fingerprints(), expected.count_fingerprints());
        EXPECT_EQ(actual.count_fingerprints(), actual.size());
        EXPECT_TRUE(std::ranges::equal(actual.words(), expected.words()));
    }

    static void expect_header(const bloomkit::file_header& h, const bytes& file, const filter& f) {
        EXPECT_EQ(h.cuckoo, f.geometry());
        EXPECT_EQ(h.stash, f.stash());
        EXPECT_EQ(h.inserted_count, f.size());
        EXPECT_EQ(h.expected_keys, f.expected_keys());
        EXPECT_EQ(h.target_fpp, f.target_fpp());
        EXPECT_EQ(h.approximate_count(), static_cast<double>(f.size()));
        EXPECT_DOUBLE_EQ(h.current_fpr(), f.current_fpr());

        EXPECT_EQ(file.at(cuckoo_field::layout), 0U);
        EXPECT_EQ(get_le(file, cuckoo_field::buckets, 8), f.bucket_count());
        EXPECT_EQ(get_le(file, cuckoo_field::fingerprint_bits, 4), f.fingerprint_bits());
        EXPECT_EQ(get_le(file, cuckoo_field::bucket_size, 4), 4U);
        EXPECT_EQ(get_le(file, cuckoo_field::stored, 8), f.size());
        EXPECT_EQ(get_le(file, cuckoo_field::stash_bucket, 8), f.stash().bucket);
        EXPECT_EQ(get_le(file, cuckoo_field::stash_fingerprint, 4), f.stash().fingerprint);
        EXPECT_TRUE(zero_bytes(file, 100, 120));
        EXPECT_EQ(file.size() - header_size, bloomkit::cuckoo_word_count(f.geometry()) * 8);
        EXPECT_EQ(mismatched_words(file, header_size, f.words()), 0U);
    }

    static void expect_mutators_refuse(const filter& mapped, const sample<filter>& s) {
        auto copy = mapped;
        EXPECT_TRUE(copy.read_only());
        const keys_type fresh = fresh_keys(3);
        const std::uint64_t present = s.keys.front();
        std::vector<bool> answers;
        EXPECT_THROW((void)copy.insert(fresh[0]), bloomkit::read_only_filter);
        EXPECT_THROW((void)copy.insert(fresh.begin(), fresh.end()), bloomkit::read_only_filter);
        EXPECT_THROW(copy.insert(fresh.begin(), fresh.end(), std::back_inserter(answers)), bloomkit::read_only_filter);
        EXPECT_THROW((void)copy.insert_range(fresh), bloomkit::read_only_filter);
        EXPECT_THROW(copy.remove(present), bloomkit::read_only_filter);
        EXPECT_THROW(copy.clear(), bloomkit::read_only_filter);
        EXPECT_TRUE(answers.empty());
        EXPECT_TRUE(copy == mapped);
        EXPECT_EQ(copy.size(), mapped.size());
        EXPECT_EQ(copy.stash(), mapped.stash());
    }

    /// Removes some keys, inserts others (a full table refuses them until a removal makes
    /// room); returns what each call answered.
    static std::vector<std::uint64_t> modify(filter& f, const sample<filter>& s) {
        std::vector<std::uint64_t> log;
        const keys_type fresh = fresh_keys(40);
        for (std::size_t i = 0; i < 5; ++i) log.push_back(f.insert(fresh[i]));
        for (std::size_t i = 0; i < 10; ++i) {
            const bool removed = f.remove(s.keys[i]);
            EXPECT_TRUE(removed) << "an inserted key could not be removed after a load";
            log.push_back(removed);
        }
        for (std::size_t i = 5; i < fresh.size(); ++i) log.push_back(f.insert(fresh[i]));
        log.push_back(f.size());
        log.push_back(f.stash().fingerprint);
        return log;
    }
};

// Scalable Bloom filter: grown to several stages, with the default and with other parameters.
template <>
struct kind_traits<scalable_bloom_filter> {
    using filter = scalable_bloom_filter;
    static constexpr auto kind = bloomkit::filter_kind::scalable_bloom;
    static constexpr bool is_mutable = true;
    static constexpr std::size_t removed_by_modify = 0;
    static std::string type_name() { return "scalable"; }
    static std::string display_name() { return "scalable Bloom filter"; }

    static std::vector<sample<filter>> make() {
        std::vector<sample<filter>> out;
        {
            filter f(100, 0.01, {.growth = 2, .tightening = 0.5, .seed = 0x5eed'0000'0000'0005});
            keys_type keys = key_range(0, 2000);
            for (const auto k : keys) f.insert(k);
            out.push_back({"grown", std::move(f), std::move(keys)});
        }
        {
            filter f(50, 0.001, {.growth = 1.5, .tightening = 0.8, .seed = 0x5eed'0000'0000'0006, .hash = hash_algorithm::xxh64});
            keys_type keys = key_range(200'000, 1000);
            f.insert(keys.begin(), keys.end());
            out.push_back({"slow_growth_xxh64", std::move(f), std::move(keys)});
        }
        return out;
    }

    static std::uint64_t answer(const filter& f, std::uint64_t key) { return f.contains(key); }

    static void expect_same(const filter& actual, const filter& expected) {
        EXPECT_TRUE(actual == expected) << "the parameters or stages differ";
        EXPECT_EQ(actual.parameters(), expected.parameters());
        EXPECT_EQ(actual.initial_capacity(), expected.initial_capacity());
        EXPECT_EQ(actual.target_fpp(), expected.target_fpp());
        EXPECT_EQ(actual.growth(), expected.growth());
        EXPECT_EQ(actual.tightening(), expected.tightening());
        EXPECT_EQ(actual.size_in_bytes(), expected.size_in_bytes());
        EXPECT_EQ(actual.inserted_count(), expected.inserted_count());
        EXPECT_EQ(actual.approximate_count(), expected.approximate_count());
        EXPECT_EQ(actual.current_fpr(), expected.current_fpr());
        ASSERT_EQ(actual.stage_count(), expected.stage_count());
        for (std::size_t i = 0; i < actual.stage_count(); ++i) {
            SCOPED_TRACE("stage " + std::to_string(i));
            const block_bloom_filter& a = actual.stages()[i];
            const block_bloom_filter& e = expected.stages()[i];
            EXPECT_TRUE(a == e) << "the bits differ";
            EXPECT_EQ(a.geometry(), e.geometry());
            EXPECT_EQ(a.expected_keys(), e.expected_keys());
            EXPECT_EQ(a.target_fpp(), e.target_fpp());
            EXPECT_EQ(a.inserted_count(), e.inserted_count());
            EXPECT_EQ(a.set_bit_count(), e.set_bit_count());
            EXPECT_EQ(a.hash_function(), e.hash_function());
            EXPECT_EQ(a.hash_function(), actual.hash_function());
            const auto plan = actual.planned_stage(i);
            EXPECT_EQ(a.expected_keys(), plan.capacity);
            EXPECT_EQ(a.target_fpp(), plan.fpp);
        }
    }

    static void expect_header(const bloomkit::file_header& h, const bytes& file, const filter& f) {
        EXPECT_EQ(h.scalable, f.parameters());
        EXPECT_EQ(h.stages, f.stage_count());
        EXPECT_EQ(h.expected_keys, f.initial_capacity());
        EXPECT_EQ(h.target_fpp, f.target_fpp());
        EXPECT_EQ(h.inserted_count, f.inserted_count());
        EXPECT_EQ(h.approximate_count(), static_cast<double>(f.inserted_count()));
        EXPECT_TRUE(std::isnan(h.current_fpr()));

        EXPECT_EQ(file.at(scalable_field::stage_layout), 2U);  // block Bloom filters
        EXPECT_EQ(get_le(file, scalable_field::initial_capacity, 8), f.initial_capacity());
        EXPECT_EQ(get_le(file, scalable_field::stages, 4), f.stage_count());
        EXPECT_EQ(get_le(file, scalable_field::reserved32, 4), 0U);
        EXPECT_EQ(get_le(file, scalable_field::reserved64, 8), 0U);
        EXPECT_EQ(get_double(file, scalable_field::growth), f.growth());
        EXPECT_EQ(get_double(file, scalable_field::tightening), f.tightening());
        EXPECT_TRUE(zero_bytes(file, 112, 120));

        // The stage table, then each stage's words at a 64-byte aligned offset, back to back.
        std::uint64_t next = f.stage_count() * stage_entry::size;
        for (std::size_t i = 0; i < f.stage_count(); ++i) {
            SCOPED_TRACE("stage " + std::to_string(i));
            const block_bloom_filter& stage = f.stages()[i];
            const std::size_t entry = header_size + i * stage_entry::size;
            EXPECT_EQ(get_le(file, entry + stage_entry::bits, 8), stage.bit_count());
            EXPECT_EQ(get_le(file, entry + stage_entry::hashes, 4), stage.hash_count());
            EXPECT_TRUE(zero_bytes(file, entry + 12, entry + 16));
            EXPECT_EQ(get_le(file, entry + stage_entry::expected_keys, 8), stage.expected_keys());
            EXPECT_EQ(get_double(file, entry + stage_entry::target_fpp), stage.target_fpp());
            EXPECT_EQ(get_le(file, entry + stage_entry::inserted_count, 8), stage.inserted_count());
            EXPECT_EQ(get_le(file, entry + stage_entry::set_bits, 8), stage.set_bit_count());
            EXPECT_TRUE(zero_bytes(file, entry + 56, entry + 64));
            const std::uint64_t offset = get_le(file, entry + stage_entry::offset, 8);
            EXPECT_EQ(offset % 64, 0U);
            EXPECT_EQ(offset, (next + 63) / 64 * 64);
            EXPECT_TRUE(zero_bytes(file, header_size + next, header_size + offset)) << "the padding";
            EXPECT_EQ(mismatched_words(file, header_size + offset, stage.words()), 0U);
            next = offset + stage.size_in_bytes();
        }
        EXPECT_EQ(file.size(), header_size + next) << "the file ends with the last stage";
    }

    static void expect_mutators_refuse(const filter& mapped, const sample<filter>& s) {
        auto copy = mapped;
        EXPECT_TRUE(copy.read_only());
        for (const block_bloom_filter& stage : copy.stages()) EXPECT_TRUE(stage.read_only());
        const keys_type fresh = fresh_keys(3);
        ASSERT_FALSE(copy.contains(fresh[0]));
        EXPECT_THROW(copy.insert(fresh[0]), bloomkit::read_only_filter);
        EXPECT_THROW(copy.insert(fresh.begin(), fresh.end()), bloomkit::read_only_filter);
        EXPECT_THROW(copy.insert_range(fresh), bloomkit::read_only_filter);
        EXPECT_THROW(copy.clear(), bloomkit::read_only_filter);
        EXPECT_THROW(copy |= s.filter, bloomkit::read_only_filter);
        EXPECT_TRUE(copy == mapped);
        EXPECT_EQ(copy.stage_count(), mapped.stage_count());
        EXPECT_EQ(copy.inserted_count(), mapped.inserted_count());
        EXPECT_FALSE(copy.contains(fresh[0]));
    }

    /// Inserts past the filter's capacity, so that it opens new stages.
    static std::vector<std::uint64_t> modify(filter& f, const sample<filter>&) {
        std::vector<std::uint64_t> log;
        const std::size_t stages_before = f.stage_count();
        std::uint64_t capacity = 0;
        for (const block_bloom_filter& stage : f.stages()) capacity += stage.expected_keys();
        const keys_type fresh = fresh_keys(capacity + 1);
        std::uint64_t added = 0;
        for (const auto k : fresh) added += f.insert(k) ? 1 : 0;
        EXPECT_GT(f.stage_count(), stages_before) << "the loaded filter did not grow";
        log.push_back(added);
        log.push_back(f.stage_count());
        log.push_back(f.inserted_count());
        return log;
    }
};

// Binary fuse filters: built from 2000 keys, from 500 hashed with XXH64, and from no keys.
template <class Fuse>
struct fuse_traits {
    using filter = Fuse;
    static constexpr auto kind = bloomkit::filter_kind::binary_fuse;
    static constexpr bool is_mutable = false;
    static constexpr std::size_t removed_by_modify = 0;
    static std::string type_name() {
        return "fuse" + std::to_string(Fuse::fingerprint_bits()) + (Fuse::arity() == 4 ? "_4wise" : "");
    }
    static std::string display_name() {
        return std::to_string(Fuse::arity()) + "-wise " + std::to_string(Fuse::fingerprint_bits()) + "-bit binary fuse filter";
    }

    static std::vector<sample<filter>> make() {
        std::vector<sample<filter>> out;
        {
            keys_type keys = key_range(0, 2000);
            out.push_back({"2000_keys", filter(keys, {.seed = 0x5eed'0000'0000'0007}), keys});
        }
        {
            keys_type keys = key_range(400'000, 500);
            out.push_back({"xxh64", filter(keys, {.seed = 0x5eed'0000'0000'0008, .hash = hash_algorithm::xxh64}), keys});
        }
        out.push_back({"empty", filter(keys_type{}, {.seed = 0x5eed'0000'0000'0009}), {}});
        return out;
    }

    static std::uint64_t answer(const filter& f, std::uint64_t key) { return f.contains(key); }

    static void expect_same(const filter& actual, const filter& expected) {
        EXPECT_TRUE(actual == expected) << "the parameters or fingerprints differ";
        EXPECT_EQ(actual.parameters(), expected.parameters());
        EXPECT_EQ(actual.geometry(), expected.geometry());
        EXPECT_EQ(actual.size(), expected.size());
        EXPECT_EQ(actual.empty(), expected.empty());
        EXPECT_EQ(actual.bits_per_key(), expected.bits_per_key());
        EXPECT_EQ(actual.segment_length(), expected.segment_length());
        EXPECT_EQ(actual.segment_count(), expected.segment_count());
        EXPECT_EQ(actual.array_length(), expected.array_length());
        EXPECT_EQ(actual.construction_seed(), expected.construction_seed());
        EXPECT_EQ(actual.parameters().arity, Fuse::arity());
        EXPECT_EQ(actual.parameters().fingerprint_bits, Fuse::fingerprint_bits());
        EXPECT_TRUE(std::ranges::equal(actual.fingerprints(), expected.fingerprints()));
    }

    static void expect_header(const bloomkit::file_header& h, const bytes& file, const filter& f) {
        EXPECT_EQ(h.fuse, f.parameters());
        EXPECT_EQ(h.inserted_count, f.size());
        EXPECT_EQ(h.expected_keys, 0U);
        EXPECT_EQ(h.target_fpp, 0.0);
        EXPECT_EQ(h.approximate_count(), static_cast<double>(f.size()));
        EXPECT_EQ(h.current_fpr(), f.empty() ? 0.0 : Fuse::expected_fpr());

        EXPECT_EQ(file.at(fuse_field::arity), Fuse::arity());
        EXPECT_EQ(get_le(file, fuse_field::array_length, 8), f.array_length());
        EXPECT_EQ(get_le(file, fuse_field::fingerprint_bits, 4), Fuse::fingerprint_bits());
        EXPECT_EQ(get_le(file, fuse_field::segment_length, 4), f.segment_length());
        EXPECT_EQ(get_le(file, fuse_field::keys, 8), f.size());
        EXPECT_EQ(get_le(file, fuse_field::construction_seed, 8), f.construction_seed());
        EXPECT_EQ(get_le(file, fuse_field::segment_count, 8), f.segment_count());
        EXPECT_TRUE(zero_bytes(file, 104, 120));
        EXPECT_EQ(file.size() - header_size, f.array_length() * sizeof(typename Fuse::fingerprint_type));
        EXPECT_EQ(mismatched_words(file, header_size, f.fingerprints()), 0U);
    }

    static void expect_mutators_refuse(const filter& mapped, const sample<filter>&) {
        // A binary fuse filter has no mutator; a copy of a mapped one stays a view.
        const filter copy = mapped;
        EXPECT_TRUE(copy.read_only());
        EXPECT_TRUE(copy == mapped);
    }

    static std::vector<std::uint64_t> modify(filter&, const sample<filter>&) { return {}; }
};

template <>
struct kind_traits<binary_fuse8_filter> : fuse_traits<binary_fuse8_filter> {};
template <>
struct kind_traits<binary_fuse16_filter> : fuse_traits<binary_fuse16_filter> {};
template <>
struct kind_traits<binary_fuse8_4wise_filter> : fuse_traits<binary_fuse8_4wise_filter> {};
template <>
struct kind_traits<binary_fuse16_4wise_filter> : fuse_traits<binary_fuse16_4wise_filter> {};

/// The samples of a kind, made once (sizing is slow in Debug builds).
template <class Filter>
const std::vector<sample<Filter>>& samples() {
    static const std::vector<sample<Filter>> made = kind_traits<Filter>::make();
    return made;
}

template <class Filter>
std::uint64_t found(const Filter& filter, const keys_type& keys) {
    return filter.count_contained(keys.begin(), keys.end());
}

/// Keys on which single-key contains() says no.
template <class Filter>
std::uint64_t missing(const Filter& filter, const keys_type& keys) {
    return static_cast<std::uint64_t>(std::ranges::count_if(keys, [&](std::uint64_t k) { return !filter.contains(k); }));
}

/// Keys on which the two filters answer differently (contains, or count where there is one).
template <class Filter>
std::uint64_t disagreements(const Filter& a, const Filter& b, const keys_type& keys) {
    std::uint64_t differ = 0;
    for (const std::uint64_t key : keys)
        differ += kind_traits<Filter>::answer(a, key) != kind_traits<Filter>::answer(b, key) ? 1 : 0;
    return differ;
}

/// Everything observable of `actual` matches `expected`, and it answers alike on every key.
template <class Filter>
void expect_same_filter(const Filter& actual, const sample<Filter>& expected) {
    kind_traits<Filter>::expect_same(actual, expected.filter);
    EXPECT_EQ(actual.hash_function().algorithm(), expected.filter.hash_function().algorithm());
    EXPECT_EQ(actual.hash_function().seed(), expected.filter.hash_function().seed());
    EXPECT_EQ(actual.size_in_bytes(), expected.filter.size_in_bytes());
    EXPECT_EQ(found(actual, expected.keys), expected.keys.size()) << "false negatives (bulk)";
    EXPECT_EQ(missing(actual, expected.keys), 0U) << "false negatives";
    EXPECT_EQ(disagreements(actual, expected.filter, expected.keys), 0U);
    EXPECT_EQ(disagreements(actual, expected.filter, absent_keys()), 0U);
    EXPECT_EQ(found(actual, absent_keys()), found(expected.filter, absent_keys()));
}

// --- Round trips, for every kind ---------------------------------------------------------

template <class Filter>
class FileKinds : public ::testing::Test {
protected:
    using traits = kind_traits<Filter>;
    temp_dir dir_;
};

using filter_kinds = ::testing::Types<counting_bloom_filter, cuckoo_filter, scalable_bloom_filter, binary_fuse8_filter,
                                      binary_fuse16_filter, binary_fuse8_4wise_filter, binary_fuse16_4wise_filter>;

struct kind_name {
    template <class Filter>
    static std::string GetName(int) {
        return kind_traits<Filter>::type_name();
    }
};

TYPED_TEST_SUITE(FileKinds, filter_kinds, kind_name);

TYPED_TEST(FileKinds, SamplesAreWhatTheTestsNeed) {
    const auto& all = samples<TypeParam>();
    ASSERT_GE(all.size(), 2U);
    for (const auto& s : all) {
        SCOPED_TRACE(s.name);
        EXPECT_EQ(found(s.filter, s.keys), s.keys.size());
        EXPECT_FALSE(s.filter.read_only());
    }
    if constexpr (std::is_same_v<TypeParam, cuckoo_filter>) {
        EXPECT_FALSE(std::has_single_bit(all[0].filter.bucket_count())) << all[0].filter.bucket_count();
        EXPECT_EQ(all[0].filter.fingerprint_bits(), 12U);
        EXPECT_TRUE(all[1].filter.stash().occupied()) << "the full table's stash is empty";
        EXPECT_GT(all[1].filter.load_factor(), 0.9);
        EXPECT_EQ(all[1].filter.size(), all[1].keys.size());
        EXPECT_FALSE(std::has_single_bit(all[1].filter.bucket_count()));
    } else if constexpr (std::is_same_v<TypeParam, scalable_bloom_filter>) {
        for (const auto& s : all) EXPECT_GE(s.filter.stage_count(), 4U) << s.name;
    } else if constexpr (std::is_same_v<TypeParam, counting_bloom_filter>) {
        EXPECT_EQ(all[0].filter.count(std::uint64_t{77777}), 15U) << "saturated";
        EXPECT_GE(all[0].filter.count(std::uint64_t{7}), 2U);
        EXPECT_EQ(all[1].filter.counter_count(), 1024U);
    } else {
        EXPECT_TRUE(all.back().filter.empty());
        EXPECT_EQ(all.back().filter.array_length(), 0U);
        EXPECT_EQ(all.front().filter.size(), 2000U);
    }
}

TYPED_TEST(FileKinds, LoadRoundTripPreservesEverything) {
    const auto& all = samples<TypeParam>();
    for (std::size_t i = 0; i < all.size(); ++i) {
        SCOPED_TRACE(all[i].name);
        const auto path = this->dir_ / (all[i].name + ".bkf");
        bloomkit::save(all[i].filter, path);
        const auto loaded = bloomkit::load<TypeParam>(path);
        EXPECT_FALSE(loaded.read_only());
        expect_same_filter(loaded, all[i]);
        for (std::size_t j = 0; j < all.size(); ++j)  // operator== can tell filters apart
            EXPECT_EQ(loaded == all[j].filter, i == j) << "against " << all[j].name;
    }
}

TYPED_TEST(FileKinds, MapRoundTripIsAReadOnlyViewOfTheSameFilter) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->dir_ / (s.name + ".bkf");
        bloomkit::save(s.filter, path);
        const auto mapped = bloomkit::map<TypeParam>(path);
        EXPECT_TRUE(mapped->read_only());
        expect_same_filter(mapped.filter(), s);
        EXPECT_NO_THROW(mapped.verify());
        EXPECT_EQ(mapped.header().kind, TestFixture::traits::kind);
        EXPECT_EQ(mapped.header().payload_checksum, bloomkit::read_header(path).payload_checksum);
        TestFixture::traits::expect_mutators_refuse(mapped.filter(), s);
        expect_same_filter(mapped.filter(), s);  // unchanged by the attempts
    }
}

TYPED_TEST(FileKinds, MappedFilterOutlivesItsHandle) {
    const auto& s = samples<TypeParam>().front();
    const auto path = this->dir_ / "filter.bkf";
    bloomkit::save(s.filter, path);
    const TypeParam view = bloomkit::map<TypeParam>(path).filter();  // the handle is gone; the view keeps the mapping
    bloomkit::save(samples<TypeParam>().back().filter, path);          // replaced: the mapping still sees the old file
    EXPECT_TRUE(view.read_only());
    expect_same_filter(view, s);
}

TYPED_TEST(FileKinds, LoadAnyAndMapAnyPickTheFilesKind) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->dir_ / (s.name + ".bkf");
        bloomkit::save(s.filter, path);

        const bloomkit::any_filter loaded = bloomkit::load_any(path);
        ASSERT_TRUE(std::holds_alternative<TypeParam>(loaded)) << "alternative " << loaded.index();
        expect_same_filter(std::get<TypeParam>(loaded), s);
        EXPECT_FALSE(std::get<TypeParam>(loaded).read_only());

        const auto mapped = bloomkit::map_any(path);
        ASSERT_TRUE(std::holds_alternative<TypeParam>(*mapped)) << "alternative " << mapped->index();
        expect_same_filter(std::get<TypeParam>(*mapped), s);
        EXPECT_TRUE(std::get<TypeParam>(*mapped).read_only());
        EXPECT_NO_THROW(mapped.verify());
        EXPECT_EQ(mapped.header().kind, TestFixture::traits::kind);

        // save(any_filter) writes what save(TypeParam) does.
        const auto again = this->dir_ / (s.name + ".again.bkf");
        bloomkit::save(loaded, again);
        EXPECT_EQ(read_bytes(again), read_bytes(path));
    }
}

TYPED_TEST(FileKinds, HeaderDescribesTheFile) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->dir_ / (s.name + ".bkf");
        bloomkit::save(s.filter, path);
        const bytes file = read_bytes(path);
        ASSERT_GE(file.size(), header_size);

        const bloomkit::file_header h = bloomkit::read_header(path);
        EXPECT_EQ(h.version, 1U);
        EXPECT_EQ(h.kind, TestFixture::traits::kind);
        EXPECT_EQ(h.hash, s.filter.hash_function().algorithm());
        EXPECT_EQ(h.seed, s.filter.hash_function().seed());
        EXPECT_EQ(h.payload_offset, header_size);
        EXPECT_EQ(h.payload_size, file.size() - header_size);
        EXPECT_EQ(h.payload_checksum, XXH3_64bits(file.data() + header_size, file.size() - header_size));

        EXPECT_TRUE(std::equal(bloomkit::file_magic.begin(), bloomkit::file_magic.end(), file.begin()));
        EXPECT_EQ(get_le(file, field::version, 2), 1U);
        EXPECT_EQ(get_le(file, field::header_size, 2), header_size);
        EXPECT_EQ(get_le(file, field::kind, 2), static_cast<std::uint64_t>(TestFixture::traits::kind));
        EXPECT_EQ(file[field::hash], static_cast<unsigned>(s.filter.hash_function().algorithm()));
        EXPECT_EQ(get_le(file, field::seed, 8), s.filter.hash_function().seed());
        EXPECT_EQ(get_le(file, field::expected_keys, 8), h.expected_keys);
        EXPECT_EQ(get_double(file, field::target_fpp), h.target_fpp);
        EXPECT_EQ(get_le(file, field::inserted_count, 8), h.inserted_count);
        EXPECT_EQ(get_le(file, field::payload_offset, 8), header_size);
        EXPECT_EQ(get_le(file, field::payload_size, 8), file.size() - header_size);
        EXPECT_EQ(get_le(file, field::payload_checksum, 8), h.payload_checksum);
        EXPECT_EQ(get_le(file, field::header_checksum, 8), XXH3_64bits(file.data(), field::header_checksum));
        EXPECT_EQ(h.payload_offset % 64, 0U) << "the payload is 64-byte aligned";

        TestFixture::traits::expect_header(h, file, s.filter);
    }
}

TYPED_TEST(FileKinds, SavingIsDeterministic) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto first = this->dir_ / "first.bkf";
        const auto second = this->dir_ / "second.bkf";
        const auto from_load = this->dir_ / "from_load.bkf";
        const auto from_map = this->dir_ / "from_map.bkf";
        bloomkit::save(s.filter, first);
        bloomkit::save(s.filter, second);
        bloomkit::save(bloomkit::load<TypeParam>(first), from_load);
        bloomkit::save(bloomkit::map<TypeParam>(first).filter(), from_map);

        const bytes expected = read_bytes(first);
        ASSERT_GE(expected.size(), header_size);
        EXPECT_EQ(read_bytes(second), expected);
        EXPECT_EQ(read_bytes(from_load), expected);
        EXPECT_EQ(read_bytes(from_map), expected);
    }
}

TYPED_TEST(FileKinds, LoadedFilterKeepsWorkingAndSavesAgain) {
    using kind = kind_traits<TypeParam>;
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->dir_ / "filter.bkf";
        bloomkit::save(s.filter, path);
        auto loaded = bloomkit::load<TypeParam>(path);
        auto original = s.filter;

        // The same operations on the loaded filter and on the original give the same answers
        // and the same filter.
        const auto loaded_log = kind::modify(loaded, s);
        const auto original_log = kind::modify(original, s);
        EXPECT_EQ(loaded_log, original_log);
        // Still held: every key modify() did not remove.
        const sample<TypeParam> modified{s.name, original,
                                         keys_type(s.keys.begin() + static_cast<std::ptrdiff_t>(std::min(kind::removed_by_modify, s.keys.size())),
                                                   s.keys.end())};
        expect_same_filter(loaded, modified);
        EXPECT_EQ(disagreements(loaded, original, s.keys), 0U);
        EXPECT_EQ(disagreements(loaded, original, fresh_keys(200)), 0U);
        if constexpr (kind::is_mutable) {
            EXPECT_FALSE(loaded == s.filter) << "modify() changed nothing";
        }

        const auto again = this->dir_ / "again.bkf";
        bloomkit::save(loaded, again);
        expect_same_filter(bloomkit::load<TypeParam>(again), modified);
        const auto mapped = bloomkit::map<TypeParam>(again);
        expect_same_filter(mapped.filter(), modified);
        EXPECT_NO_THROW(mapped.verify());
    }
}

TYPED_TEST(FileKinds, FlippedPayloadByteFailsLoadAndVerify) {
    for (const auto& s : samples<TypeParam>()) {
        if (s.filter.size_in_bytes() == 0) continue;  // the empty fuse filter has no payload
        SCOPED_TRACE(s.name);
        const auto path = this->dir_ / "filter.bkf";
        bloomkit::save(s.filter, path);
        bytes file = read_bytes(path);
        file.at(file.size() - (file.size() - header_size) / 2 - 1) ^= 0x10;  // in the middle of the payload
        write_bytes(path, file);

        expect_format_error("load", [&] { (void)bloomkit::load<TypeParam>(path); }, path, format_errc::payload_checksum,
                            "payload checksum");
        expect_format_error("load_any", [&] { (void)bloomkit::load_any(path); }, path, format_errc::payload_checksum,
                            "payload checksum");
        // Mapping checks only the header; the payload is checked on demand.
        const auto mapped = bloomkit::map<TypeParam>(path);
        expect_format_error("verify", [&] { mapped.verify(); }, path, format_errc::payload_checksum, "payload checksum");
        const auto mapped_any = bloomkit::map_any(path);
        expect_format_error("verify any", [&] { mapped_any.verify(); }, path, format_errc::payload_checksum,
                            "payload checksum");
    }
}

TYPED_TEST(FileKinds, TruncatedFileIsRejected) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->dir_ / "filter.bkf";
        bloomkit::save(s.filter, path);
        const bytes good = read_bytes(path);
        const std::size_t payload = good.size() - header_size;
        std::vector<std::size_t> lengths = {1, 7, 9, 10, 64, 119, 127};
        if (payload > 0) {
            for (const std::size_t length : {header_size, header_size + 1, header_size + payload / 2, good.size() - 1})
                lengths.push_back(length);
        }
        const auto cut = this->dir_ / "cut.bkf";
        for (const std::size_t length : lengths) {
            SCOPED_TRACE("length " + std::to_string(length));
            write_bytes(cut, bytes(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(length)));
            expect_header_rejected<TypeParam>(cut, format_errc::truncated, "truncated");
        }
    }
}

TYPED_TEST(FileKinds, TrailingBytesAreRejected) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->dir_ / "filter.bkf";
        bloomkit::save(s.filter, path);
        bytes file = read_bytes(path);
        file.insert(file.end(), 64, 0);
        write_bytes(path, file);
        expect_header_rejected<TypeParam>(path, format_errc::invalid_field, "64 unexpected bytes after the payload");
    }
}

// --- Files of the wrong kind -------------------------------------------------------------

template <class Filter>
std::string display_name() {
    if constexpr (std::is_same_v<Filter, block_bloom_filter>) return "block Bloom filter";
    else return kind_traits<Filter>::display_name();
}

/// A filter of each kind for the matrix (a block Bloom filter too).
template <class Filter>
const Filter& representative() {
    if constexpr (std::is_same_v<Filter, block_bloom_filter>) {
        static const block_bloom_filter filter = [] {
            block_bloom_filter f(1000, 0.01);
            for (std::uint64_t k = 0; k < 1000; ++k) f.insert(k);
            return f;
        }();
        return filter;
    } else {
        return samples<Filter>().front().filter;
    }
}

template <class... Filters>
struct filter_list {};

using every_kind = filter_list<block_bloom_filter, counting_bloom_filter, cuckoo_filter, scalable_bloom_filter,
                               binary_fuse8_filter, binary_fuse16_filter, binary_fuse8_4wise_filter, binary_fuse16_4wise_filter>;

/// load<Asked> and map<Asked> of a file holding a Stored: wrong_kind unless they are the same.
template <class Stored, class Asked>
void expect_kind_checked(const fs::path& path) {
    SCOPED_TRACE("a " + display_name<Stored>() + " file opened as a " + display_name<Asked>());
    if constexpr (std::is_same_v<Stored, Asked>) {
        EXPECT_NO_THROW((void)bloomkit::load<Asked>(path));
        EXPECT_NO_THROW((void)bloomkit::map<Asked>(path));
    } else {
        const std::string part = "not a " + display_name<Asked>();
        expect_format_error("load", [&] { (void)bloomkit::load<Asked>(path); }, path, format_errc::wrong_kind, part);
        expect_format_error("map", [&] { (void)bloomkit::map<Asked>(path); }, path, format_errc::wrong_kind, part);
    }
}

template <class Stored, class... Asked>
void expect_kind_checked_by_all(const fs::path& path, filter_list<Asked...>) {
    (expect_kind_checked<Stored, Asked>(path), ...);
}

template <class... Stored>
void expect_wrong_kind_matrix(const temp_dir& dir, filter_list<Stored...>) {
    auto one = [&]<class S>(std::type_identity<S>) {
        const auto path = dir / "stored.bkf";
        bloomkit::save(representative<S>(), path);
        expect_kind_checked_by_all<S>(path, every_kind{});
    };
    (one(std::type_identity<Stored>{}), ...);
}

class WrongKind : public ::testing::Test {
protected:
    temp_dir dir_;
};

TEST_F(WrongKind, EveryKindRefusesEveryOther) { expect_wrong_kind_matrix(dir_, every_kind{}); }

TEST_F(WrongKind, FuseVariantsAreToldApart) {
    // The same kind code: the arity and the fingerprint width tell the variants apart.
    const auto path = dir_ / "fuse8.bkf";
    bloomkit::save(samples<binary_fuse8_filter>().front().filter, path);
    expect_format_error("load", [&] { (void)bloomkit::load<binary_fuse16_filter>(path); }, path, format_errc::wrong_kind,
                        "not a 3-wise 16-bit binary fuse filter");
    expect_format_error("map", [&] { (void)bloomkit::map<binary_fuse16_filter>(path); }, path, format_errc::wrong_kind,
                        "not a 3-wise 16-bit binary fuse filter");
    // Even the empty filter, which has no fingerprints at all, knows its variant.
    const auto empty = dir_ / "empty_fuse8.bkf";
    bloomkit::save(samples<binary_fuse8_filter>().back().filter, empty);
    expect_kind_checked_by_all<binary_fuse8_filter>(empty, every_kind{});
    const auto empty16 = dir_ / "empty_fuse16_4wise.bkf";
    bloomkit::save(samples<binary_fuse16_4wise_filter>().back().filter, empty16);
    expect_kind_checked_by_all<binary_fuse16_4wise_filter>(empty16, every_kind{});
}

TEST_F(WrongKind, TheMessageSaysWhatTheFileHolds) {
    const auto path = dir_ / "cuckoo.bkf";
    bloomkit::save(representative<cuckoo_filter>(), path);
    expect_format_error("load", [&] { (void)bloomkit::load<counting_bloom_filter>(path); }, path, format_errc::wrong_kind,
                        "holds a cuckoo filter");
}

// --- Forged kind-specific fields ---------------------------------------------------------

/// When a forged file is caught: by the header checks (every reader, read_header included), or
/// only when the filter is assembled from the payload (read_header accepts it).
enum class caught { by_header, by_assembly };

struct forgery {
    std::string name;
    std::function<bytes(const temp_dir&)> valid;  // the bytes of the valid file to forge
    std::function<void(bytes&)> change;           // the forgery; the checksums are recomputed after it
    format_errc reason;
    std::string message;
    caught when;
    std::function<void(const fs::path&, const forgery&)> expect;
};

std::ostream& operator<<(std::ostream& os, const forgery& f) { return os << f.name; }

/// A forgery of the `index`th sample of Filter's kind. `payload`: the change edits the payload,
/// whose checksum is recomputed too.
template <class Filter>
forgery forge(std::string name, std::function<void(bytes&)> change, format_errc reason, std::string message,
              caught when = caught::by_header, std::size_t index = 0) {
    forgery f;
    f.name = kind_traits<Filter>::type_name() + "_" + std::move(name);
    f.valid = [index](const temp_dir& dir) {
        const auto path = dir / "valid.bkf";
        bloomkit::save(samples<Filter>().at(index).filter, path);
        return read_bytes(path);
    };
    f.change = std::move(change);
    f.reason = reason;
    f.message = std::move(message);
    f.when = when;
    f.expect = [](const fs::path& path, const forgery& self) {
        if (self.when == caught::by_header) {
            expect_header_rejected<Filter>(path, self.reason, self.message);
        } else {
            // Whether these messages name the file is tested on its own (AssemblyErrorsNameTheFile).
            expect_assembly_rejected<Filter>(path, self.reason, self.message, false);
        }
    };
    return f;
}

auto set(std::size_t offset, std::uint64_t value, std::size_t width) {
    return [=](bytes& f) { put_le(f, offset, value, width); };
}
auto set_double(std::size_t offset, double value) {
    return [=](bytes& f) { put_double(f, offset, value); };
}
auto add(std::size_t offset, std::int64_t delta, std::size_t width = 8) {
    return [=](bytes& f) { put_le(f, offset, get_le(f, offset, width) + static_cast<std::uint64_t>(delta), width); };
}
/// Sets a field of scalable stage `stage`'s table entry (in the payload).
auto set_stage(std::size_t stage, std::size_t entry_field, std::uint64_t value) {
    return [=](bytes& f) {
        put_le(f, header_size + stage * stage_entry::size + entry_field, value, 8);
        reseal_payload(f);
    };
}
auto add_stage(std::size_t stage, std::size_t entry_field, std::int64_t delta) {
    return [=](bytes& f) {
        const std::size_t at = header_size + stage * stage_entry::size + entry_field;
        put_le(f, at, get_le(f, at, 8) + static_cast<std::uint64_t>(delta), 8);
        reseal_payload(f);
    };
}

constexpr auto invalid = format_errc::invalid_field;
const double not_a_number = std::numeric_limits<double>::quiet_NaN();

std::vector<forgery> counting_forgeries() {
    using F = counting_bloom_filter;
    namespace c = counting_field;
    return {
        forge<F>("counters_not_whole_blocks", add(c::counters, 64), invalid, "not a whole number of 128-counter blocks"),
        forge<F>("counters_plus_one", add(c::counters, 1), invalid, "not a whole number of 128-counter blocks"),
        forge<F>("counters_0", set(c::counters, 0, 8), invalid, "0 counters is not a whole number"),
        forge<F>("hashes_0", set(c::hashes, 0, 4), invalid, "between 1 and 64, got 0"),
        forge<F>("hashes_65", set(c::hashes, 65, 4), invalid, "between 1 and 64, got 65"),
        forge<F>("counter_bits_8", set(c::counter_bits, 8, 4), invalid, "4-bit counters"),
        forge<F>("counter_bits_0", set(c::counter_bits, 0, 4), invalid, "4-bit counters"),
        forge<F>("counters_per_block_64", set(c::counters_per_block, 64, 4), invalid, "blocks of 128 4-bit counters"),
        forge<F>("layout_2", set(c::layout, 2, 1), invalid, "unknown counting Bloom filter layout"),
        forge<F>("nonzero_beyond_counters", [](bytes& f) { put_le(f, c::nonzero, get_le(f, c::counters, 8) + 1, 8); },
                 invalid, "nonzero counters out of only"),
        forge<F>("reserved_byte_100", set(100, 1, 1), invalid, "reserved byte 100"),
        forge<F>("reserved_byte_119", set(119, 0x80, 1), invalid, "reserved byte 119"),
        forge<F>("payload_size_too_big", add(field::payload_size, 8), invalid, "payload size"),
        forge<F>("payload_size_too_small", add(field::payload_size, -8), invalid, "payload size"),
        forge<F>("counters_doubled_payload_not", [](bytes& f) { put_le(f, c::counters, 2 * get_le(f, c::counters, 8), 8); },
                 invalid, "payload size"),
        // A consistent header announcing 2^62 bytes of counters the file does not have: caught
        // from the file's size, before anything is allocated.
        forge<F>("huge_filter_short_file",
                 [](bytes& f) {
                     put_le(f, c::counters, std::uint64_t{1} << 63, 8);
                     put_le(f, field::payload_size, std::uint64_t{1} << 62, 8);
                 },
                 format_errc::truncated, "truncated"),
    };
}

std::vector<forgery> cuckoo_forgeries() {
    using F = cuckoo_filter;
    namespace c = cuckoo_field;
    constexpr std::size_t full = 1;  // the sample whose stash is occupied
    return {
        forge<F>("fingerprint_bits_10", set(c::fingerprint_bits, 10, 4), invalid, "8, 12 or 16 bits, not 10"),
        forge<F>("fingerprint_bits_0", set(c::fingerprint_bits, 0, 4), invalid, "8, 12 or 16 bits, not 0"),
        forge<F>("fingerprint_bits_64", set(c::fingerprint_bits, 64, 4), invalid, "8, 12 or 16 bits, not 64"),
        forge<F>("buckets_0", set(c::buckets, 0, 8), invalid, "1 to 2^58 buckets, not 0"),
        forge<F>("buckets_beyond_2_58", set(c::buckets, (std::uint64_t{1} << 58) + 1, 8), invalid,
                 "1 to 2^58 buckets, not 288230376151711745"),
        forge<F>("bucket_size_8", set(c::bucket_size, 8, 4), invalid, "buckets of 4 fingerprints"),
        forge<F>("layout_1", set(c::layout, 1, 1), invalid, "unknown cuckoo filter layout"),
        forge<F>("stash_bucket_is_bucket_count", [](bytes& f) { put_le(f, c::stash_bucket, get_le(f, c::buckets, 8), 8); },
                 invalid, "does not fit the table", caught::by_header, full),
        forge<F>("stash_bucket_max", set(c::stash_bucket, std::numeric_limits<std::uint64_t>::max(), 8), invalid,
                 "does not fit the table", caught::by_header, full),
        forge<F>("stash_fingerprint_9_bits", set(c::stash_fingerprint, 256, 4), invalid, "(fingerprint 256",
                 caught::by_header, full),  // 8-bit fingerprints
        forge<F>("stash_fingerprint_13_bits", set(c::stash_fingerprint, 4096, 4), invalid, "(fingerprint 4096"),  // 12-bit
        forge<F>("stored_beyond_slots_and_stash",
                 [](bytes& f) { put_le(f, c::stored, 4 * get_le(f, c::buckets, 8) + 2, 8); }, invalid,
                 "fingerprints stored in only"),
        forge<F>("stored_max", set(c::stored, std::numeric_limits<std::uint64_t>::max(), 8), invalid,
                 "fingerprints stored in only"),
        forge<F>("reserved_byte_100", set(100, 1, 1), invalid, "reserved byte 100"),
        forge<F>("reserved_byte_119", set(119, 1, 1), invalid, "reserved byte 119"),
        forge<F>("payload_size_too_big", add(field::payload_size, 8), invalid, "payload size"),
        forge<F>("payload_size_too_small", add(field::payload_size, -8), invalid, "payload size"),
        forge<F>("buckets_changed_payload_not", add(c::buckets, 100), invalid, "payload size"),
        forge<F>("fingerprint_bits_changed_payload_not", set(c::fingerprint_bits, 16, 4), invalid, "payload size"),
        forge<F>("huge_table_short_file",
                 [](bytes& f) {
                     put_le(f, c::buckets, std::uint64_t{1} << 58, 8);
                     put_le(f, c::fingerprint_bits, 16, 4);
                     put_le(f, field::payload_size, bloomkit::cuckoo_word_count({std::uint64_t{1} << 58, 16}) * 8, 8);
                 },
                 format_errc::truncated, "truncated"),
    };
}

std::vector<forgery> scalable_forgeries() {
    using F = scalable_bloom_filter;
    namespace s = scalable_field;
    namespace e = stage_entry;
    const auto impossible = "impossible scalable Bloom filter parameters";
    const auto assembly = caught::by_assembly;
    return {
        forge<F>("growth_0_5", set_double(s::growth, 0.5), invalid, impossible),
        forge<F>("growth_NaN", set_double(s::growth, not_a_number), invalid, impossible),
        forge<F>("growth_16_5", set_double(s::growth, 16.5), invalid, impossible),
        forge<F>("growth_infinite", set_double(s::growth, std::numeric_limits<double>::infinity()), invalid, impossible),
        forge<F>("tightening_1", set_double(s::tightening, 1.0), invalid, impossible),
        forge<F>("tightening_0", set_double(s::tightening, 0.0), invalid, impossible),
        forge<F>("tightening_NaN", set_double(s::tightening, not_a_number), invalid, impossible),
        forge<F>("initial_capacity_0", set(s::initial_capacity, 0, 8), invalid, impossible),
        forge<F>("target_fpp_0", set(field::target_fpp, 0, 8), invalid, impossible),
        forge<F>("stage_count_0", set(s::stages, 0, 4), invalid, "0 stages"),
        forge<F>("stage_count_4097", set(s::stages, 4097, 4), invalid, "4097 stages"),
        forge<F>("stage_layout_classic", set(s::stage_layout, 1, 1), invalid, "unknown scalable Bloom filter stage layout"),
        forge<F>("reserved_36", set(s::reserved32, 1, 4), invalid, "reserved scalable Bloom filter fields"),
        forge<F>("reserved_64", set(s::reserved64, 1, 8), invalid, "reserved scalable Bloom filter fields"),
        forge<F>("reserved_byte_112", set(112, 1, 1), invalid, "reserved byte 112"),
        // The payload size is not a function of the header's parameters: only the file's size
        // checks it there, and the stage table when the filter is assembled.
        forge<F>("payload_size_beyond_file", add(field::payload_size, 64), format_errc::truncated, "truncated"),
        forge<F>("payload_size_short_of_file", add(field::payload_size, -64), invalid, "64 unexpected bytes after the payload"),
        forge<F>("payload_longer_than_the_stages",
                 [](bytes& f) {
                     f.insert(f.end(), 64, 0);
                     put_le(f, field::payload_size, f.size() - header_size, 8);
                     reseal_payload(f);
                 },
                 invalid, "the payload does not end with the last stage", assembly),
        forge<F>("stage_count_one_more", add(s::stages, 1, 4), invalid, "scalable Bloom filter", assembly),
        forge<F>("stage_count_one_fewer", add(s::stages, -1, 4), invalid, "stage 0 lies outside the payload or out of order",
                 assembly),
        forge<F>("last_stage_offset_beyond_payload",
                 [](bytes& f) {
                     const std::size_t last = get_le(f, s::stages, 4) - 1;
                     set_stage(last, e::offset, f.size() - header_size)(f);
                 },
                 invalid, "lies outside the payload", assembly),
        forge<F>("stage_offset_2_63", set_stage(2, e::offset, std::uint64_t{1} << 63), invalid, "stage 2 lies outside the payload",
                 assembly),
        forge<F>("stage_offset_max", set_stage(1, e::offset, std::numeric_limits<std::uint64_t>::max() - 63), invalid,
                 "stage 1 lies outside the payload", assembly),
        forge<F>("stage_offset_not_aligned", add_stage(1, e::offset, 8), invalid, "stage 1 lies outside the payload or out of order",
                 assembly),
        forge<F>("stage_offset_overlapping", add_stage(2, e::offset, -64), invalid,
                 "stage 2 lies outside the payload or out of order", assembly),
        forge<F>("stage_bits_not_whole_blocks", add_stage(0, e::bits, 64), invalid, "stage 0", assembly),
        forge<F>("stage_bits_0", set_stage(1, e::bits, 0), invalid, "stage 1", assembly),
        forge<F>("stage_bits_huge", set_stage(3, e::bits, std::uint64_t{1} << 62), invalid, "stage 3", assembly),
        forge<F>("stage_hashes_0", set_stage(0, e::hashes, 0), invalid, "stage 0", assembly),
        forge<F>("stage_capacity_not_the_plan", add_stage(1, e::expected_keys, 1), invalid, "does not follow from its parameters",
                 assembly),
        forge<F>("stage_fpp_not_the_plan", set_stage(2, e::target_fpp, std::bit_cast<std::uint64_t>(0.5)), invalid,
                 "does not follow from its parameters", assembly),
    };
}

std::vector<forgery> fuse_forgeries() {
    using F8 = binary_fuse8_filter;
    using F16 = binary_fuse16_4wise_filter;
    namespace u = fuse_field;
    constexpr std::size_t empty = 2;  // the sample built from no keys
    const auto inconsistent = "inconsistent binary fuse geometry";
    return {
        forge<F8>("arity_5", set(u::arity, 5, 1), invalid, "unknown binary fuse filter: 5-wise with 8-bit fingerprints"),
        forge<F8>("arity_2", set(u::arity, 2, 1), invalid, "unknown binary fuse filter: 2-wise"),
        forge<F8>("arity_0_empty", set(u::arity, 0, 1), invalid, "unknown binary fuse filter: 0-wise", caught::by_header, empty),
        forge<F8>("fingerprint_bits_12", set(u::fingerprint_bits, 12, 4), invalid, "3-wise with 12-bit fingerprints"),
        forge<F8>("fingerprint_bits_32", set(u::fingerprint_bits, 32, 4), invalid, "3-wise with 32-bit fingerprints"),
        forge<F16>("fingerprint_bits_12", set(u::fingerprint_bits, 12, 4), invalid, "4-wise with 12-bit fingerprints"),
        forge<F8>("array_length_one_segment_more",
                  [](bytes& f) { put_le(f, u::array_length, get_le(f, u::array_length, 8) + get_le(f, u::segment_length, 4), 8); },
                  invalid, inconsistent),
        forge<F8>("array_length_plus_one", add(u::array_length, 1), invalid, inconsistent),
        forge<F8>("segment_count_plus_one", add(u::segment_count, 1), invalid, inconsistent),
        forge<F8>("segment_length_doubled", [](bytes& f) { put_le(f, u::segment_length, 2 * get_le(f, u::segment_length, 4), 4); },
                  invalid, inconsistent),
        forge<F8>("segment_length_2_19",
                  [](bytes& f) {
                      const std::uint64_t length = std::uint64_t{1} << 19;
                      put_le(f, u::segment_length, length, 4);
                      put_le(f, u::array_length, (get_le(f, u::segment_count, 8) + 2) * length, 8);
                  },
                  invalid, inconsistent),
        forge<F8>("segment_count_2_41",
                  [](bytes& f) {
                      const std::uint64_t count = std::uint64_t{1} << 41;
                      put_le(f, u::segment_count, count, 8);
                      put_le(f, u::array_length, (count + 2) * get_le(f, u::segment_length, 4), 8);
                  },
                  invalid, inconsistent),
        forge<F8>("relabelled_4wise", set(u::arity, 4, 1), invalid, inconsistent),
        forge<F8>("empty_with_segment_length", set(u::segment_length, 256, 4), invalid, inconsistent, caught::by_header, empty),
        forge<F16>("relabelled_8_bit", set(u::fingerprint_bits, 8, 4), invalid, "payload size"),
        forge<F8>("reserved_byte_104", set(104, 1, 1), invalid, "reserved byte 104"),
        forge<F16>("reserved_byte_119", set(119, 1, 1), invalid, "reserved byte 119"),
        forge<F8>("payload_size_too_big", add(field::payload_size, 1), invalid, "payload size"),
        forge<F16>("payload_size_too_small", add(field::payload_size, -2), invalid, "payload size"),
        forge<F8>("empty_with_payload_size", set(field::payload_size, 64, 8), invalid, "payload size", caught::by_header, empty),
        // Consistent geometry, but not a filter the fingerprints can describe: the header
        // checks the fuse parameters as the filter does, so read_header rejects these too.
        forge<F8>("keys_beyond_slots", [](bytes& f) { put_le(f, u::keys, get_le(f, u::array_length, 8) + 1, 8); }, invalid,
                  "keys cannot fit", caught::by_header),
        forge<F8>("no_keys_but_an_array", set(u::keys, 0, 8), invalid, "no keys but a non-empty array", caught::by_header),
        forge<F16>("keys_but_no_array", set(u::keys, 5, 8), invalid, "segment length 0", caught::by_header, empty),
        forge<F8>("empty_with_segment_count", set(u::segment_count, 1, 8), invalid, "no keys but a non-empty array",
                  caught::by_header, empty),
    };
}

std::vector<forgery> all_forgeries() {
    std::vector<forgery> all;
    for (auto* make : {&counting_forgeries, &cuckoo_forgeries, &scalable_forgeries, &fuse_forgeries})
        for (auto& f : make()) all.push_back(std::move(f));
    return all;
}

class ForgedKindHeader : public ::testing::TestWithParam<forgery> {
protected:
    temp_dir dir_;
};

TEST_P(ForgedKindHeader, IsRejectedWithAHelpfulMessage) {
    const forgery& f = GetParam();
    const bytes good = f.valid(dir_);
    ASSERT_GE(good.size(), header_size);
    bytes file = good;
    f.change(file);
    reseal(file);
    ASSERT_NE(file, good) << "the forgery changed nothing";
    const auto path = dir_ / "forged.bkf";
    write_bytes(path, file);
    f.expect(path, f);
}

INSTANTIATE_TEST_SUITE_P(Fields, ForgedKindHeader, ::testing::ValuesIn(all_forgeries()), [](const auto& test) {
    std::string name = test.param.name;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
});

class ForgedFile : public ::testing::Test {
protected:
    template <class Filter>
    fs::path forged(std::size_t index, const std::function<void(bytes&)>& change) {
        const auto path = dir_ / "forged.bkf";
        bloomkit::save(samples<Filter>().at(index).filter, path);
        bytes file = read_bytes(path);
        change(file);
        reseal(file);
        write_bytes(path, file);
        return path;
    }
    temp_dir dir_;
};

TEST_F(ForgedFile, ForgeriesOnlyPassWithTheChecksumsRecomputed) {
    // Without resealing, the same edits are caught by the checksums: the forgeries above really
    // are past them.
    const auto path = dir_ / "filter.bkf";
    bloomkit::save(samples<cuckoo_filter>().front().filter, path);
    bytes file = read_bytes(path);
    put_le(file, cuckoo_field::fingerprint_bits, 10, 4);
    write_bytes(path, file);
    expect_header_rejected<cuckoo_filter>(path, format_errc::header_checksum, "header checksum");

    bloomkit::save(samples<scalable_bloom_filter>().front().filter, path);
    file = read_bytes(path);
    put_le(file, header_size + stage_entry::offset, 1 << 20, 8);
    reseal(file);  // the header is intact; the payload is not
    write_bytes(path, file);
    expect_format_error("load", [&] { (void)bloomkit::load<scalable_bloom_filter>(path); }, path,
                        format_errc::payload_checksum, "payload checksum");
}

TEST_F(ForgedFile, AssemblyErrorsNameTheFile) {
    // docs/FORMAT.md: every failure throws a file_format_error "with a reason() and a message
    // naming the file and the value". These are caught only when the filter is assembled from
    // the payload (file_codecs.hpp: scalable_file_access::assemble and the binary fuse codec's
    // assemble), after read_header has accepted the file.
    // KNOWN FAILURE (library bug, reported to the lead): those two throw file_format_error
    // without the file's name ("scalable Bloom filter: stage 1 lies outside ...",
    // "inconsistent binary fuse filter: ..."), unlike every other rejection.
    const auto stage_path = forged<scalable_bloom_filter>(0, set_stage(1, stage_entry::offset, std::uint64_t{1} << 40));
    expect_format_error("scalable load", [&] { (void)bloomkit::load<scalable_bloom_filter>(stage_path); }, stage_path,
                        invalid, "stage 1 lies outside the payload");
    expect_format_error("scalable map_any", [&] { (void)bloomkit::map_any(stage_path); }, stage_path, invalid,
                        "stage 1 lies outside the payload");

    const auto fuse_path = forged<binary_fuse8_filter>(0, set(fuse_field::keys, 0, 8));
    expect_format_error("fuse load", [&] { (void)bloomkit::load<binary_fuse8_filter>(fuse_path); }, fuse_path, invalid,
                        "no keys but a non-empty array");
    expect_format_error("fuse map", [&] { (void)bloomkit::map<binary_fuse8_filter>(fuse_path); }, fuse_path, invalid,
                        "no keys but a non-empty array");
}

TEST_F(ForgedFile, ScalableHeaderCountsMustMatchTheStages) {
    // A scalable file states its initial capacity twice ([24], and [40] as the expected keys)
    // and its inserted count both in the header ([56], what read_header and `bloomkit info`
    // report) and per stage (what the loaded filter reports). Loading must not trust them
    // without checking that they agree (docs/FORMAT.md: "Loading never trusts a length or a
    // parameter without checking it").
    // KNOWN FAILURE (library bug, reported to the lead): file_codecs.hpp's
    // read_scalable_parameters ignores [40], and scalable_file_access::assemble ignores [56]:
    // a header claiming 123456789 keys over stages holding 2000 loads without complaint, and
    // read_header then disagrees with the loaded filter.
    const auto& original = samples<scalable_bloom_filter>().front().filter;
    const auto capacity = forged<scalable_bloom_filter>(0, set(field::expected_keys, 7, 8));
    expect_format_error("capacity: read_header", [&] { (void)bloomkit::read_header(capacity); }, capacity, invalid, "");
    expect_format_error("capacity: load", [&] { (void)bloomkit::load<scalable_bloom_filter>(capacity); }, capacity, invalid, "");

    const auto count = forged<scalable_bloom_filter>(0, set(field::inserted_count, 123456789, 8));
    expect_format_error("count: load", [&] { (void)bloomkit::load<scalable_bloom_filter>(count); }, count, invalid, "");
    expect_format_error("count: map", [&] { (void)bloomkit::map<scalable_bloom_filter>(count); }, count, invalid, "");
    EXPECT_NE(bloomkit::read_header(count).inserted_count, original.inserted_count()) << "the forgery is in place";
}

TEST_F(ForgedFile, ForgedCuckooCountIsReadAsStored) {
    // The stored count is bounded by the slots (and the stash) but not recounted on opening:
    // a forged count within the bound is what size() reports, while count_fingerprints() reads
    // the table. (Documented: "equal to size() unless the words were damaged or a file lied".)
    const auto path = forged<cuckoo_filter>(0, add(cuckoo_field::stored, 3));
    const auto loaded = bloomkit::load<cuckoo_filter>(path);
    EXPECT_EQ(loaded.size(), samples<cuckoo_filter>().front().filter.size() + 3);
    EXPECT_EQ(loaded.count_fingerprints(), samples<cuckoo_filter>().front().filter.size());
}

}  // namespace
