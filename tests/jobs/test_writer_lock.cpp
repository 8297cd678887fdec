// Tests of the writer lock (bloomkit/os/writer_lock.hpp) on real files: two descriptors, and two
// processes, exclude each other; a waiter is told once a second has gone by; a lock follows a
// file replaced while its waiter waited, and a replacement locked before it takes the path keeps
// a second writer out; a missing file is made to be locked only when asked. A holder lets go
// only once its waiter is known to wait (told so, or its polling called): no test assumes how
// soon a thread gets there.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <optional>
#include <thread>

#include "bloomkit/os/file.hpp"
#include "bloomkit/os/writer_lock.hpp"
#include "jobs_testing.hpp"
#include "waiting.hpp"

namespace {

using namespace bloomkit_test;
using bloomkit::os::file_busy;
using bloomkit::os::writer_lock;
using held = writer_lock::if_held;

/// Whether a descriptor of this process is open on the file `file` (which may have no name now).
bool open_here(const struct stat& file) {
    for (const fs::directory_entry& entry : fs::directory_iterator("/proc/self/fd")) {
        struct stat info {};
        if (::stat(entry.path().c_str(), &info) == 0 && info.st_dev == file.st_dev && info.st_ino == file.st_ino)
            return true;
    }
    return false;
}

/// A waiter's `polling` callback that counts its calls (each one a try that found the file locked)
/// and tells `waiting` at the first.
struct polls {
    std::atomic<int> count{0};
    std::promise<void> first;
    std::future<void> waiting = first.get_future();

    [[nodiscard]] std::function<void()> callback() {
        return [this] {
            if (count.fetch_add(1) == 0) first.set_value();
        };
    }
    /// Waits until the waiter has found the file locked once; false if it has not within patience.
    bool wait() const { return waiting.wait_for(patience) == std::future_status::ready; }
};

/// Whether a writer that does not wait finds `path` locked.
bool locked(const fs::path& path) {
    try {
        const writer_lock probe(path.string(), held::fail);
        return false;
    } catch (const file_busy&) {
        return true;
    }
}

TEST(WriterLock, TwoWritersInOneProcessExcludeEachOther) {
    const temp_dir dir;
    write_file(dir / "f.bkf", "old");
    {
        const writer_lock first((dir / "f.bkf").string(), held::wait);
        EXPECT_TRUE(locked(dir / "f.bkf"));
        try {
            const writer_lock second((dir / "f.bkf").string(), held::fail);
            FAIL() << "two writers held the lock";
        } catch (const file_busy& e) {
            EXPECT_EQ(std::string(e.what()),
                      "'" + (dir / "f.bkf").string() + "' is being written by another bloomkit process");
        }
    }
    EXPECT_FALSE(locked(dir / "f.bkf"));
}

TEST(WriterLock, TwoProcessesExcludeEachOther) {
    const temp_dir dir;
    write_file(dir / "f.bkf", "old");
    pipe_ends locked_now, release;
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        release.close_write();  // the parent's closing it is the signal to go
        const writer_lock mine((dir / "f.bkf").string(), held::wait);
        locked_now.put("!");
        char byte = 0;
        while (::read(release.read.get(), &byte, 1) > 0) {}  // until the parent closes its end
        ::_exit(0);
    }
    locked_now.close_write();
    release.read = bloomkit::os::file_descriptor();
    char byte = 0;
    ASSERT_EQ(::read(locked_now.read.get(), &byte, 1), 1);
    EXPECT_TRUE(locked(dir / "f.bkf"));
    release.close_write();
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT_FALSE(locked(dir / "f.bkf"));  // its lock went with the process
}

TEST(WriterLock, AWaiterIsToldOnceASecondHasGoneBy) {
    const temp_dir dir;
    write_file(dir / "f.bkf", "old");
    std::optional<writer_lock> holder(std::in_place, (dir / "f.bkf").string(), held::wait);
    // The holder lets go once the waiter has been told (should it never be, after a while: the
    // test fails then, it does not hang). However slow the machine, the waiter waits past it.
    std::promise<void> told_once;
    std::jthread release([&, told_now = told_once.get_future()] {
        (void)told_now.wait_for(patience);
        holder.reset();
    });
    int told = 0;
    const auto start = std::chrono::steady_clock::now();
    const writer_lock waiter((dir / "f.bkf").string(), held::wait, writer_lock::missing::leave, [&] {
        if (++told == 1) told_once.set_value();
    });
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
    EXPECT_EQ(told, 1);
}

/// Replaces `path` by a rename, as a save does: the same name, another file.
void replace(const fs::path& path, std::string_view contents) {
    write_file(path.string() + ".new", contents);
    fs::rename(path.string() + ".new", path);
}

TEST(WriterLock, AWaiterLocksTheFileThatReplacedTheOneItWaitedFor) {
    const temp_dir dir;
    const fs::path path = dir / "f.bkf";
    write_file(path, "old");
    std::optional<writer_lock> holder(std::in_place, path.string(), held::wait);
    std::atomic<bool> got{false};
    std::optional<writer_lock> waiter;
    polls tries;
    std::jthread waiting([&] {
        waiter.emplace(path.string(), held::wait, writer_lock::missing::leave, std::function<void()>{},
                       tries.callback());
        got.store(true);
    });
    EXPECT_TRUE(tries.wait()) << "the waiter never found the file locked";  // it waits on the old file
    replace(path, "new");
    holder.reset();  // the waiter wakes holding a file no longer at the path
    waiting.join();
    EXPECT_TRUE(got.load());
    EXPECT_TRUE(locked(path));  // it holds the new file, not the old one
}

TEST(WriterLock, AReplacementLockedBeforeItTakesThePathKeepsTheLock) {
    const temp_dir dir;
    const fs::path path = dir / "f.bkf";
    write_file(path, "old");
    writer_lock holder(path.string(), held::wait);
    std::atomic<bool> got{false};
    polls tries;
    std::jthread waiting([&] {
        const writer_lock waiter(path.string(), held::wait, writer_lock::missing::leave, std::function<void()>{},
                                 tries.callback());
        got.store(true);
    });
    EXPECT_TRUE(tries.wait()) << "the waiter never found the file locked";  // it waits on the old file
    struct stat old_file {};
    EXPECT_EQ(::stat(path.c_str(), &old_file), 0);
    write_file(path.string() + ".new", "new");
    {
        const bloomkit::os::file_descriptor fresh = bloomkit::os::open_for_reading(path.string() + ".new");
        bloomkit::os::file_descriptor replacement = writer_lock::lock_replacement(fresh.get(), path.string());
        fs::rename(path.string() + ".new", path);
        holder.keep(std::move(replacement));  // the old file's lock goes
    }
    // The old file's lock gone, the waiter wakes holding a file no longer at the path, lets it go
    // (no descriptor is left on it) and tries the new one: a try after that one is the new file's.
    EXPECT_TRUE(eventually([&] { return got.load() || !open_here(old_file); })) << "the waiter kept the old file";
    const int tries_on_the_old_file = tries.count.load();
    EXPECT_TRUE(eventually([&] { return got.load() || tries.count.load() > tries_on_the_old_file; }));
    EXPECT_FALSE(got.load());  // the waiter found the new file locked too
    holder.keep(bloomkit::os::file_descriptor());
    waiting.join();
    EXPECT_TRUE(got.load());
}

TEST(WriterLock, AMissingFileIsMadeToBeLockedOnlyWhenAsked) {
    const temp_dir dir;
    {
        const writer_lock nothing((dir / "new.bkf").string(), held::fail);
        EXPECT_FALSE(fs::exists(dir / "new.bkf"));
    }
    const writer_lock made((dir / "state.bkf").string(), held::fail, writer_lock::missing::create);
    EXPECT_TRUE(fs::exists(dir / "state.bkf"));
    EXPECT_EQ(fs::file_size(dir / "state.bkf"), 0U);
    EXPECT_TRUE(locked(dir / "state.bkf"));
}

TEST(WriterLock, AFifoIsNotLocked) {
    const temp_dir dir;
    ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
    const writer_lock first((dir / "fifo").string(), held::fail);
    EXPECT_FALSE(locked(dir / "fifo"));
}

}  // namespace
