// Tests of bloomkit/bulk.hpp: batches of keys for any kind of the registry — the answers of
// each call are those of the kind's own calls, key by key, for text, integer and pre-hashed
// keys alike; a kind that cannot do what is asked refuses and changes nothing; remove is all or
// nothing; merge and intersect combine only filters of the same type.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/bulk.hpp"

namespace {

using namespace bloomkit;

/// An empty filter, made for integer keys, of every type that is made before its keys come, or a
/// fuse filter of `keys`.
template <class F>
any_filter made_for(const std::vector<std::uint64_t>& keys) {
    if constexpr (requires { kind_traits<F>::make(1, 0.01, kind_request{}, filter_options{}); })
        return kind_traits<F>::make(4000, 0.01, kind_traits<F>::request(), {.keys = key_format::u64});
    else return F(keys);
}

std::vector<std::uint64_t> numbers(std::uint64_t first, std::size_t count) {
    std::vector<std::uint64_t> keys(count);
    for (std::size_t i = 0; i < count; ++i) keys[i] = first + i;
    return keys;
}

/// A buffer of answers: std::vector<bool> packs its bits and has no span.
template <class T>
struct answers {
    explicit answers(std::size_t n) : data(new T[n]()), count(n) {}
    std::span<T> span() { return {data.get(), count}; }
    T operator[](std::size_t i) const { return data[i]; }
    std::unique_ptr<T[]> data;
    std::size_t count;
};

TEST(Bulk, EveryKindAnswersAsItsOwnCallsDoForEveryKindOfKey) {
    const std::vector<std::uint64_t> held = numbers(1, 2000), probes = numbers(1001, 2000);
    for_each_filter_type([&](auto type) {
        using F = typename decltype(type)::type;
        SCOPED_TRACE(kind_traits<F>::name());
        any_filter filter = made_for<F>(held);
        if constexpr (inserting_filter<F>) {
            answers<bool> added(held.size());
            const std::uint64_t fresh = insert(filter, std::span<const std::uint64_t>(held), added.span());
            EXPECT_GT(fresh, held.size() * 9 / 10);
        }
        const F& typed = std::get<F>(filter);
        answers<bool> by_number(probes.size()), by_digest(probes.size());
        contains(filter, std::span<const std::uint64_t>(probes), by_number.span());
        std::vector<digest> digests(probes.size());
        hash(filter, std::span<const std::uint64_t>(probes), std::span(digests));
        contains(filter, std::span<const digest>(digests), by_digest.span());
        for (std::size_t i = 0; i < probes.size(); ++i) {
            EXPECT_EQ(by_number[i], typed.contains(probes[i])) << i;
            EXPECT_EQ(by_digest[i], by_number[i]) << "a digest is the key it was hashed from: " << i;
        }
        for (std::size_t i = 0; i < 1000; ++i) EXPECT_TRUE(by_number[i]) << "a held key is missing: " << probes[i];
    });
}

TEST(Bulk, TextKeysAreTheirBytes) {
    any_filter filter = block_bloom_filter(1000, 0.01);
    const std::vector<std::string_view> words = {"alpha", "beta", "gamma"};
    insert(filter, std::span<const std::string_view>(words));
    const std::string owned = "beta";
    EXPECT_TRUE(std::get<block_bloom_filter>(filter).contains(owned));
    const std::vector<std::span<const std::byte>> bytes = {std::as_bytes(std::span(owned.data(), owned.size()))};
    answers<bool> found(1);
    contains(filter, std::span<const std::span<const std::byte>>(bytes), found.span());
    EXPECT_TRUE(found[0]);
}

TEST(Bulk, AKindRefusesWhatItCannotDoAndChangesNothing) {
    const std::vector<std::uint64_t> keys = numbers(1, 100);
    any_filter fuse = binary_fuse8_filter(keys);
    const std::vector<std::byte> before = to_bytes(fuse);
    EXPECT_THROW(insert(fuse, std::span<const std::uint64_t>(keys)), invalid_argument);
    EXPECT_THROW(remove(fuse, std::span<const std::uint64_t>(keys)), invalid_argument);
    EXPECT_EQ(to_bytes(fuse), before);
    any_filter bloom = block_bloom_filter(1000, 0.01);
    answers<std::uint64_t> counts(keys.size());
    EXPECT_THROW(count(bloom, std::span<const std::uint64_t>(keys), counts.span()), invalid_argument);
    EXPECT_THROW(remove(bloom, std::span<const std::uint64_t>(keys)), invalid_argument);
    answers<bool> too_few(3);
    EXPECT_THROW(contains(bloom, std::span<const std::uint64_t>(keys), too_few.span()), invalid_argument);
}

TEST(Bulk, RemoveIsAllOrNothingAndCountCountsCopies) {
    for (any_filter filter : {any_filter(counting_bloom_filter(1000, 0.01)), any_filter(cuckoo_filter(1000, 0.01))}) {
        SCOPED_TRACE(kind_name(filter));
        const std::vector<std::uint64_t> held = numbers(1, 500);
        insert(filter, std::span<const std::uint64_t>(held));
        insert(filter, std::span<const std::uint64_t>(held.data(), 1));  // key 1 twice
        answers<std::uint64_t> counts(2);
        const std::vector<std::uint64_t> asked = {1, 2};
        count(filter, std::span<const std::uint64_t>(asked), counts.span());
        EXPECT_GE(counts[0], 2U);
        EXPECT_GE(counts[1], 1U);
        const std::vector<std::byte> before = to_bytes(filter);
        std::vector<std::uint64_t> batch = numbers(10, 20);
        std::uint64_t absent = 1'000'000;
        answers<bool> found(1);
        for (;; ++absent) {  // a key it certainly does not hold
            contains(filter, std::span<const std::uint64_t>(&absent, 1), found.span());
            if (!found[0]) break;
        }
        batch.insert(batch.begin() + 7, absent);
        EXPECT_EQ(remove(filter, std::span<const std::uint64_t>(batch)), 7U);
        EXPECT_EQ(to_bytes(filter), before) << "nothing removed";
        batch.erase(batch.begin() + 7);
        EXPECT_EQ(remove(filter, std::span<const std::uint64_t>(batch)), batch.size());
    }
}

TEST(Bulk, AFullCuckooFilterSaysWhichKeysWentIn) {
    any_filter filter = cuckoo_filter(cuckoo_geometry{4, 8});  // 16 slots and a stash
    const std::vector<std::uint64_t> keys = numbers(1, 40);
    answers<bool> added(keys.size());
    EXPECT_THROW(insert(filter, std::span<const std::uint64_t>(keys), added.span()), filter_full);
    const cuckoo_filter& typed = std::get<cuckoo_filter>(filter);
    std::uint64_t stored = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        stored += added[i] ? 1 : 0;
        if (added[i]) {
            EXPECT_TRUE(typed.contains(keys[i])) << "a key said to be in is not: " << keys[i];
        }
    }
    EXPECT_EQ(stored, typed.inserted_count());
}

// A copy a cuckoo filter cannot store is refused aloud: dropped silently, it would be taken from
// the others by a later remove, and the key would read "certainly absent" while still added.
TEST(Bulk, ACuckooFilterRefusesACopyItHasNoSlotFor) {
    any_filter filter = cuckoo_filter(1000, 0.01);
    const std::vector<std::string_view> eight(8, "dup");
    EXPECT_EQ(insert(filter, std::span<const std::string_view>(eight)), 8u);
    const std::vector<std::string_view> ninth = {"other", "dup"};
    answers<bool> added(ninth.size());
    EXPECT_THROW(insert(filter, std::span<const std::string_view>(ninth), added.span()), too_many_copies_error);
    EXPECT_TRUE(added[0]);
    EXPECT_FALSE(added[1]);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(remove(filter, std::span<const std::string_view>(ninth).subspan(1)), 1u);
    EXPECT_FALSE(std::get<cuckoo_filter>(filter).contains(std::string_view("dup")));  // 8 adds, 8 removes
    EXPECT_TRUE(std::get<cuckoo_filter>(filter).contains(std::string_view("other")));
}

TEST(Bulk, MergeAndIntersectCombineOnlyTheSameType) {
    any_filter a = block_bloom_filter(1000, 0.01), b = block_bloom_filter(1000, 0.01);
    const std::vector<std::uint64_t> left = numbers(1, 100), right = numbers(51, 100);
    insert(a, std::span<const std::uint64_t>(left));
    insert(b, std::span<const std::uint64_t>(right));
    any_filter both = a;
    merge(both, b);
    any_filter common = a;
    intersect(common, b);
    const std::vector<std::uint64_t> probes = numbers(1, 150);
    answers<bool> in_both(probes.size()), in_common(probes.size());
    contains(both, std::span<const std::uint64_t>(probes), in_both.span());
    contains(common, std::span<const std::uint64_t>(probes), in_common.span());
    for (std::size_t i = 0; i < probes.size(); ++i) EXPECT_TRUE(in_both[i]) << probes[i];
    for (std::size_t i = 50; i < 100; ++i) EXPECT_TRUE(in_common[i]) << probes[i];
    any_filter other = counting_bloom_filter(1000, 0.01);
    EXPECT_THROW(merge(both, other), incompatible_filters);
    any_filter cuckoo = cuckoo_filter(1000, 0.01);
    EXPECT_THROW(merge(cuckoo, cuckoo), invalid_argument);
    EXPECT_THROW(intersect(other, other), invalid_argument);
}

}  // namespace
