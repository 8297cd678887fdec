// src/jobs/digest_spool.hpp — the digests of more keys than fit in memory, kept in an unnamed
// temporary file: for a job that must read all of its input before it changes anything
// (an `add` too large to stage in memory is applied only once every line has been read and
// parsed), 16 bytes a key, written and read back in large sequential pieces.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bloomkit/hash.hpp"
#include "bloomkit/os/file.hpp"

namespace bloomkit::jobs {

class digest_spool {
public:
    digest_spool();

    /// Appends digests.
    void write(std::span<const digest> digests);

    /// Calls use(span of digests) for every digest written, in order, up to `batch` at a time.
    template <class Use>
    void read(std::size_t batch, Use use) {
        flush();
        std::vector<digest> buffer(batch);
        for (std::uint64_t done = 0; done < count_;) {
            const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(batch, count_ - done));
            read_at(done, std::span(buffer.data(), take));
            use(std::span<const digest>(buffer.data(), take));
            done += take;
        }
    }

    [[nodiscard]] std::uint64_t size() const noexcept { return count_; }

private:
    void flush();
    void read_at(std::uint64_t first, std::span<digest> into);

    os::file_descriptor file_;
    std::vector<digest> pending_;  // written in pieces of a few MB
    std::uint64_t count_ = 0;
};

}  // namespace bloomkit::jobs
