// src/jobs/digest_spool.cpp — see digest_spool.hpp. The digests are stored as the
// machine holds them: the file lives only as long as the process.
#include "jobs/digest_spool.hpp"

#include <algorithm>

#include "jobs/temporary_file.hpp"

namespace bloomkit::jobs {
namespace {

constexpr std::size_t pending_digests = std::size_t{1} << 18;  // 4 MiB
const char* const spool_name = "the temporary file of digests (in $TMPDIR)";

}  // namespace

digest_spool::digest_spool() : file_(unnamed_temporary_file()) { pending_.reserve(pending_digests); }

void digest_spool::write(std::span<const digest> digests) {
    while (!digests.empty()) {
        const std::size_t take = std::min(digests.size(), pending_digests - pending_.size());
        pending_.insert(pending_.end(), digests.begin(), digests.begin() + static_cast<std::ptrdiff_t>(take));
        digests = digests.subspan(take);
        count_ += take;
        if (pending_.size() == pending_digests) flush();
    }
}

void digest_spool::flush() {
    os::write_all(file_, spool_name, pending_.data(), pending_.size() * sizeof(digest));
    pending_.clear();
}

void digest_spool::read_at(std::uint64_t first, std::span<digest> into) {
    const std::size_t bytes = into.size() * sizeof(digest);
    if (os::read_at(file_, spool_name, into.data(), bytes, first * sizeof(digest)) != bytes)
        os::throw_io("cannot read back", spool_name, EIO);
}

}  // namespace bloomkit::jobs
