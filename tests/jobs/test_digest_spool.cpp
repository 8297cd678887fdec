// Tests of the digest spool (jobs/digest_spool.hpp): every digest written comes back, in order,
// in batches of any size, across the pieces it is written in; its file has no name to leave
// behind.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "bloomkit/hash.hpp"
#include "jobs/digest_spool.hpp"
#include "jobs_testing.hpp"

namespace {

using namespace bloomkit_test;
using bloomkit::digest;
using bloomkit::jobs::digest_spool;

TEST(DigestSpool, DigestsComeBackInOrderInBatchesOfAnySize) {
    const temp_dir dir;
    const tmpdir_set tmp(dir.path());
    digest_spool spool;
    constexpr std::uint64_t count = 300'000;  // past the 4 MiB written at once
    std::vector<digest> piece;
    for (std::uint64_t key = 0; key < count;) {
        piece.clear();
        for (std::uint64_t i = 0; i < 7777 && key < count; ++i, ++key) piece.push_back(digest{key, ~key});
        spool.write(piece);
    }
    EXPECT_EQ(spool.size(), count);
    EXPECT_TRUE(dir.entries().empty());  // the file has no name
    for (const std::size_t batch : {std::size_t{1000}, std::size_t{65'536}, std::size_t{count}}) {
        std::uint64_t next = 0;
        spool.read(batch, [&](std::span<const digest> digests) {
            ASSERT_LE(digests.size(), batch);
            for (const digest& d : digests) {
                ASSERT_EQ(d, (digest{next, ~next})) << next;
                ++next;
            }
        });
        EXPECT_EQ(next, count);
    }
}

TEST(DigestSpool, AnEmptySpoolReadsNothing) {
    digest_spool spool;
    bool called = false;
    spool.read(16, [&](std::span<const digest>) { called = true; });
    EXPECT_FALSE(called);
    EXPECT_EQ(spool.size(), 0U);
}

}  // namespace
