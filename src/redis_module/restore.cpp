// src/redis_module/restore.cpp — see restore.hpp.
#include "redis_module/restore.hpp"

#include <string>
#include <utility>

#include "redis_module/module_error.hpp"

namespace bloomkit::redis_module {

restore::restore(std::uint64_t total, std::vector<std::byte> first) : total_(total) {
    if (first.size() > total)
        throw module_error("ERR invalid chunk - Too big for current filter: " + std::to_string(first.size()) +
                           " bytes of a dump of " + std::to_string(total));
    bytes_ = std::move(first);
}

void restore::append(std::uint64_t offset, std::span<const std::byte> chunk) {
    if (offset != bytes_.size())
        throw module_error("ERR invalid offset - the chunk starts at byte " + std::to_string(offset) +
                           " of the dump, but the bytes loaded so far end at " + std::to_string(bytes_.size()) +
                           " (load every chunk of one BF.SCANDUMP, in order)");
    if (chunk.size() > total_ - offset)
        throw module_error("ERR invalid chunk - Too big for current filter: it ends at byte " +
                           std::to_string(offset + chunk.size()) + " of a dump of " + std::to_string(total_) +
                           " bytes");
    bytes_.insert(bytes_.end(), chunk.begin(), chunk.end());
}

}  // namespace bloomkit::redis_module
