// tests/io/bkf_suite.hpp — what the bkf test programs share (test_bkf_*.cpp): the samples of
// every filter type and what is particular to each (kind_of<Filter>), the comparisons, the
// expected failures, and the typed suite Bkf over every alternative of any_filter.
//
// The tests of the bkf format (docs/FORMAT.md) for every filter type, through every way in and out:
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
//
// The suite is split into programs by concern, so that they compile in parallel: round trips
// and the bytes (test_bkf_round_trip), damage, versions and system errors (test_bkf_damage),
// the documented example, multi-chunk payloads and forged headers (test_bkf_forgeries).
#pragma once

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
#include "fuse_schemes.hpp"

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
namespace bf = bloomkit::detail::bloom_field;
static_assert(bloom_field::layout == bf::layout && bloom_field::bits == bf::bits && bloom_field::hashes == bf::hashes &&
              bloom_field::block_bits == bf::block_bits && bloom_field::set_bits == bf::set_bits);
namespace se = bloomkit::detail::stage_entry;
static_assert(stage_entry::size == se::size && stage_entry::bits == se::bits && stage_entry::hashes == se::hashes &&
              stage_entry::expected_keys == se::expected_keys && stage_entry::target_fpr == se::target_fpr &&
              stage_entry::inserted_count == se::inserted_count && stage_entry::set_bits == se::set_bits &&
              stage_entry::offset == se::offset);
static_assert(header_size == bloomkit::file_header_size);
static_assert(format_version == bloomkit::file_format_version && version_1 == bloomkit::oldest_readable_version);
static_assert(default_chunk_shift == bloomkit::default_chunk_shift && min_chunk_shift == bloomkit::min_chunk_shift &&
              max_chunk_shift == bloomkit::max_chunk_shift);
static_assert(flag::interrupted_update == bloomkit::update_in_progress);
static_assert(field::key_format == hf::key_format && field::funnel == hf::funnel &&
              key_code::u64 == static_cast<std::uint8_t>(bloomkit::key_format::u64) &&
              key_code::i64 == static_cast<std::uint8_t>(bloomkit::key_format::i64) &&
              key_code::u32 == static_cast<std::uint8_t>(bloomkit::key_format::u32) &&
              key_code::u32 == static_cast<std::uint8_t>(bloomkit::last_key_format) &&
              key_code::text == static_cast<std::uint8_t>(bloomkit::key_format::text));
static_assert(chunk_being_written == bloomkit::detail::chunk_being_written);

// --- Keys ------------------------------------------------------------------------------------

inline keys_type key_range(std::uint64_t first, std::uint64_t count) {
    keys_type keys(count);
    for (std::uint64_t i = 0; i < count; ++i) keys[i] = first + i;
    return keys;
}

/// Keys no sample holds (the samples' keys are all below 2^32).
inline const keys_type& absent_keys() {
    static const keys_type keys = key_range(std::uint64_t{1} << 40, 3000);
    return keys;
}

/// Keys for inserting after a load, held by no sample either.
inline keys_type fresh_keys(std::uint64_t count) { return key_range(std::uint64_t{1} << 50, count); }

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
// would show); and a tiny one (for classic, of bits that are not whole words). Guava's and
// DCSO's layouts hash only as their programs do (no seed, their own hash), and take integers
// through a funnel that does (Guava: Java longs).
template <class Filter>
struct bloom_kind {
    static constexpr auto code = bloomkit::file_codec<Filter>::kind;
    static constexpr bool is_mutable = true;
    static constexpr std::size_t removed_by_modify = 0;
    static constexpr bool foreign = bloomkit::is_foreign(Filter::layout_type::id);
    static constexpr bool guava = Filter::layout_type::default_hash == hash_algorithm::murmur3_128;
    static constexpr std::uint64_t explicit_seed = foreign ? 0 : 0x5eed'1234'abcd'0042;
    static constexpr bloomkit::filter_options made_for_integers{.keys = bloomkit::key_format::u64};
    static std::string layout_name() { return std::string(to_string(Filter::layout())); }
    static std::string test_name() {
        std::string name = layout_name();
        std::ranges::replace(name, '-', '_');
        return name;
    }
    static std::string display_name() { return bloomkit::kind_traits<Filter>::name(); }

    static constexpr hash_algorithm other_hash() {
        if (foreign) return Filter::layout_type::default_hash;
        return Filter::layout_type::default_hash == hash_algorithm::xxh3_128 ? hash_algorithm::xxh64
                                                                             : hash_algorithm::xxh3_128;
    }
    static bloomkit::filter_options explicit_options() {
        if (!foreign) return {.seed = explicit_seed, .hash = other_hash()};
        return made_for_integers;
    }
    static bloomkit::bloom_geometry explicit_geometry() {
        switch (Filter::layout()) {
            case bloomkit::bloom_layout::classic: return {10'007, 5};  // not whole words: the payload rounds up
            case bloomkit::bloom_layout::block: return {512 * 24, 6};
            case bloomkit::bloom_layout::split_block: return {256 * 48, 8};
            case bloomkit::bloom_layout::dcso: return {10'007, 5};
            default: return {64 * 150, 7};  // Guava's: whole longs
        }
    }
    static bloomkit::bloom_geometry tiny_geometry() {
        switch (Filter::layout()) {
            case bloomkit::bloom_layout::classic: return {100, 3};
            case bloomkit::bloom_layout::block: return {512, 3};
            case bloomkit::bloom_layout::split_block: return {256, 8};
            case bloomkit::bloom_layout::dcso: return {100, 3};
            default: return {64, 3};
        }
    }

    static std::vector<sample<Filter>> make() {
        std::vector<sample<Filter>> out;
        out.push_back(filled("sized", Filter(2000, 0.01, made_for_integers), key_range(0, 2000)));
        out.push_back(filled("explicit_geometry", Filter(explicit_geometry(), explicit_options()), key_range(0, 2000)));
        bloomkit::filter_options tiny = made_for_integers;
        if (!foreign) tiny.seed = 0x5eed'0000'0000'0010;
        out.push_back(filled("tiny", Filter(tiny_geometry(), tiny), key_range(900'000, 8)));
        if (foreign) return out;
        // Hash algorithm 3 (xxh3_mix), which version 2 files may record: they load and answer.
        out.push_back(filled("xxh3_mix",
                             Filter(1000, 0.01, {.seed = 0x5eed'0000'0000'0012, .hash = hash_algorithm::xxh3_mix}),
                             key_range(700'000, 1000)));
        // Hash algorithm 4 (xxh3_mum), the default before 7: its files load and answer as built.
        out.push_back(filled("xxh3_mum",
                             Filter(1000, 0.01, {.seed = 0x5eed'0000'0000'0013, .hash = hash_algorithm::xxh3_mum}),
                             key_range(600'000, 1000)));
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
        const auto& p = bloomkit::kind_parameters<Filter>(h);
        EXPECT_EQ(p.layout, Filter::layout());
        EXPECT_EQ(p.geometry, f.geometry());
        EXPECT_EQ(p.set_bits, f.set_bit_count());
        EXPECT_EQ(h.expected_keys, f.expected_keys());
        EXPECT_EQ(h.target_fpr, f.target_fpr());
        EXPECT_EQ(h.inserted_count, f.inserted_count());
        EXPECT_EQ(h.payload_size, f.size_in_bytes());
        EXPECT_DOUBLE_EQ(approximate_count(h), f.approximate_count());
        EXPECT_DOUBLE_EQ(current_fpr(h), f.current_fpr());

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
        if constexpr (!guava) {  // a Guava filter of longs takes no string
            const std::string key = "a key never inserted before";
            log.push_back(f.insert(key));
            EXPECT_TRUE(f.contains(key));
        }
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
    static constexpr auto code = bloomkit::file_codec<bloomkit::counting_bloom_filter>::kind;
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
        const auto& p = bloomkit::kind_parameters<filter>(h);
        EXPECT_EQ(p.geometry, f.geometry());
        EXPECT_EQ(p.nonzero_counters, f.nonzero_counter_count());
        EXPECT_EQ(h.expected_keys, f.expected_keys());
        EXPECT_EQ(h.target_fpr, f.target_fpr());
        EXPECT_EQ(h.inserted_count, f.inserted_count());
        EXPECT_EQ(approximate_count(h), f.approximate_count());
        EXPECT_EQ(current_fpr(h), f.current_fpr());

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
    static constexpr auto code = bloomkit::file_codec<bloomkit::cuckoo_filter>::kind;
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
        const auto& p = bloomkit::kind_parameters<filter>(h);
        EXPECT_EQ(p.geometry, f.geometry());
        EXPECT_EQ(p.stash, f.stash());
        EXPECT_EQ(h.inserted_count, f.size());
        EXPECT_EQ(h.expected_keys, f.expected_keys());
        EXPECT_EQ(h.target_fpr, f.target_fpr());
        EXPECT_EQ(approximate_count(h), static_cast<double>(f.size()));
        EXPECT_DOUBLE_EQ(current_fpr(h), f.current_fpr());

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
    static constexpr auto code = bloomkit::file_codec<bloomkit::scalable_bloom_filter>::kind;
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
        const auto& p = bloomkit::kind_parameters<filter>(h);
        EXPECT_EQ(p.chain, f.parameters());
        EXPECT_EQ(p.stages, f.stage_count());
        EXPECT_EQ(h.expected_keys, f.initial_capacity());
        EXPECT_EQ(h.target_fpr, f.target_fpr());
        EXPECT_EQ(h.inserted_count, f.inserted_count());
        EXPECT_EQ(approximate_count(h), static_cast<double>(f.inserted_count()));
        EXPECT_TRUE(std::isnan(current_fpr(h)));

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

// Windowed filters, at times in 2100 (so that a loaded copy on the system clock, which never
// runs a filter back, sees them as they were): a ring that has rotated past expired generations
// and skipped one, a single generation per window hashed with XXH64, a tiny one overfilled, and
// one never written.
template <>
struct kind_of<bloomkit::windowed_filter> {
    using filter = bloomkit::windowed_filter;
    using generation = bloomkit::block_bloom_filter;
    static constexpr auto code = bloomkit::file_codec<bloomkit::windowed_filter>::kind;
    static constexpr bool is_mutable = true;
    static constexpr std::size_t removed_by_modify = 0;
    static std::string test_name() { return "windowed"; }
    static std::string display_name() { return "windowed Bloom filter"; }

    static filter at(filter f, filter::time_point t) {
        f.set_clock([t] { return t; });
        return f;
    }

    static std::vector<sample<filter>> make() {
        using std::chrono::hours;
        const filter::time_point base = std::chrono::sys_days(std::chrono::year(2100) / 1 / 1);
        std::vector<sample<filter>> out;
        {
            filter f = at(filter(2000, 0.01, hours(1), {.generations = 4, .seed = 0x5eed'0000'0000'0020}), base);
            keys_type live;
            for (const int phase : {0, 1, 2, 3, 5, 6}) {
                const keys_type keys = key_range(3'000'000 + 1000 * static_cast<std::uint64_t>(phase), 300);
                const filter::time_point t = base + std::chrono::minutes(15 * phase);
                for (const auto k : keys) f.insert(k, t);
                if (phase >= 2) live.insert(live.end(), keys.begin(), keys.end());
            }
            out.push_back({"rotated", at(std::move(f), base + std::chrono::minutes(90)), std::move(live)});
        }
        out.push_back(
            filled("one_generation_xxh64",
                   at(filter(500, 0.001, hours(24),
                             {.generations = 1, .seed = 0x5eed'0000'0000'0021, .hash = hash_algorithm::xxh64}),
                      base),
                   key_range(3'100'000, 500)));
        out.push_back(filled("tiny", at(filter(8, 0.1, hours(1), {.seed = 0x5eed'0000'0000'0022}), base),
                             key_range(3'200'000, 60)));
        out.push_back({"unwritten", filter(100, 0.01, hours(1)), {}});
        return out;
    }

    static void check_samples(const std::vector<sample<filter>>& all) {
        const auto labels = all.at(0).filter.slot_generations();
        EXPECT_EQ(std::ranges::count(labels, filter::no_generation), 1) << "one generation skipped";
        EXPECT_EQ(std::ranges::count(all.at(3).filter.slot_generations(), filter::no_generation), 5);
    }

    static std::uint64_t answer(const filter& f, std::uint64_t key) { return f.contains(key); }

    static void expect_same(const filter& actual, const filter& expected) {
        EXPECT_TRUE(actual == expected) << "the parameters, generations or bits differ";
        EXPECT_EQ(actual.parameters(), expected.parameters());
        EXPECT_EQ(actual.newest_generation(), expected.newest_generation());
        EXPECT_EQ(actual.size_in_bytes(), expected.size_in_bytes());
        EXPECT_EQ(actual.inserted_count(), expected.inserted_count());
        EXPECT_EQ(actual.approximate_count(), expected.approximate_count());
        EXPECT_EQ(actual.current_fpr(), expected.current_fpr());
        EXPECT_TRUE(std::ranges::equal(actual.slot_generations(), expected.slot_generations()));
        ASSERT_EQ(actual.slots().size(), expected.slots().size());
        for (std::size_t i = 0; i < actual.slots().size(); ++i) {
            SCOPED_TRACE("slot " + std::to_string(i));
            const generation& a = actual.slots()[i];
            EXPECT_TRUE(a == expected.slots()[i]) << "the bits differ";
            EXPECT_EQ(a.inserted_count(), expected.slots()[i].inserted_count());
            EXPECT_EQ(a.expected_keys(), actual.plan().generation.capacity);
            EXPECT_EQ(a.target_fpr(), actual.plan().generation.fpr);
            EXPECT_EQ(a.hash_function(), actual.hash_function());
            EXPECT_EQ(a.read_only(), actual.read_only());
        }
    }

    static void expect_header(const file_header& h, const bytes& file, const filter& f) {
        const auto& p = bloomkit::kind_parameters<filter>(h);
        EXPECT_EQ(p.window, f.parameters());
        EXPECT_EQ(p.newest, f.newest_generation());
        EXPECT_EQ(h.expected_keys, f.parameters().keys_per_window);
        EXPECT_EQ(h.target_fpr, f.target_fpr());
        EXPECT_EQ(h.inserted_count, f.inserted_count());
        EXPECT_TRUE(std::isnan(current_fpr(h)));
        EXPECT_EQ(file.at(14), 2U);  // block Bloom filters
        EXPECT_EQ(get_le(file, 24, 8), f.parameters().keys_per_window);
        EXPECT_EQ(get_le(file, 32, 4), f.generation_count());
        EXPECT_EQ(get_le(file, 36, 4), 0U);
        EXPECT_EQ(get_le(file, 64, 8), f.newest_generation());
        EXPECT_EQ(get_le(file, 96, 8), static_cast<std::uint64_t>(f.window().count()));
        EXPECT_TRUE(zero_bytes(file, 104, 112));
        std::uint64_t next = f.slots().size() * stage_entry::size;
        for (std::size_t i = 0; i < f.slots().size(); ++i) {
            SCOPED_TRACE("slot " + std::to_string(i));
            const std::size_t entry = header_size + i * stage_entry::size;
            EXPECT_EQ(get_le(file, entry + stage_entry::inserted_count, 8), f.slots()[i].inserted_count());
            EXPECT_EQ(get_le(file, entry + 56, 8), f.slot_generations()[i]);
            const std::uint64_t offset = get_le(file, entry + stage_entry::offset, 8);
            EXPECT_EQ(offset, (next + 63) / 64 * 64);
            EXPECT_EQ(mismatched_words(file, header_size + offset, f.slots()[i].words()), 0U);
            next = offset + f.slots()[i].size_in_bytes();
        }
        EXPECT_EQ(announced_payload(file), next) << "the payload ends with the last slot";
    }

    static void expect_mutators_refuse(const filter& mapped, const sample<filter>& s) {
        auto copy = mapped;
        EXPECT_TRUE(copy.read_only());
        const keys_type fresh = fresh_keys(3);
        ASSERT_FALSE(copy.contains(fresh[0]));
        EXPECT_THROW(copy.insert(fresh[0]), bloomkit::read_only_filter);
        EXPECT_THROW(copy.insert(fresh.begin(), fresh.end()), bloomkit::read_only_filter);
        EXPECT_THROW(copy.clear(), bloomkit::read_only_filter);
        EXPECT_THROW(copy |= s.filter, bloomkit::read_only_filter);
        EXPECT_THROW(copy.advance(copy.generation_start(copy.newest_generation() + 1)), bloomkit::read_only_filter);
        EXPECT_TRUE(copy == mapped);
        EXPECT_FALSE(copy.contains(fresh[0]));
    }

    /// Inserts fresh keys into the newest generation.
    static std::vector<std::uint64_t> modify(filter& f, const sample<filter>&) {
        std::vector<std::uint64_t> log;
        const filter::time_point t = f.generation_start(f.newest_generation());
        for (const auto k : fresh_keys(50)) log.push_back(f.insert(k, t) ? 1 : 0);
        log.push_back(f.inserted_count());
        return log;
    }
};

// Binary fuse filters: built from 2000 keys, from 500 hashed with XXH64, from a dozen, from no
// keys at all, and from 1000 keys by the first slot hashing scheme (fuse_schemes.hpp).
template <class Fuse>
struct fuse_kind {
    using filter = Fuse;
    static constexpr auto code = bloomkit::file_codec<Fuse>::kind;
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
        // direct64 after a retry: the construction seed is not the hasher's, so the keys are remixed.
        keys_type retried_keys = key_range(960'000, 2);
        std::uint64_t seed = 0x5eed'0000'0000'0016;
        while (filter(retried_keys, {.seed = seed}).construction_seed() == seed) ++seed;
        built("retried", std::move(retried_keys), {.seed = seed});
        keys_type remix64_keys = key_range(800'000, 1000);
        out.push_back({"remix64", bloomkit_test::remix64_filter<filter>(remix64_keys, {.seed = 0x5eed'0000'0000'0017}),
                       std::move(remix64_keys)});
        keys_type first_scheme_keys = key_range(700'000, 1000);
        out.push_back({"first_scheme",
                       bloomkit_test::first_scheme_filter<filter>(first_scheme_keys, {.seed = 0x5eed'0000'0000'0015}),
                       std::move(first_scheme_keys)});
        return out;
    }

    static void check_samples(const std::vector<sample<filter>>& all) {
        EXPECT_EQ(all.front().filter.size(), 2000U);
        const filter& empty = all.at(3).filter;
        EXPECT_TRUE(empty.empty());
        EXPECT_EQ(empty.array_length(), 0U);
        EXPECT_EQ(empty.size_in_bytes(), 0U) << "the empty filter has no payload";
        EXPECT_EQ(all.front().filter.parameters().hashing, bloomkit::binary_fuse_hashing::direct64);
        const filter& retried = all.at(4).filter;
        EXPECT_EQ(retried.parameters().hashing, bloomkit::binary_fuse_hashing::direct64);
        EXPECT_NE(retried.construction_seed(), retried.hash_function().seed());
        EXPECT_EQ(all.at(5).filter.parameters().hashing, bloomkit::binary_fuse_hashing::remix64);
        EXPECT_EQ(all.back().filter.parameters().hashing, bloomkit::binary_fuse_hashing::remix128);
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
        EXPECT_EQ(bloomkit::kind_parameters<filter>(h), f.parameters());
        EXPECT_EQ(h.inserted_count, f.size());
        EXPECT_EQ(h.expected_keys, 0U);
        EXPECT_EQ(h.target_fpr, 0.0);
        EXPECT_EQ(approximate_count(h), static_cast<double>(f.size()));
        EXPECT_EQ(current_fpr(h), f.empty() ? 0.0 : Fuse::expected_fpr());

        EXPECT_EQ(file.at(fuse_field::arity), Fuse::arity());
        EXPECT_EQ(get_le(file, fuse_field::array_length, 8), f.array_length());
        EXPECT_EQ(get_le(file, fuse_field::fingerprint_bits, 4), Fuse::fingerprint_bits());
        EXPECT_EQ(get_le(file, fuse_field::segment_length, 4), f.segment_length());
        EXPECT_EQ(get_le(file, fuse_field::keys, 8), f.size());
        EXPECT_EQ(get_le(file, fuse_field::construction_seed, 8), f.construction_seed());
        EXPECT_EQ(get_le(file, fuse_field::segment_count, 8), f.segment_count());
        EXPECT_EQ(get_le(file, fuse_field::hashing, 4), static_cast<std::uint64_t>(f.parameters().hashing));
        EXPECT_TRUE(zero_bytes(file, fuse_field::hashing + 4, field::extra_end));
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
/// Whether files of format version 1 can record the hash algorithm (XXH3-128 and XXH64 only).
inline bool in_version_1(hash_algorithm a) { return a == hash_algorithm::xxh3_128 || a == hash_algorithm::xxh64; }

template <class Filter>
const sample<Filter>& version_1_sample() {
    for (const auto& s : samples<Filter>())
        if (in_version_1(s.filter.hash_function().algorithm())) return s;
    throw std::logic_error("no sample of " + kind_of<Filter>::test_name() + " hashes as version 1 can");
}

/// Whether some sample of Filter hashes as version 1 files can (Guava's and DCSO's layouts came
/// after it).
template <class Filter>
bool has_version_1_sample() {
    return std::ranges::any_of(samples<Filter>(),
                               [](const auto& s) { return in_version_1(s.filter.hash_function().algorithm()); });
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
inline void expect_same_header(const file_header& actual, const file_header& expected, bool checksum) {
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
    bloomkit::visit_kind(expected, [&](auto type) {
        using F = typename decltype(type)::type;
        EXPECT_TRUE(bloomkit::kind_parameters<F>(actual) == bloomkit::kind_parameters<F>(expected));
        return true;
    });
    EXPECT_EQ(filter_name(actual), filter_name(expected));
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

}  // namespace
