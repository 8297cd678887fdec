// src/redis_module/dump_commands.hpp — SCANDUMP and LOADCHUNK, for any value that holds a bkf
// filter (BF.* and CF.* keys): the chunks out (dump.hpp), and back in through a restore.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redis_module/command_call.hpp"
#include "redis_module/dump.hpp"
#include "redis_module/module_error.hpp"
#include "redis_module/restore.hpp"

namespace bloomkit::redis_module {

/// How a dump's last reply ends: RedisBloom's BF.SCANDUMP sends [0, ""], CF.SCANDUMP [0, nil].
enum class dump_end { empty_string, null };

/// Replies [iterator, chunk] for the chunk after `iterator` (0: the first), or [0, end] past the
/// last. Throws module_error for an iterator this filter's dump never returned, or when the
/// filter changed since the dump began.
template <class Value>
void reply_dump_chunk(const command_call& call, const Value& value, long long iterator, dump_end end) {
    const std::uint64_t total = value.file_size();
    const std::uint64_t stamp = stamp_of(value.writes());
    dump_cursor cursor{0, stamp};
    if (iterator != 0) {
        const std::optional<dump_cursor> at = from_iterator(iterator);
        if (!at || at->offset > total)
            throw module_error("ERR invalid iterator " + std::to_string(iterator) +
                               ": not one that SCANDUMP returned for this filter");
        if (at->stamp != stamp)
            throw module_error("ERR the filter changed since its SCANDUMP began: dump it again from iterator 0");
        cursor = *at;
    }
    call.array(2);
    if (cursor.offset == total) {
        call.integer_reply(0);
        if (end == dump_end::null) call.null();
        else call.bulk({});
        return;
    }
    const std::vector<std::byte> chunk = slice(value.writer(), cursor.offset, dump_chunk_bytes);
    cursor.offset += chunk.size();
    call.integer_reply(to_iterator(cursor));
    call.bulk(chunk);
}

/// Loads one chunk of a dump into the key: the first one (a bkf header, and maybe more) makes a
/// value being restored, the others append to it, and the last one turns it into the filter.
/// Throws module_error for bad data, a chunk out of order, a key holding a whole filter, or a
/// filter larger than `max_bytes`; a dump that proves invalid once whole deletes the key.
template <class Value>
void load_dump_chunk(const open_key& key, data_type* type, long long iterator, std::string_view data,
                     std::uint64_t max_bytes) {
    const auto bytes = std::as_bytes(std::span<const char>(data.data(), data.size()));
    const std::optional<dump_cursor> at = from_iterator(iterator);
    if (!at || at->offset < bytes.size())
        throw module_error("ERR received bad data: iterator " + std::to_string(iterator) +
                           " is not one SCANDUMP returned with a chunk of " + std::to_string(bytes.size()) + " bytes");
    const std::uint64_t offset = at->offset - bytes.size();
    Value* value = key.value<Value>(type);
    if (value == nullptr) {
        if (offset != 0) throw module_error("ERR not found");
        const std::uint64_t size = Value::dump_size(bytes);
        if (size > max_bytes)
            throw module_error("ERR the dump holds a filter of " + std::to_string(size) + " bytes, more than the " +
                               std::to_string(max_bytes) + " a filter may take (module argument MAX_FILTER_BYTES)");
        auto fresh = std::make_unique<Value>(restore(size, std::vector<std::byte>(bytes.begin(), bytes.end())));
        if (fresh->restoring()->complete()) fresh->finish_restore();
        api.module_type_set_value(key.handle(), type, fresh.release());
        return;
    }
    restore* under_way = value->restoring();
    if (under_way == nullptr)
        throw module_error("ERR item exists: the key holds a whole filter; delete it before loading a dump into it");
    under_way->append(offset, bytes);
    if (!under_way->complete()) return;
    try {
        value->finish_restore();
    } catch (const module_error&) {
        api.delete_key(key.handle());
        throw;
    }
}

}  // namespace bloomkit::redis_module
