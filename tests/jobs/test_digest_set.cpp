// Tests of the digest set (jobs/digest_set.hpp): exact membership of 128-bit digests, the
// all-zero digest included, through growth, one at a time or in batches that repeat themselves.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "bloomkit/hash.hpp"
#include "jobs/digest_set.hpp"

namespace {

using bloomkit::digest;
using bloomkit::jobs::digest_set;

digest digest_of(std::uint64_t key) { return bloomkit::hasher()(key); }

TEST(DigestSet, InsertSaysWhetherADigestIsNew) {
    digest_set set;
    EXPECT_TRUE(set.insert(digest_of(1)));
    EXPECT_FALSE(set.insert(digest_of(1)));
    EXPECT_TRUE(set.insert(digest{1, 0}));
    EXPECT_TRUE(set.insert(digest{0, 1}));  // the halves matter, not just the slot
    EXPECT_EQ(set.size(), 3U);
}

TEST(DigestSet, TheZeroDigestIsAMemberLikeAnyOther) {
    digest_set set;
    EXPECT_TRUE(set.insert(digest{0, 0}));
    EXPECT_FALSE(set.insert(digest{0, 0}));
    EXPECT_EQ(set.size(), 1U);
}

TEST(DigestSet, EveryDigestSurvivesGrowth) {
    digest_set set;
    for (std::uint64_t key = 0; key < 100'000; ++key) ASSERT_TRUE(set.insert(digest_of(key)));
    for (std::uint64_t key = 0; key < 100'000; ++key) ASSERT_FALSE(set.insert(digest_of(key)));
    EXPECT_EQ(set.size(), 100'000U);
    EXPECT_GE(set.size_in_bytes(), 100'000U * sizeof(digest) * 10 / 7);  // at most 70% full
}

TEST(DigestSet, ABatchMarksTheFirstOfEachDigestFresh) {
    digest_set set;
    set.insert(digest_of(2));
    const std::vector<digest> batch = {digest_of(1), digest_of(2), digest_of(1),
                                       digest{0, 0}, digest{0, 0}, digest_of(3)};
    std::vector<char> fresh(batch.size());
    set.insert(batch, fresh);
    EXPECT_EQ(fresh, (std::vector<char>{1, 0, 0, 1, 0, 1}));
    EXPECT_EQ(set.size(), 4U);
}

}  // namespace
