// Tests of the bkf format (docs/FORMAT.md) for every filter type, through every way in and out:
// files (file.hpp: save, load, map, read_header, mapped_filter::verify), byte buffers
// (io/bkf.hpp: to_bytes, from_bytes, read_header, header_of) and streams (save and load on a
// std::iostream, seekable or a pipe), each also through bloomkit::any_filter.
//
// One typed suite, Bkf, runs over every alternative of any_filter. Each type has its samples and
// what is particular to it in kind_of<Filter> (the fields it keeps in the header, how its
// observers compare, what a read-only map refuses, how it is modified after a load); every check
// is written once, in the suite:
//   - round trips through files, maps, buffers and streams preserve every observable and every
//     answer; a loaded filter keeps working and saves again; maps are read-only views that
//     outlive their handle and their file; any_filter opens every kind;
//   - the bytes: the header field by field, the payload word by word, the documented example,
//     determinism, and that to_bytes, a seekable stream and a pipe all write exactly the file;
//     header_of is read_header without the checksum; filters concatenated in one stream read
//     back in order;
//   - damage: the same damaged bytes (every flipped header bit, flipped payload bytes, a damaged
//     chunk table, every truncation, trailing bytes, an empty input, a foreign signature, another
//     version) are rejected for the same reason by every reader — file, map, buffer, stream,
//     pipe, any_filter;
//   - version 2's chunk table (payloads of several chunks, other chunk sizes) and its flags (an
//     interrupted update in place); version 1 files, still read and answering as they did;
//   - forged headers (the checksums recomputed, as a forger would), one field at a time, in
//     version 2 and version 1 files, and files of the wrong kind (every type against every other);
//   - operating-system errors: missing files, directories, failed replacements, broken streams.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <istream>
#include <iterator>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "file_test_support.hpp"

namespace {

using namespace bloomkit_test;
using bloomkit::any_filter;
using bloomkit::file_header;
using bloomkit::format_errc;
using bloomkit::hash_algorithm;
using keys_type = std::vector<std::uint64_t>;

// The offsets the tests spell out (file_test_support.hpp) are the library's.
namespace hf = bloomkit::detail::header_field;
static_assert(field::version == hf::version && field::header_size == hf::header_size && field::kind == hf::kind &&
              field::variant == hf::variant && field::hash == hf::hash && field::seed == hf::seed &&
              field::parameter64 == hf::parameter64 && field::parameter32a == hf::parameter32a &&
              field::parameter32b == hf::parameter32b && field::expected_keys == hf::expected_keys &&
              field::target_fpr == hf::target_fpr && field::inserted_count == hf::inserted_count &&
              field::parameter_aux == hf::parameter_aux && field::payload_offset == hf::payload_offset &&
              field::payload_size == hf::payload_size && field::payload_checksum == hf::payload_checksum &&
              field::extra == hf::extra && field::flags == hf::flags && field::chunk_shift == hf::chunk_shift &&
              field::header_checksum == hf::header_checksum);
static_assert(bloom_field::layout == hf::layout && bloom_field::bits == hf::bits && bloom_field::hashes == hf::hashes &&
              bloom_field::block_bits == hf::block_bits && bloom_field::set_bits == hf::set_bits);
namespace se = bloomkit::detail::scalable_entry;
static_assert(stage_entry::size == se::size && stage_entry::bits == se::bits && stage_entry::hashes == se::hashes &&
              stage_entry::expected_keys == se::expected_keys && stage_entry::target_fpr == se::target_fpr &&
              stage_entry::inserted_count == se::inserted_count && stage_entry::set_bits == se::set_bits &&
              stage_entry::offset == se::offset);
static_assert(header_size == bloomkit::file_header_size);
static_assert(format_version == bloomkit::file_format_version && version_1 == bloomkit::oldest_readable_version);
static_assert(default_chunk_shift == bloomkit::default_chunk_shift && min_chunk_shift == bloomkit::min_chunk_shift &&
              max_chunk_shift == bloomkit::max_chunk_shift);
static_assert(flag::interrupted_update == bloomkit::update_in_progress);

// --- Keys ------------------------------------------------------------------------------------

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

// --- The samples, and what is particular to each type ----------------------------------------

/// A filter saved by the tests, and the keys it must contain.
template <class Filter>
struct sample {
    std::string name;
    Filter filter;
    keys_type keys;
};

/// What the suite needs to know of a filter type:
///   code, display_name()     its kind code, and how messages name it
///   test_name()              its name in the typed tests
///   make()                   its samples, each of a different shape; one is named "tiny" (every
///                            truncation of it is tried)
///   check_samples(all)       that the samples are the shapes the tests rely on
///   answer(f, key)           what it says of a key (contains, or count where there is one)
///   expect_same(a, e)        its own observers agree
///   expect_header(h, file, f) its fields in the decoded header and in the bytes, and its payload
///   expect_mutators_refuse(mapped, s)  every mutator of a read-only view throws
///   modify(f, s)             changes a loaded filter; returns what each call answered; removes
///                            the first removed_by_modify keys; is_mutable if it changes anything
template <class Filter>
struct kind_of;

template <class Filter>
sample<Filter> filled(std::string name, Filter filter, keys_type keys) {
    for (const auto k : keys) filter.insert(k);
    return {std::move(name), std::move(filter), std::move(keys)};
}

// Bloom filters, each layout: sized for 2000 keys at 1%; an explicit geometry with a seed and
// another hash algorithm than the layout's default (so that a round trip that forgot either
// would show); and a tiny one (for classic, of bits that are not whole words).
template <class Filter>
struct bloom_kind {
    static constexpr auto code = bloomkit::filter_kind::bloom;
    static constexpr bool is_mutable = true;
    static constexpr std::size_t removed_by_modify = 0;
    static constexpr std::uint64_t explicit_seed = 0x5eed'1234'abcd'0042;
    static std::string layout_name() { return std::string(to_string(Filter::layout())); }
    static std::string test_name() {
        std::string name = layout_name();
        std::ranges::replace(name, '-', '_');
        return name;
    }
    static std::string display_name() { return layout_name() + " Bloom filter"; }

    static constexpr hash_algorithm other_hash() {
        return Filter::layout_type::default_hash == hash_algorithm::xxh3_128 ? hash_algorithm::xxh64
                                                                             : hash_algorithm::xxh3_128;
    }
    static bloomkit::bloom_geometry explicit_geometry() {
        switch (Filter::layout()) {
            case bloomkit::bloom_layout::classic: return {10'007, 5};  // not whole words: the payload rounds up
            case bloomkit::bloom_layout::block: return {512 * 24, 6};
            case bloomkit::bloom_layout::split_block: return {256 * 48, 8};
        }
        return {};
    }
    static bloomkit::bloom_geometry tiny_geometry() {
        switch (Filter::layout()) {
            case bloomkit::bloom_layout::classic: return {100, 3};
            case bloomkit::bloom_layout::block: return {512, 3};
            case bloomkit::bloom_layout::split_block: return {256, 8};
        }
        return {};
    }

    static std::vector<sample<Filter>> make() {
        std::vector<sample<Filter>> out;
        out.push_back(filled("sized", Filter(2000, 0.01), key_range(0, 2000)));
        out.push_back(filled("explicit_geometry",
                             Filter(explicit_geometry(), {.seed = explicit_seed, .hash = other_hash()}),
                             key_range(0, 2000)));
        out.push_back(filled("tiny", Filter(tiny_geometry(), {.seed = 0x5eed'0000'0000'0010}), key_range(900'000, 8)));
        // Hash algorithm 3, the default before xxh3_mum: its files keep loading and answering.
        out.push_back(filled("xxh3_mix", Filter(1000, 0.01, {.seed = 0x5eed'0000'0000'0012, .hash = hash_algorithm::xxh3_mix}),
                             key_range(700'000, 1000)));
        return out;
    }

    static void check_samples(const std::vector<sample<Filter>>& all) {
        const Filter& sized = all.at(0).filter;
        EXPECT_EQ(sized.expected_keys(), 2000U);
        EXPECT_EQ(sized.target_fpr(), 0.01);
        EXPECT_EQ(sized.hash_function().algorithm(), Filter::layout_type::default_hash);
        const Filter& explicit_one = all.at(1).filter;
        EXPECT_EQ(explicit_one.geometry(), explicit_geometry());
        EXPECT_EQ(explicit_one.expected_keys(), 0U);
        EXPECT_EQ(explicit_one.target_fpr(), 0.0);
        EXPECT_EQ(explicit_one.hash_function().seed(), explicit_seed);
        EXPECT_EQ(explicit_one.hash_function().algorithm(), other_hash());
        EXPECT_EQ(all.at(2).filter.geometry(), tiny_geometry());
    }

    static std::uint64_t answer(const Filter& f, std::uint64_t key) { return f.contains(key); }

    static void expect_same(const Filter& actual, const Filter& expected) {
        EXPECT_TRUE(actual == expected) << "the bits differ";
        EXPECT_EQ(actual.geometry(), expected.geometry());
        EXPECT_EQ(actual.bit_count(), expected.bit_count());
        EXPECT_EQ(actual.hash_count(), expected.hash_count());
        EXPECT_EQ(actual.expected_keys(), expected.expected_keys());
        EXPECT_EQ(actual.target_fpr(), expected.target_fpr());
        EXPECT_EQ(actual.inserted_count(), expected.inserted_count());
        EXPECT_EQ(actual.set_bit_count(), expected.set_bit_count());
        EXPECT_EQ(actual.approximate_count(), expected.approximate_count());
        EXPECT_EQ(actual.current_fpr(), expected.current_fpr());
        EXPECT_TRUE(std::ranges::equal(actual.words(), expected.words()));
    }

    static void expect_header(const file_header& h, const bytes& file, const Filter& f) {
        EXPECT_EQ(h.layout, Filter::layout());
        EXPECT_EQ(h.geometry, f.geometry());
        EXPECT_EQ(h.set_bits, f.set_bit_count());
        EXPECT_EQ(h.expected_keys, f.expected_keys());
        EXPECT_EQ(h.target_fpr, f.target_fpr());
        EXPECT_EQ(h.inserted_count, f.inserted_count());
        EXPECT_EQ(h.payload_size, f.size_in_bytes());
        EXPECT_DOUBLE_EQ(h.approximate_count(), f.approximate_count());
        EXPECT_DOUBLE_EQ(h.current_fpr(), f.current_fpr());

        EXPECT_EQ(file.at(bloom_field::layout), static_cast<unsigned>(Filter::layout()));
        EXPECT_EQ(get_le(file, bloom_field::bits, 8), f.bit_count());
        EXPECT_EQ(get_le(file, bloom_field::hashes, 4), f.hash_count());
        EXPECT_EQ(get_le(file, bloom_field::block_bits, 4), bloomkit::block_bits(Filter::layout()));
        EXPECT_EQ(get_le(file, bloom_field::set_bits, 8), f.set_bit_count());
        EXPECT_TRUE(zero_bytes(file, field::extra, field::extra_end));
        // The payload is the words, little-endian (classic: the last one padded with zero bits).
        const auto words = f.words();
        EXPECT_EQ(announced_payload(file), words.size() * sizeof(typename Filter::word_type));
        EXPECT_EQ(mismatched_words(file, header_size, words), 0U);
    }

    static void expect_mutators_refuse(const Filter& mapped, const sample<Filter>& s) {
        auto copy = mapped;  // a copy shares the read-only view
        EXPECT_TRUE(copy.read_only());
        const keys_type fresh = fresh_keys(3);
        EXPECT_THROW(copy.insert(fresh[0]), bloomkit::read_only_filter);
        EXPECT_THROW(copy.insert(fresh[0], bloomkit::concurrent), bloomkit::read_only_filter);
        EXPECT_THROW(copy.insert(fresh.begin(), fresh.end()), bloomkit::read_only_filter);
        EXPECT_THROW(copy.insert_range(fresh), bloomkit::read_only_filter);
        EXPECT_THROW(copy.clear(), bloomkit::read_only_filter);
        EXPECT_THROW(copy |= s.filter, bloomkit::read_only_filter);
        EXPECT_TRUE(copy == mapped);
        EXPECT_EQ(copy.inserted_count(), mapped.inserted_count());
    }

    /// Inserts numbers and a string.
    static std::vector<std::uint64_t> modify(Filter& f, const sample<Filter>&) {
        std::vector<std::uint64_t> log;
        for (const auto k : fresh_keys(40)) log.push_back(f.insert(k));
        const std::string key = "a key never inserted before";
        log.push_back(f.insert(key));
        EXPECT_TRUE(f.contains(key));
        log.push_back(f.inserted_count());
        log.push_back(f.set_bit_count());
        return log;
    }
};

template <class Layout>
struct kind_of<bloomkit::basic_bloom_filter<Layout>> : bloom_kind<bloomkit::basic_bloom_filter<Layout>> {};

// Counting Bloom filter: sized and explicit geometry; keys inserted twice, removed, and one
// inserted 20 times (its counters saturate at 15); and a tiny one.
template <>
struct kind_of<bloomkit::counting_bloom_filter> {
    using filter = bloomkit::counting_bloom_filter;
    static constexpr auto code = bloomkit::filter_kind::counting_bloom;
    static constexpr bool is_mutable = true;
    static constexpr std::size_t removed_by_modify = 30;  // modify() removes the first 30 keys
    static std::string test_name() { return "counting"; }
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
        out.push_back(filled("explicit_geometry", filter(bloomkit::counting_geometry{1000, 5}),  // 1024 counters
                             key_range(100'000, 60)));
        out.push_back(filled("tiny", filter(bloomkit::counting_geometry{256, 3}, {.seed = 0x5eed'0000'0000'0011}),
                             key_range(910'000, 32)));
        return out;
    }

    static void check_samples(const std::vector<sample<filter>>& all) {
        EXPECT_EQ(all.at(0).filter.count(std::uint64_t{77777}), 15U) << "saturated";
        EXPECT_GE(all.at(0).filter.count(std::uint64_t{7}), 2U);
        EXPECT_EQ(all.at(1).filter.counter_count(), 1024U);
        EXPECT_EQ(all.at(2).filter.counter_count(), 256U);
    }

    static std::uint64_t answer(const filter& f, std::uint64_t key) { return f.count(key); }

    static void expect_same(const filter& actual, const filter& expected) {
        EXPECT_TRUE(actual == expected) << "the counters differ";
        EXPECT_EQ(actual.geometry(), expected.geometry());
        EXPECT_EQ(actual.counter_count(), expected.counter_count());
        EXPECT_EQ(actual.hash_count(), expected.hash_count());
        EXPECT_EQ(actual.expected_keys(), expected.expected_keys());
        EXPECT_EQ(actual.target_fpr(), expected.target_fpr());
        EXPECT_EQ(actual.inserted_count(), expected.inserted_count());
        EXPECT_EQ(actual.nonzero_counter_count(), expected.nonzero_counter_count());
        EXPECT_EQ(actual.approximate_count(), expected.approximate_count());
        EXPECT_EQ(actual.current_fpr(), expected.current_fpr());
        EXPECT_TRUE(std::ranges::equal(actual.words(), expected.words()));
    }

    static void expect_header(const file_header& h, const bytes& file, const filter& f) {
        EXPECT_EQ(h.counting, f.geometry());
        EXPECT_EQ(h.set_bits, f.nonzero_counter_count());
        EXPECT_EQ(h.expected_keys, f.expected_keys());
        EXPECT_EQ(h.target_fpr, f.target_fpr());
        EXPECT_EQ(h.inserted_count, f.inserted_count());
        EXPECT_EQ(h.approximate_count(), f.approximate_count());
        EXPECT_EQ(h.current_fpr(), f.current_fpr());

        EXPECT_EQ(file.at(counting_field::layout), 1U);
        EXPECT_EQ(get_le(file, counting_field::counters, 8), f.counter_count());
        EXPECT_EQ(get_le(file, counting_field::hashes, 4), f.hash_count());
        EXPECT_EQ(get_le(file, counting_field::counters_per_block, 4), 128U);
        EXPECT_EQ(get_le(file, counting_field::nonzero, 8), f.nonzero_counter_count());
        EXPECT_EQ(get_le(file, counting_field::counter_bits, 4), 4U);
        EXPECT_TRUE(zero_bytes(file, 100, field::extra_end));
        EXPECT_EQ(announced_payload(file), f.counter_count() / 2);
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
        for (std::size_t i = 0; i < removed_by_modify; ++i) {
            const bool removed = f.remove(s.keys.at(i));
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
// occupied, 16-bit fingerprints hashed with XXH64, and a tiny table.
template <>
struct kind_of<bloomkit::cuckoo_filter> {
    using filter = bloomkit::cuckoo_filter;
    static constexpr auto code = bloomkit::filter_kind::cuckoo;
    static constexpr bool is_mutable = true;
    static constexpr std::size_t removed_by_modify = 10;
    static std::string test_name() { return "cuckoo"; }
    static std::string display_name() { return "cuckoo filter"; }

    /// Inserts up to `count` keys from `first`, until the table is full (a walk failed and its
    /// victim waits in the stash); returns the keys it took.
    static keys_type fill(filter& f, std::uint64_t first, std::uint64_t count) {
        keys_type keys;
        for (std::uint64_t k = first; k < first + count; ++k) {
            if (!f.insert(k)) break;
            keys.push_back(k);
        }
        return keys;
    }

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
            keys_type keys = fill(f, 1'000'000, 10 * f.capacity());
            out.push_back({"full_with_stash", std::move(f), std::move(keys)});
        }
        {
            filter f(bloomkit::cuckoo_geometry{100, 16},
                     {.seed = 0x5eed'0000'0000'0004, .hash = hash_algorithm::xxh64});
            keys_type keys = key_range(300'000, 300);
            for (const auto k : keys) EXPECT_TRUE(f.insert(k));
            out.push_back({"16_bit_xxh64", std::move(f), std::move(keys)});
        }
        {
            filter f(bloomkit::cuckoo_geometry{5, 8}, {.seed = 0x5eed'0000'0000'0012});
            keys_type keys = fill(f, 930'000, 12);
            out.push_back({"tiny", std::move(f), std::move(keys)});
        }
        return out;
    }

    static void check_samples(const std::vector<sample<filter>>& all) {
        EXPECT_FALSE(std::has_single_bit(all.at(0).filter.bucket_count())) << all[0].filter.bucket_count();
        EXPECT_EQ(all.at(0).filter.fingerprint_bits(), 12U);
        const filter& full = all.at(1).filter;
        EXPECT_TRUE(full.stash().occupied()) << "the full table's stash is empty";
        EXPECT_GT(full.load_factor(), 0.9);
        EXPECT_EQ(full.size(), all[1].keys.size());
        EXPECT_FALSE(std::has_single_bit(full.bucket_count()));
        EXPECT_GE(all.at(3).keys.size(), removed_by_modify);
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
        EXPECT_EQ(actual.target_fpr(), expected.target_fpr());
        EXPECT_EQ(actual.stash(), expected.stash());
        EXPECT_EQ(actual.stash().occupied(), expected.stash().occupied());
        EXPECT_EQ(actual.count_fingerprints(), expected.count_fingerprints());
        EXPECT_EQ(actual.count_fingerprints(), actual.size());
        EXPECT_TRUE(std::ranges::equal(actual.words(), expected.words()));
    }

    static void expect_header(const file_header& h, const bytes& file, const filter& f) {
        EXPECT_EQ(h.cuckoo, f.geometry());
        EXPECT_EQ(h.stash, f.stash());
        EXPECT_EQ(h.inserted_count, f.size());
        EXPECT_EQ(h.expected_keys, f.expected_keys());
        EXPECT_EQ(h.target_fpr, f.target_fpr());
        EXPECT_EQ(h.approximate_count(), static_cast<double>(f.size()));
        EXPECT_DOUBLE_EQ(h.current_fpr(), f.current_fpr());

        EXPECT_EQ(file.at(cuckoo_field::layout), 0U);
        EXPECT_EQ(get_le(file, cuckoo_field::buckets, 8), f.bucket_count());
        EXPECT_EQ(get_le(file, cuckoo_field::fingerprint_bits, 4), f.fingerprint_bits());
        EXPECT_EQ(get_le(file, cuckoo_field::bucket_size, 4), 4U);
        EXPECT_EQ(get_le(file, cuckoo_field::stored, 8), f.size());
        EXPECT_EQ(get_le(file, cuckoo_field::stash_bucket, 8), f.stash().bucket);
        EXPECT_EQ(get_le(file, cuckoo_field::stash_fingerprint, 4), f.stash().fingerprint);
        EXPECT_TRUE(zero_bytes(file, 100, field::extra_end));
        EXPECT_EQ(announced_payload(file), bloomkit::cuckoo_word_count(f.geometry()) * 8);
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
        for (std::size_t i = 0; i < removed_by_modify; ++i) {
            const bool removed = f.remove(s.keys.at(i));
            EXPECT_TRUE(removed) << "an inserted key could not be removed after a load";
            log.push_back(removed);
        }
        for (std::size_t i = 5; i < fresh.size(); ++i) log.push_back(f.insert(fresh[i]));
        log.push_back(f.size());
        log.push_back(f.stash().fingerprint);
        return log;
    }
};

// Scalable Bloom filter: grown to several stages, with the default and with other parameters,
// and a tiny one.
template <>
struct kind_of<bloomkit::scalable_bloom_filter> {
    using filter = bloomkit::scalable_bloom_filter;
    using stage = bloomkit::block_bloom_filter;
    static constexpr auto code = bloomkit::filter_kind::scalable_bloom;
    static constexpr bool is_mutable = true;
    static constexpr std::size_t removed_by_modify = 0;
    static std::string test_name() { return "scalable"; }
    static std::string display_name() { return "scalable Bloom filter"; }

    static std::vector<sample<filter>> make() {
        std::vector<sample<filter>> out;
        out.push_back(filled("grown",
                             filter(100, 0.01, {.growth = 2, .tightening = 0.5, .seed = 0x5eed'0000'0000'0005}),
                             key_range(0, 2000)));
        {
            filter f(50, 0.001,
                     {.growth = 1.5, .tightening = 0.8, .seed = 0x5eed'0000'0000'0006, .hash = hash_algorithm::xxh64});
            keys_type keys = key_range(200'000, 1000);
            f.insert(keys.begin(), keys.end());
            out.push_back({"slow_growth_xxh64", std::move(f), std::move(keys)});
        }
        out.push_back(filled("tiny", filter(8, 0.1, {.seed = 0x5eed'0000'0000'0013}), key_range(940'000, 60)));
        return out;
    }

    static void check_samples(const std::vector<sample<filter>>& all) {
        for (const auto& s : all) EXPECT_GE(s.filter.stage_count(), 4U) << s.name;
    }

    static std::uint64_t answer(const filter& f, std::uint64_t key) { return f.contains(key); }

    static void expect_same(const filter& actual, const filter& expected) {
        EXPECT_TRUE(actual == expected) << "the parameters or stages differ";
        EXPECT_EQ(actual.parameters(), expected.parameters());
        EXPECT_EQ(actual.initial_capacity(), expected.initial_capacity());
        EXPECT_EQ(actual.target_fpr(), expected.target_fpr());
        EXPECT_EQ(actual.growth(), expected.growth());
        EXPECT_EQ(actual.tightening(), expected.tightening());
        EXPECT_EQ(actual.size_in_bytes(), expected.size_in_bytes());
        EXPECT_EQ(actual.inserted_count(), expected.inserted_count());
        EXPECT_EQ(actual.approximate_count(), expected.approximate_count());
        EXPECT_EQ(actual.current_fpr(), expected.current_fpr());
        ASSERT_EQ(actual.stage_count(), expected.stage_count());
        for (std::size_t i = 0; i < actual.stage_count(); ++i) {
            SCOPED_TRACE("stage " + std::to_string(i));
            const stage& a = actual.stages()[i];
            const stage& e = expected.stages()[i];
            EXPECT_TRUE(a == e) << "the bits differ";
            EXPECT_EQ(a.geometry(), e.geometry());
            EXPECT_EQ(a.expected_keys(), e.expected_keys());
            EXPECT_EQ(a.target_fpr(), e.target_fpr());
            EXPECT_EQ(a.inserted_count(), e.inserted_count());
            EXPECT_EQ(a.set_bit_count(), e.set_bit_count());
            EXPECT_EQ(a.hash_function(), e.hash_function());
            EXPECT_EQ(a.hash_function(), actual.hash_function());
            EXPECT_EQ(a.read_only(), actual.read_only());
            const auto plan = actual.planned_stage(i);
            EXPECT_EQ(a.expected_keys(), plan.capacity);
            EXPECT_EQ(a.target_fpr(), plan.fpr);
        }
    }

    static void expect_header(const file_header& h, const bytes& file, const filter& f) {
        EXPECT_EQ(h.scalable, f.parameters());
        EXPECT_EQ(h.stages, f.stage_count());
        EXPECT_EQ(h.expected_keys, f.initial_capacity());
        EXPECT_EQ(h.target_fpr, f.target_fpr());
        EXPECT_EQ(h.inserted_count, f.inserted_count());
        EXPECT_EQ(h.approximate_count(), static_cast<double>(f.inserted_count()));
        EXPECT_TRUE(std::isnan(h.current_fpr()));

        EXPECT_EQ(file.at(scalable_field::stage_layout), 2U);  // block Bloom filters
        EXPECT_EQ(get_le(file, scalable_field::initial_capacity, 8), f.initial_capacity());
        EXPECT_EQ(get_le(file, scalable_field::stages, 4), f.stage_count());
        EXPECT_EQ(get_le(file, scalable_field::reserved32, 4), 0U);
        EXPECT_EQ(get_le(file, scalable_field::reserved64, 8), 0U);
        EXPECT_EQ(get_double(file, scalable_field::growth), f.growth());
        EXPECT_EQ(get_double(file, scalable_field::tightening), f.tightening());  // the extra bytes, to 112

        // The stage table, then each stage's words at a 64-byte aligned offset, back to back.
        std::uint64_t next = f.stage_count() * stage_entry::size;
        for (std::size_t i = 0; i < f.stage_count(); ++i) {
            SCOPED_TRACE("stage " + std::to_string(i));
            const stage& s = f.stages()[i];
            const std::size_t entry = header_size + i * stage_entry::size;
            EXPECT_EQ(get_le(file, entry + stage_entry::bits, 8), s.bit_count());
            EXPECT_EQ(get_le(file, entry + stage_entry::hashes, 4), s.hash_count());
            EXPECT_TRUE(zero_bytes(file, entry + 12, entry + 16));
            EXPECT_EQ(get_le(file, entry + stage_entry::expected_keys, 8), s.expected_keys());
            EXPECT_EQ(get_double(file, entry + stage_entry::target_fpr), s.target_fpr());
            EXPECT_EQ(get_le(file, entry + stage_entry::inserted_count, 8), s.inserted_count());
            EXPECT_EQ(get_le(file, entry + stage_entry::set_bits, 8), s.set_bit_count());
            EXPECT_TRUE(zero_bytes(file, entry + 56, entry + 64));
            const std::uint64_t offset = get_le(file, entry + stage_entry::offset, 8);
            EXPECT_EQ(offset % 64, 0U);
            EXPECT_EQ(offset, (next + 63) / 64 * 64);
            EXPECT_TRUE(zero_bytes(file, header_size + next, header_size + offset)) << "the padding";
            EXPECT_EQ(mismatched_words(file, header_size + offset, s.words()), 0U);
            next = offset + s.size_in_bytes();
        }
        EXPECT_EQ(announced_payload(file), next) << "the payload ends with the last stage";
    }

    static void expect_mutators_refuse(const filter& mapped, const sample<filter>& s) {
        auto copy = mapped;
        EXPECT_TRUE(copy.read_only());
        for (const stage& st : copy.stages()) EXPECT_TRUE(st.read_only());
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
        for (const stage& s : f.stages()) capacity += s.expected_keys();
        std::uint64_t added = 0;
        for (const auto k : fresh_keys(capacity + 1)) added += f.insert(k) ? 1 : 0;
        EXPECT_GT(f.stage_count(), stages_before) << "the loaded filter did not grow";
        log.push_back(added);
        log.push_back(f.stage_count());
        log.push_back(f.inserted_count());
        return log;
    }
};

// Binary fuse filters: built from 2000 keys, from 500 hashed with XXH64, from a dozen, and from
// no keys at all.
template <class Fuse>
struct fuse_kind {
    using filter = Fuse;
    static constexpr auto code = bloomkit::filter_kind::binary_fuse;
    static constexpr bool is_mutable = false;
    static constexpr std::size_t removed_by_modify = 0;
    static std::string test_name() {
        return "fuse" + std::to_string(Fuse::fingerprint_bits()) + (Fuse::arity() == 4 ? "_4wise" : "");
    }
    static std::string display_name() {
        return std::to_string(Fuse::arity()) + "-wise " + std::to_string(Fuse::fingerprint_bits()) +
               "-bit binary fuse filter";
    }

    static std::vector<sample<filter>> make() {
        std::vector<sample<filter>> out;
        const auto built = [&](std::string name, keys_type keys, bloomkit::filter_options options) {
            filter f(keys, options);
            out.push_back({std::move(name), std::move(f), std::move(keys)});
        };
        built("2000_keys", key_range(0, 2000), {.seed = 0x5eed'0000'0000'0007});
        built("xxh64", key_range(400'000, 500), {.seed = 0x5eed'0000'0000'0008, .hash = hash_algorithm::xxh64});
        built("tiny", key_range(950'000, 12), {.seed = 0x5eed'0000'0000'0014});
        built("empty", {}, {.seed = 0x5eed'0000'0000'0009});
        return out;
    }

    static void check_samples(const std::vector<sample<filter>>& all) {
        EXPECT_EQ(all.front().filter.size(), 2000U);
        EXPECT_TRUE(all.back().filter.empty());
        EXPECT_EQ(all.back().filter.array_length(), 0U);
        EXPECT_EQ(all.back().filter.size_in_bytes(), 0U) << "the empty filter has no payload";
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

    static void expect_header(const file_header& h, const bytes& file, const filter& f) {
        EXPECT_EQ(h.fuse, f.parameters());
        EXPECT_EQ(h.inserted_count, f.size());
        EXPECT_EQ(h.expected_keys, 0U);
        EXPECT_EQ(h.target_fpr, 0.0);
        EXPECT_EQ(h.approximate_count(), static_cast<double>(f.size()));
        EXPECT_EQ(h.current_fpr(), f.empty() ? 0.0 : Fuse::expected_fpr());

        EXPECT_EQ(file.at(fuse_field::arity), Fuse::arity());
        EXPECT_EQ(get_le(file, fuse_field::array_length, 8), f.array_length());
        EXPECT_EQ(get_le(file, fuse_field::fingerprint_bits, 4), Fuse::fingerprint_bits());
        EXPECT_EQ(get_le(file, fuse_field::segment_length, 4), f.segment_length());
        EXPECT_EQ(get_le(file, fuse_field::keys, 8), f.size());
        EXPECT_EQ(get_le(file, fuse_field::construction_seed, 8), f.construction_seed());
        EXPECT_EQ(get_le(file, fuse_field::segment_count, 8), f.segment_count());
        EXPECT_TRUE(zero_bytes(file, 104, field::extra_end));
        EXPECT_EQ(announced_payload(file), f.array_length() * sizeof(typename Fuse::fingerprint_type));
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

template <class Fingerprint, unsigned Arity>
struct kind_of<bloomkit::basic_binary_fuse_filter<Fingerprint, Arity>>
    : fuse_kind<bloomkit::basic_binary_fuse_filter<Fingerprint, Arity>> {};

/// The samples of a type, made once (sizing is slow in Debug builds).
template <class Filter>
const std::vector<sample<Filter>>& samples() {
    static const std::vector<sample<Filter>> made = kind_of<Filter>::make();
    return made;
}

template <class Filter>
const sample<Filter>& sample_named(std::string_view name) {
    for (const auto& s : samples<Filter>())
        if (s.name == name) return s;
    throw std::logic_error("no sample named " + std::string(name));
}

/// The first sample of Filter a version 1 file can hold: one hashed with algorithm 1 or 2.
template <class Filter>
const sample<Filter>& version_1_sample() {
    for (const auto& s : samples<Filter>())
        if (s.filter.hash_function().algorithm() != hash_algorithm::xxh3_mix &&
            s.filter.hash_function().algorithm() != hash_algorithm::xxh3_mum)
            return s;
    throw std::logic_error("no sample of " + kind_of<Filter>::test_name() + " hashes as version 1 can");
}

/// A filter of another kind than Filter, for streams that mix kinds.
template <class Filter>
any_filter another_kind() {
    if constexpr (std::is_same_v<Filter, bloomkit::cuckoo_filter>)
        return samples<bloomkit::block_bloom_filter>().front().filter;
    else return samples<bloomkit::cuckoo_filter>().front().filter;
}

// --- Comparisons ----------------------------------------------------------------------------

template <class Filter>
std::uint64_t found(const Filter& filter, const keys_type& keys) {
    return filter.count_contained(keys.begin(), keys.end());
}

/// Keys on which single-key contains() says no.
template <class Filter>
std::uint64_t missing(const Filter& filter, const keys_type& keys) {
    return static_cast<std::uint64_t>(
        std::ranges::count_if(keys, [&](std::uint64_t k) { return !filter.contains(k); }));
}

/// Keys on which the two filters answer differently (contains, or count where there is one).
template <class Filter>
std::uint64_t disagreements(const Filter& a, const Filter& b, const keys_type& keys) {
    std::uint64_t differ = 0;
    for (const std::uint64_t key : keys)
        differ += kind_of<Filter>::answer(a, key) != kind_of<Filter>::answer(b, key) ? 1 : 0;
    return differ;
}

/// Everything observable of `actual` matches `expected`, and it answers alike on every key.
template <class Filter>
void expect_same_filter(const Filter& actual, const sample<Filter>& expected) {
    kind_of<Filter>::expect_same(actual, expected.filter);
    EXPECT_EQ(actual.hash_function().algorithm(), expected.filter.hash_function().algorithm());
    EXPECT_EQ(actual.hash_function().seed(), expected.filter.hash_function().seed());
    EXPECT_EQ(actual.size_in_bytes(), expected.filter.size_in_bytes());
    EXPECT_EQ(found(actual, expected.keys), expected.keys.size()) << "false negatives (bulk)";
    EXPECT_EQ(missing(actual, expected.keys), 0U) << "false negatives";
    EXPECT_EQ(disagreements(actual, expected.filter, expected.keys), 0U);
    EXPECT_EQ(disagreements(actual, expected.filter, absent_keys()), 0U);
    EXPECT_EQ(found(actual, absent_keys()), found(expected.filter, absent_keys()));
}

/// The alternative Filter of an any_filter, which must hold one, matches `expected`.
template <class Filter>
void expect_holds_same_filter(const any_filter& actual, const sample<Filter>& expected) {
    ASSERT_TRUE(std::holds_alternative<Filter>(actual)) << "alternative " << actual.index();
    expect_same_filter(std::get<Filter>(actual), expected);
}

/// Every field of two decoded headers agrees (the payload checksum only if `checksum`).
void expect_same_header(const file_header& actual, const file_header& expected, bool checksum) {
    EXPECT_EQ(actual.version, expected.version);
    EXPECT_EQ(actual.kind, expected.kind);
    EXPECT_EQ(actual.hash, expected.hash);
    EXPECT_EQ(actual.seed, expected.seed);
    EXPECT_EQ(actual.expected_keys, expected.expected_keys);
    EXPECT_EQ(actual.target_fpr, expected.target_fpr);
    EXPECT_EQ(actual.inserted_count, expected.inserted_count);
    EXPECT_EQ(actual.payload_offset, expected.payload_offset);
    EXPECT_EQ(actual.payload_size, expected.payload_size);
    if (checksum) {
        EXPECT_EQ(actual.payload_checksum, expected.payload_checksum);
    }
    EXPECT_EQ(actual.flags, expected.flags);
    EXPECT_EQ(actual.chunk_shift, expected.chunk_shift);
    EXPECT_EQ(actual.layout, expected.layout);
    EXPECT_EQ(actual.geometry, expected.geometry);
    EXPECT_EQ(actual.set_bits, expected.set_bits);
    EXPECT_EQ(actual.counting, expected.counting);
    EXPECT_EQ(actual.cuckoo, expected.cuckoo);
    EXPECT_EQ(actual.stash, expected.stash);
    EXPECT_EQ(actual.scalable, expected.scalable);
    EXPECT_EQ(actual.stages, expected.stages);
    EXPECT_EQ(actual.fuse, expected.fuse);
    EXPECT_EQ(actual.filter_name(), expected.filter_name());
}

// --- Expected failures: every reader, the same reason -----------------------------------------

/// Runs `open`, which must throw file_format_error for `reason`, in a message naming the input
/// (`name`: a path, or the name a buffer or stream was given) and mentioning each of `parts`.
template <class Open>
void expect_format_error(std::string_view what, std::string_view name, format_errc reason,
                         const std::vector<std::string>& parts, Open open) {
    SCOPED_TRACE(std::string(what));
    try {
        open();
        ADD_FAILURE() << what << " accepted " << name << "; expected rejection for "
                      << ::testing::PrintToString(reason);
    } catch (const bloomkit::file_format_error& e) {
        EXPECT_EQ(e.reason(), reason) << e.what();
        EXPECT_TRUE(mentions(e.what(), name));
        for (const auto& part : parts)
            if (!part.empty()) {
                EXPECT_TRUE(mentions(e.what(), part));
            }
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": not a file_format_error but " << typeid(e).name() << ": " << e.what();
    }
}

template <class Open>
void expect_io_error(std::string_view what, std::string_view name, std::optional<std::errc> code, Open open) {
    SCOPED_TRACE(std::string(what));
    try {
        open();
        ADD_FAILURE() << "no io_error for " << name;
    } catch (const bloomkit::io_error& e) {
        EXPECT_TRUE(mentions(e.what(), name));
        if (code) {
            EXPECT_EQ(e.code(), std::make_error_code(*code)) << e.what();
        }
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": not an io_error but " << typeid(e).name() << ": " << e.what();
    }
}

/// While alive, no file may grow beyond `bytes`: a write past it fails with EFBIG (SIGXFSZ, which
/// would end the process, is ignored meanwhile).
class file_size_limit {
public:
    explicit file_size_limit(rlim_t bytes) : previous_(std::signal(SIGXFSZ, SIG_IGN)) {
        ::getrlimit(RLIMIT_FSIZE, &saved_);
        rlimit limit = saved_;
        limit.rlim_cur = bytes;
        EXPECT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
    }
    file_size_limit(const file_size_limit&) = delete;
    file_size_limit& operator=(const file_size_limit&) = delete;
    ~file_size_limit() {
        ::setrlimit(RLIMIT_FSIZE, &saved_);
        std::signal(SIGXFSZ, previous_);
    }

private:
    void (*previous_)(int);
    rlimit saved_{};
};

/// When damaged bytes are caught: by the header checks (every reader, read_header included),
/// only when the filter is assembled from the payload (read_header accepts them), or only by
/// the payload's check — its checksums, or the interrupted-update flag (read_header and map
/// accept them; verify() does not).
enum class caught { by_header, by_assembly, by_payload_checksum };

/// How every reader must reject some bytes.
struct rejection {
    format_errc reason;
    std::string part;  ///< the message mentions it ("" for anything)
    caught when = caught::by_header;
    /// What a stream, whose length is not known in advance, says instead (a payload size short
    /// of the file leaves a stream reading fewer bytes than were checksummed).
    std::optional<format_errc> stream_reason = {};
    /// For caught::by_payload_checksum: what mapping says on opening instead, when the damage is
    /// in the part of the payload a map reads to assemble the filter without verifying it (a
    /// scalable filter's stage table).
    std::optional<format_errc> map_reason = {};
};

/// The names the readers give their input.
constexpr std::string_view buffer_name = "the damaged buffer", stream_name = "the damaged stream",
                           pipe_name = "the damaged pipe";

/// Files and byte buffers: their whole size is known, so they reject `data` alike.
template <class Filter>
void expect_files_and_buffers_reject(const temp_dir& dir, const bytes& data, const rejection& r) {
    const fs::path path = dir / "damaged.bkf";
    write_bytes(path, data);
    const std::string file = path.string();
    const std::vector<std::string> part = {r.part};
    const bool header_valid = r.when != caught::by_header;

    if (header_valid) {
        EXPECT_NO_THROW((void)bloomkit::read_header(path)) << "the header alone is valid";
        EXPECT_NO_THROW((void)bloomkit::read_header(as_span(data), std::string(buffer_name)))
            << "the header alone is valid";
    } else {
        expect_format_error("read_header(file)", file, r.reason, part, [&] { (void)bloomkit::read_header(path); });
        expect_format_error("read_header(buffer)", buffer_name, r.reason, part,
                            [&] { (void)bloomkit::read_header(as_span(data), std::string(buffer_name)); });
    }
    expect_format_error("load(file)", file, r.reason, part, [&] { (void)bloomkit::load<Filter>(path); });
    expect_format_error("load<any_filter>(file)", file, r.reason, part,
                        [&] { (void)bloomkit::load<any_filter>(path); });
    if (r.when == caught::by_payload_checksum && r.map_reason) {
        expect_format_error("map(file)", file, *r.map_reason, {}, [&] { (void)bloomkit::map<Filter>(path); });
        expect_format_error("map<any_filter>(file)", file, *r.map_reason, {},
                            [&] { (void)bloomkit::map<any_filter>(path); });
    } else if (r.when == caught::by_payload_checksum) {
        // Mapping checks only the header; the payload is checked on demand.
        const auto mapped = bloomkit::map<Filter>(path);
        expect_format_error("map(file).verify()", file, r.reason, part, [&] { mapped.verify(); });
        const auto mapped_any = bloomkit::map<any_filter>(path);
        expect_format_error("map<any_filter>(file).verify()", file, r.reason, part, [&] { mapped_any.verify(); });
    } else {
        expect_format_error("map(file)", file, r.reason, part, [&] { (void)bloomkit::map<Filter>(path); });
        expect_format_error("map<any_filter>(file)", file, r.reason, part,
                            [&] { (void)bloomkit::map<any_filter>(path); });
    }
    expect_format_error("from_bytes", buffer_name, r.reason, part,
                        [&] { (void)bloomkit::from_bytes<Filter>(as_span(data), std::string(buffer_name)); });
    expect_format_error("from_bytes<any_filter>", buffer_name, r.reason, part,
                        [&] { (void)bloomkit::from_bytes<any_filter>(as_span(data), std::string(buffer_name)); });
}

/// Streams: a std::istringstream and a pipe that hands the bytes out a few at a time.
template <class Filter>
void expect_streams_reject(const bytes& data, const rejection& r) {
    const format_errc reason = r.stream_reason.value_or(r.reason);
    const std::vector<std::string> part = {r.stream_reason ? "" : r.part};
    expect_format_error("load(stream)", stream_name, reason, part, [&] {
        std::istringstream in(as_string(data));
        (void)bloomkit::load<Filter>(in, std::string(stream_name));
    });
    expect_format_error("load<any_filter>(stream)", stream_name, reason, part, [&] {
        std::istringstream in(as_string(data));
        (void)bloomkit::load<any_filter>(in, std::string(stream_name));
    });
    expect_format_error("load(pipe)", pipe_name, reason, part, [&] {
        pipe_buf pipe(data);
        std::istream in(&pipe);
        (void)bloomkit::load<Filter>(in, std::string(pipe_name));
    });
}

/// Every reader rejects `data` for the same reason: files, maps, buffers, streams, pipes, as
/// Filter and as any_filter.
template <class Filter>
void expect_every_reader_rejects(const temp_dir& dir, const bytes& data, const rejection& r) {
    expect_files_and_buffers_reject<Filter>(dir, data, r);
    expect_streams_reject<Filter>(data, r);
}

/// The bytes of a file holding `filter`, as save() wrote it.
template <class Filter>
bytes saved_bytes(const temp_dir& dir, const Filter& filter) {
    const auto path = dir / "valid.bkf";
    bloomkit::save(filter, path);
    return read_bytes(path);
}

// --- The typed suite: every filter type ------------------------------------------------------

template <class Variant>
struct gtest_types_of;
template <class... Filters>
struct gtest_types_of<std::variant<Filters...>> {
    using type = ::testing::Types<Filters...>;
};
/// Every filter type: the alternatives of any_filter, the library's one list of kinds.
using every_filter_type = gtest_types_of<any_filter>::type;

struct type_name {
    template <class Filter>
    static std::string GetName(int) {
        return kind_of<Filter>::test_name();
    }
};

template <class Filter>
class Bkf : public ::testing::Test {
protected:
    using traits = kind_of<Filter>;

    /// Saves the sample to `name` in the test's directory.
    fs::path saved(const sample<Filter>& s, std::string_view name = "filter.bkf") {
        const auto path = dir_ / name;
        bloomkit::save(s.filter, path);
        return path;
    }

    temp_dir dir_;
};

TYPED_TEST_SUITE(Bkf, every_filter_type, type_name);

// --- Round trips

TYPED_TEST(Bkf, SamplesAreWhatTheTestsNeed) {
    const auto& all = samples<TypeParam>();
    ASSERT_GE(all.size(), 3U);
    std::vector<std::string> names;
    for (const auto& s : all) {
        SCOPED_TRACE(s.name);
        names.push_back(s.name);
        EXPECT_EQ(found(s.filter, s.keys), s.keys.size());
        EXPECT_FALSE(s.filter.read_only());
        for (const auto& other : all)  // operator== can tell them apart
            EXPECT_EQ(s.filter == other.filter, &s == &other) << "against " << other.name;
    }
    std::ranges::sort(names);
    EXPECT_EQ(std::ranges::adjacent_find(names), names.end()) << "two samples of one name";
    EXPECT_NO_THROW((void)sample_named<TypeParam>("tiny"));
    EXPECT_LE(sample_named<TypeParam>("tiny").filter.size_in_bytes(), 2048U);
    TestFixture::traits::check_samples(all);
}

TYPED_TEST(Bkf, LoadRoundTripPreservesEverything) {
    const auto& all = samples<TypeParam>();
    for (std::size_t i = 0; i < all.size(); ++i) {
        SCOPED_TRACE(all[i].name);
        const auto loaded = bloomkit::load<TypeParam>(this->saved(all[i]));
        EXPECT_FALSE(loaded.read_only());
        expect_same_filter(loaded, all[i]);
        for (std::size_t j = 0; j < all.size(); ++j)
            EXPECT_EQ(loaded == all[j].filter, i == j) << "against " << all[j].name;
    }
}

TYPED_TEST(Bkf, MapRoundTripIsAReadOnlyViewOfTheSameFilter) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->saved(s);
        const auto mapped = bloomkit::map<TypeParam>(path);
        EXPECT_TRUE(mapped->read_only());
        EXPECT_TRUE((*mapped).read_only());
        expect_same_filter(mapped.filter(), s);
        EXPECT_NO_THROW(mapped.verify());
        EXPECT_EQ(mapped.header().kind, TestFixture::traits::code);
        expect_same_header(mapped.header(), bloomkit::read_header(path), true);
        TestFixture::traits::expect_mutators_refuse(mapped.filter(), s);
        expect_same_filter(mapped.filter(), s);  // unchanged by the attempts
    }
}

TYPED_TEST(Bkf, MappedFilterOutlivesItsHandleAndItsFile) {
    const auto& first = samples<TypeParam>().front();
    const auto& last = samples<TypeParam>().back();
    const auto path = this->saved(first);
    const TypeParam view = bloomkit::map<TypeParam>(path).filter();  // the handle is gone; the view keeps the mapping
    const any_filter any_view = *bloomkit::map<any_filter>(path);    // likewise
    bloomkit::save(last.filter, path);                               // replaced: the mappings still see the old file
    EXPECT_TRUE(view.read_only());
    expect_same_filter(view, first);
    expect_holds_same_filter(any_view, first);
    fs::remove(path);  // and gone
    expect_same_filter(view, first);
    expect_holds_same_filter(any_view, first);
    EXPECT_TRUE(std::get<TypeParam>(any_view).read_only());
}

TYPED_TEST(Bkf, AnyFilterOpensEveryKind) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->saved(s);

        const any_filter loaded = bloomkit::load<any_filter>(path);
        expect_holds_same_filter(loaded, s);
        EXPECT_FALSE(std::get<TypeParam>(loaded).read_only());
        expect_holds_same_filter(bloomkit::load_any(path), s);  // the older name

        const auto mapped = bloomkit::map<any_filter>(path);
        expect_holds_same_filter(*mapped, s);
        EXPECT_TRUE(std::get<TypeParam>(*mapped).read_only());
        EXPECT_NO_THROW(mapped.verify());
        EXPECT_EQ(mapped.header().kind, TestFixture::traits::code);
        const auto mapped_again = bloomkit::map_any(path);  // the older name
        expect_holds_same_filter(mapped_again.filter(), s);

        // save(any_filter) writes what save(TypeParam) does.
        const auto again = this->dir_ / "again.bkf";
        bloomkit::save(loaded, again);
        EXPECT_EQ(read_bytes(again), read_bytes(path));
    }
}

TYPED_TEST(Bkf, LoadedFilterKeepsWorkingAndSavesAgain) {
    using this_kind = typename TestFixture::traits;
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        auto loaded = bloomkit::load<TypeParam>(this->saved(s));
        auto original = s.filter;

        // The same operations on the loaded filter and on the original give the same answers
        // and the same filter.
        const auto loaded_log = this_kind::modify(loaded, s);
        const auto original_log = this_kind::modify(original, s);
        EXPECT_EQ(loaded_log, original_log);
        // Still held: every key modify() did not remove.
        const std::size_t removed = std::min(this_kind::removed_by_modify, s.keys.size());
        const sample<TypeParam> modified{
            s.name, original, keys_type(s.keys.begin() + static_cast<std::ptrdiff_t>(removed), s.keys.end())};
        expect_same_filter(loaded, modified);
        EXPECT_EQ(disagreements(loaded, original, s.keys), 0U);
        EXPECT_EQ(disagreements(loaded, original, fresh_keys(200)), 0U);
        if constexpr (this_kind::is_mutable) {
            EXPECT_FALSE(loaded == s.filter) << "modify() changed nothing";
        }

        const auto again = this->dir_ / "again.bkf";
        bloomkit::save(loaded, again);
        expect_same_filter(bloomkit::load<TypeParam>(again), modified);
        const auto mapped = bloomkit::map<TypeParam>(again);
        expect_same_filter(mapped.filter(), modified);
        EXPECT_NO_THROW(mapped.verify());
        expect_same_filter(bloomkit::from_bytes<TypeParam>(bloomkit::to_bytes(loaded)), modified);
    }
}

TYPED_TEST(Bkf, BufferRoundTripPreservesEverything) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const std::vector<std::byte> data = bloomkit::to_bytes(s.filter);
        const auto loaded = bloomkit::from_bytes<TypeParam>(data);
        EXPECT_FALSE(loaded.read_only());
        expect_same_filter(loaded, s);
        expect_holds_same_filter(bloomkit::from_bytes<any_filter>(data), s);

        // The buffer need not be aligned: here it starts one byte into a larger one.
        std::vector<std::byte> shifted(data.size() + 1);
        std::ranges::copy(data, shifted.begin() + 1);
        expect_same_filter(bloomkit::from_bytes<TypeParam>(std::span<const std::byte>(shifted).subspan(1)), s);

        // The buffer's bytes outlive it: the filter owns a copy.
        std::vector<std::byte> scratch = data;
        const auto from_scratch = bloomkit::from_bytes<TypeParam>(scratch);
        std::ranges::fill(scratch, std::byte{0xff});
        scratch.clear();
        scratch.shrink_to_fit();
        expect_same_filter(from_scratch, s);
    }
}

TYPED_TEST(Bkf, StreamRoundTripPreservesEverything) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        {
            std::stringstream stream;
            bloomkit::save(s.filter, stream);
            const auto loaded = bloomkit::load<TypeParam>(stream);
            EXPECT_FALSE(loaded.read_only());
            expect_same_filter(loaded, s);
            EXPECT_EQ(stream.peek(), std::char_traits<char>::eof()) << "the filter was not read to its end";
        }
        {
            std::stringstream stream;
            bloomkit::save(any_filter(s.filter), stream);
            expect_holds_same_filter(bloomkit::load<any_filter>(stream), s);
        }
        {
            // A pipe both ways: written without seeking, read a few bytes at a time.
            pipe_buf out;
            std::ostream writer(&out);
            bloomkit::save(s.filter, writer);
            EXPECT_EQ(out.seeks(), 0);
            pipe_buf in(out.output());
            std::istream reader(&in);
            expect_same_filter(bloomkit::load<TypeParam>(reader), s);
            EXPECT_TRUE(in.unread().empty());
            pipe_buf in_any(out.output());
            std::istream reader_any(&in_any);
            expect_holds_same_filter(bloomkit::load<any_filter>(reader_any), s);
        }
    }
}

TYPED_TEST(Bkf, ConcatenatedFiltersLoadBackInOrder) {
    const auto& all = samples<TypeParam>();
    const std::string tail = "and then something else";
    {
        // A seekable stream: each save seeks back to its own header, not the stream's start.
        std::stringstream stream;
        for (const auto& s : all) bloomkit::save(s.filter, stream);
        stream << tail;
        for (const auto& s : all) {
            SCOPED_TRACE(s.name);
            expect_same_filter(bloomkit::load<TypeParam>(stream, "concatenated"), s);
        }
        EXPECT_EQ(std::string(std::istreambuf_iterator<char>(stream), {}), tail) << "what follows the filters";
    }
    {
        // A pipe, as any_filter, after a filter of another kind.
        pipe_buf out;
        std::ostream writer(&out);
        const any_filter other = another_kind<TypeParam>();
        bloomkit::save(other, writer);
        for (const auto& s : all) bloomkit::save(s.filter, writer);
        writer << tail;
        ASSERT_TRUE(writer.flush());
        EXPECT_EQ(out.seeks(), 0);

        pipe_buf in(out.output());
        std::istream reader(&in);
        EXPECT_TRUE(bloomkit::load<any_filter>(reader) == other);
        for (const auto& s : all) {
            SCOPED_TRACE(s.name);
            expect_holds_same_filter(bloomkit::load<any_filter>(reader), s);
        }
        EXPECT_EQ(as_string(in.unread()), tail);
    }
    {
        // At the end of a stream there is no filter: an empty input.
        std::stringstream stream;
        bloomkit::save(all.front().filter, stream);
        (void)bloomkit::load<TypeParam>(stream);
        expect_format_error("load past the last filter", "the used stream", format_errc::truncated, {"empty (0 bytes)"},
                            [&] { (void)bloomkit::load<TypeParam>(stream, "the used stream"); });
    }
}

// --- The bytes

TYPED_TEST(Bkf, HeaderDescribesTheFile) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->saved(s);
        const bytes file = read_bytes(path);
        ASSERT_GE(file.size(), header_size);

        const file_header h = bloomkit::read_header(path);
        EXPECT_EQ(h.version, format_version);
        EXPECT_EQ(h.kind, TestFixture::traits::code);
        EXPECT_EQ(h.filter_name(), TestFixture::traits::display_name());
        EXPECT_EQ(h.hash, s.filter.hash_function().algorithm());
        EXPECT_EQ(h.seed, s.filter.hash_function().seed());
        EXPECT_EQ(h.payload_offset, header_size);
        EXPECT_EQ(h.payload_size, bloomkit::header_of(s.filter).payload_size);  // the kind's checks: expect_header
        EXPECT_EQ(h.payload_checksum, 0U) << "version 2 checksums the payload by chunks";
        EXPECT_EQ(h.flags, 0U);
        EXPECT_EQ(h.chunk_shift, default_chunk_shift);

        // The header, the payload, the chunk table: nothing else.
        const std::uint64_t payload = h.payload_size;
        ASSERT_EQ(file.size(), header_size + payload + 8 * chunk_count(payload) + 8);
        EXPECT_EQ(file.size() - header_size - payload, trailer_size(payload));
        const bytes table = chunk_table(file.data() + header_size, payload);
        EXPECT_TRUE(std::equal(table.begin(), table.end(), file.begin() + static_cast<std::ptrdiff_t>(header_size + payload)))
            << "the chunk table";

        EXPECT_TRUE(std::equal(bloomkit::file_magic.begin(), bloomkit::file_magic.end(), file.begin()));
        EXPECT_EQ(get_le(file, field::version, 2), format_version);
        EXPECT_EQ(get_le(file, field::header_size, 2), header_size);
        EXPECT_EQ(get_le(file, field::kind, 2), static_cast<std::uint64_t>(TestFixture::traits::code));
        EXPECT_EQ(file[field::hash], static_cast<unsigned>(s.filter.hash_function().algorithm()));
        EXPECT_EQ(get_le(file, field::seed, 8), s.filter.hash_function().seed());
        EXPECT_EQ(get_le(file, field::expected_keys, 8), h.expected_keys);
        EXPECT_EQ(get_double(file, field::target_fpr), h.target_fpr);
        EXPECT_EQ(get_le(file, field::inserted_count, 8), h.inserted_count);
        EXPECT_EQ(get_le(file, field::payload_offset, 8), header_size);
        EXPECT_EQ(get_le(file, field::payload_size, 8), payload);
        EXPECT_EQ(get_le(file, field::payload_checksum, 8), 0U);
        EXPECT_EQ(get_le(file, field::flags, 4), 0U);
        EXPECT_EQ(get_le(file, field::chunk_shift, 4), default_chunk_shift);
        EXPECT_EQ(get_le(file, field::header_checksum, 8), XXH3_64bits(file.data(), field::header_checksum));
        EXPECT_EQ(h.payload_offset % 64, 0U) << "the payload is 64-byte aligned";

        TestFixture::traits::expect_header(h, file, s.filter);
    }
}

TYPED_TEST(Bkf, HeaderOfIsWhatReadHeaderReturnsButTheChecksum) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->saved(s);
        const file_header expected = bloomkit::read_header(path);

        const file_header of = bloomkit::header_of(s.filter);
        expect_same_header(of, expected, false);
        EXPECT_EQ(of.payload_checksum, 0U) << "header_of computes no checksum";
        expect_same_header(bloomkit::header_of(any_filter(s.filter)), expected, false);
        expect_same_header(bloomkit::header_of(bloomkit::map<TypeParam>(path).filter()), expected, false);

        // The header of the bytes is the header of the file.
        const std::vector<std::byte> data = bloomkit::to_bytes(s.filter);
        expect_same_header(bloomkit::read_header(std::span<const std::byte>(data)), expected, true);
    }
}

TYPED_TEST(Bkf, BuffersAndStreamsHoldExactlyTheFilesBytes) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const bytes file = read_bytes(this->saved(s));
        EXPECT_EQ(from_library(bloomkit::to_bytes(s.filter)), file);
        EXPECT_EQ(from_library(bloomkit::to_bytes(any_filter(s.filter))), file);
        {
            std::stringstream stream;  // seekable, yet written in one pass as well
            bloomkit::save(s.filter, stream);
            EXPECT_EQ(from_string(stream.str()), file);
            EXPECT_EQ(static_cast<std::streamoff>(stream.tellp()), static_cast<std::streamoff>(file.size()))
                << "left at the end of what it wrote";
        }
        {
            std::ostringstream stream;  // after what the stream already holds
            stream << "prefix";
            bloomkit::save(any_filter(s.filter), stream);
            EXPECT_EQ(from_string(stream.str()), concatenated(from_string("prefix"), file));
        }
        {
            pipe_buf pipe;  // not seekable: header, payload, chunk table, in order
            std::ostream stream(&pipe);
            bloomkit::save(s.filter, stream);
            EXPECT_EQ(pipe.output(), file);
            EXPECT_EQ(pipe.seeks(), 0);
        }
        {
            const auto path = this->dir_ / "through_ofstream.bkf";  // a file stream seeks too
            {
                std::ofstream stream(path, std::ios::binary);
                bloomkit::save(s.filter, stream);
            }
            EXPECT_EQ(read_bytes(path), file);
        }
    }
}

TYPED_TEST(Bkf, SavingIsDeterministic) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto first = this->saved(s, "first.bkf");
        const bytes expected = read_bytes(first);
        ASSERT_GE(expected.size(), header_size);
        EXPECT_EQ(read_bytes(this->saved(s, "second.bkf")), expected);
        const auto from_load = this->dir_ / "from_load.bkf";
        bloomkit::save(bloomkit::load<TypeParam>(first), from_load);
        EXPECT_EQ(read_bytes(from_load), expected);
        const auto from_map = this->dir_ / "from_map.bkf";
        bloomkit::save(bloomkit::map<TypeParam>(first).filter(), from_map);
        EXPECT_EQ(read_bytes(from_map), expected);
        EXPECT_EQ(from_library(bloomkit::to_bytes(bloomkit::from_bytes<TypeParam>(bloomkit::to_bytes(s.filter)))),
                  expected);
    }
}

TYPED_TEST(Bkf, SaveReplacesAnExistingFileAndLeavesNoTemporary) {
    const auto& first = samples<TypeParam>().front();
    const auto& replacement = samples<TypeParam>().back();
    const auto path = this->saved(first);
    ::chmod(path.c_str(), 0640);

    bloomkit::save(replacement.filter, path);
    expect_same_filter(bloomkit::load<TypeParam>(path), replacement);
    EXPECT_EQ(this->dir_.entries(), std::vector<std::string>{"filter.bkf"});  // no ".filter.bkf.tmp-*"
    EXPECT_EQ(fs::status(path).permissions() & fs::perms::mask,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

// --- Damage: the same bytes, the same reason, whatever reads them

TYPED_TEST(Bkf, EveryFlippedHeaderBitIsDetectedAlike) {
    const bytes good = saved_bytes(this->dir_, sample_named<TypeParam>("tiny").filter);
    for (std::size_t offset = 0; offset < header_size && !this->HasFailure(); ++offset) {
        const format_errc reason = offset < 8    ? format_errc::bad_magic
                                   : offset < 10 ? format_errc::unsupported_version
                                                 : format_errc::header_checksum;
        for (int bit = 0; bit < 8; ++bit) {
            SCOPED_TRACE("byte " + std::to_string(offset) + ", bit " + std::to_string(bit));
            bytes damaged = good;
            damaged[offset] ^= static_cast<unsigned char>(1U << bit);
            expect_every_reader_rejects<TypeParam>(this->dir_, damaged, {reason, ""});
        }
    }
}

TYPED_TEST(Bkf, FlippedPayloadBytesAreDetectedAlike) {
    for (const auto& s : samples<TypeParam>()) {
        if (s.filter.size_in_bytes() == 0) continue;  // the empty fuse filter has no payload
        SCOPED_TRACE(s.name);
        const bytes good = saved_bytes(this->dir_, s.filter);
        const std::size_t payload = announced_payload(good);
        ASSERT_EQ(chunk_count(payload), 1U) << "the samples fit one chunk (MultiChunkPayloads has more)";
        // A scalable filter's payload starts with its stage table, which a map reads (unverified)
        // to find the stages: damage there is an invalid field to a map, if not a checksum
        // mismatch to verify().
        const std::size_t table = std::is_same_v<TypeParam, bloomkit::scalable_bloom_filter>
                                      ? stage_entry::size * get_le(good, scalable_field::stages, 4)
                                      : 0;
        std::vector<std::size_t> offsets = {header_size, header_size + table, header_size + payload / 2,
                                            header_size + payload - 1};
        std::ranges::sort(offsets);
        offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
        const std::string chunk = "payload checksum mismatch in chunk 0 of 1 (bytes 128 to " +
                                  std::to_string(header_size + payload) + ")";
        for (const std::size_t at : offsets) {
            SCOPED_TRACE("byte " + std::to_string(at));
            bytes damaged = good;
            damaged.at(at) ^= 0x10;
            rejection r{format_errc::payload_checksum, chunk, caught::by_payload_checksum};
            if (at < header_size + table) r.map_reason = format_errc::invalid_field;
            expect_every_reader_rejects<TypeParam>(this->dir_, damaged, r);
        }
    }
}

TYPED_TEST(Bkf, DamagedChunkTablesAreDetectedAlike) {
    // After the payload: each chunk's checksum, then the table's own. Damage to either is a
    // payload checksum error (a map opens, and verify() finds it); a chunk checksum forged along
    // with the table's names its chunk.
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const bytes good = saved_bytes(this->dir_, s.filter);
        const std::size_t payload = announced_payload(good);
        const std::size_t table = header_size + payload;  // where the chunk table starts
        const std::size_t entries = chunk_count(payload);
        ASSERT_EQ(good.size(), table + 8 * entries + 8);
        const rejection table_mismatch{format_errc::payload_checksum, "the chunk table does not match its checksum",
                                       caught::by_payload_checksum};
        {
            SCOPED_TRACE("the table's checksum");
            bytes damaged = good;
            damaged.back() ^= 0x01;
            expect_every_reader_rejects<TypeParam>(this->dir_, damaged, table_mismatch);
        }
        if (entries == 0) {
            // An empty payload has no chunks: the table is its checksum alone, of no entries.
            EXPECT_EQ(get_le(good, table, 8), XXH3_64bits(nullptr, 0));
            continue;
        }
        {
            SCOPED_TRACE("chunk 0's checksum");
            bytes damaged = good;
            damaged.at(table) ^= 0x80;
            expect_every_reader_rejects<TypeParam>(this->dir_, damaged, table_mismatch);
        }
        {
            SCOPED_TRACE("chunk 0's checksum, the table's recomputed");
            bytes damaged = good;
            put_le(damaged, table, get_le(damaged, table, 8) + 1, 8);
            put_le(damaged, damaged.size() - 8, XXH3_64bits(damaged.data() + table, 8 * entries), 8);
            expect_every_reader_rejects<TypeParam>(
                this->dir_, damaged,
                {format_errc::payload_checksum, "payload checksum mismatch in chunk 0 of 1", caught::by_payload_checksum});
        }
    }
}

TYPED_TEST(Bkf, EveryTruncationIsDetectedAlike) {
    // A prefix of the signature is not a wrong signature: an input shorter than 8 bytes whose
    // bytes match the magic's first ones is truncated, and so is an empty one.
    const auto expect_cut_rejected = [&](const bytes& good, std::size_t length) {
        SCOPED_TRACE("length " + std::to_string(length));
        const bytes cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(length));
        expect_every_reader_rejects<TypeParam>(this->dir_, cut,
                                               {format_errc::truncated, length == 0 ? "empty (0 bytes)" : "truncated"});
    };
    // Every length of the tiny sample.
    const bytes tiny = saved_bytes(this->dir_, sample_named<TypeParam>("tiny").filter);
    for (std::size_t length = 0; length < tiny.size() && !this->HasFailure(); ++length)
        expect_cut_rejected(tiny, length);
    // Telling lengths of the others.
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const bytes good = saved_bytes(this->dir_, s.filter);
        const std::size_t payload = good.size() - header_size;
        std::vector<std::size_t> lengths = {1, 5, 7, 8, 9, 10, 64, 119, 127};
        if (payload > 0)
            lengths.insert(lengths.end(), {header_size, header_size + 1, header_size + payload / 2, good.size() - 1});
        for (const std::size_t length : lengths) expect_cut_rejected(good, length);
    }
}

TYPED_TEST(Bkf, TrailingBytesAreRejectedByFilesAndBuffersButLeftInAStream) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const bytes good = saved_bytes(this->dir_, s.filter);
        for (const std::size_t extra : {1U, 64U}) {
            SCOPED_TRACE(std::to_string(extra) + " bytes more");
            const bytes trailer(extra, 0);
            const bytes longer = concatenated(good, trailer);
            expect_files_and_buffers_reject<TypeParam>(
                this->dir_, longer,
                {format_errc::invalid_field, std::to_string(extra) + " unexpected bytes after the filter"});
            // A stream is read up to the end of the filter, and what follows is left in it.
            std::istringstream stream(as_string(longer));
            expect_same_filter(bloomkit::load<TypeParam>(stream), s);
            EXPECT_EQ(from_string(std::string(std::istreambuf_iterator<char>(stream), {})), trailer);
            pipe_buf pipe(longer);
            std::istream from_pipe(&pipe);
            expect_holds_same_filter(bloomkit::load<any_filter>(from_pipe), s);
            EXPECT_EQ(pipe.unread(), trailer);
        }
    }
}

TYPED_TEST(Bkf, ForeignBytesAreNotABloomkitFilter) {
    const bytes good = saved_bytes(this->dir_, samples<TypeParam>().front().filter);
    {
        bytes other = good;
        std::memcpy(other.data(), "BLOOMKIT", 8);
        expect_every_reader_rejects<TypeParam>(this->dir_, other, {format_errc::bad_magic, "not a bloomkit filter"});
    }
    // Short, and not a prefix of the signature.
    expect_every_reader_rejects<TypeParam>(this->dir_, from_string("hello"),
                                           {format_errc::bad_magic, "not a bloomkit filter"});
    {
        // What an FTP text-mode transfer does to a file: every CR LF becomes LF.
        bytes mangled;
        for (std::size_t i = 0; i < good.size(); ++i)
            if (!(good[i] == '\r' && i + 1 < good.size() && good[i + 1] == '\n')) mangled.push_back(good[i]);
        ASSERT_LT(mangled.size(), good.size());
        expect_every_reader_rejects<TypeParam>(this->dir_, mangled, {format_errc::bad_magic, ""});
    }
}

TYPED_TEST(Bkf, OtherFormatVersionsAreUnsupported) {
    const bytes good = saved_bytes(this->dir_, samples<TypeParam>().front().filter);
    for (const std::uint64_t version : {3, 4, 0xffff}) {
        SCOPED_TRACE("version " + std::to_string(version));
        bytes newer = good;
        put_le(newer, field::version, version, 2);
        reseal(newer);
        expect_every_reader_rejects<TypeParam>(this->dir_, newer, {format_errc::unsupported_version, "upgrade"});
        expect_files_and_buffers_reject<TypeParam>(
            this->dir_, newer,
            {format_errc::unsupported_version,
             "written in file format version " + std::to_string(version) + "; this bloomkit reads versions 1 to 2"});
    }

    bytes older = good;
    put_le(older, field::version, 0, 2);
    reseal(older);
    expect_every_reader_rejects<TypeParam>(this->dir_, older, {format_errc::unsupported_version, "version 0"});
    try {
        (void)bloomkit::from_bytes<TypeParam>(as_span(older));
    } catch (const bloomkit::file_format_error& e) {
        EXPECT_FALSE(mentions(e.what(), "upgrade")) << "an older version needs no upgrade";
    }
}

// --- Version 1 files, and updates in place

TYPED_TEST(Bkf, Version1FilesStillLoadAndAnswerAsBefore) {
    // A version 1 file (hash 1 or 2, the payload's checksum at 88, no chunk table) of each sample
    // a version 1 file can hold: every reader opens it as the same filter, and saved again it is
    // the version 2 file of that filter, hash algorithm kept.
    std::size_t tried = 0;
    for (const auto& s : samples<TypeParam>()) {
        if (s.filter.hash_function().algorithm() == hash_algorithm::xxh3_mix ||
            s.filter.hash_function().algorithm() == hash_algorithm::xxh3_mum)
            continue;  // not in version 1
        SCOPED_TRACE(s.name);
        ++tried;
        const bytes v2 = saved_bytes(this->dir_, s.filter);
        const bytes v1 = to_version_1(v2);
        ASSERT_EQ(v1.size(), header_size + announced_payload(v2)) << "no chunk table";
        const auto path = this->dir_ / "version_1.bkf";
        write_bytes(path, v1);

        // The header: version 1, its checksum at 88, otherwise the version 2 file's.
        const file_header h = bloomkit::read_header(path);
        EXPECT_EQ(h.version, 1U);
        EXPECT_EQ(h.hash, s.filter.hash_function().algorithm());
        EXPECT_EQ(h.payload_checksum, XXH3_64bits(v1.data() + header_size, v1.size() - header_size));
        EXPECT_EQ(h.flags, 0U);
        file_header expected = bloomkit::read_header(as_span(v2));
        expected.version = 1;
        expected.payload_checksum = h.payload_checksum;
        expected.chunk_shift = h.chunk_shift;  // no such field in version 1
        expect_same_header(h, expected, true);
        expect_same_header(bloomkit::read_header(as_span(v1)), expected, true);

        // Every reader: the same filter, the same answers.
        expect_same_filter(bloomkit::load<TypeParam>(path), s);
        expect_holds_same_filter(bloomkit::load<any_filter>(path), s);
        {
            const auto mapped = bloomkit::map<TypeParam>(path);
            expect_same_filter(mapped.filter(), s);
            EXPECT_EQ(mapped.header().version, 1U);
            EXPECT_NO_THROW(mapped.verify());
            const auto mapped_any = bloomkit::map<any_filter>(path);
            expect_holds_same_filter(*mapped_any, s);
            EXPECT_NO_THROW(mapped_any.verify());
        }
        expect_same_filter(bloomkit::from_bytes<TypeParam>(as_span(v1)), s);
        expect_holds_same_filter(bloomkit::from_bytes<any_filter>(as_span(v1)), s);
        {
            // A stream of a version 1 filter, then a version 2 one: each read to its own end.
            std::istringstream stream(as_string(concatenated(concatenated(v1, v2), from_string("tail"))));
            expect_same_filter(bloomkit::load<TypeParam>(stream), s);
            expect_holds_same_filter(bloomkit::load<any_filter>(stream), s);
            EXPECT_EQ(std::string(std::istreambuf_iterator<char>(stream), {}), "tail");
            pipe_buf pipe(concatenated(v1, from_string("tail")));
            std::istream from_pipe(&pipe);
            expect_same_filter(bloomkit::load<TypeParam>(from_pipe), s);
            EXPECT_EQ(as_string(pipe.unread()), "tail");
        }

        // Saved again: version 2, the same hash code, exactly the version 2 file.
        const auto again = this->dir_ / "again.bkf";
        bloomkit::save(bloomkit::load<TypeParam>(path), again);
        EXPECT_EQ(read_bytes(again), v2);
        EXPECT_EQ(read_bytes(again).at(field::hash), static_cast<unsigned>(s.filter.hash_function().algorithm()));
        bloomkit::save(bloomkit::map<TypeParam>(path).filter(), again);
        EXPECT_EQ(read_bytes(again), v2);
        EXPECT_EQ(from_library(bloomkit::to_bytes(bloomkit::from_bytes<TypeParam>(as_span(v1)))), v2);
        const file_header resaved = bloomkit::header_of(bloomkit::load<TypeParam>(path));
        EXPECT_EQ(resaved.version, 2U);
        EXPECT_EQ(resaved.hash, s.filter.hash_function().algorithm());

        // And it keeps working: modified after a load, it answers as the original modified alike.
        auto loaded = bloomkit::load<TypeParam>(path);
        auto original = s.filter;
        EXPECT_EQ(TestFixture::traits::modify(loaded, s), TestFixture::traits::modify(original, s));
        EXPECT_TRUE(loaded == original);
    }
    EXPECT_GE(tried, 1U) << "no sample hashes as a version 1 file can";
}

TYPED_TEST(Bkf, Version1FilesAreCheckedAsVersion1) {
    const sample<TypeParam>& s = version_1_sample<TypeParam>();
    const bytes v1 = to_version_1(saved_bytes(this->dir_, s.filter));
    {
        SCOPED_TRACE("hash 3: version 2's");
        bytes forged = v1;
        forged[field::hash] = 3;
        reseal(forged);
        expect_every_reader_rejects<TypeParam>(this->dir_, forged, {format_errc::invalid_field, "unknown hash algorithm 3"});
    }
    {
        SCOPED_TRACE("the interrupted-update flag: a reserved byte in version 1");
        bytes forged = v1;
        put_le(forged, field::flags, flag::interrupted_update, 4);
        reseal(forged);
        expect_every_reader_rejects<TypeParam>(this->dir_, forged, {format_errc::invalid_field, "reserved byte 112"});
    }
    {
        SCOPED_TRACE("a damaged payload");
        bytes damaged = v1;
        if (damaged.size() > header_size) {
            damaged.back() ^= 0x02;
            expect_every_reader_rejects<TypeParam>(this->dir_, damaged,
                                                   {format_errc::payload_checksum, "payload checksum mismatch",
                                                    caught::by_payload_checksum});
        }
    }
    {
        SCOPED_TRACE("cut short");
        for (const std::size_t length : {header_size - 1, v1.size() - 1}) {
            const bytes cut(v1.begin(), v1.begin() + static_cast<std::ptrdiff_t>(length));
            expect_every_reader_rejects<TypeParam>(this->dir_, cut, {format_errc::truncated, "truncated"});
        }
    }
}

TYPED_TEST(Bkf, InterruptedUpdateIsReportedButTheMapOpens) {
    // Flags bit 0: an update in place began and did not finish. Loading (file, buffer, stream)
    // and verify() say so (interrupted_update, before any checksum); read_header and map open it.
    const rejection interrupted{format_errc::interrupted_update, "an update in place was interrupted",
                                caught::by_payload_checksum};
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        bytes flagged = saved_bytes(this->dir_, s.filter);
        put_le(flagged, field::flags, flag::interrupted_update, 4);
        reseal(flagged);
        EXPECT_EQ(bloomkit::read_header(as_span(flagged)).flags, flag::interrupted_update);
        expect_every_reader_rejects<TypeParam>(this->dir_, flagged, interrupted);

        // The map answers from the payload as it is (every key the file held before).
        const auto path = this->dir_ / "flagged.bkf";
        write_bytes(path, flagged);
        {
            const auto mapped = bloomkit::map<TypeParam>(path);
            EXPECT_EQ(mapped.header().flags, flag::interrupted_update);
            expect_same_filter(mapped.filter(), s);
            expect_format_error("verify()", path.string(), format_errc::interrupted_update, {"bloomkit add"},
                                [&] { mapped.verify(); });
        }

        // Half an update: some payload bits added, the chunk checksums not yet rewritten. Still
        // an interrupted update, not a damaged file.
        const std::size_t payload = announced_payload(flagged);
        if (payload == 0) continue;
        bytes half = flagged;
        half.at(header_size + payload / 2) |= 0x41;
        if (half == flagged) half.at(header_size + payload / 2) ^= 0x08;
        expect_every_reader_rejects<TypeParam>(this->dir_, half, interrupted);

        // Without the flag, the same bytes are a damaged file: the checksums no longer vouch.
        bytes unflagged = half;
        put_le(unflagged, field::flags, 0, 4);
        reseal(unflagged);
        expect_every_reader_rejects<TypeParam>(
            this->dir_, unflagged,
            {format_errc::payload_checksum, "payload checksum mismatch in chunk 0", caught::by_payload_checksum});
    }
}

// --- The wrong kind

TYPED_TEST(Bkf, EveryOtherTypeIsTheWrongKind) {
    // Each sample (the empty fuse filter, which has no fingerprints at all, knows its variant
    // too) opened as every type: wrong_kind unless it is its own, by every reader.
    using Stored = TypeParam;
    for (const auto& s : samples<Stored>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->saved(s);
        const std::string file = path.string();
        const bytes data = read_bytes(path);
        bloomkit::for_each_filter_type([&]<class Asked>(std::type_identity<Asked>) {
            SCOPED_TRACE("a " + kind_of<Stored>::display_name() + " opened as a " + kind_of<Asked>::display_name());
            const auto from_stream = [&] {
                std::istringstream stream(as_string(data));
                return bloomkit::load<Asked>(stream, "the stream");
            };
            if constexpr (std::is_same_v<Stored, Asked>) {
                EXPECT_NO_THROW((void)bloomkit::load<Asked>(path));
                EXPECT_NO_THROW((void)bloomkit::map<Asked>(path));
                EXPECT_NO_THROW((void)bloomkit::from_bytes<Asked>(as_span(data)));
                EXPECT_NO_THROW((void)from_stream());
            } else {
                const std::vector<std::string> parts = {"holds a " + kind_of<Stored>::display_name(),
                                                        "not a " + kind_of<Asked>::display_name()};
                const auto wrong = format_errc::wrong_kind;
                expect_format_error("load", file, wrong, parts, [&] { (void)bloomkit::load<Asked>(path); });
                expect_format_error("map", file, wrong, parts, [&] { (void)bloomkit::map<Asked>(path); });
                expect_format_error("from_bytes", "the buffer", wrong, parts,
                                    [&] { (void)bloomkit::from_bytes<Asked>(as_span(data), "the buffer"); });
                expect_format_error("load(stream)", "the stream", wrong, parts, [&] { (void)from_stream(); });
            }
        });
    }
}

// --- Operating-system errors

TYPED_TEST(Bkf, MissingFileIsAnIoErrorNamingIt) {
    const auto path = this->dir_ / "no-such-filter.bkf";
    const auto path_name = path.string();
    const auto missing = std::errc::no_such_file_or_directory;
    expect_io_error("load", path_name, missing, [&] { (void)bloomkit::load<TypeParam>(path); });
    expect_io_error("map", path_name, missing, [&] { (void)bloomkit::map<TypeParam>(path); });
    expect_io_error("load<any_filter>", path_name, missing, [&] { (void)bloomkit::load<any_filter>(path); });
    expect_io_error("map<any_filter>", path_name, missing, [&] { (void)bloomkit::map<any_filter>(path); });
    expect_io_error("load_any", path_name, missing, [&] { (void)bloomkit::load_any(path); });
    expect_io_error("map_any", path_name, missing, [&] { (void)bloomkit::map_any(path); });
    expect_io_error("read_header", path_name, missing, [&] { (void)bloomkit::read_header(path); });
}

TYPED_TEST(Bkf, DirectoryIsAnIoError) {
    const auto& path = this->dir_.path();
    const auto path_name = path.string();
    const auto is_directory = std::errc::is_a_directory;
    expect_io_error("load", path_name, is_directory, [&] { (void)bloomkit::load<TypeParam>(path); });
    expect_io_error("map", path_name, is_directory, [&] { (void)bloomkit::map<TypeParam>(path); });
    expect_io_error("load<any_filter>", path_name, is_directory, [&] { (void)bloomkit::load<any_filter>(path); });
    expect_io_error("map<any_filter>", path_name, is_directory, [&] { (void)bloomkit::map<any_filter>(path); });
    expect_io_error("read_header", path_name, is_directory, [&] { (void)bloomkit::read_header(path); });
}

TYPED_TEST(Bkf, SaveIntoAMissingDirectoryFailsAndCreatesNothing) {
    const auto existing = this->saved(samples<TypeParam>().front());
    const bytes before = read_bytes(existing);

    const auto missing_dir = this->dir_ / "no-such-dir";
    const auto path = missing_dir / "filter.bkf";
    expect_io_error("save", missing_dir.string(), std::errc::no_such_file_or_directory,
                    [&] { bloomkit::save(samples<TypeParam>().back().filter, path); });
    EXPECT_FALSE(fs::exists(missing_dir));
    EXPECT_EQ(this->dir_.entries(), std::vector<std::string>{"filter.bkf"});
    EXPECT_EQ(read_bytes(existing), before);
}

TYPED_TEST(Bkf, FailedReplaceLeavesTheDestinationAndNoTemporary) {
    // A directory where the file should go: rename() could not put a file over it, and the save
    // must fail, leaving the directory as it was and no temporary file.
    const auto path = this->dir_ / "filter.bkf";
    fs::create_directory(path);
    write_bytes(path / "inside", {'x'});

    expect_io_error("save", path.string(), std::errc::is_a_directory,
                    [&] { bloomkit::save(samples<TypeParam>().front().filter, path); });
    EXPECT_TRUE(fs::is_directory(path));
    EXPECT_EQ(read_bytes(path / "inside"), bytes{'x'});
    EXPECT_EQ(this->dir_.entries(), std::vector<std::string>{"filter.bkf"});
}

TYPED_TEST(Bkf, FailedWriteLeavesTheDestinationAndNoTemporary) {
    // The save fails after its temporary file was partly written (here the file size limit
    // stops it inside the payload): the destination keeps its old contents, and the temporary
    // file is gone.
    const auto& first = samples<TypeParam>().front();
    const auto path = this->saved(samples<TypeParam>().back());
    const bytes before = read_bytes(path);
    ASSERT_GT(first.filter.size_in_bytes(), 1U);
    std::exception_ptr failure;  // checked once the limit is lifted: GoogleTest's output may be a file too
    {
        const file_size_limit limit(header_size + 1);
        try {
            bloomkit::save(first.filter, path);
        } catch (...) {
            failure = std::current_exception();
        }
    }
    expect_io_error("save", path.string(), std::errc::file_too_large, [&] {
        if (failure) std::rethrow_exception(failure);
    });
    EXPECT_EQ(read_bytes(path), before);
    EXPECT_EQ(this->dir_.entries(), std::vector<std::string>{"filter.bkf"});
}

TYPED_TEST(Bkf, BrokenStreamsAreIoErrors) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const bytes good = from_library(bloomkit::to_bytes(s.filter));
        for (const std::size_t room : {std::size_t{0}, good.size() - 1}) {
            SCOPED_TRACE("a device that takes " + std::to_string(room) + " bytes");
            broken_buf device(room);
            std::ostream out(&device);
            expect_io_error("save", "cannot write the stream", std::nullopt, [&] { bloomkit::save(s.filter, out); });
            broken_buf reading(0, good, room);
            std::istream in(&reading);
            expect_io_error("load", "cannot read the stream", std::nullopt,
                            [&] { (void)bloomkit::load<TypeParam>(in); });
        }
    }
}

// --- The documented example ------------------------------------------------------------------

bytes from_hex(std::string_view hex) {
    bytes out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
        out.push_back(static_cast<unsigned char>(std::stoul(std::string(hex.substr(i, 2)), nullptr, 16)));
    return out;
}

/// docs/FORMAT.md, "An annotated example": a block filter sized for 10 keys at 1% holding apple,
/// banana and cherry, as `printf 'apple\nbanana\ncherry\n' | bloomkit build -n 10 -p 0.01 -o -`
/// writes it: version 2, hash 4 (xxh3-mum), then the payload and its chunk table.
bytes documented_example() {
    return from_hex(  // the rows of the xxd listing
        "89424c4d0d0a1a0a0200800001000204"
        "00000000000000000002000000000000"
        "06000000000200000a00000000000000"
        "7b14ae47e17a843f0300000000000000"
        "12000000000000008000000000000000"
        "40000000000000000000000000000000"
        "00000000000000000000000000000000"
        "00000000100000001fb854bce417cc4b"
        "00000000000000000000000010000000"
        "00004000000000000002000000200000"
        "002000000200901c0000000000000000"
        "00000010000000000000000050080504"
        "a7e8552098357b497e3a53ab059c95c6");
}

/// The same filter as bloomkit 0.1 wrote it (and FORMAT.md documented it): version 1, hash 1
/// (XXH3-128), the payload's checksum at 88, no chunk table.
bytes documented_version_1_example() {
    return from_hex(
        "89424c4d0d0a1a0a0100800001000201"
        "00000000000000000002000000000000"
        "06000000000200000a00000000000000"
        "7b14ae47e17a843f0300000000000000"
        "12000000000000008000000000000000"
        "4000000000000000a7e8552098357b49"
        "00000000000000000000000000000000"
        "0000000000000000c948e116386a461c"
        "00000000000000000000000010000000"
        "00004000000000000002000000200000"
        "002000000200901c0000000000000000"
        "00000010000000000000000050080504");
}

const std::vector<std::string>& fruit() {
    static const std::vector<std::string> keys = {"apple", "banana", "cherry"};
    return keys;
}

TEST(KnownAnswer, TheFormatDocumentsExampleByteForByte) {
    const bytes documented = documented_example();
    ASSERT_EQ(documented.size(), header_size + 64 + 8 + 8);  // one chunk: its checksum, the table's

    bloomkit::block_bloom_filter filter(10, 0.01);
    for (const std::string& key : fruit()) filter.insert(key);
    EXPECT_EQ(filter.hash_function().algorithm(), hash_algorithm::xxh3_mum);
    EXPECT_EQ(from_library(bloomkit::to_bytes(filter)), documented);

    // The annotations: payload checksum 0, flags 0, chunk shift 16, the chunk table.
    EXPECT_EQ(get_le(documented, field::version, 2), 2U);
    EXPECT_EQ(documented[field::hash], 4U);
    EXPECT_EQ(get_le(documented, field::payload_checksum, 8), 0U);
    EXPECT_EQ(get_le(documented, field::flags, 4), 0U);
    EXPECT_EQ(get_le(documented, field::chunk_shift, 4), 16U);
    EXPECT_EQ(get_le(documented, field::header_checksum, 8), 0x4bcc17e4bc54b81fULL);
    EXPECT_EQ(get_le(documented, header_size + 64, 8), 0x497b35982055e8a7ULL);
    EXPECT_EQ(get_le(documented, header_size + 64, 8), XXH3_64bits(documented.data() + header_size, 64));
    EXPECT_EQ(get_le(documented, header_size + 72, 8), 0xc6959c05ab533a7eULL);
    EXPECT_EQ(get_le(documented, header_size + 72, 8), XXH3_64bits(documented.data() + header_size + 64, 8));

    const auto loaded = bloomkit::from_bytes<bloomkit::block_bloom_filter>(as_span(documented));
    EXPECT_TRUE(loaded == filter);
    for (const std::string& key : fruit()) EXPECT_TRUE(loaded.contains(key)) << key;
    EXPECT_EQ(loaded.set_bit_count(), 18U);
    EXPECT_EQ(loaded.hash_function().algorithm(), hash_algorithm::xxh3_mum);
}

TEST(KnownAnswer, TheVersion1ExampleStillLoadsAndAnswersAsBefore) {
    // A file bloomkit 0.1 wrote, byte for byte.
    const bytes v1 = documented_version_1_example();
    ASSERT_EQ(v1.size(), header_size + 64);
    const file_header h = bloomkit::read_header(as_span(v1));
    EXPECT_EQ(h.version, 1U);
    EXPECT_EQ(h.hash, hash_algorithm::xxh3_128);
    EXPECT_EQ(h.payload_checksum, 0x497b35982055e8a7ULL);
    EXPECT_EQ(h.flags, 0U);

    bloomkit::block_bloom_filter legacy(10, 0.01, {.hash = hash_algorithm::xxh3_128});
    for (const std::string& key : fruit()) legacy.insert(key);
    const auto loaded = bloomkit::from_bytes<bloomkit::block_bloom_filter>(as_span(v1));
    EXPECT_TRUE(loaded == legacy);
    EXPECT_EQ(loaded.hash_function().algorithm(), hash_algorithm::xxh3_128) << "its hash algorithm is kept";
    for (const std::string& key : fruit()) EXPECT_TRUE(loaded.contains(key)) << key;
    EXPECT_EQ(loaded.set_bit_count(), 18U);
    // The tests' conversion (to_version_1) makes exactly what bloomkit 0.1 wrote.
    EXPECT_EQ(to_version_1(from_library(bloomkit::to_bytes(legacy))), v1);

    // Saved again, it is a version 2 file that keeps hash 1. Byte keys hash alike under codes 1,
    // 3 and 4, so its payload and chunk table are the version 2 example's.
    const bytes again = from_library(bloomkit::to_bytes(loaded));
    const bytes v2 = documented_example();
    ASSERT_EQ(again.size(), v2.size());
    EXPECT_EQ(get_le(again, field::version, 2), 2U);
    EXPECT_EQ(again[field::hash], 1U);
    EXPECT_EQ(get_le(again, field::payload_checksum, 8), 0U);
    EXPECT_TRUE(std::equal(again.begin() + header_size, again.end(), v2.begin() + header_size));
    bytes relabelled = again;  // the one difference in the header
    relabelled[field::hash] = 4;
    reseal(relabelled);
    EXPECT_EQ(relabelled, v2);
}

// --- Payloads of several chunks ----------------------------------------------------------------

/// A block filter of 200,000 keys: about 240 KB of payload, four 64 KiB chunks and a shorter one.
const sample<bloomkit::block_bloom_filter>& large_sample() {
    static const auto made = filled("large", bloomkit::block_bloom_filter(200'000, 0.01), key_range(0, 200'000));
    return made;
}

class MultiChunk : public ::testing::Test {
protected:
    temp_dir dir_;
};

TEST_F(MultiChunk, EveryChunkHasItsChecksumInTheTable) {
    using B = bloomkit::block_bloom_filter;
    const auto& s = large_sample();
    const bytes good = saved_bytes(dir_, s.filter);
    const std::size_t payload = announced_payload(good);
    const std::size_t chunk = std::size_t{1} << default_chunk_shift;
    const std::size_t chunks = chunk_count(payload);
    ASSERT_EQ(payload, s.filter.size_in_bytes());
    ASSERT_GE(chunks, 3U);
    ASSERT_NE(payload % chunk, 0U) << "the last chunk is meant to be shorter";
    ASSERT_EQ(good.size(), header_size + payload + 8 * chunks + 8);
    for (std::size_t i = 0; i < chunks; ++i) {
        SCOPED_TRACE("chunk " + std::to_string(i));
        const std::size_t size = std::min(chunk, payload - i * chunk);
        EXPECT_EQ(get_le(good, header_size + payload + 8 * i, 8), XXH3_64bits(good.data() + header_size + i * chunk, size));
    }
    EXPECT_EQ(get_le(good, good.size() - 8, 8), XXH3_64bits(good.data() + header_size + payload, 8 * chunks));

    // Every reader takes it whole.
    const auto path = dir_ / "large.bkf";
    write_bytes(path, good);
    expect_same_filter(bloomkit::load<B>(path), s);
    {
        const auto mapped = bloomkit::map<B>(path);
        expect_same_filter(mapped.filter(), s);
        EXPECT_NO_THROW(mapped.verify());
    }
    expect_same_filter(bloomkit::from_bytes<B>(as_span(good)), s);
    std::istringstream stream(as_string(concatenated(good, from_string("tail"))));
    expect_same_filter(bloomkit::load<B>(stream), s);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(stream), {}), "tail");
}

TEST_F(MultiChunk, ADamagedChunkIsNamed) {
    using B = bloomkit::block_bloom_filter;
    const bytes good = saved_bytes(dir_, large_sample().filter);
    const std::size_t payload = announced_payload(good);
    const std::size_t chunk = std::size_t{1} << default_chunk_shift;
    const std::size_t chunks = chunk_count(payload);
    const auto named = [&](std::size_t i) {
        const std::size_t from = header_size + i * chunk, to = header_size + std::min(payload, (i + 1) * chunk);
        return "payload checksum mismatch in chunk " + std::to_string(i) + " of " + std::to_string(chunks) + " (bytes " +
               std::to_string(from) + " to " + std::to_string(to) + ")";
    };
    ASSERT_EQ(named(1), "payload checksum mismatch in chunk 1 of " + std::to_string(chunks) + " (bytes 65664 to 131200)");
    // A byte flipped in the second chunk, at its edges, and in the last (shorter) chunk.
    const std::vector<std::pair<std::size_t, std::size_t>> flips = {
        {header_size + chunk + 1000, 1}, {header_size + chunk, 1},           {header_size + 2 * chunk - 1, 1},
        {header_size + chunk - 1, 0},    {header_size + payload - 1, chunks - 1}};
    for (const auto& [at, in_chunk] : flips) {
        SCOPED_TRACE("byte " + std::to_string(at));
        bytes damaged = good;
        damaged.at(at) ^= 0x04;
        expect_every_reader_rejects<B>(dir_, damaged,
                                       {format_errc::payload_checksum, named(in_chunk), caught::by_payload_checksum});
    }
    {
        SCOPED_TRACE("chunk 2's checksum, the table's recomputed");
        bytes damaged = good;
        const std::size_t entry = header_size + payload + 8 * 2;
        put_le(damaged, entry, get_le(damaged, entry, 8) ^ 1, 8);
        put_le(damaged, damaged.size() - 8, XXH3_64bits(damaged.data() + header_size + payload, 8 * chunks), 8);
        expect_every_reader_rejects<B>(dir_, damaged,
                                       {format_errc::payload_checksum, named(2), caught::by_payload_checksum});
    }
    {
        SCOPED_TRACE("chunk 3's checksum alone");
        bytes damaged = good;
        damaged.at(header_size + payload + 8 * 3) ^= 0x01;
        expect_every_reader_rejects<B>(dir_, damaged,
                                       {format_errc::payload_checksum, "the chunk table does not match its checksum",
                                        caught::by_payload_checksum});
    }
    // Cut inside the chunk table: truncated, whatever reads it.
    for (const std::size_t length : {header_size + payload, header_size + payload + 8 * chunks, good.size() - 1}) {
        SCOPED_TRACE("length " + std::to_string(length));
        const bytes cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(length));
        expect_every_reader_rejects<B>(dir_, cut, {format_errc::truncated, "truncated"});
    }
}

TEST_F(MultiChunk, OtherChunkSizesAreRead) {
    // Chunks of 2^12 to 2^30 bytes are read (the header says which); bloomkit writes 2^16.
    using B = bloomkit::block_bloom_filter;
    const auto& s = large_sample();
    const bytes good = saved_bytes(dir_, s.filter);
    const std::size_t payload = announced_payload(good);
    for (const std::uint32_t shift : {12U, 13U, 17U, 18U, 30U}) {
        SCOPED_TRACE("chunks of 2^" + std::to_string(shift));
        const bytes file = rechunked(good, shift);
        ASSERT_EQ(file.size(), header_size + payload + trailer_size(payload, shift));
        const auto path = dir_ / "rechunked.bkf";
        write_bytes(path, file);
        EXPECT_EQ(bloomkit::read_header(path).chunk_shift, shift);
        const auto loaded = bloomkit::load<B>(path);
        expect_same_filter(loaded, s);
        {
            const auto mapped = bloomkit::map<B>(path);
            EXPECT_EQ(mapped.header().chunk_shift, shift);
            EXPECT_NO_THROW(mapped.verify());
        }
        expect_same_filter(bloomkit::from_bytes<B>(as_span(file)), s);
        std::istringstream stream(as_string(concatenated(file, good)));
        expect_same_filter(bloomkit::load<B>(stream), s);
        expect_same_filter(bloomkit::load<B>(stream), s);
        // Saved again, in the default chunks.
        EXPECT_EQ(from_library(bloomkit::to_bytes(loaded)), good);
    }
    {
        // In chunks of 4 KiB, a flipped byte at 100,000 bytes into the payload is in chunk 24.
        const bytes file = rechunked(good, 12);
        bytes damaged = file;
        damaged.at(header_size + 100'000) ^= 0x20;
        expect_every_reader_rejects<B>(
            dir_, damaged,
            {format_errc::payload_checksum,
             "payload checksum mismatch in chunk 24 of " + std::to_string(chunk_count(payload, 12)) + " (bytes " +
                 std::to_string(header_size + 24 * 4096) + " to " + std::to_string(header_size + 25 * 4096) + ")",
             caught::by_payload_checksum});
    }
    // A table of other chunks than the header says: the file's size gives it away.
    bytes mislabelled = good;
    put_le(mislabelled, field::chunk_shift, 12, 4);
    reseal(mislabelled);
    expect_every_reader_rejects<B>(dir_, mislabelled, {format_errc::truncated, "truncated"});
    put_le(mislabelled, field::chunk_shift, 18, 4);  // fewer chunks: the file is longer than that
    reseal(mislabelled);
    expect_files_and_buffers_reject<B>(dir_, mislabelled, {format_errc::invalid_field, "unexpected bytes after the filter"});
}

// --- Version 1's integer keys ----------------------------------------------------------------------

TEST(Version1, IntegerKeysKeepTheirOwnWidth) {
    // Version 1 hashed an integer as its bytes in its own width (hash 1, and 2 as Parquet does):
    // 7 as an int32 and 7 as a uint64 were different keys. A version 1 file keeps its hash
    // algorithm when loaded, so it answers exactly as it did; a filter of the default hash
    // (version 2's) takes a value whatever its width.
    const auto check = [](auto legacy) {
        using Filter = decltype(legacy);
        for (std::int32_t k = -250; k < 250; ++k) legacy.insert(k);
        for (const std::string& key : fruit()) legacy.insert(key);
        const bytes v1 = to_version_1(from_library(bloomkit::to_bytes(legacy)));
        ASSERT_EQ(get_le(v1, field::version, 2), 1U);
        for (const Filter& loaded :
             {bloomkit::from_bytes<Filter>(as_span(v1)), std::get<Filter>(bloomkit::from_bytes<any_filter>(as_span(v1)))}) {
            EXPECT_TRUE(loaded == legacy);
            EXPECT_EQ(loaded.hash_function(), legacy.hash_function());
            std::uint64_t as_int32 = 0, as_int64 = 0, as_uint16 = 0;
            for (std::int32_t k = -250; k < 250; ++k) {
                as_int32 += loaded.contains(k) ? 1 : 0;
                as_int64 += loaded.contains(std::int64_t{k}) ? 1 : 0;
                as_uint16 += loaded.contains(static_cast<std::int16_t>(k)) ? 1 : 0;
                EXPECT_EQ(loaded.contains(std::int64_t{k}), legacy.contains(std::int64_t{k})) << k;
            }
            EXPECT_EQ(as_int32, 500U) << "every key as it was inserted";
            EXPECT_LT(as_int64, 50U) << "the same values, 8 bytes wide, are other keys (false positives only)";
            EXPECT_LT(as_uint16, 50U) << "and 2 bytes wide too";
            for (const std::string& key : fruit()) EXPECT_TRUE(loaded.contains(key)) << key;
        }
    };
    check(bloomkit::block_bloom_filter(1000, 0.01, {.hash = hash_algorithm::xxh3_128}));
    check(bloomkit::classic_bloom_filter(1000, 0.01, {.hash = hash_algorithm::xxh3_128}));
    check(bloomkit::split_block_bloom_filter(1000, 0.01));  // xxh64, Parquet's
    check(bloomkit::block_bloom_filter(1000, 0.01, {.seed = 99, .hash = hash_algorithm::xxh64}));

    // Version 2's default: a value is one key, whatever its width.
    bloomkit::block_bloom_filter current(1000, 0.01);
    for (std::int32_t k = -250; k < 250; ++k) current.insert(k);
    const auto loaded = bloomkit::from_bytes<bloomkit::block_bloom_filter>(bloomkit::to_bytes(current));
    for (std::int32_t k = -250; k < 250; ++k) {
        EXPECT_TRUE(loaded.contains(std::int64_t{k})) << k;
        EXPECT_TRUE(loaded.contains(static_cast<std::int16_t>(k))) << k;
    }
}

// --- Forged headers: every kind's fields, one at a time ---------------------------------------

struct forgery {
    std::string name;
    std::function<bytes(const temp_dir&)> valid;  // the bytes of the valid file to forge
    std::function<void(bytes&)> change;           // the forgery; the header checksum is recomputed after it
    rejection expected;
    std::function<void(const temp_dir&, const bytes&, const rejection&)> expect;
};

std::ostream& operator<<(std::ostream& os, const forgery& f) { return os << f.name; }

/// A forgery of Filter's sample `from` (the first if empty), rejected as `expected` says by every
/// reader of a Filter.
template <class Filter>
forgery forge(std::string name, std::function<void(bytes&)> change, rejection expected, std::string from = {}) {
    forgery f;
    f.name = kind_of<Filter>::test_name() + "_" + std::move(name);
    f.valid = [from = std::move(from)](const temp_dir& dir) {
        return saved_bytes(dir, from.empty() ? samples<Filter>().front().filter : sample_named<Filter>(from).filter);
    };
    f.change = std::move(change);
    f.expected = std::move(expected);
    f.expect = &expect_every_reader_rejects<Filter>;
    return f;
}

/// A forgery of a version 1 file (version_1_sample, as bloomkit 0.1 wrote it).
template <class Filter>
forgery forge_v1(std::string name, std::function<void(bytes&)> change, rejection expected) {
    forgery f = forge<Filter>("v1_" + std::move(name), std::move(change), std::move(expected));
    f.valid = [](const temp_dir& dir) { return to_version_1(saved_bytes(dir, version_1_sample<Filter>().filter)); };
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
/// Sets a field of scalable stage `stage`'s table entry (in the payload, whose checksum is
/// recomputed too).
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
constexpr auto truncated = format_errc::truncated;
constexpr auto assembly = caught::by_assembly;
const double not_a_number = std::numeric_limits<double>::quiet_NaN();

/// The kind-independent fields, and the Bloom filters' own.
std::vector<forgery> bloom_forgeries() {
    using B = bloomkit::block_bloom_filter;
    using S = bloomkit::split_block_bloom_filter;
    using C = bloomkit::classic_bloom_filter;
    namespace b = bloom_field;
    const auto target = [](double fpr) { return set_double(field::target_fpr, fpr); };
    return {
        forge<B>("unknown_kind", set(field::kind, 6, 2), {invalid, "unknown filter kind 6"}),
        forge<B>("kind_zero", set(field::kind, 0, 2), {invalid, "unknown filter kind 0"}),
        forge<B>("relabelled_counting", set(field::kind, 2, 2), {invalid, "unknown counting Bloom filter layout"}),
        forge<B>("hash_0", set(field::hash, 0, 1), {invalid, "unknown hash algorithm 0"}),
        forge<B>("hash_5", set(field::hash, 5, 1), {invalid, "unknown hash algorithm 5"}),  // 4 is the default
        forge<B>("hash_255", set(field::hash, 255, 1), {invalid, "unknown hash algorithm 255"}),
        forge<B>("header_size_64", set(field::header_size, 64, 2), {invalid, "header size is 64"}),
        forge<B>("target_fpr_1_5", target(1.5), {invalid, "target false-positive rate"}),
        forge<B>("target_fpr_1", target(1.0), {invalid, "target false-positive rate"}),
        forge<B>("target_fpr_negative", target(-0.25), {invalid, "target false-positive rate"}),
        forge<B>("target_fpr_NaN", target(not_a_number), {invalid, "target false-positive rate"}),
        forge<B>("payload_offset_64", set(field::payload_offset, 64, 8), {invalid, "payload offset 64"}),
        // Version 2's own fields: the payload checksum field kept 0, the flags, the chunk shift.
        forge<B>("payload_checksum_field_set", set(field::payload_checksum, 0x1234, 8),
                 {invalid, "payload checksum field is 4660"}),
        forge<B>("flags_2", set(field::flags, 2, 4), {invalid, "unknown flags 2"}),
        forge<B>("flags_3", set(field::flags, 3, 4), {invalid, "unknown flags 3"}),
        forge<B>("flags_high_bit", set(field::flags, 0x8000'0000, 4), {invalid, "unknown flags 2147483648"}),
        forge<B>("chunk_shift_11", set(field::chunk_shift, 11, 4), {invalid, "chunks of 2^11 bytes"}),
        forge<B>("chunk_shift_31", set(field::chunk_shift, 31, 4), {invalid, "chunks of 2^31 bytes"}),
        forge<B>("chunk_shift_0", set(field::chunk_shift, 0, 4), {invalid, "chunks of 2^0 bytes"}),
        forge<B>("chunk_shift_64", set(field::chunk_shift, 64, 4), {invalid, "chunks of 2^64 bytes"}),
        forge<B>("chunk_shift_max", set(field::chunk_shift, 0xffff'ffff, 4), {invalid, "chunks of 2^4294967295 bytes"}),
        // A version 2 file relabelled version 1: bytes 112..119 are reserved there, and the first
        // nonzero one is the chunk shift.
        forge<B>("relabelled_version_1", set(field::version, 1, 2), {invalid, "reserved byte 116"},
                 "explicit_geometry"),  // hash 1
        forge<B>("relabelled_version_1_hash_4", set(field::version, 1, 2), {invalid, "unknown hash algorithm 4"}),
        forge<B>("relabelled_version_1_hash_3", set(field::version, 1, 2), {invalid, "unknown hash algorithm 3"}, "xxh3_mix"),
        forge<B>("layout_0", set(b::layout, 0, 1), {invalid, "unknown Bloom filter layout 0"}),
        forge<B>("layout_4", set(b::layout, 4, 1), {invalid, "unknown Bloom filter layout 4"}),
        // A block file relabelled classic: the stored block size gives it away.
        forge<B>("relabelled_classic", set(b::layout, 1, 1), {invalid, "does not match the classic layout"}),
        forge<B>("bits_0", set(b::bits, 0, 8), {invalid, "at least one bit"}),
        forge<B>("bits_not_whole_blocks", set(b::bits, 512 * 10 + 64, 8), {invalid, "512-bit blocks"}),
        forge<B>("hashes_0", set(b::hashes, 0, 4), {invalid, "between 1 and 64, got 0"}),
        forge<B>("hashes_65", set(b::hashes, 65, 4), {invalid, "between 1 and 64, got 65"}),
        forge<B>("block_bits_256", set(b::block_bits, 256, 4), {invalid, "block size 256 bits"}),
        forge<B>("block_bits_0", set(b::block_bits, 0, 4), {invalid, "block size 0 bits"}),
        forge<B>("set_bits_beyond_bits", [](bytes& f) { put_le(f, b::set_bits, get_le(f, b::bits, 8) + 1, 8); },
                 {invalid, "bits set out of only"}),
        forge<B>("reserved_byte_96", set(96, 1, 1), {invalid, "reserved byte 96"}),
        forge<B>("reserved_byte_111", set(111, 0x80, 1), {invalid, "reserved byte 111"}),  // 112.. are the flags
        forge<B>("payload_size_too_big", add(field::payload_size, 64), {invalid, "payload size"}),
        forge<B>("payload_size_too_small", add(field::payload_size, -64), {invalid, "payload size"}),
        forge<B>("bits_changed_payload_size_not", set(b::bits, std::uint64_t{1} << 62, 8), {invalid, "payload size"}),
        // A consistent header announcing a 512 PiB payload the input does not have: a file or a
        // buffer is truncated from its size alone; a stream ends inside the payload. Had a reader
        // allocated the payload before finding that, this would be std::bad_alloc.
        forge<B>("huge_filter_short_file",
                 [](bytes& f) {
                     put_le(f, b::bits, std::uint64_t{1} << 62, 8);
                     put_le(f, field::payload_size, std::uint64_t{1} << 59, 8);
                 },
                 {truncated, "truncated"}),
        forge<S>("hashes_7", set(b::hashes, 7, 4), {invalid, "exactly 8 bits"}),
        forge<S>("hashes_9", set(b::hashes, 9, 4), {invalid, "exactly 8 bits"}),
        forge<S>("hashes_0", set(b::hashes, 0, 4), {invalid, "exactly 8 bits"}),
        forge<S>("bits_not_whole_blocks", set(b::bits, 256 * 10 + 128, 8), {invalid, "256-bit blocks"}),
        // For bits in [2^64 - 63, 2^64 - 1], (bits + 63) / 64 wraps to 0: a forged header claiming
        // such a filter with an empty payload must not be taken for a filter of zero words...
        forge<C>("bits_that_would_overflow_the_word_count",
                 [](bytes& f) {
                     put_le(f, b::bits, std::numeric_limits<std::uint64_t>::max(), 8);
                     put_le(f, b::set_bits, 0, 8);
                     put_le(f, field::payload_size, 0, 8);
                     reseal_payload(f);  // no payload: the chunk table is its checksum alone
                     EXPECT_EQ(f.size(), header_size + 8);
                 },
                 {invalid, "payload size"}),
        // ...and announcing the true size (2^61 bytes) instead, it is an input far too short.
        forge<C>("bits_2_64_minus_1_short_file",
                 [](bytes& f) {
                     f.resize(header_size);
                     put_le(f, b::bits, std::numeric_limits<std::uint64_t>::max(), 8);
                     put_le(f, b::set_bits, 0, 8);
                     put_le(f, field::payload_size, std::uint64_t{1} << 61, 8);
                 },
                 {truncated, "truncated"}),
    };
}

std::vector<forgery> counting_forgeries() {
    using F = bloomkit::counting_bloom_filter;
    namespace c = counting_field;
    return {
        forge<F>("counters_not_whole_blocks", add(c::counters, 64), {invalid, "a whole number of 128-counter blocks"}),
        forge<F>("counters_plus_one", add(c::counters, 1), {invalid, "a whole number of 128-counter blocks"}),
        forge<F>("counters_0", set(c::counters, 0, 8), {invalid, "needs at least one counter"}),
        forge<F>("counters_beyond_2_62", set(c::counters, (std::uint64_t{1} << 62) + 128, 8),
                 {invalid, "counters does not fit in 64-bit sizes"}),
        // 2^62 counters are 2^64 bits: too many as well (not "a block Bloom filter needs at
        // least one bit", which is 2^64 wrapped to 0).
        forge<F>("counters_2_62", set(c::counters, std::uint64_t{1} << 62, 8),
                 {invalid, "counters does not fit in 64-bit sizes"}),
        forge<F>("hashes_0", set(c::hashes, 0, 4), {invalid, "between 1 and 64, got 0"}),
        forge<F>("hashes_65", set(c::hashes, 65, 4), {invalid, "between 1 and 64, got 65"}),
        forge<F>("counter_bits_8", set(c::counter_bits, 8, 4), {invalid, "4-bit counters"}),
        forge<F>("counter_bits_0", set(c::counter_bits, 0, 4), {invalid, "4-bit counters"}),
        forge<F>("counters_per_block_64", set(c::counters_per_block, 64, 4), {invalid, "blocks of 128 4-bit counters"}),
        forge<F>("layout_2", set(c::layout, 2, 1), {invalid, "unknown counting Bloom filter layout"}),
        forge<F>("nonzero_beyond_counters", [](bytes& f) { put_le(f, c::nonzero, get_le(f, c::counters, 8) + 1, 8); },
                 {invalid, "nonzero counters out of only"}),
        forge<F>("reserved_byte_100", set(100, 1, 1), {invalid, "reserved byte 100"}),
        forge<F>("reserved_byte_111", set(111, 0x80, 1), {invalid, "reserved byte 111"}),
        forge<F>("payload_size_too_big", add(field::payload_size, 8), {invalid, "payload size"}),
        forge<F>("payload_size_too_small", add(field::payload_size, -8), {invalid, "payload size"}),
        forge<F>("counters_doubled_payload_not",
                 [](bytes& f) { put_le(f, c::counters, 2 * get_le(f, c::counters, 8), 8); }, {invalid, "payload size"}),
        // A consistent header announcing 2^60 bytes of counters the input does not have.
        forge<F>("huge_filter_short_file",
                 [](bytes& f) {
                     put_le(f, c::counters, std::uint64_t{1} << 61, 8);
                     put_le(f, field::payload_size, std::uint64_t{1} << 60, 8);
                 },
                 {truncated, "truncated"}),
    };
}

std::vector<forgery> cuckoo_forgeries() {
    using F = bloomkit::cuckoo_filter;
    namespace c = cuckoo_field;
    const std::string full = "full_with_stash";  // 8-bit fingerprints, the stash occupied
    return {
        forge<F>("fingerprint_bits_10", set(c::fingerprint_bits, 10, 4), {invalid, "8, 12 or 16 bits, not 10"}),
        forge<F>("fingerprint_bits_0", set(c::fingerprint_bits, 0, 4), {invalid, "8, 12 or 16 bits, not 0"}),
        forge<F>("fingerprint_bits_64", set(c::fingerprint_bits, 64, 4), {invalid, "8, 12 or 16 bits, not 64"}),
        forge<F>("buckets_0", set(c::buckets, 0, 8), {invalid, "1 to 2^58 buckets, not 0"}),
        forge<F>("buckets_beyond_2_58", set(c::buckets, (std::uint64_t{1} << 58) + 1, 8),
                 {invalid, "1 to 2^58 buckets, not 288230376151711745"}),
        forge<F>("bucket_size_8", set(c::bucket_size, 8, 4), {invalid, "buckets of 4 fingerprints"}),
        forge<F>("layout_1", set(c::layout, 1, 1), {invalid, "unknown cuckoo filter layout"}),
        forge<F>(
            "stash_bucket_is_bucket_count", [](bytes& f) { put_le(f, c::stash_bucket, get_le(f, c::buckets, 8), 8); },
            {invalid, "does not fit the table"}, full),
        forge<F>("stash_bucket_max", set(c::stash_bucket, std::numeric_limits<std::uint64_t>::max(), 8),
                 {invalid, "does not fit the table"}, full),
        forge<F>("stash_fingerprint_9_bits", set(c::stash_fingerprint, 256, 4), {invalid, "(fingerprint 256"}, full),
        forge<F>("stash_fingerprint_13_bits", set(c::stash_fingerprint, 4096, 4),
                 {invalid, "(fingerprint 4096"}),  // 12-bit
        forge<F>("stored_beyond_slots_and_stash",
                 [](bytes& f) { put_le(f, c::stored, 4 * get_le(f, c::buckets, 8) + 2, 8); },
                 {invalid, "fingerprints stored in only"}),
        forge<F>("stored_max", set(c::stored, std::numeric_limits<std::uint64_t>::max(), 8),
                 {invalid, "fingerprints stored in only"}),
        forge<F>("reserved_byte_100", set(100, 1, 1), {invalid, "reserved byte 100"}),
        forge<F>("reserved_byte_111", set(111, 1, 1), {invalid, "reserved byte 111"}),
        forge<F>("payload_size_too_big", add(field::payload_size, 8), {invalid, "payload size"}),
        forge<F>("payload_size_too_small", add(field::payload_size, -8), {invalid, "payload size"}),
        forge<F>("buckets_changed_payload_not", add(c::buckets, 100), {invalid, "payload size"}),
        forge<F>("fingerprint_bits_changed_payload_not", set(c::fingerprint_bits, 16, 4), {invalid, "payload size"}),
        forge<F>("huge_table_short_file",
                 [](bytes& f) {
                     put_le(f, c::buckets, std::uint64_t{1} << 58, 8);
                     put_le(f, c::fingerprint_bits, 16, 4);
                     put_le(f, field::payload_size, bloomkit::cuckoo_word_count({std::uint64_t{1} << 58, 16}) * 8, 8);
                 },
                 {truncated, "truncated"}),
    };
}

std::vector<forgery> scalable_forgeries() {
    using F = bloomkit::scalable_bloom_filter;
    namespace s = scalable_field;
    namespace e = stage_entry;
    const std::string growth =
        "growth factor (how many times more keys each new stage holds) must be between 1 and 16, got ";
    const std::string tightening =
        "tightening ratio (each new stage's FPR over the one before's) must be strictly between 0 "
        "and 1, got ";
    return {
        forge<F>("growth_0_5", set_double(s::growth, 0.5), {invalid, growth + "0.5"}),
        forge<F>("growth_NaN", set_double(s::growth, not_a_number), {invalid, growth + "nan"}),
        forge<F>("growth_16_5", set_double(s::growth, 16.5), {invalid, growth + "16.5"}),
        forge<F>("growth_infinite", set_double(s::growth, std::numeric_limits<double>::infinity()),
                 {invalid, growth + "inf"}),
        forge<F>("tightening_1", set_double(s::tightening, 1.0), {invalid, tightening + "1"}),
        forge<F>("tightening_0", set_double(s::tightening, 0.0), {invalid, tightening + "0"}),
        forge<F>("tightening_NaN", set_double(s::tightening, not_a_number), {invalid, tightening + "nan"}),
        forge<F>("initial_capacity_0", set(s::initial_capacity, 0, 8),
                 {invalid, "initial capacity must be at least 1 key"}),
        // 0 is what a filter built from a geometry stores; a scalable filter has a target.
        forge<F>("target_fpr_0", set(field::target_fpr, 0, 8), {invalid, "strictly between 0 and 1, got 0"}),
        forge<F>("stage_count_0", set(s::stages, 0, 4), {invalid, "0 stages"}),
        forge<F>("stage_count_4097", set(s::stages, 4097, 4), {invalid, "4097 stages"}),
        forge<F>("stage_layout_classic", set(s::stage_layout, 1, 1),
                 {invalid, "unknown scalable Bloom filter stage layout"}),
        forge<F>("reserved_36", set(s::reserved32, 1, 4), {invalid, "reserved scalable Bloom filter fields"}),
        forge<F>("reserved_64", set(s::reserved64, 1, 8), {invalid, "reserved scalable Bloom filter fields"}),
        // Growth and tightening fill the extra bytes [96, 112): byte 112 on is the flags.
        forge<F>("flags_4", set(field::flags, 4, 4), {invalid, "unknown flags 4"}),
        // 7168 bytes of payload are two chunks of 4 KiB, but the table holds one of 64 KiB.
        forge<F>("chunk_shift_12_table_of_16", set(field::chunk_shift, 12, 4), {truncated, "truncated"}),
        // The initial capacity is stated twice ([24], and [40] as the expected keys), and the
        // count both in the header ([56], what read_header and `bloomkit info` report) and per
        // stage (what the loaded filter reports): they must agree.
        forge<F>("expected_keys_not_the_initial_capacity", set(field::expected_keys, 7, 8),
                 {invalid, "differ from the initial capacity"}),
        forge<F>("inserted_count_not_the_stages", set(field::inserted_count, 123456789, 8),
                 {invalid, "the header counts 123456789 keys", assembly}),
        // The payload size is not a function of the header's parameters: only the input's size
        // checks it there, and the stage table when the filter is assembled. A stream, read up
        // to the payload size it is told, then reads a chunk table out of the payload's last
        // bytes, which do not match.
        forge<F>("payload_size_beyond_file", add(field::payload_size, 64), {truncated, "truncated"}),
        forge<F>("payload_size_short_of_file", add(field::payload_size, -64),
                 {invalid, "64 unexpected bytes after the filter", caught::by_header, format_errc::payload_checksum}),
        forge<F>("payload_longer_than_the_stages",
                 [](bytes& f) {
                     f.resize(header_size + announced_payload(f));  // the chunk table is recomputed below
                     f.insert(f.end(), 64, 0);
                     put_le(f, field::payload_size, f.size() - header_size, 8);
                     reseal_payload(f);
                 },
                 {invalid, "the payload does not end with the last stage", assembly}),
        forge<F>("stage_count_one_more", add(s::stages, 1, 4), {invalid, "scalable Bloom filter", assembly}),
        forge<F>("stage_count_one_fewer", add(s::stages, -1, 4),
                 {invalid, "stage 0 lies outside the payload or out of order", assembly}),
        forge<F>("last_stage_offset_beyond_payload",
                 [](bytes& f) {
                     const std::size_t last = get_le(f, s::stages, 4) - 1;
                     set_stage(last, e::offset, announced_payload(f))(f);
                 },
                 {invalid, "lies outside the payload", assembly}),
        forge<F>("stage_offset_2_63", set_stage(2, e::offset, std::uint64_t{1} << 63),
                 {invalid, "stage 2 lies outside the payload", assembly}),
        forge<F>("stage_offset_max", set_stage(1, e::offset, std::numeric_limits<std::uint64_t>::max() - 63),
                 {invalid, "stage 1 lies outside the payload", assembly}),
        forge<F>("stage_offset_not_aligned", add_stage(1, e::offset, 8),
                 {invalid, "stage 1 lies outside the payload or out of order", assembly}),
        forge<F>("stage_offset_overlapping", add_stage(2, e::offset, -64),
                 {invalid, "stage 2 lies outside the payload or out of order", assembly}),
        forge<F>("stage_offset_2_40", set_stage(1, e::offset, std::uint64_t{1} << 40),
                 {invalid, "stage 1 lies outside the payload", assembly}),
        forge<F>("stage_bits_not_whole_blocks", add_stage(0, e::bits, 64), {invalid, "stage 0", assembly}),
        forge<F>("stage_bits_0", set_stage(1, e::bits, 0), {invalid, "stage 1", assembly}),
        forge<F>("stage_bits_huge", set_stage(3, e::bits, std::uint64_t{1} << 62), {invalid, "stage 3", assembly}),
        forge<F>("stage_hashes_0", set_stage(0, e::hashes, 0), {invalid, "stage 0", assembly}),
        forge<F>("stage_capacity_not_the_plan", add_stage(1, e::expected_keys, 1),
                 {invalid, "does not follow from its parameters", assembly}),
        forge<F>("stage_fpr_not_the_plan", set_stage(2, e::target_fpr, std::bit_cast<std::uint64_t>(0.5)),
                 {invalid, "does not follow from its parameters", assembly}),
    };
}

std::vector<forgery> fuse_forgeries() {
    using F8 = bloomkit::binary_fuse8_filter;
    using F16 = bloomkit::binary_fuse16_4wise_filter;
    namespace u = fuse_field;
    const std::string empty = "empty";  // the filter built from no keys
    const std::string inconsistent = "inconsistent binary fuse geometry";
    return {
        forge<F8>("arity_5", set(u::arity, 5, 1),
                  {invalid, "unknown binary fuse filter: 5-wise with 8-bit fingerprints"}),
        forge<F8>("arity_2", set(u::arity, 2, 1), {invalid, "unknown binary fuse filter: 2-wise"}),
        forge<F8>("arity_0_empty", set(u::arity, 0, 1), {invalid, "unknown binary fuse filter: 0-wise"}, empty),
        forge<F8>("fingerprint_bits_12", set(u::fingerprint_bits, 12, 4), {invalid, "3-wise with 12-bit fingerprints"}),
        forge<F8>("fingerprint_bits_32", set(u::fingerprint_bits, 32, 4), {invalid, "3-wise with 32-bit fingerprints"}),
        forge<F16>("fingerprint_bits_12", set(u::fingerprint_bits, 12, 4),
                   {invalid, "4-wise with 12-bit fingerprints"}),
        forge<F8>("array_length_one_segment_more",
                  [](bytes& f) {
                      put_le(f, u::array_length, get_le(f, u::array_length, 8) + get_le(f, u::segment_length, 4), 8);
                  },
                  {invalid, inconsistent}),
        forge<F8>("array_length_plus_one", add(u::array_length, 1), {invalid, inconsistent}),
        forge<F8>("segment_count_plus_one", add(u::segment_count, 1), {invalid, inconsistent}),
        forge<F8>("segment_length_doubled",
                  [](bytes& f) { put_le(f, u::segment_length, 2 * get_le(f, u::segment_length, 4), 4); },
                  {invalid, inconsistent}),
        forge<F8>("segment_length_2_19",
                  [](bytes& f) {
                      const std::uint64_t length = std::uint64_t{1} << 19;
                      put_le(f, u::segment_length, length, 4);
                      put_le(f, u::array_length, (get_le(f, u::segment_count, 8) + 2) * length, 8);
                  },
                  {invalid, inconsistent}),
        forge<F8>("segment_count_2_41",
                  [](bytes& f) {
                      const std::uint64_t count = std::uint64_t{1} << 41;
                      put_le(f, u::segment_count, count, 8);
                      put_le(f, u::array_length, (count + 2) * get_le(f, u::segment_length, 4), 8);
                  },
                  {invalid, inconsistent}),
        forge<F8>("relabelled_4wise", set(u::arity, 4, 1), {invalid, inconsistent}),
        forge<F8>("empty_with_segment_length", set(u::segment_length, 256, 4), {invalid, inconsistent}, empty),
        forge<F16>("relabelled_8_bit", set(u::fingerprint_bits, 8, 4), {invalid, "payload size"}),
        forge<F8>("reserved_byte_104", set(104, 1, 1), {invalid, "reserved byte 104"}),
        forge<F16>("reserved_byte_111", set(111, 1, 1), {invalid, "reserved byte 111"}),
        forge<F8>("payload_size_too_big", add(field::payload_size, 1), {invalid, "payload size"}),
        forge<F16>("payload_size_too_small", add(field::payload_size, -2), {invalid, "payload size"}),
        forge<F8>("empty_with_payload_size", set(field::payload_size, 64, 8), {invalid, "payload size"}, empty),
        forge<F8>("expected_keys", set(field::expected_keys, 2000, 8), {invalid, "no expected keys or target FPR"}),
        forge<F8>("target_fpr", set_double(field::target_fpr, 0.01), {invalid, "no expected keys or target FPR"}),
        // Consistent geometry, but not a filter the fingerprints can describe: the header
        // checks the fuse parameters as the filter does, so read_header rejects these too.
        forge<F8>("keys_beyond_slots", [](bytes& f) { put_le(f, u::keys, get_le(f, u::array_length, 8) + 1, 8); },
                  {invalid, "keys cannot fit"}),
        forge<F8>("no_keys_but_an_array", set(u::keys, 0, 8), {invalid, "no keys but a non-empty array"}),
        forge<F16>("keys_but_no_array", set(u::keys, 5, 8), {invalid, "segment length 0"}, empty),
        forge<F8>("empty_with_segment_count", set(u::segment_count, 1, 8), {invalid, "no keys but a non-empty array"},
                  empty),
    };
}

/// Version 1 files: hash algorithms 1 and 2 only, the kind's extra bytes up to 119 (where version
/// 2 has its flags and chunk shift), a payload checksum at 88 and nothing after the payload.
std::vector<forgery> version_1_forgeries() {
    using B = bloomkit::block_bloom_filter;
    using C = bloomkit::counting_bloom_filter;
    using K = bloomkit::cuckoo_filter;
    using S = bloomkit::scalable_bloom_filter;
    using F = bloomkit::binary_fuse8_filter;
    const auto with_chunk_table = [](bytes& f) {
        const bytes table = chunk_table(f.data() + header_size, f.size() - header_size);
        f.insert(f.end(), table.begin(), table.end());
    };
    forgery trailed = forge_v1<B>("with_a_chunk_table", with_chunk_table, {invalid, "16 unexpected bytes after the filter"});
    trailed.expect = [](const temp_dir& dir, const bytes& data, const rejection& r) {
        expect_files_and_buffers_reject<B>(dir, data, r);
        // A stream reads the version 1 filter, which ends with its payload, and leaves the rest.
        std::istringstream stream(as_string(data));
        expect_same_filter(bloomkit::load<B>(stream), version_1_sample<B>());
        EXPECT_EQ(std::string(std::istreambuf_iterator<char>(stream), {}).size(), 16U);
    };
    return {
        forge_v1<B>("hash_3", set(field::hash, 3, 1), {invalid, "unknown hash algorithm 3"}),
        forge_v1<C>("hash_3", set(field::hash, 3, 1), {invalid, "unknown hash algorithm 3"}),
        forge_v1<K>("hash_3", set(field::hash, 3, 1), {invalid, "unknown hash algorithm 3"}),
        forge_v1<S>("hash_3", set(field::hash, 3, 1), {invalid, "unknown hash algorithm 3"}),
        forge_v1<F>("hash_3", set(field::hash, 3, 1), {invalid, "unknown hash algorithm 3"}),
        forge_v1<B>("hash_4", set(field::hash, 4, 1), {invalid, "unknown hash algorithm 4"}),
        // Version 2's flags (an interrupted update) and chunk shift are reserved bytes here.
        forge_v1<B>("interrupted_flag_is_reserved_byte_112", set(field::flags, 1, 4), {invalid, "reserved byte 112"}),
        forge_v1<B>("chunk_shift_is_reserved_byte_116", set(field::chunk_shift, 16, 4), {invalid, "reserved byte 116"}),
        forge_v1<B>("reserved_byte_119", set(119, 0x80, 1), {invalid, "reserved byte 119"}),
        forge_v1<C>("reserved_byte_119", set(119, 1, 1), {invalid, "reserved byte 119"}),
        forge_v1<K>("reserved_byte_116", set(116, 1, 1), {invalid, "reserved byte 116"}),
        forge_v1<S>("reserved_byte_112", set(112, 1, 1), {invalid, "reserved byte 112"}),
        forge_v1<F>("reserved_byte_119", set(119, 1, 1), {invalid, "reserved byte 119"}),
        // The payload checksum at 88 is checked, by load and verify().
        forge_v1<B>("payload_checksum_off_by_one", add(field::payload_checksum, 1),
                    {format_errc::payload_checksum, "payload checksum mismatch", caught::by_payload_checksum}),
        forge_v1<F>("payload_checksum_0", set(field::payload_checksum, 0, 8),
                    {format_errc::payload_checksum, "payload checksum mismatch", caught::by_payload_checksum}),
        forge_v1<S>("payload_size_short_of_file", add(field::payload_size, -64),
                    {invalid, "64 unexpected bytes after the filter", caught::by_header, format_errc::payload_checksum}),
        forge_v1<S>("payload_size_beyond_file", add(field::payload_size, 64), {truncated, "truncated"}),
        std::move(trailed),
    };
}

std::vector<forgery> all_forgeries() {
    std::vector<forgery> all;
    for (auto* make : {&bloom_forgeries, &counting_forgeries, &cuckoo_forgeries, &scalable_forgeries, &fuse_forgeries,
                       &version_1_forgeries})
        for (auto& f : make()) all.push_back(std::move(f));
    return all;
}

class ForgedHeader : public ::testing::TestWithParam<forgery> {
protected:
    temp_dir dir_;
};

TEST_P(ForgedHeader, IsRejectedAlikeByEveryReaderWithAHelpfulMessage) {
    const forgery& f = GetParam();
    const bytes good = f.valid(dir_);
    ASSERT_GE(good.size(), header_size);
    bytes forged = good;
    f.change(forged);
    reseal(forged);
    ASSERT_NE(forged, good) << "the forgery changed nothing";
    f.expect(dir_, forged, f.expected);
}

std::string test_name_of(std::string name) {
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Fields, ForgedHeader, ::testing::ValuesIn(all_forgeries()),
                         [](const auto& test) { return test_name_of(test.param.name); });

class ForgedFile : public ::testing::Test {
protected:
    temp_dir dir_;
};

TEST_F(ForgedFile, ForgeriesOnlyPassWithTheChecksumsRecomputed) {
    // Without resealing, the same edits are caught by the checksums: the forgeries above really
    // are past them.
    bytes cuckoo = saved_bytes(dir_, samples<bloomkit::cuckoo_filter>().front().filter);
    put_le(cuckoo, cuckoo_field::fingerprint_bits, 10, 4);
    expect_every_reader_rejects<bloomkit::cuckoo_filter>(dir_, cuckoo,
                                                         {format_errc::header_checksum, "header checksum"});

    bytes scalable = saved_bytes(dir_, samples<bloomkit::scalable_bloom_filter>().front().filter);
    put_le(scalable, header_size + stage_entry::offset, 1 << 20, 8);
    reseal(scalable);  // the header is intact; the payload is not
    expect_every_reader_rejects<bloomkit::scalable_bloom_filter>(dir_, scalable,
                                                                 {format_errc::payload_checksum,
                                                                  "payload checksum",
                                                                  caught::by_payload_checksum,
                                                                  {},
                                                                  format_errc::invalid_field});
}

TEST_F(ForgedFile, ForgedCuckooCountIsReadAsStored) {
    // The stored count is bounded by the slots (and the stash) but not recounted on opening:
    // a forged count within the bound is what size() reports, while count_fingerprints() reads
    // the table. (Documented: "equal to size() unless the words were damaged or a file lied".)
    const auto& original = samples<bloomkit::cuckoo_filter>().front().filter;
    bytes forged = saved_bytes(dir_, original);
    add(cuckoo_field::stored, 3)(forged);
    reseal(forged);
    const auto path = dir_ / "forged.bkf";
    write_bytes(path, forged);
    std::istringstream stream(as_string(forged));
    for (const auto& loaded :
         {bloomkit::load<bloomkit::cuckoo_filter>(path), bloomkit::from_bytes<bloomkit::cuckoo_filter>(as_span(forged)),
          bloomkit::load<bloomkit::cuckoo_filter>(stream)}) {
        EXPECT_EQ(loaded.size(), original.size() + 3);
        EXPECT_EQ(loaded.count_fingerprints(), original.size());
    }
}

// --- An empty input ----------------------------------------------------------------------------

// A parameterised suite, so that it is registered, and runs, after every other: under
// -fsanitize=undefined its failure (a null pointer handed to memcpy or memcmp) aborts the test
// program.
struct empty_input_reader {
    std::string name;
    std::function<void(const fs::path&)> open;  // opens the file, or the same (empty) bytes otherwise
    bool names_the_path;
};

std::ostream& operator<<(std::ostream& os, const empty_input_reader& r) { return os << r.name; }

constexpr std::string_view empty_name = "the empty input";

std::vector<empty_input_reader> every_reader() {
    std::vector<empty_input_reader> readers = {
        {"read_header_file", [](const fs::path& p) { (void)bloomkit::read_header(p); }, true},
        {"read_header_buffer",
         [](const fs::path&) { (void)bloomkit::read_header(std::span<const std::byte>{}, std::string(empty_name)); },
         false},
    };
    const auto add_readers = [&]<class Filter>(std::type_identity<Filter>, const std::string& name) {
        readers.push_back({"load_" + name, [](const fs::path& p) { (void)bloomkit::load<Filter>(p); }, true});
        readers.push_back({"map_" + name, [](const fs::path& p) { (void)bloomkit::map<Filter>(p); }, true});
        readers.push_back({"from_bytes_" + name,
                           [](const fs::path&) {
                               (void)bloomkit::from_bytes<Filter>(std::span<const std::byte>{},
                                                                  std::string(empty_name));
                           },
                           false});
        readers.push_back({"load_stream_" + name,
                           [](const fs::path&) {
                               std::istringstream stream;
                               (void)bloomkit::load<Filter>(stream, std::string(empty_name));
                           },
                           false});
        readers.push_back({"load_pipe_" + name,
                           [](const fs::path&) {
                               pipe_buf pipe;
                               std::istream stream(&pipe);
                               (void)bloomkit::load<Filter>(stream, std::string(empty_name));
                           },
                           false});
    };
    bloomkit::for_each_filter_type(
        [&]<class Filter>(std::type_identity<Filter> type) { add_readers(type, kind_of<Filter>::test_name()); });
    add_readers(std::type_identity<any_filter>{}, "any_filter");
    return readers;
}

class EmptyInput : public ::testing::TestWithParam<empty_input_reader> {
protected:
    temp_dir dir_;
};

TEST_P(EmptyInput, IsTruncated) {
    // An empty file maps to no memory at all (data() is null), and an empty buffer has no data
    // either: the readers must not touch them. Zero bytes are a prefix of the signature, so the
    // input is reported as truncated.
    const auto path = dir_ / "empty.bkf";
    write_bytes(path, {});
    const std::string name = GetParam().names_the_path ? path.string() : std::string(empty_name);
    expect_format_error(GetParam().name, name, format_errc::truncated, {"empty (0 bytes)"},
                        [&] { GetParam().open(path); });
}

INSTANTIATE_TEST_SUITE_P(Readers, EmptyInput, ::testing::ValuesIn(every_reader()),
                         [](const auto& test) { return test_name_of(test.param.name); });

}  // namespace
