// test_bkf_forgeries.cpp — the bkf format: the documented example byte for byte, payloads of several
// chunks, version 1 integer keys, forged headers one field at a time, and an empty input
// (io/bkf_suite.hpp has the suite).
#include "io/bkf_suite.hpp"

namespace {

using namespace bloomkit_test;

// --- The documented example ------------------------------------------------------------------

bytes from_hex(std::string_view hex) {
    bytes out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
        out.push_back(static_cast<unsigned char>(std::stoul(std::string(hex.substr(i, 2)), nullptr, 16)));
    return out;
}

/// The bytes FORMAT.md's annotated example shows: a block filter for 10 keys at 1% holding apple,
/// banana and cherry, as `printf 'apple\nbanana\ncherry\n' | bloomkit build -n 10 -p 0.01 -o -`
/// writes it: version 3, hash 7 (xxh3-64-mum), text keys, then the payload and its chunk table.
bytes documented_example() {
    return from_hex(  // the rows of the xxd listing
        "89424c4d0d0a1a0a0300800001000207"
        "00000000000000000002000000000000"
        "06000000000200000a00000000000000"
        "7b14ae47e17a843f0300000000000000"
        "12000000000000008000000000000000"
        "40000000000000000100000000000000"
        "00000000000000000000000000000000"
        "0000000010000000f75d0a18dccf0964"
        "00000100000000000000000000000019"
        "02000000000000100101000000000040"
        "000000000420000002a0000010000000"
        "00000000800000008000000400000000"
        "5fd9e8cb9851964b61c16317139a372f");
}

/// The same keys as bloomkit wrote them under hash 4 (xxh3-mum: byte keys by XXH3-128), the
/// default before hash 7, and FORMAT.md documented it: version 3, text keys.
bytes documented_hash_4_example() {
    return from_hex(
        "89424c4d0d0a1a0a0300800001000204"
        "00000000000000000002000000000000"
        "06000000000200000a00000000000000"
        "7b14ae47e17a843f0300000000000000"
        "12000000000000008000000000000000"
        "40000000000000000100000000000000"
        "00000000000000000000000000000000"
        "00000000100000004fa5510268f03127"
        "00000000000000000000000010000000"
        "00004000000000000002000000200000"
        "002000000200901c0000000000000000"
        "00000010000000000000000050080504"
        "a7e8552098357b497e3a53ab059c95c6");
}

/// The same filter as bloomkit 0.2 wrote it (and FORMAT.md documented it): version 2, no key
/// format (88..95 zero), the same payload and chunk table.
bytes documented_version_2_example() {
    return from_hex(
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

    bloomkit::block_bloom_filter filter(10, 0.01, {.keys = bloomkit::key_format::text});
    for (const std::string& key : fruit()) filter.insert(key);
    EXPECT_EQ(filter.hash_function().algorithm(), hash_algorithm::xxh3_64_mum);
    EXPECT_EQ(from_library(bloomkit::to_bytes(filter)), documented);

    // The annotations: key format 1 (text) and zeros to 95, flags 0, chunk shift 16, the chunk table.
    EXPECT_EQ(get_le(documented, field::version, 2), 3U);
    EXPECT_EQ(documented[field::hash], 7U);
    EXPECT_EQ(get_le(documented, field::key_format, 8), 1U);
    EXPECT_EQ(get_le(documented, field::flags, 4), 0U);
    EXPECT_EQ(get_le(documented, field::chunk_shift, 4), 16U);
    EXPECT_EQ(get_le(documented, field::header_checksum, 8), 0x6409cfdc180a5df7ULL);
    EXPECT_EQ(get_le(documented, header_size + 64, 8), 0x4b965198cbe8d95fULL);
    EXPECT_EQ(get_le(documented, header_size + 64, 8), XXH3_64bits(documented.data() + header_size, 64));
    EXPECT_EQ(get_le(documented, header_size + 72, 8), 0x2f379a131763c161ULL);
    EXPECT_EQ(get_le(documented, header_size + 72, 8), XXH3_64bits(documented.data() + header_size + 64, 8));

    const auto loaded = bloomkit::from_bytes<bloomkit::block_bloom_filter>(as_span(documented));
    EXPECT_TRUE(loaded == filter);
    for (const std::string& key : fruit()) EXPECT_TRUE(loaded.contains(key)) << key;
    EXPECT_EQ(loaded.set_bit_count(), 18U);
    EXPECT_EQ(loaded.hash_function().algorithm(), hash_algorithm::xxh3_64_mum);
    EXPECT_EQ(loaded.recorded_key_format(), bloomkit::key_format::text);
}

TEST(KnownAnswer, TheHash4ExampleStillLoadsAndAnswersAsBefore) {
    // The example as bloomkit wrote it while xxh3-mum was the default: it keeps its hash, answers
    // as it was built, and saved again is the same file, byte for byte.
    const bytes hash_4 = documented_hash_4_example();
    EXPECT_EQ(bloomkit::read_header(as_span(hash_4)).hash, hash_algorithm::xxh3_mum);
    const auto loaded = bloomkit::from_bytes<bloomkit::block_bloom_filter>(as_span(hash_4));
    EXPECT_EQ(loaded.hash_function().algorithm(), hash_algorithm::xxh3_mum);
    for (const std::string& key : fruit()) EXPECT_TRUE(loaded.contains(key)) << key;
    EXPECT_EQ(loaded.set_bit_count(), 18U);
    bloomkit::block_bloom_filter rebuilt(10, 0.01,
                                         {.hash = hash_algorithm::xxh3_mum, .keys = bloomkit::key_format::text});
    for (const std::string& key : fruit()) rebuilt.insert(key);
    EXPECT_TRUE(loaded == rebuilt);
    EXPECT_EQ(from_library(bloomkit::to_bytes(loaded)), hash_4);
    EXPECT_EQ(from_library(bloomkit::to_bytes(rebuilt)), hash_4);
    // The same keys under the default set other bits (XXH3-64, not XXH3-128): two files, two hashes.
    EXPECT_NE(from_library(bloomkit::to_bytes(rebuilt)), documented_example());
}

TEST(KnownAnswer, TheVersion2ExampleStillLoadsAndAnswersAsBefore) {
    // A file bloomkit 0.2 wrote, byte for byte: it records no key format.
    const bytes v2 = documented_version_2_example();
    const file_header h = bloomkit::read_header(as_span(v2));
    EXPECT_EQ(h.version, 2U);
    EXPECT_EQ(h.keys, bloomkit::key_format::unrecorded);
    const auto loaded = bloomkit::from_bytes<bloomkit::block_bloom_filter>(as_span(v2));
    for (const std::string& key : fruit()) EXPECT_TRUE(loaded.contains(key)) << key;
    EXPECT_EQ(loaded.recorded_key_format(), bloomkit::key_format::unrecorded);
    // The tests' conversion (to_version_2) makes exactly what bloomkit 0.2 wrote.
    EXPECT_EQ(to_version_2(documented_hash_4_example()), v2);
    // Saved again, it is a version 3 file that records nothing: the example but for byte 88.
    bytes again = from_library(bloomkit::to_bytes(loaded));
    EXPECT_EQ(get_le(again, field::version, 2), 3U);
    EXPECT_EQ(again[field::key_format], key_code::unrecorded);
    again[field::key_format] = key_code::text;
    reseal(again);
    EXPECT_EQ(again, documented_hash_4_example());
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

    // Saved again, it is a version 3 file that keeps hash 1 and records no key format. Byte keys
    // hash alike under codes 1, 3 and 4, so its payload and chunk table are the example's.
    const bytes again = from_library(bloomkit::to_bytes(loaded));
    const bytes v3 = documented_hash_4_example();
    ASSERT_EQ(again.size(), v3.size());
    EXPECT_EQ(get_le(again, field::version, 2), 3U);
    EXPECT_EQ(again[field::hash], 1U);
    EXPECT_EQ(get_le(again, field::key_format, 8), 0U);
    EXPECT_TRUE(std::equal(again.begin() + header_size, again.end(), v3.begin() + header_size));
    bytes relabelled = again;  // the differences in the header
    relabelled[field::hash] = 4;
    relabelled[field::key_format] = key_code::text;
    reseal(relabelled);
    EXPECT_EQ(relabelled, v3);
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
        EXPECT_EQ(get_le(good, header_size + payload + 8 * i, 8),
                  XXH3_64bits(good.data() + header_size + i * chunk, size));
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
        return "payload checksum mismatch in chunk " + std::to_string(i) + " of " + std::to_string(chunks) +
               " (bytes " + std::to_string(from) + " to " + std::to_string(to) + ")";
    };
    ASSERT_EQ(named(1),
              "payload checksum mismatch in chunk 1 of " + std::to_string(chunks) + " (bytes 65664 to 131200)");
    // A byte flipped in the second chunk, at its edges, and in the last (shorter) chunk.
    const std::vector<std::pair<std::size_t, std::size_t>> flips = {{header_size + chunk + 1000, 1},
                                                                    {header_size + chunk, 1},
                                                                    {header_size + 2 * chunk - 1, 1},
                                                                    {header_size + chunk - 1, 0},
                                                                    {header_size + payload - 1, chunks - 1}};
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
    expect_files_and_buffers_reject<B>(dir_, mislabelled,
                                       {format_errc::invalid_field, "unexpected bytes after the filter"});
}

// --- Version 1's integer keys ----------------------------------------------------------------------

TEST(Version1, IntegerKeysKeepTheirOwnWidth) {
    // Version 1 hashed an integer as its bytes in its own width (hash 1, and 2 as Parquet does):
    // 7 as an int32 and 7 as a uint64 were different keys. A version 1 file keeps its hash
    // algorithm when loaded, so it answers exactly as it did; a filter of the default hash
    // (version 2's) takes a value whatever its width. The old writer is played by inserting the
    // digests of an unrecorded filter's hasher: a filter of this library would record its first
    // typed key's format, and then hash every integer as its 64-bit value.
    const auto check = [](auto legacy) {
        using Filter = decltype(legacy);
        const bloomkit::hasher own_width = legacy.hash_function();
        ASSERT_TRUE(own_width.own_width_integers());
        for (std::int32_t k = -250; k < 250; ++k) legacy.insert(own_width(k));
        for (const std::string& key : fruit()) legacy.insert(key);
        const bytes v1 = to_version_1(from_library(bloomkit::to_bytes(legacy)));
        ASSERT_EQ(get_le(v1, field::version, 2), 1U);
        for (const Filter& loaded : {bloomkit::from_bytes<Filter>(as_span(v1)),
                                     std::get<Filter>(bloomkit::from_bytes<any_filter>(as_span(v1)))}) {
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
        forge<B>("unknown_kind", set(field::kind, 7, 2), {invalid, "unknown filter kind 7"}),
        forge<B>("kind_zero", set(field::kind, 0, 2), {invalid, "unknown filter kind 0"}),
        forge<B>("relabelled_counting", set(field::kind, 2, 2), {invalid, "unknown counting Bloom filter layout"}),
        forge<B>("hash_0", set(field::hash, 0, 1), {invalid, "unknown hash algorithm 0"}),
        forge<B>("hash_8", set(field::hash, 8, 1), {invalid, "unknown hash algorithm 8"}),  // 7 is the last
        forge<B>("hash_255", set(field::hash, 255, 1), {invalid, "unknown hash algorithm 255"}),
        forge<B>("header_size_64", set(field::header_size, 64, 2), {invalid, "header size is 64"}),
        forge<B>("target_fpr_1_5", target(1.5), {invalid, "target false-positive rate"}),
        forge<B>("target_fpr_1", target(1.0), {invalid, "target false-positive rate"}),
        forge<B>("target_fpr_negative", target(-0.25), {invalid, "target false-positive rate"}),
        forge<B>("target_fpr_NaN", target(not_a_number), {invalid, "target false-positive rate"}),
        forge<B>("payload_offset_64", set(field::payload_offset, 64, 8), {invalid, "payload offset 64"}),
        // Version 3's key format (88) and the zeros after it; version 2 kept all of 88..95 zero.
        forge<B>("key_format_5", set(field::key_format, 5, 1), {invalid, "unknown key format 5"}),
        forge<B>("key_format_255", set(field::key_format, 255, 1), {invalid, "unknown key format 255"}),
        forge<B>("funnel_without_guava_hash", set(89, 1, 1),
                 {invalid, "Guava funnel code 1 with a hash that has none"}),
        forge<B>("reserved_byte_90", set(90, 1, 1), {invalid, "reserved byte 90"}),
        forge<B>("reserved_byte_95", set(95, 0x80, 1), {invalid, "reserved byte 95"}),
        forge<B>("version_2_key_format_set",
                 [](bytes& f) {
                     put_le(f, field::version, version_2, 2), put_le(f, field::hash, 4, 1), put_le(f, 88, 2, 1);
                 },
                 {invalid, "payload checksum field is 2"}),
        // Version 2's hashes end at 4 (xxh3-mum); 7, the default since, is version 3's.
        forge<B>("version_2_hash_7", [](bytes& f) { put_le(f, field::version, version_2, 2), put_le(f, 88, 0, 1); },
                 {invalid, "unknown hash algorithm 7"}),
        // Version 2's own fields: the flags, the chunk shift.
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
        forge<B>("relabelled_version_1_hash_7", set(field::version, 1, 2), {invalid, "unknown hash algorithm 7"}),
        forge<B>("relabelled_version_1_hash_4", set(field::version, 1, 2), {invalid, "unknown hash algorithm 4"},
                 "xxh3_mum"),
        forge<B>("relabelled_version_1_hash_3", set(field::version, 1, 2), {invalid, "unknown hash algorithm 3"},
                 "xxh3_mix"),
        forge<B>("layout_0", set(b::layout, 0, 1), {invalid, "unknown Bloom filter layout 0"}),
        forge<B>("layout_4_without_its_hash", set(b::layout, 4, 1),
                 {invalid, "a guava Bloom filter hashed with xxh3-64-mum, not murmur3-128"}),
        forge<B>("layout_7", set(b::layout, 7, 1), {invalid, "unknown Bloom filter layout 7"}),
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
        "growth factor (how many times more keys each new stage holds) must be between 1 and 4294967295, got ";
    const std::string tightening =
        "tightening ratio (each new stage's FPR over the one before's) must be strictly between 0 "
        "and 1, got ";
    return {
        forge<F>("growth_0_5", set_double(s::growth, 0.5), {invalid, growth + "0.5"}),
        forge<F>("growth_NaN", set_double(s::growth, not_a_number), {invalid, growth + "nan"}),
        forge<F>("growth_2_to_32", set_double(s::growth, 4294967296.0), {invalid, growth + "4294967296"}),
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

/// The windowed ring: its parameters, and slots that hold another layout's generations or none.
std::vector<forgery> windowed_forgeries() {
    using F = bloomkit::windowed_filter;
    namespace e = stage_entry;
    constexpr std::size_t generations = 32, keys_per_window = 24, newest = 64, window = 96, label = 56;
    // The first slot whose label is (not) "none", in the front sample's ring of 5.
    const auto slot_where = [](const bytes& f, bool used) {
        for (std::size_t i = 0; i < 5; ++i)
            if ((get_le(f, header_size + i * e::size + label, 8) != F::no_generation) == used) return i;
        throw std::logic_error("the sample's ring has no such slot");
    };
    return {
        forge<F>("generations_0", set(generations, 0, 4), {invalid, "1 to 64 generations"}),
        forge<F>("generations_65", set(generations, 65, 4), {invalid, "not 65"}),
        forge<F>("generations_3", set(generations, 3, 4), {invalid, "payload size"}),
        forge<F>("window_0", set(window, 0, 8), {invalid, "at least 1 millisecond"}),
        forge<F>("window_2_63", set(window, std::uint64_t{1} << 63, 8), {invalid, "window of 9223372036854775808 ms"}),
        forge<F>("keys_per_window_0", set(keys_per_window, 0, 8), {invalid, "at least 1 key per window"}),
        forge<F>("generation_layout_classic", set(14, 1, 1),
                 {invalid, "unknown windowed Bloom filter generation layout"}),
        forge<F>("reserved_36", set(36, 1, 4), {invalid, "reserved windowed Bloom filter fields"}),
        forge<F>("reserved_104", set(104, 1, 8), {invalid, "reserved"}),
        forge<F>("expected_keys_not_the_keys_per_window", set(field::expected_keys, 7, 8),
                 {invalid, "differ from the keys per window"}),
        forge<F>("inserted_count_not_the_slots", set(field::inserted_count, 123456789, 8),
                 {invalid, "the header counts 123456789 keys", assembly}),
        forge<F>("newest_ahead_of_its_generations", add(newest, 10),
                 {invalid, "not in its place or not live at generation", assembly}),
        forge<F>("generation_in_another_slot", [&](bytes& f) { add_stage(slot_where(f, true), label, 1)(f); },
                 {invalid, "not in its place", assembly}),
        forge<F>("keys_in_a_slot_of_no_generation",
                 [&](bytes& f) { set_stage(slot_where(f, true), label, F::no_generation)(f); },
                 {invalid, "holds keys but no generation", assembly}),
        forge<F>("generation_sized_otherwise", add_stage(0, e::expected_keys, 1),
                 {invalid, "is not the generation its parameters size", assembly}),
        forge<F>("generation_fpr_otherwise", set_stage(1, e::target_fpr, std::bit_cast<std::uint64_t>(0.5)),
                 {invalid, "is not the generation its parameters size", assembly}),
        forge<F>("generation_offset_not_aligned", add_stage(1, e::offset, 8),
                 {invalid, "generation 1 lies outside the payload or out of order", assembly}),
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
        forge<F8>("slot_hashing_3", set(u::hashing, 3, 4), {invalid, "unknown binary fuse slot hashing 3"}),
        forge<F16>("slot_hashing_2_32", set(u::hashing, std::uint64_t{1} << 32 >> 1, 4),
                   {invalid, "unknown binary fuse slot hashing 2147483648"}),
        forge<F8>("reserved_byte_108", set(108, 1, 1), {invalid, "reserved byte 108"}),
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
    forgery trailed =
        forge_v1<B>("with_a_chunk_table", with_chunk_table, {invalid, "16 unexpected bytes after the filter"});
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
        forge_v1<S>(
            "payload_size_short_of_file", add(field::payload_size, -64),
            {invalid, "64 unexpected bytes after the filter", caught::by_header, format_errc::payload_checksum}),
        forge_v1<S>("payload_size_beyond_file", add(field::payload_size, 64), {truncated, "truncated"}),
        std::move(trailed),
    };
}

std::vector<forgery> all_forgeries() {
    std::vector<forgery> all;
    for (auto* make : {&bloom_forgeries, &counting_forgeries, &cuckoo_forgeries, &scalable_forgeries,
                       &windowed_forgeries, &fuse_forgeries, &version_1_forgeries})
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
