// Tests of bloomkit/any_filter.hpp: the one list of kinds and what derives from it — the kinds'
// names and build flags, choosing a type from a request, plans, and keys meaning the same in
// every kind.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/any_filter.hpp"

namespace {

using namespace bloomkit;

TEST(Registry, EveryTypeHasItsOwnFlagsAndCodec) {
    std::set<std::string> flags;
    std::size_t types = 0;
    for_each_filter_type([&](auto type) {
        using F = typename decltype(type)::type;
        EXPECT_TRUE(flags.insert(kind_traits<F>::flags()).second) << kind_traits<F>::flags() << " twice";
        EXPECT_FALSE(file_codec<F>::name().empty());
        ++types;
    });
    EXPECT_EQ(types, std::variant_size_v<any_filter>);
}

TEST(Registry, EveryFlagsStringSelectsItsOwnType) {
    // Parse "kind --layout L --bits B --arity A" back into a request: it must select the type.
    for_each_filter_type([&](auto type) {
        using F = typename decltype(type)::type;
        const std::string flags = kind_traits<F>::flags();
        kind_request request{flags.substr(0, flags.find(' ')), {}, {}, {}};
        if (flags.find("--layout classic") != std::string::npos) request.layout = bloom_layout::classic;
        if (flags.find("--layout split-block") != std::string::npos) request.layout = bloom_layout::split_block;
        if (flags.find("--bits 16") != std::string::npos) request.fingerprint_bits = 16;
        if (flags.find("--arity 4") != std::string::npos) request.arity = 4;
        const bool selected = with_requested_type(request, 0.01, [](auto chosen) {
            return std::is_same_v<typename decltype(chosen)::type, F>;
        });
        EXPECT_TRUE(selected) << flags;
    });
}

TEST(Registry, RequestsChooseFromTheTargetRate) {
    const auto fuse_bits = [](double p) {
        return with_requested_type({"fuse", {}, {}, {}}, p, [](auto chosen) -> unsigned {
            using F = typename decltype(chosen)::type;
            if constexpr (requires { F::fingerprint_bits(); }) return F::fingerprint_bits();
            else return 0;
        });
    };
    EXPECT_EQ(fuse_bits(0.01), 8U);
    EXPECT_EQ(fuse_bits(0.001), 16U);
    EXPECT_THROW(fuse_bits(1e-6), invalid_argument);  // beyond 16-bit fingerprints
}

TEST(Registry, UnknownKindsAndMisplacedOptionsAreRefused) {
    const auto nothing = [](auto) { return 0; };
    EXPECT_THROW(with_requested_type({"bogus", {}, {}, {}}, 0.01, nothing), invalid_argument);
    EXPECT_THROW(with_requested_type({"cuckoo", bloom_layout::classic, {}, {}}, 0.01, nothing), invalid_argument);
    EXPECT_THROW(with_requested_type({"bloom", {}, 8, {}}, 0.01, nothing), invalid_argument);
    EXPECT_THROW(with_requested_type({"cuckoo", {}, 10, {}}, 0.01, nothing), invalid_argument);
    EXPECT_THROW(with_requested_type({"fuse", {}, {}, 5}, 0.01, nothing), invalid_argument);
}

TEST(Registry, EveryPossiblePlanMeetsItsTarget) {
    for_each_filter_type([&](auto type) {
        using traits = kind_traits<typename decltype(type)::type>;
        try {
            const kind_plan plan = traits::plan(1e6, 0.01);
            EXPECT_LE(plan.fpr, 0.01) << traits::flags();
            EXPECT_GT(plan.bytes, 0U) << traits::flags();
        } catch (const invalid_argument&) {
            ADD_FAILURE() << traits::flags() << " cannot reach 1%";
        }
    });
}

/// A filter of type F holding the keys `inserted`, with the type's default hashing.
template <class F>
F holding(const std::vector<std::uint64_t>& inserted) {
    if constexpr (requires { kind_traits<F>::make(100, 0.01, kind_request{}, filter_options{}); }) {
        F filter = kind_traits<F>::make(100, 0.01, kind_request{std::string(kind_traits<F>::kind), {}, {}, {}}, {});
        for (const std::uint64_t key : inserted) (void)filter.insert(key);
        return filter;
    } else {
        return F(inserted);
    }
}

// insert(std::uint64_t{7}) then contains(7): the same key in every kind (file format version
// 2). The split-block filter hashes as Parquet does (XXH64 of the value in its own width, INT32
// as 4 bytes), so only 64-bit queries find 64-bit keys there.
TEST(IntegerKeys, AValueIsTheSameKeyWhateverItsTypeInEveryKind) {
    const std::vector<std::uint64_t> inserted = {7, 1000, 0xffffffffffffffffULL};
    for_each_filter_type([&](auto type) {
        using F = typename decltype(type)::type;
        const F filter = holding<F>(inserted);
        const std::string name = kind_traits<F>::flags();
        EXPECT_TRUE(filter.contains(std::int64_t{7})) << name;
        EXPECT_TRUE(filter.contains(std::int64_t{-1})) << name;
        if (filter.hash_function().algorithm() == hash_algorithm::xxh64) return;
        EXPECT_TRUE(filter.contains(7)) << name;
        EXPECT_TRUE(filter.contains(std::uint8_t{7})) << name;
        EXPECT_TRUE(filter.contains(std::int16_t{1000})) << name;
        EXPECT_TRUE(filter.contains(-1)) << name;
        EXPECT_TRUE(filter.contains(std::int8_t{-1})) << name;
    });
}

// --- What the keys are ---------------------------------------------------------------------

TEST(KeyFormat, RecordedByEveryKindAndKeptThroughItsFile) {
    for_each_filter_type([&](auto type) {
        using F = typename decltype(type)::type;
        const std::string name = kind_traits<F>::flags();
        if constexpr (requires { kind_traits<F>::make(100, 0.01, kind_request{}, filter_options{}); }) {
            F filter = kind_traits<F>::make(100, 0.01, kind_request{std::string(kind_traits<F>::kind), {}, {}, {}},
                                            {.keys = key_format::i64});
            EXPECT_EQ(filter.recorded_key_format(), key_format::i64) << name;
            EXPECT_EQ(header_of(filter).keys, key_format::i64) << name;
            const F again = from_bytes<F>(to_bytes(filter));
            EXPECT_EQ(again.recorded_key_format(), key_format::i64) << name;
            EXPECT_EQ(recorded_key_format(from_bytes<any_filter>(to_bytes(filter))), key_format::i64) << name;
        } else {
            // Built from its keys: typed by them, unless told.
            EXPECT_EQ(F(std::vector<std::uint64_t>{1, 2, 3}).recorded_key_format(), key_format::u64) << name;
            EXPECT_EQ(F(std::vector<std::int32_t>{-1, 2}).recorded_key_format(), key_format::i64) << name;
            EXPECT_EQ(F(std::vector<std::string>{"a", "b"}).recorded_key_format(), key_format::text) << name;
            EXPECT_EQ(F(std::vector<std::string>{"a"}, {.keys = key_format::u64}).recorded_key_format(), key_format::u64);
            const F filter(std::vector<std::string>{"a", "b"});
            EXPECT_EQ(from_bytes<F>(to_bytes(filter)).recorded_key_format(), key_format::text) << name;
        }
    });
}

TEST(KeyFormat, IntegersOfEitherSignAreTheSameKeysButNotText) {
    EXPECT_TRUE(same_keys(key_format::u64, key_format::i64));
    EXPECT_TRUE(same_keys(key_format::text, key_format::unrecorded));
    EXPECT_FALSE(same_keys(key_format::text, key_format::u64));
    EXPECT_FALSE(same_keys(key_format::i64, key_format::text));
}

TEST(KeyFormat, AUnionRefusesTextWithIntegersAndKeepsWhatIsRecorded) {
    bloom_filter numbers(1000, 0.01, {.keys = key_format::u64});
    bloom_filter text(1000, 0.01, {.keys = key_format::text});
    bloom_filter unknown(1000, 0.01);
    EXPECT_THROW(numbers |= text, incompatible_filters);
    EXPECT_EQ(numbers.recorded_key_format(), key_format::u64);
    unknown |= numbers;
    EXPECT_EQ(unknown.recorded_key_format(), key_format::u64);
    counting_bloom_filter counting_numbers(1000, 0.01, {.keys = key_format::u64});
    EXPECT_THROW(counting_numbers |= counting_bloom_filter(1000, 0.01, {.keys = key_format::text}), incompatible_filters);
    scalable_bloom_filter growing(1000, 0.01, {.keys = key_format::i64});
    EXPECT_NO_THROW(growing |= scalable_bloom_filter(1000, 0.01, {.keys = key_format::u64}));
    EXPECT_THROW(growing |= scalable_bloom_filter(1000, 0.01, {.keys = key_format::text}), incompatible_filters);
}

}  // namespace
