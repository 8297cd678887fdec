// Tests of the portable file format (file.hpp): save, load, map, load_any, map_any,
// read_header and mapped_filter::verify — round trips, the exact bytes written, atomic
// replacement, and the rejection of every kind of damaged or hostile file.

#include <gtest/gtest.h>
#include <sys/stat.h>
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
#include <ranges>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "file_test_support.hpp"
#include "layout_types.hpp"

namespace fs = std::filesystem;
using bloomkit::format_errc;


namespace {

// --- Files and bytes ---------------------------------------------------------------------

using namespace bloomkit_test;

// The header fields' offsets, spelled out here rather than taken from the library so that a
// change to the format breaks these tests.
namespace field {
constexpr std::size_t version = 8, header_size = 10, kind = 12, layout = 14, hash = 15, seed = 16, bits = 24,
                      hashes = 32, block_bits = 36, expected_keys = 40, target_fpp = 48, inserted_count = 56,
                      set_bits = 64, payload_offset = 72, payload_size = 80, payload_checksum = 88,
                      header_checksum = 120;
}
constexpr std::size_t header_size = 128;






// --- Expected failures -------------------------------------------------------------------

/// Runs `open`, which must throw file_format_error for `reason`, naming `path` (and `part`).
template <class Open>
void expect_format_error(const char* what, Open open, const fs::path& path, format_errc reason, std::string_view part) {
    SCOPED_TRACE(what);
    try {
        open();
        ADD_FAILURE() << "accepted " << path << "; expected rejection for "
                      << ::testing::PrintToString(reason);
    } catch (const bloomkit::file_format_error& e) {
        EXPECT_EQ(e.reason(), reason) << e.what();
        EXPECT_TRUE(mentions(e.what(), path.string()));
        if (!part.empty()) {
            EXPECT_TRUE(mentions(e.what(), part));
        }
    }
}

/// Every way of opening a file that decodes its header must reject it, for the same reason.
template <class Filter>
void expect_header_rejected(const fs::path& path, format_errc reason, std::string_view part = {}) {
    expect_format_error("read_header", [&] { (void)bloomkit::read_header(path); }, path, reason, part);
    expect_format_error("load", [&] { (void)bloomkit::load<Filter>(path); }, path, reason, part);
    expect_format_error("map", [&] { (void)bloomkit::map<Filter>(path); }, path, reason, part);
    expect_format_error("load_any", [&] { (void)bloomkit::load_any(path); }, path, reason, part);
    expect_format_error("map_any", [&] { (void)bloomkit::map_any(path); }, path, reason, part);
}

template <class Open>
void expect_io_error(Open open, const fs::path& path, std::errc code) {
    try {
        open();
        ADD_FAILURE() << "no io_error for " << path;
    } catch (const bloomkit::io_error& e) {
        EXPECT_TRUE(mentions(e.what(), path.string()));
        EXPECT_EQ(e.code(), std::make_error_code(code)) << e.what();
    }
}

// --- Filters -----------------------------------------------------------------------------

constexpr std::uint64_t key_count = 2000;

auto inserted_keys() { return std::views::iota(std::uint64_t{0}, key_count); }
auto absent_keys() { return std::views::iota(std::uint64_t{1} << 40, (std::uint64_t{1} << 40) + key_count); }

template <class Filter>
Filter filled(Filter filter) {
    for (const std::uint64_t key : inserted_keys()) filter.insert(key);
    return filter;
}

template <class Filter>
Filter sized_filter() {
    static const Filter filter = filled(Filter(key_count, 0.01));  // sizing is slow in Debug builds: do it once
    return filter;
}

/// Not the layout's default, so that a round trip that forgot the algorithm would show.
constexpr bloomkit::hash_algorithm other_hash(bloomkit::hash_algorithm algorithm) {
    return algorithm == bloomkit::hash_algorithm::xxh3_128 ? bloomkit::hash_algorithm::xxh64
                                                           : bloomkit::hash_algorithm::xxh3_128;
}

template <class Filter>
bloomkit::bloom_geometry explicit_geometry() {
    switch (Filter::layout()) {
        case bloomkit::bloom_layout::classic: return {10'007, 5};  // not whole words: the payload rounds up
        case bloomkit::bloom_layout::block: return {512 * 24, 6};
        case bloomkit::bloom_layout::split_block: return {256 * 48, 8};
    }
    return {};
}

template <class Filter>
Filter explicit_filter() {
    const bloomkit::filter_options options{.seed = 0x5eed'1234'abcd'0042,
                                           .hash = other_hash(Filter::layout_type::default_hash)};
    return filled(Filter(explicit_geometry<Filter>(), options));
}

/// A filter of another layout than Filter, for wrong_kind.
template <class Filter>
using other_filter =
    std::conditional_t<std::is_same_v<Filter, bloomkit::classic_bloom_filter>, bloomkit::block_bloom_filter,
                       bloomkit::classic_bloom_filter>;

template <class Filter>
void expect_same_filter(const Filter& actual, const Filter& expected) {
    EXPECT_TRUE(actual == expected) << "the bits differ";
    EXPECT_EQ(actual.geometry().bits, expected.geometry().bits);
    EXPECT_EQ(actual.geometry().hashes, expected.geometry().hashes);
    EXPECT_EQ(actual.hash_function().algorithm(), expected.hash_function().algorithm());
    EXPECT_EQ(actual.hash_function().seed(), expected.hash_function().seed());
    EXPECT_EQ(actual.expected_keys(), expected.expected_keys());
    EXPECT_EQ(actual.target_fpp(), expected.target_fpp());
    EXPECT_EQ(actual.inserted_count(), expected.inserted_count());
    EXPECT_EQ(actual.size_in_bytes(), expected.size_in_bytes());
}

template <class Filter>
std::uint64_t found(const Filter& filter, auto keys) {
    return filter.count_contained(std::ranges::begin(keys), std::ranges::end(keys));
}

/// Keys of `keys` on which the two filters answer differently (single-key contains).
template <class Filter>
std::uint64_t disagreements(const Filter& a, const Filter& b, auto keys) {
    std::uint64_t differ = 0;
    for (const std::uint64_t key : keys) differ += a.contains(key) != b.contains(key) ? 1 : 0;
    return differ;
}

// --- Typed tests: every layout -----------------------------------------------------------

template <class Filter>
class FileFormat : public ::testing::Test {
protected:
    temp_dir dir_;
};

TYPED_TEST_SUITE(FileFormat, bloomkit_test::bloom_layouts, bloomkit_test::layout_name);

TYPED_TEST(FileFormat, LoadRoundTripPreservesEverything) {
    const auto original = sized_filter<TypeParam>();
    ASSERT_GT(original.inserted_count(), 0U);
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(original, path);

    const auto loaded = bloomkit::load<TypeParam>(path);
    expect_same_filter(loaded, original);
    EXPECT_EQ(loaded.expected_keys(), key_count);
    EXPECT_EQ(loaded.target_fpp(), 0.01);
    EXPECT_FALSE(loaded.read_only());
    EXPECT_EQ(found(loaded, inserted_keys()), key_count);
    EXPECT_EQ(disagreements(loaded, original, absent_keys()), 0U);
}

TYPED_TEST(FileFormat, LoadRoundTripOfExplicitGeometryAndSeed) {
    const auto original = explicit_filter<TypeParam>();
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(original, path);

    const auto loaded = bloomkit::load<TypeParam>(path);
    expect_same_filter(loaded, original);
    EXPECT_EQ(loaded.geometry(), explicit_geometry<TypeParam>());
    EXPECT_EQ(loaded.expected_keys(), 0U);
    EXPECT_EQ(loaded.target_fpp(), 0.0);
    EXPECT_EQ(loaded.hash_function().seed(), 0x5eed'1234'abcd'0042U);
    EXPECT_EQ(loaded.hash_function().algorithm(), other_hash(TypeParam::layout_type::default_hash));
    EXPECT_EQ(found(loaded, inserted_keys()), key_count);
}

TYPED_TEST(FileFormat, LoadedFilterCanBeModified) {
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(sized_filter<TypeParam>(), path);
    auto loaded = bloomkit::load<TypeParam>(path);
    EXPECT_TRUE(loaded.insert(std::string("a key never inserted before")));
    EXPECT_TRUE(loaded.contains(std::string("a key never inserted before")));
}

TYPED_TEST(FileFormat, MappedFilterAnswersLikeTheOriginal) {
    const auto original = explicit_filter<TypeParam>();
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(original, path);

    const auto mapped = bloomkit::map<TypeParam>(path);
    expect_same_filter(mapped.filter(), original);
    EXPECT_TRUE(mapped->read_only());
    EXPECT_EQ(disagreements(*mapped, original, inserted_keys()), 0U);
    EXPECT_EQ(disagreements(*mapped, original, absent_keys()), 0U);
    EXPECT_EQ(found(*mapped, inserted_keys()), key_count);
    EXPECT_NO_THROW(mapped.verify());
    EXPECT_EQ(mapped.header().payload_checksum, bloomkit::read_header(path).payload_checksum);
}

TYPED_TEST(FileFormat, MappedFilterRefusesEveryChange) {
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(sized_filter<TypeParam>(), path);
    const auto mapped = bloomkit::map<TypeParam>(path);
    auto copy = mapped.filter();  // a copy shares the read-only view
    EXPECT_TRUE(copy.read_only());

    const std::vector<std::uint64_t> keys = {key_count + 1, key_count + 2};
    EXPECT_THROW(copy.insert(key_count + 1), bloomkit::read_only_filter);
    EXPECT_THROW(copy.insert(key_count + 1, bloomkit::concurrent), bloomkit::read_only_filter);
    EXPECT_THROW(copy.insert(keys.begin(), keys.end()), bloomkit::read_only_filter);
    EXPECT_THROW(copy.clear(), bloomkit::read_only_filter);
    EXPECT_THROW(copy |= mapped.filter(), bloomkit::read_only_filter);
    EXPECT_TRUE(copy == mapped.filter());
}

TYPED_TEST(FileFormat, MappedFilterSurvivesItsHandleAndTheFileBeingReplaced) {
    const auto original = sized_filter<TypeParam>();
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(original, path);
    auto view = bloomkit::map<TypeParam>(path).filter();  // the handle is gone; the view keeps the mapping

    bloomkit::save(explicit_filter<TypeParam>(), path);  // a new file: the mapping still sees the old one
    EXPECT_TRUE(view == original);
    EXPECT_EQ(found(view, inserted_keys()), key_count);
    EXPECT_EQ(disagreements(view, original, absent_keys()), 0U);
}

TYPED_TEST(FileFormat, LoadAnyAndMapAnyPickTheFilesLayout) {
    const auto original = explicit_filter<TypeParam>();
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(original, path);

    const bloomkit::any_filter loaded = bloomkit::load_any(path);
    ASSERT_TRUE(std::holds_alternative<TypeParam>(loaded)) << "alternative " << loaded.index();
    expect_same_filter(std::get<TypeParam>(loaded), original);

    const auto mapped = bloomkit::map_any(path);
    ASSERT_TRUE(std::holds_alternative<TypeParam>(*mapped)) << "alternative " << mapped->index();
    expect_same_filter(std::get<TypeParam>(*mapped), original);
    EXPECT_TRUE(std::get<TypeParam>(*mapped).read_only());
    EXPECT_NO_THROW(mapped.verify());

    // save(any_filter) writes what save(TypeParam) does.
    const auto again = this->dir_ / "again.blm";
    bloomkit::save(loaded, again);
    EXPECT_EQ(read_bytes(again), read_bytes(path));
}

TYPED_TEST(FileFormat, HeaderDescribesTheFile) {
    const auto original = sized_filter<TypeParam>();
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(original, path);

    const bloomkit::file_header h = bloomkit::read_header(path);
    EXPECT_EQ(h.version, 1U);
    EXPECT_EQ(h.kind, bloomkit::filter_kind::bloom);
    EXPECT_EQ(h.layout, TypeParam::layout());
    EXPECT_EQ(h.hash, original.hash_function().algorithm());
    EXPECT_EQ(h.seed, original.hash_function().seed());
    EXPECT_EQ(h.geometry, original.geometry());
    EXPECT_EQ(h.expected_keys, key_count);
    EXPECT_EQ(h.target_fpp, 0.01);
    EXPECT_EQ(h.inserted_count, original.inserted_count());
    EXPECT_EQ(h.set_bits, original.set_bit_count());
    EXPECT_EQ(h.payload_offset, header_size);
    EXPECT_EQ(h.payload_size, original.size_in_bytes());
    EXPECT_DOUBLE_EQ(h.approximate_count(), original.approximate_count());

    const bytes file = read_bytes(path);
    ASSERT_EQ(file.size(), header_size + original.size_in_bytes());
    EXPECT_TRUE(std::equal(bloomkit::file_magic.begin(), bloomkit::file_magic.end(), file.begin()));
    EXPECT_EQ(get_le(file, field::version, 2), 1U);
    EXPECT_EQ(get_le(file, field::header_size, 2), header_size);
    EXPECT_EQ(get_le(file, field::kind, 2), 1U);
    EXPECT_EQ(file[field::layout], static_cast<unsigned>(TypeParam::layout()));
    EXPECT_EQ(file[field::hash], static_cast<unsigned>(original.hash_function().algorithm()));
    EXPECT_EQ(get_le(file, field::seed, 8), original.hash_function().seed());
    EXPECT_EQ(get_le(file, field::bits, 8), original.bit_count());
    EXPECT_EQ(get_le(file, field::hashes, 4), original.hash_count());
    EXPECT_EQ(get_le(file, field::block_bits, 4), bloomkit::block_bits(TypeParam::layout()));
    EXPECT_EQ(get_le(file, field::expected_keys, 8), key_count);
    EXPECT_EQ(get_le(file, field::target_fpp, 8), std::bit_cast<std::uint64_t>(0.01));
    EXPECT_EQ(get_le(file, field::inserted_count, 8), original.inserted_count());
    EXPECT_EQ(get_le(file, field::set_bits, 8), original.set_bit_count());
    EXPECT_EQ(get_le(file, field::payload_size, 8), original.size_in_bytes());
    EXPECT_EQ(get_le(file, field::payload_offset, 8), header_size);
    EXPECT_EQ(get_le(file, field::payload_checksum, 8),
              XXH3_64bits(file.data() + header_size, file.size() - header_size));
    EXPECT_EQ(get_le(file, field::header_checksum, 8), XXH3_64bits(file.data(), field::header_checksum));
}

TYPED_TEST(FileFormat, PayloadIsTheWordsLittleEndian) {
    const auto original = explicit_filter<TypeParam>();
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(original, path);

    const bytes file = read_bytes(path);
    const auto words = original.words();
    constexpr std::size_t width = sizeof(typename TypeParam::word_type);
    ASSERT_EQ(file.size(), header_size + words.size() * width);
    std::size_t mismatched = 0;
    for (std::size_t i = 0; i < words.size(); ++i)
        mismatched += get_le(file, header_size + i * width, width) != words[i] ? 1 : 0;
    EXPECT_EQ(mismatched, 0U);
}

TYPED_TEST(FileFormat, SavingIsDeterministic) {
    const auto original = sized_filter<TypeParam>();
    const auto first = this->dir_ / "first.blm";
    const auto second = this->dir_ / "second.blm";
    const auto resaved = this->dir_ / "resaved.blm";
    bloomkit::save(original, first);
    bloomkit::save(original, second);
    bloomkit::save(bloomkit::load<TypeParam>(first), resaved);

    const bytes expected = read_bytes(first);
    ASSERT_EQ(expected.size(), header_size + original.size_in_bytes());
    EXPECT_EQ(read_bytes(second), expected);
    EXPECT_EQ(read_bytes(resaved), expected);
}

TYPED_TEST(FileFormat, SaveReplacesAnExistingFileAndLeavesNoTemporary) {
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(sized_filter<TypeParam>(), path);
    ::chmod(path.c_str(), 0640);

    const auto replacement = explicit_filter<TypeParam>();
    bloomkit::save(replacement, path);

    expect_same_filter(bloomkit::load<TypeParam>(path), replacement);
    EXPECT_EQ(this->dir_.entries(), std::vector<std::string>{"filter.blm"});  // no ".filter.blm.tmp-*"
    EXPECT_EQ(fs::status(path).permissions() & fs::perms::mask,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TYPED_TEST(FileFormat, EveryFlippedHeaderBitIsDetected) {
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(sized_filter<TypeParam>(), path);
    const bytes good = read_bytes(path);
    const auto corrupt = this->dir_ / "corrupt.blm";

    for (std::size_t offset = 0; offset < header_size && !this->HasFailure(); ++offset) {
        const format_errc reason = offset < 8    ? format_errc::bad_magic
                                   : offset < 10 ? format_errc::unsupported_version
                                                 : format_errc::header_checksum;
        for (int bit = 0; bit < 8; ++bit) {
            SCOPED_TRACE("byte " + std::to_string(offset) + ", bit " + std::to_string(bit));
            bytes damaged = good;
            damaged[offset] ^= static_cast<unsigned char>(1U << bit);
            write_bytes(corrupt, damaged);
            expect_header_rejected<TypeParam>(corrupt, reason);
        }
    }
}

TYPED_TEST(FileFormat, FlippedPayloadBitFailsLoadAndVerify) {
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(sized_filter<TypeParam>(), path);
    bytes file = read_bytes(path);
    file[header_size + (file.size() - header_size) / 2] ^= 0x10;
    write_bytes(path, file);

    expect_format_error("load", [&] { (void)bloomkit::load<TypeParam>(path); }, path, format_errc::payload_checksum,
                        "payload checksum");
    expect_format_error("load_any", [&] { (void)bloomkit::load_any(path); }, path, format_errc::payload_checksum,
                        "payload checksum");
    // Mapping checks only the header; the payload is checked on demand.
    const auto mapped = bloomkit::map<TypeParam>(path);
    expect_format_error("verify", [&] { mapped.verify(); }, path, format_errc::payload_checksum, "payload checksum");
    const auto mapped_any = bloomkit::map_any(path);
    expect_format_error("verify any", [&] { mapped_any.verify(); }, path, format_errc::payload_checksum, {});
}

TYPED_TEST(FileFormat, TruncatedFileIsRejected) {
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(sized_filter<TypeParam>(), path);
    const bytes good = read_bytes(path);
    const std::size_t payload = good.size() - header_size;
    const auto cut = this->dir_ / "cut.blm";

    // A prefix of the signature is not a wrong signature: a file shorter than 8 bytes whose
    // bytes match the magic's first ones is truncated. (The empty file: see EmptyFile below.)
    for (const std::size_t length : {std::size_t{1}, std::size_t{5}, std::size_t{7}, std::size_t{8},
                                     std::size_t{9}, std::size_t{10}, std::size_t{64}, std::size_t{127}, header_size,
                                     header_size + 1, header_size + payload / 2, good.size() - 1}) {
        SCOPED_TRACE("length " + std::to_string(length));
        write_bytes(cut, bytes(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(length)));
        expect_header_rejected<TypeParam>(cut, format_errc::truncated, "truncated");
    }
}

TYPED_TEST(FileFormat, TrailingBytesAreRejected) {
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(sized_filter<TypeParam>(), path);
    bytes file = read_bytes(path);
    file.push_back(0);
    write_bytes(path, file);
    expect_header_rejected<TypeParam>(path, format_errc::invalid_field, "1 unexpected bytes after the payload");
}

TYPED_TEST(FileFormat, AnotherLayoutIsTheWrongKind) {
    using other = other_filter<TypeParam>;
    const auto path = this->dir_ / "filter.blm";
    bloomkit::save(sized_filter<TypeParam>(), path);

    const std::string holds{to_string(TypeParam::layout())};
    expect_format_error("load", [&] { (void)bloomkit::load<other>(path); }, path, format_errc::wrong_kind, holds);
    expect_format_error("map", [&] { (void)bloomkit::map<other>(path); }, path, format_errc::wrong_kind, holds);
}

// --- Damaged and forged files ------------------------------------------------------------

class FileRejection : public ::testing::Test {
protected:
    /// The bytes of a valid file holding a filter of Filter's layout.
    template <class Filter>
    bytes valid_file() {
        const auto path = dir_ / "valid.blm";
        bloomkit::save(sized_filter<Filter>(), path);
        return read_bytes(path);
    }

    fs::path write(const bytes& file) {
        const auto path = dir_ / "damaged.blm";
        write_bytes(path, file);
        return path;
    }

    /// Applies `change` to a valid Filter file, reseals its header checksum, and expects every
    /// reader to reject the result with `reason`, in a message mentioning `part`.
    template <class Filter>
    void expect_forgery_rejected(const std::function<void(bytes&)>& change, format_errc reason, std::string_view part) {
        bytes file = valid_file<Filter>();
        change(file);
        reseal(file);
        expect_header_rejected<Filter>(write(file), reason, part);
    }

    temp_dir dir_;
};

TEST_F(FileRejection, WrongMagic) {
    bytes file = valid_file<bloomkit::block_bloom_filter>();
    std::memcpy(file.data(), "BLOOMKIT", 8);
    expect_header_rejected<bloomkit::block_bloom_filter>(write(file), format_errc::bad_magic, "not a bloomkit filter");
}

TEST_F(FileRejection, ShortFileThatIsNotTheMagicsPrefix) {
    expect_header_rejected<bloomkit::block_bloom_filter>(write({'h', 'e', 'l', 'l', 'o'}), format_errc::bad_magic);
}

TEST_F(FileRejection, TextModeTransferIsCaughtByTheMagic) {
    // What an FTP text-mode transfer does to a file: every CR LF becomes LF.
    const bytes file = valid_file<bloomkit::block_bloom_filter>();
    bytes mangled;
    for (std::size_t i = 0; i < file.size(); ++i)
        if (!(file[i] == '\r' && i + 1 < file.size() && file[i + 1] == '\n')) mangled.push_back(file[i]);
    ASSERT_LT(mangled.size(), file.size());
    expect_header_rejected<bloomkit::block_bloom_filter>(write(mangled), format_errc::bad_magic);
}

TEST_F(FileRejection, NewerVersionAsksForAnUpgrade) {
    expect_forgery_rejected<bloomkit::block_bloom_filter>([](bytes& f) { put_le(f, field::version, 2, 2); },
                                                          format_errc::unsupported_version, "upgrade");
}

TEST_F(FileRejection, UnknownOlderVersionIsUnsupported) {
    bytes file = valid_file<bloomkit::block_bloom_filter>();
    put_le(file, field::version, 0, 2);
    reseal(file);
    const auto path = write(file);
    expect_header_rejected<bloomkit::block_bloom_filter>(path, format_errc::unsupported_version, "version 0");
    try {
        (void)bloomkit::read_header(path);
    } catch (const bloomkit::file_format_error& e) {
        EXPECT_FALSE(mentions(e.what(), "upgrade")) << "an older version needs no upgrade";
    }
}

// One forged header field per case: the checksum is right, the field is not.
struct forgery {
    const char* name;
    std::function<void(bytes&)> change;
    format_errc reason;
    const char* message;
};

std::ostream& operator<<(std::ostream& os, const forgery& f) { return os << f.name; }

std::vector<forgery> block_forgeries() {
    constexpr auto invalid = format_errc::invalid_field;
    auto set = [](std::size_t offset, std::uint64_t value, std::size_t width) {
        return [=](bytes& f) { put_le(f, offset, value, width); };
    };
    auto add = [](std::size_t offset, std::int64_t delta) {
        return [=](bytes& f) { put_le(f, offset, get_le(f, offset, 8) + static_cast<std::uint64_t>(delta), 8); };
    };
    return {
        {"unknown kind", set(field::kind, 6, 2), invalid, "unknown filter kind 6"},
        {"block file relabelled counting", set(field::kind, 2, 2), invalid, "unknown counting Bloom filter layout"},
        {"kind zero", set(field::kind, 0, 2), invalid, "unknown filter kind 0"},
        {"layout 0", set(field::layout, 0, 1), invalid, "unknown Bloom filter layout 0"},
        {"layout 4", set(field::layout, 4, 1), invalid, "unknown Bloom filter layout 4"},
        {"hash 0", set(field::hash, 0, 1), invalid, "unknown hash algorithm 0"},
        {"hash 3", set(field::hash, 3, 1), invalid, "unknown hash algorithm 3"},
        {"header size", set(field::header_size, 64, 2), invalid, "header size is 64"},
        {"bits 0", set(field::bits, 0, 8), invalid, "at least one bit"},
        {"bits not whole blocks", set(field::bits, 512 * 10 + 64, 8), invalid, "512-bit blocks"},
        {"hashes 0", set(field::hashes, 0, 4), invalid, "between 1 and 64, got 0"},
        {"hashes 65", set(field::hashes, 65, 4), invalid, "between 1 and 64, got 65"},
        {"block bits 256", set(field::block_bits, 256, 4), invalid, "block size 256 bits"},
        {"block bits 0", set(field::block_bits, 0, 4), invalid, "block size 0 bits"},
        // A block file relabelled classic: the stored block size gives it away.
        {"layout relabelled", set(field::layout, 1, 1), invalid, "does not match the classic layout"},
        {"target fpp 1.5", set(field::target_fpp, std::bit_cast<std::uint64_t>(1.5), 8), invalid,
         "target false-positive rate"},
        {"target fpp 1", set(field::target_fpp, std::bit_cast<std::uint64_t>(1.0), 8), invalid,
         "target false-positive rate"},
        {"target fpp negative", set(field::target_fpp, std::bit_cast<std::uint64_t>(-0.25), 8), invalid,
         "target false-positive rate"},
        {"target fpp NaN", set(field::target_fpp, std::bit_cast<std::uint64_t>(std::nan("")), 8), invalid,
         "target false-positive rate"},
        {"set bits beyond bits",
         [](bytes& f) { put_le(f, field::set_bits, get_le(f, field::bits, 8) + 1, 8); }, invalid,
         "bits set out of only"},
        {"reserved byte 96", set(96, 1, 1), invalid, "reserved byte 96"},
        {"reserved byte 119", set(119, 0x80, 1), invalid, "reserved byte 119"},
        {"payload offset 64", set(field::payload_offset, 64, 8), invalid, "payload offset 64"},
        {"payload size too big", add(field::payload_size, 64), invalid, "payload size"},
        {"payload size too small", add(field::payload_size, -64), invalid, "payload size"},
        {"bits changed, payload size not", set(field::bits, std::uint64_t{1} << 62, 8), invalid, "payload size"},
        // A consistent header announcing a 512 PiB payload the file does not have: rejected as
        // truncated from the file's size alone. Had load() allocated the payload before
        // checking, this would throw std::bad_alloc instead of file_format_error.
        {"huge filter, short file",
         [](bytes& f) {
             put_le(f, field::bits, std::uint64_t{1} << 62, 8);
             put_le(f, field::payload_size, std::uint64_t{1} << 59, 8);
         },
         format_errc::truncated, "truncated"},
    };
}

class ForgedBlockHeader : public FileRejection, public ::testing::WithParamInterface<forgery> {};

TEST_P(ForgedBlockHeader, IsRejectedWithAHelpfulMessage) {
    expect_forgery_rejected<bloomkit::block_bloom_filter>(GetParam().change, GetParam().reason, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(Fields, ForgedBlockHeader, ::testing::ValuesIn(block_forgeries()),
                         [](const auto& test) {
                             std::string name = test.param.name;
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

TEST_F(FileRejection, SplitBlockWithOtherThanEightHashes) {
    for (const std::uint32_t hashes : {7U, 9U, 0U}) {
        SCOPED_TRACE("hashes " + std::to_string(hashes));
        expect_forgery_rejected<bloomkit::split_block_bloom_filter>(
            [&](bytes& f) { put_le(f, field::hashes, hashes, 4); }, format_errc::invalid_field, "exactly 8 bits");
    }
}

TEST_F(FileRejection, SplitBlockBitsNotWholeBlocks) {
    expect_forgery_rejected<bloomkit::split_block_bloom_filter>(
        [](bytes& f) { put_le(f, field::bits, 256 * 10 + 128, 8); }, format_errc::invalid_field, "256-bit blocks");
}

TEST_F(FileRejection, ClassicBitsThatWouldOverflowTheWordCount) {
    // For bits in [2^64 - 63, 2^64 - 1], (bits + 63) / 64 wraps to 0: a forged header claiming
    // such a filter with an empty payload must not be taken for a filter of zero words.
    bytes file = valid_file<bloomkit::classic_bloom_filter>();
    file.resize(header_size);
    put_le(file, field::bits, std::numeric_limits<std::uint64_t>::max(), 8);
    put_le(file, field::set_bits, 0, 8);
    put_le(file, field::payload_size, 0, 8);
    put_le(file, field::payload_checksum, XXH3_64bits(nullptr, 0), 8);
    reseal(file);
    expect_header_rejected<bloomkit::classic_bloom_filter>(write(file), format_errc::invalid_field, "payload size");

    // Announcing the true size (2^61 bytes) instead, it is a file far too short.
    put_le(file, field::payload_size, std::uint64_t{1} << 61, 8);
    reseal(file);
    expect_header_rejected<bloomkit::classic_bloom_filter>(write(file), format_errc::truncated, "truncated");
}

// --- Operating-system errors -------------------------------------------------------------

class FileErrors : public ::testing::Test {
protected:
    temp_dir dir_;
};

TEST_F(FileErrors, MissingFileIsAnIoErrorNamingIt) {
    const auto path = dir_ / "no-such-filter.blm";
    const auto missing = std::errc::no_such_file_or_directory;
    expect_io_error([&] { (void)bloomkit::load<bloomkit::block_bloom_filter>(path); }, path, missing);
    expect_io_error([&] { (void)bloomkit::map<bloomkit::block_bloom_filter>(path); }, path, missing);
    expect_io_error([&] { (void)bloomkit::load_any(path); }, path, missing);
    expect_io_error([&] { (void)bloomkit::map_any(path); }, path, missing);
    expect_io_error([&] { (void)bloomkit::read_header(path); }, path, missing);
}

TEST_F(FileErrors, DirectoryIsAnIoError) {
    const auto& path = dir_.path();
    const auto is_directory = std::errc::is_a_directory;
    expect_io_error([&] { (void)bloomkit::load<bloomkit::block_bloom_filter>(path); }, path, is_directory);
    expect_io_error([&] { (void)bloomkit::map<bloomkit::block_bloom_filter>(path); }, path, is_directory);
    expect_io_error([&] { (void)bloomkit::load_any(path); }, path, is_directory);
    expect_io_error([&] { (void)bloomkit::map_any(path); }, path, is_directory);
    expect_io_error([&] { (void)bloomkit::read_header(path); }, path, is_directory);
}

TEST_F(FileErrors, SaveIntoAMissingDirectoryFailsAndCreatesNothing) {
    const auto existing = dir_ / "filter.blm";
    bloomkit::save(sized_filter<bloomkit::block_bloom_filter>(), existing);
    const bytes before = read_bytes(existing);

    const auto missing_dir = dir_ / "no-such-dir";
    const auto path = missing_dir / "filter.blm";
    expect_io_error([&] { bloomkit::save(explicit_filter<bloomkit::block_bloom_filter>(), path); }, missing_dir,
                    std::errc::no_such_file_or_directory);
    EXPECT_FALSE(fs::exists(missing_dir));
    EXPECT_EQ(dir_.entries(), std::vector<std::string>{"filter.blm"});
    EXPECT_EQ(read_bytes(existing), before);
}

TEST_F(FileErrors, FailedReplaceLeavesTheDestinationAndNoTemporary) {
    // rename() cannot put a file over a non-empty directory: the save fails after its
    // temporary file was written, which must then be removed.
    const auto path = dir_ / "filter.blm";
    fs::create_directory(path);
    write_bytes(path / "inside", {'x'});

    EXPECT_THROW(bloomkit::save(sized_filter<bloomkit::block_bloom_filter>(), path), bloomkit::io_error);
    EXPECT_TRUE(fs::is_directory(path));
    EXPECT_EQ(read_bytes(path / "inside"), bytes{'x'});
    EXPECT_EQ(dir_.entries(), std::vector<std::string>{"filter.blm"});
}

// A parameterised suite, so that it is registered, and runs, after every other: under
// -fsanitize=undefined its failure aborts the test program.
struct reader {
    const char* name;
    std::function<void(const fs::path&)> open;
};

std::ostream& operator<<(std::ostream& os, const reader& r) { return os << r.name; }

class EmptyFile : public FileErrors, public ::testing::WithParamInterface<reader> {};

TEST_P(EmptyFile, IsTruncated) {
    // An empty file maps to no memory at all (data() is null): the readers must not touch it.
    // Zero bytes are a prefix of the signature, so the file is reported as truncated.
    const auto path = dir_ / "empty.blm";
    write_bytes(path, {});
    expect_format_error(GetParam().name, [&] { GetParam().open(path); }, path, format_errc::truncated,
                        "truncated: 0 bytes");
}

INSTANTIATE_TEST_SUITE_P(
    Readers, EmptyFile,
    ::testing::Values(reader{"read_header", [](const fs::path& p) { (void)bloomkit::read_header(p); }},
                      reader{"load", [](const fs::path& p) { (void)bloomkit::load<bloomkit::block_bloom_filter>(p); }},
                      reader{"load_any", [](const fs::path& p) { (void)bloomkit::load_any(p); }},
                      reader{"map", [](const fs::path& p) { (void)bloomkit::map<bloomkit::block_bloom_filter>(p); }},
                      reader{"map_any", [](const fs::path& p) { (void)bloomkit::map_any(p); }}),
    [](const auto& test) { return std::string(test.param.name); });

}  // namespace
