// bloomkit/os/atomic_replace.hpp — replacing a file so that its path always holds either the old
// contents or the complete new ones, whatever happens (a full disk, a signal, a power cut).
//
// The new contents go to an unnamed temporary in the destination's directory (O_TMPFILE: the
// kernel drops it if the process dies), which is fsynced, named beside the destination and renamed
// over it, then the directory fsynced; a new path is linked in directly. Where the file system has
// no unnamed files, the temporary is named (.NAME.tmp-XXXXXX) and registered for a signal handler
// to remove (remove_pending_temporaries()). Symlinks are followed, so the real file is replaced and
// the link kept; only a regular file the user may write (or a new path) is replaced, keeping its
// permissions, and its owner where the process may set it. save() (file.hpp) writes this way.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <system_error>

#include "bloomkit/error.hpp"
#include "bloomkit/os/file.hpp"

namespace bloomkit {

namespace detail {

/// A fixed table a signal handler can read without locks or allocation.
class pending_temporaries {
public:
    static constexpr std::size_t slots = 32, path_bytes = 4096;

    static pending_temporaries& instance() noexcept {
        static pending_temporaries table;
        return table;
    }

    /// Its slot, or -1 when full or too long (the file is then not removed on a signal).
    int add(const std::string& path) noexcept {
        if (path.size() >= path_bytes) return -1;
        for (std::size_t i = 0; i < slots; ++i) {
            int expected = free;
            if (!state_[i].compare_exchange_strong(expected, filling, std::memory_order_acquire)) continue;
            std::memcpy(paths_[i].data(), path.c_str(), path.size() + 1);
            state_[i].store(ready, std::memory_order_release);
            return static_cast<int>(i);
        }
        return -1;
    }

    void remove(int slot) noexcept {
        if (slot >= 0) state_[static_cast<std::size_t>(slot)].store(free, std::memory_order_release);
    }

    /// Unlinks every registered file. Async-signal-safe.
    void unlink_all() noexcept {
        for (std::size_t i = 0; i < slots; ++i)
            if (state_[i].load(std::memory_order_acquire) == ready) ::unlink(paths_[i].data());
    }

private:
    static constexpr int free = 0, filling = 1, ready = 2;
    std::array<std::atomic<int>, slots> state_{};
    std::array<std::array<char, path_bytes>, slots> paths_{};
};

class pending_temporary {
public:
    explicit pending_temporary(const std::string& path) : slot_(pending_temporaries::instance().add(path)) {}
    ~pending_temporary() { pending_temporaries::instance().remove(slot_); }
    pending_temporary(const pending_temporary&) = delete;
    pending_temporary& operator=(const pending_temporary&) = delete;

private:
    int slot_;
};

struct replace_target {
    std::filesystem::path real;  ///< symlinks followed
    bool exists = false;
    struct stat info {};  ///< of the real file, when it exists
};

/// "a directory", "a FIFO", ..., for messages.
inline const char* file_type_name(::mode_t mode) noexcept {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

/// Follows symlinks; throws unless a regular file this process may write, or a path to create.
inline replace_target resolve_replace_target(const std::filesystem::path& typed) {
    const std::string text = typed.string();
    if (text.empty()) throw invalid_argument("an empty path is not a file name");
    if (text.back() == '/') os::throw_io("cannot write", typed, EISDIR);
    replace_target target{typed};
    for (int hops = 0;; ++hops) {
        struct stat link {};
        if (::lstat(target.real.c_str(), &link) != 0) {
            if (errno != ENOENT) os::throw_io("cannot write", typed);
            break;  // a new file (possibly at the end of a dangling link)
        }
        if (!S_ISLNK(link.st_mode)) break;
        if (hops == 40) os::throw_io("cannot write", typed, ELOOP);
        std::error_code failed;
        const std::filesystem::path next = std::filesystem::read_symlink(target.real, failed);
        if (failed) os::throw_io("cannot write", typed, failed.value());
        target.real = next.is_absolute() ? next : target.real.parent_path() / next;
    }
    if (::stat(target.real.c_str(), &target.info) == 0) {
        target.exists = true;
        if (S_ISDIR(target.info.st_mode)) os::throw_io("cannot write", typed, EISDIR);
        if (!S_ISREG(target.info.st_mode))
            throw error("'" + text + "' is " + file_type_name(target.info.st_mode) +
                        ", not a regular file: only regular "
                        "files are replaced");
        if (::access(target.real.c_str(), W_OK) != 0) os::throw_io("cannot write", typed);
    } else if (errno != ENOENT) {
        os::throw_io("cannot write", typed);
    }
    return target;
}

inline std::string random_suffix(std::size_t count) {
    static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::random_device device;
    std::string suffix(count, 'x');
    for (char& c : suffix) c = alphabet[device() % (sizeof alphabet - 1)];
    return suffix;
}

/// ".NAME.tmp-", shortened for a name near NAME_MAX so that the temporary fits beside it.
inline std::string temporary_prefix(const std::string& filename) {
    constexpr std::size_t longest = 255, added = 1 + 5 + 6;  // ".", ".tmp-", the suffix
    std::string kept = filename.substr(0, std::min(filename.size(), longest - added));
    while (kept.size() < filename.size() && !kept.empty() &&
           (static_cast<unsigned char>(filename[kept.size()]) & 0xc0) == 0x80)
        kept.pop_back();      // not in the middle of a UTF-8 character
    std::string prefix(".");  // appended, not "." + name: GCC 12 -O3 warns falsely (-Wrestrict) on that
    prefix.append(kept).append(".tmp-");
    return prefix;
}

}  // namespace detail

namespace os {

/// Throws unless replace_file() could replace `typed` (its directory included).
inline void require_replaceable(const std::filesystem::path& typed) {
    const detail::replace_target target = detail::resolve_replace_target(typed);
    const std::filesystem::path directory = target.real.has_parent_path() ? target.real.parent_path() : ".";
    if (::access(directory.c_str(), W_OK | X_OK) != 0)
        throw io_error(
            "cannot create a file in '" + directory.string() + "' to replace '" + typed.string() + "' atomically",
            std::error_code(errno, std::generic_category()));
}

/// Replaces `typed` with what `write` puts into a file opened for reading and writing. On any
/// failure the destination is untouched and no temporary is left; errors name `typed`.
inline void replace_file(const std::filesystem::path& typed, const std::function<void(const file_descriptor&)>& write) {
    const detail::replace_target target = detail::resolve_replace_target(typed);
    const std::filesystem::path directory = target.real.has_parent_path() ? target.real.parent_path() : ".";
    const std::string name_prefix = (directory / detail::temporary_prefix(target.real.filename().string())).string();

    std::string named;
    file_descriptor file(::open(directory.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0666));
    if (file.get() < 0) {
        if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) throw_io("cannot write", typed);
        named = name_prefix + "XXXXXX";
        file = file_descriptor(::mkstemp(named.data()));
        if (file.get() < 0) throw_io("cannot write", typed);
    }
    std::optional<detail::pending_temporary> registered;
    if (!named.empty()) registered.emplace(named);
    try {
        if (target.exists) {
            if (::fchmod(file.get(), target.info.st_mode & 07777) != 0) throw_io("cannot write", typed);
            if (::fchown(file.get(), target.info.st_uid, target.info.st_gid) != 0 && errno != EPERM)
                throw_io("cannot write", typed);
        } else if (!named.empty() && ::fchmod(file.get(), 0644) != 0) {  // mkstemp made it 0600
            throw_io("cannot write", typed);
        }
        write(file);
        if (::fsync(file.get()) != 0) throw_io("cannot write", typed);

        if (named.empty()) {
            const std::string self = "/proc/self/fd/" + std::to_string(file.get());
            if (!target.exists &&
                ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, target.real.c_str(), AT_SYMLINK_FOLLOW) == 0) {
                file_descriptor dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
                if (dir.get() >= 0) ::fsync(dir.get());
                return;
            }
            for (int attempt = 0; named.empty(); ++attempt) {
                const std::string candidate = name_prefix + detail::random_suffix(6);
                if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, candidate.c_str(), AT_SYMLINK_FOLLOW) == 0)
                    named = candidate;
                else if (errno != EEXIST || attempt == 100) throw_io("cannot write", typed);
            }
            registered.emplace(named);
            // Nothing, not even the close, between link and rename: a kill -9 there leaves the name.
            if (::rename(named.c_str(), target.real.c_str()) != 0) throw_io("cannot replace", typed);
            named.clear();
        } else {
            if (file.close() != 0) throw_io("cannot write", typed);
            if (::rename(named.c_str(), target.real.c_str()) != 0) throw_io("cannot replace", typed);
        }
    } catch (...) {
        if (!named.empty()) ::unlink(named.c_str());
        throw;
    }
    file_descriptor dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() >= 0) ::fsync(dir.get());  // makes the rename durable; best effort
}

/// Removes the .NAME.tmp-XXXXXX files a SIGKILLed replace_file() of `typed` left; returns how
/// many. Only while holding `typed`'s writer lock: another writer's temporary looks the same.
inline std::size_t remove_stale_temporaries(const std::filesystem::path& typed) {
    const detail::replace_target target = detail::resolve_replace_target(typed);
    const std::filesystem::path directory = target.real.has_parent_path() ? target.real.parent_path() : ".";
    const std::string prefix = detail::temporary_prefix(target.real.filename().string());
    std::size_t removed = 0;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
        const std::string name = entry.path().filename().string();
        if (name.size() == prefix.size() + 6 && name.compare(0, prefix.size(), prefix) == 0 &&
            ::unlink(entry.path().c_str()) == 0)
            ++removed;
    }
    return removed;
}

}  // namespace os

/// Removes the named temporaries being written. Async-signal-safe: for SIGINT/SIGTERM/SIGHUP
/// handlers, so an interrupted save leaves nothing behind.
inline void remove_pending_temporaries() noexcept { detail::pending_temporaries::instance().unlink_all(); }

}  // namespace bloomkit
