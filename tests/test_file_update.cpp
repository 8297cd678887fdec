// Tests of updates in place (file_update.hpp): all or nothing, never re-sealing damage, a crash
// at any step recovered, readers beside a writer never told an intact file is corrupt, mapped
// readers telling in-place updates from other changes, and update_copy().
//
// A crash is staged by writing, with the checksums a writer would have, the bytes a commit
// leaves after each of its steps (file_update.hpp): the flag, the chunks it marks, the bits.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "bloomkit/file_update.hpp"
#include "file_test_support.hpp"
#include "waiting.hpp"

namespace {

using namespace bloomkit_test;
using bloomkit::format_errc;
using filter = bloomkit::block_bloom_filter;
using update = bloomkit::in_place_update<filter>;

std::vector<std::uint64_t> keys(std::uint64_t first, std::uint64_t count) {
    std::vector<std::uint64_t> k(count);
    for (std::uint64_t i = 0; i < count; ++i) k[i] = first + i;
    return k;
}

/// A filter of 200,000 keys at 1%: ~240 KB of payload, four chunks of 64 KiB.
fs::path saved_filter(const temp_dir& dir, const std::vector<std::uint64_t>& held) {
    filter f(200'000, 0.01);
    f.insert(held.begin(), held.end());
    const fs::path path = dir / "seen.bkf";
    bloomkit::save(f, path);
    return path;
}

std::size_t table_entry(const bytes& file, std::uint64_t chunk) {
    return header_size + static_cast<std::size_t>(announced_payload(file)) + 8 * static_cast<std::size_t>(chunk);
}
std::size_t chunk_start(std::uint64_t chunk) {
    return header_size + (static_cast<std::size_t>(chunk) << default_chunk_shift);
}

/// Whether every key tests present in the file, loaded (which verifies it).
::testing::AssertionResult holds_all(const fs::path& path, const std::vector<std::uint64_t>& held) {
    const filter loaded = bloomkit::load<filter>(path);
    for (const std::uint64_t key : held)
        if (!loaded.contains(key)) return ::testing::AssertionFailure() << "key " << key << " is missing";
    return ::testing::AssertionSuccess();
}

template <class Call>
::testing::AssertionResult fails_with(format_errc reason, std::string_view part, Call call) {
    try {
        call();
    } catch (const bloomkit::file_format_error& e) {
        if (e.reason() != reason) return ::testing::AssertionFailure() << "another reason: " << e.what();
        if (std::string_view(e.what()).find(part) == std::string_view::npos)
            return ::testing::AssertionFailure() << "'" << part << "' not in: " << e.what();
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "accepted";
}

/// The file as a crash between a commit's flushes could leave it: the flag set and `marked`
/// chunks marked as being written, with `extra` bits ORed into the first of them.
bytes crashed_mid_commit(bytes file, const std::vector<std::uint64_t>& marked, bool flag = true) {
    if (flag) {
        put_le(file, field::flags, flag::interrupted_update, 4);
        reseal(file);
    }
    for (const std::uint64_t chunk : marked) put_le(file, table_entry(file, chunk), chunk_being_written, 8);
    if (!marked.empty()) file[chunk_start(marked.front()) + 100] |= 0x5a;  // some of the update's bits
    return file;
}

class FileUpdate : public ::testing::Test {
protected:
    temp_dir dir_;
    std::vector<std::uint64_t> held_ = keys(1, 150'000);
    std::vector<std::uint64_t> added_ = keys(1'000'000, 5'000);
};

TEST_F(FileUpdate, CommitAddsEveryKeyAndTheFileStillVerifies) {
    const fs::path path = saved_filter(dir_, held_);
    update u(path);
    u.insert(added_.begin(), added_.end());
    EXPECT_EQ(u.pending(), added_.size());
    const std::uint64_t fresh = u.commit();
    EXPECT_GT(fresh, added_.size() * 9 / 10);  // a few may be false positives already
    EXPECT_EQ(u.pending(), 0U);
    EXPECT_TRUE(holds_all(path, held_));
    EXPECT_TRUE(holds_all(path, added_));
    const filter loaded = bloomkit::load<filter>(path);
    const bloomkit::file_header h = bloomkit::read_header(path);
    EXPECT_EQ(h.inserted_count, held_.size() + added_.size());
    EXPECT_EQ(bloomkit::kind_parameters<filter>(h).set_bits, loaded.set_bit_count());  // the counts follow the bits
    EXPECT_EQ(h.flags, 0U);
}

TEST_F(FileUpdate, KeysNotCommittedChangeNothing) {
    const fs::path path = saved_filter(dir_, held_);
    const bytes before = read_bytes(path);
    {
        update u(path);
        u.insert(added_.begin(), added_.end());
    }
    EXPECT_EQ(read_bytes(path), before);
}

TEST_F(FileUpdate, ADamagedChunkIsRefusedAndTheFileIsLeftAsItWas) {
    const fs::path path = saved_filter(dir_, held_);
    bytes file = read_bytes(path);
    for (std::size_t i = 0; i < 8192; ++i) file[chunk_start(2) + i] = 0;  // 8 KiB zeroed in chunk 2
    write_bytes(path, file);
    update u(path);
    u.insert(added_.begin(), added_.end());  // 5,000 keys: some fall in chunk 2
    EXPECT_TRUE(fails_with(format_errc::payload_checksum, "it was not changed", [&] { u.commit(); }));
    EXPECT_EQ(read_bytes(path), file);
    EXPECT_TRUE(fails_with(format_errc::payload_checksum, "chunk 2", [&] { (void)bloomkit::load<filter>(path); }));
}

TEST_F(FileUpdate, AnInterruptedUpdateIsSealedAgainOnceEveryOtherChunkMatches) {
    const fs::path path = saved_filter(dir_, held_);
    write_bytes(path, crashed_mid_commit(read_bytes(path), {1, 3}));
    EXPECT_TRUE(
        fails_with(format_errc::interrupted_update, "was interrupted", [&] { (void)bloomkit::load<filter>(path); }));
    const auto mapped = bloomkit::map<filter>(path);  // the header alone opens
    EXPECT_TRUE(fails_with(format_errc::interrupted_update, "was interrupted", [&] { mapped.verify(); }));
    {
        update u(path);
        EXPECT_TRUE(u.recovered());
        EXPECT_EQ(u.header().flags, 0U);
    }
    EXPECT_TRUE(holds_all(path, held_));
    EXPECT_EQ(bloomkit::kind_parameters<filter>(bloomkit::read_header(path)).set_bits,
              bloomkit::load<filter>(path).set_bit_count());
}

TEST_F(FileUpdate, MarksWithoutTheFlagAreAnInterruptedUpdateToo) {
    // The flag and the marks are flushed together: a crash may leave either without the other.
    const fs::path path = saved_filter(dir_, held_);
    write_bytes(path, crashed_mid_commit(read_bytes(path), {0}, false));
    EXPECT_TRUE(
        fails_with(format_errc::interrupted_update, "was interrupted", [&] { (void)bloomkit::load<filter>(path); }));
    EXPECT_TRUE(update(path).recovered());
    EXPECT_TRUE(holds_all(path, held_));
}

TEST_F(FileUpdate, TheFlagWithoutMarksSealsNothingButCheckedChunks) {
    const fs::path path = saved_filter(dir_, held_);
    write_bytes(path, crashed_mid_commit(read_bytes(path), {}));
    EXPECT_TRUE(update(path).recovered());
    EXPECT_TRUE(holds_all(path, held_));
}

TEST_F(FileUpdate, AnInterruptedUpdateOverDamageIsNeverSealed) {
    // The damage the issue found re-sealed: an update left unfinished, and a chunk it was not
    // writing damaged. Sealing it would vouch for the damage: refused, and nothing changes.
    const fs::path path = saved_filter(dir_, held_);
    bytes file = crashed_mid_commit(read_bytes(path), {1});
    for (std::size_t i = 0; i < 8192; ++i) file[chunk_start(3) + i] = 0;
    write_bytes(path, file);
    EXPECT_TRUE(
        fails_with(format_errc::payload_checksum, "chunk 3, which it was not writing", [&] { update u(path); }));
    EXPECT_EQ(read_bytes(path), file);
    EXPECT_TRUE(
        fails_with(format_errc::payload_checksum, "chunk 3, which it was not writing", [&] { update u(path); }));
    EXPECT_EQ(read_bytes(path), file);
    EXPECT_TRUE(
        fails_with(format_errc::interrupted_update, "was interrupted", [&] { (void)bloomkit::load<filter>(path); }));
}

TEST_F(FileUpdate, ReadersWaitForAnUpdateInProgress) {
    // A writer's exclusive lock (an open file description lock on the whole file) holds a
    // reader back until it is released; the reader then reads the file as the update left it.
    const fs::path path = saved_filter(dir_, held_);
    const int writer = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(writer, 0);
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    ASSERT_EQ(::fcntl(writer, F_OFD_SETLKW, &lock), 0);
    bytes file = read_bytes(path);
    put_le(file, field::flags, flag::interrupted_update, 4);  // mid-update, as the writer sees it
    reseal(file);
    const bytes sealed = read_bytes(path);
    ASSERT_EQ(::pwrite(writer, file.data(), header_size, 0), static_cast<::ssize_t>(header_size));
    std::atomic<bool> read{false};
    std::atomic<pid_t> reader_id{0};
    std::thread reader([&] {
        reader_id = bloomkit_test::this_thread_id();
        EXPECT_TRUE(holds_all(path, held_));  // no "interrupted": it waited
        read = true;
    });
    // Asleep once it has said who it is, the reader can only be waiting for the lock.
    EXPECT_TRUE(bloomkit_test::eventually([&] {
        const pid_t id = reader_id.load();
        return read.load() || (id != 0 && bloomkit_test::asleep(id));
    })) << "the reader never waited";
    EXPECT_FALSE(read.load());
    ASSERT_EQ(::pwrite(writer, sealed.data(), header_size, 0), static_cast<::ssize_t>(header_size));
    lock.l_type = F_UNLCK;
    ASSERT_EQ(::fcntl(writer, F_OFD_SETLK, &lock), 0);
    reader.join();
    EXPECT_TRUE(read.load());
    ::close(writer);
}

TEST_F(FileUpdate, ReadersBesideAWriterNeverSeeAnIntactFileAsDamaged) {
    // A writer commits small updates while readers load, map and verify: every read succeeds,
    // and holds every key committed before it began.
    const fs::path path = saved_filter(dir_, held_);
    std::atomic<std::uint64_t> committed{0};
    std::atomic<bool> done{false};
    std::thread writer([&] {
        update u(path);
        for (std::uint64_t round = 0; round < 60; ++round) {
            const std::vector<std::uint64_t> batch = keys(5'000'000 + 50 * round, 50);
            u.insert(batch.begin(), batch.end());
            u.commit();
            committed = round + 1;
        }
        done = true;
    });
    std::vector<std::string> failures;
    std::uint64_t reads = 0;
    while (!done.load() || reads < 20) {
        const std::uint64_t before = committed.load();
        try {
            const filter loaded = bloomkit::load<filter>(path);
            const auto mapped = bloomkit::map<filter>(path);
            mapped.verify();
            for (std::uint64_t round = 0; round < before; ++round)
                if (!loaded.contains(5'000'000 + 50 * round) || !mapped->contains(5'000'000 + 50 * round))
                    failures.push_back("a key committed in round " + std::to_string(round) + " is missing");
            if (mapped.changed()) failures.push_back("an in-place update was reported as a change");
        } catch (const std::exception& e) {
            failures.push_back(e.what());
        }
        ++reads;
    }
    writer.join();
    EXPECT_TRUE(failures.empty()) << failures.size() << " failures, the first: " << failures.front();
    EXPECT_TRUE(holds_all(path, held_));
}

TEST_F(FileUpdate, MappedFiltersSeeInPlaceUpdatesAndReportOtherChanges) {
    const fs::path path = saved_filter(dir_, held_);
    const auto mapped = bloomkit::map<filter>(path);
    {
        update u(path);
        u.insert(added_.begin(), added_.end());
        u.commit();
    }
    EXPECT_FALSE(mapped.changed());  // keys were only added
    EXPECT_TRUE(mapped->contains(added_.front()));
    mapped.verify();
    {
        update u(path);
        u.insert(held_.begin(), held_.end());
        u.commit();
    }
    // Another program writes in place, after another update nobody looked at: reported.
    bytes file = read_bytes(path);
    file[chunk_start(0) + 7] ^= 0xff;
    {
        std::fstream out(path, std::ios::in | std::ios::out | std::ios::binary);
        out.seekp(static_cast<std::streamoff>(chunk_start(0) + 7));
        out.put(static_cast<char>(file[chunk_start(0) + 7]));
    }
    EXPECT_TRUE(mapped.changed());
}

TEST_F(FileUpdate, UpdateCopyReplacesTheFileOnlyWhenItCompletes) {
    const fs::path path = saved_filter(dir_, held_);
    const bytes before = read_bytes(path);
    EXPECT_THROW(bloomkit::update_copy<filter>(path,
                                               [&](update& copy) {
                                                   copy.insert(added_.begin(), added_.end());
                                                   copy.commit();
                                                   throw std::runtime_error("the input failed");
                                               }),
                 std::runtime_error);
    EXPECT_EQ(read_bytes(path), before);
    EXPECT_EQ(dir_.entries(), std::vector<std::string>{"seen.bkf"});  // no temporary left
    const auto mapped = bloomkit::map<filter>(path);
    bloomkit::update_copy<filter>(path, [&](update& copy) {
        for (std::size_t at = 0; at < added_.size(); at += 1000) {
            copy.insert(added_.begin() + static_cast<std::ptrdiff_t>(at),
                        added_.begin() + static_cast<std::ptrdiff_t>(at + 1000));
            copy.commit();
        }
    });
    EXPECT_TRUE(holds_all(path, held_));
    EXPECT_TRUE(holds_all(path, added_));
    EXPECT_FALSE(mapped.changed());  // the map keeps the file it opened
    EXPECT_FALSE(mapped->contains(added_.front()) && mapped->contains(added_.back()) && mapped->contains(added_[2500]));
}

TEST_F(FileUpdate, AKeyFormatIsRecordedInAFileOfAnEarlierVersion) {
    const fs::path path = saved_filter(dir_, held_);
    // Version 2 knows hashes up to 4 (xxh3-mum), under which integer keys hash as under the
    // default (7): the same file as a version 2 writer made it.
    bytes v3 = read_bytes(path);
    ASSERT_EQ(v3[field::hash], static_cast<unsigned char>(bloomkit::hash_algorithm::xxh3_64_mum));
    v3[field::hash] = static_cast<unsigned char>(bloomkit::hash_algorithm::xxh3_mum);
    write_bytes(path, to_version_2(v3));
    EXPECT_EQ(bloomkit::read_header(path).keys, bloomkit::key_format::unrecorded);
    {
        update u(path);
        u.record_key_format(bloomkit::key_format::u64);
        u.commit();
    }
    const bloomkit::file_header h = bloomkit::read_header(path);
    EXPECT_EQ(h.version, format_version);
    EXPECT_EQ(h.keys, bloomkit::key_format::u64);
    EXPECT_EQ(bloomkit::load<filter>(path).recorded_key_format(), bloomkit::key_format::u64);
    EXPECT_TRUE(holds_all(path, held_));
}

TEST_F(FileUpdate, AVersion1FileIsNotUpdatedInPlace) {
    const fs::path path = dir_ / "old.bkf";
    bloomkit::save(filter(1000, 0.01, {.hash = bloomkit::hash_algorithm::xxh3_128}), path);  // a hash version 1 knows
    write_bytes(path, to_version_1(read_bytes(path)));
    EXPECT_TRUE(fails_with(format_errc::unsupported_version, "version 1", [&] { update u(path); }));
}

}  // namespace
