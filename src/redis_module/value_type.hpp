// src/redis_module/value_type.hpp — a Redis data type whose values hold a bkf filter (BF.* and
// CF.* keys): RDB save and load, AOF rewrite, MEMORY USAGE, DEBUG DIGEST, COPY and lazy free, all
// through the value's bkf bytes (docs/design/redis_module.md §6, "The data type").
//
// RDB value, encoding version 0: state (0 a whole filter, 1 a BF.LOADCHUNK restore under way),
// the bkf file's size, the bytes present, then those bytes as strings of at most 1 MiB (no copy of
// a large filter is made to save it). Loading checks the file as any bkf read does; a value that
// fails is an error, never an empty filter. The AOF rewrite emits the LOADCHUNK commands of the
// value's dump, which replay into the same filter.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "redis_module/dump.hpp"
#include "redis_module/module_api.hpp"
#include "redis_module/restore.hpp"

namespace bloomkit::redis_module {

/// The RDB encoding version of a value type's values.
inline constexpr int value_encoding_version = 0;

/// Value: bloom_value or a like type, with file_size(), writer(), restoring(), memory_bytes(), a
/// constructor from a restore, finish_restore(), and `loadchunk_command`.
template <class Value>
struct value_type {
    static constexpr std::uint64_t piece_bytes = std::uint64_t{1} << 20;

    static void rdb_save(io* rdb, void* pointer) {
        const auto& value = *static_cast<const Value*>(pointer);
        try {
            const restore* under_way = value.restoring();
            const std::uint64_t total = under_way != nullptr ? under_way->total() : value.file_size();
            const std::uint64_t present = under_way != nullptr ? under_way->bytes().size() : total;
            api.save_unsigned(rdb, under_way != nullptr ? 1 : 0);
            api.save_unsigned(rdb, total);
            api.save_unsigned(rdb, present);
            for_each_piece(value.writer(), piece_bytes, [&](std::uint64_t, std::span<const std::byte> piece) {
                api.save_string_buffer(rdb, reinterpret_cast<const char*>(piece.data()), piece.size());
            });
        } catch (const std::exception& e) {
            api.log_io_error(rdb, "warning", "bloomkit: cannot save a filter: %s", e.what());
        }
    }

    static void* rdb_load(io* rdb, int encoding) {
        if (encoding != value_encoding_version) {
            api.log_io_error(rdb, "warning", "bloomkit: a filter saved in encoding %d, newer than this module's %d",
                             encoding, value_encoding_version);
            return nullptr;
        }
        try {
            const std::uint64_t state = api.load_unsigned(rdb);
            const std::uint64_t total = api.load_unsigned(rdb);
            const std::uint64_t present = api.load_unsigned(rdb);
            if (api.is_io_error(rdb) || state > 1 || present > total || (state == 0 && present != total) ||
                present == 0)
                return bad(rdb, "its sizes are inconsistent");
            std::vector<std::byte> bytes;
            bytes.reserve(static_cast<std::size_t>(present));
            while (bytes.size() < present) {
                std::size_t length = 0;
                char* piece = api.load_string_buffer(rdb, &length);
                if (piece == nullptr || api.is_io_error(rdb)) return bad(rdb, "it is cut short");
                const auto* first = reinterpret_cast<const std::byte*>(piece);
                const bool fits = length <= present - bytes.size();
                if (fits) bytes.insert(bytes.end(), first, first + length);
                api.free(piece);
                if (!fits || length == 0) return bad(rdb, "its pieces overrun it");
            }
            auto value = std::make_unique<Value>(restore(total, std::move(bytes)));
            if (state == 0) value->finish_restore();
            return value.release();
        } catch (const std::exception& e) {
            return bad(rdb, e.what());
        }
    }

    static void aof_rewrite(io* aof, string* key, void* pointer) {
        const auto& value = *static_cast<const Value*>(pointer);
        try {
            for_each_piece(value.writer(), dump_chunk_bytes, [&](std::uint64_t at, std::span<const std::byte> piece) {
                const long long iterator = to_iterator({at + piece.size(), 0});
                api.emit_aof(aof, Value::loadchunk_command, "slb", key, iterator,
                             reinterpret_cast<const char*>(piece.data()), piece.size());
            });
        } catch (const std::exception& e) {
            api.log_io_error(aof, "warning", "bloomkit: cannot rewrite a filter into the AOF: %s", e.what());
        }
    }

    static std::size_t mem_usage(const void* pointer) {
        return static_cast<std::size_t>(static_cast<const Value*>(pointer)->memory_bytes());
    }

    static void digest(redis_module::digest* md, void* pointer) {
        try {
            for_each_piece(static_cast<const Value*>(pointer)->writer(), piece_bytes,
                           [&](std::uint64_t, std::span<const std::byte> piece) {
                               api.digest_add_string_buffer(md, reinterpret_cast<const char*>(piece.data()),
                                                            piece.size());
                           });
        } catch (const std::exception&) {  // DEBUG DIGEST of a value it cannot read: nothing added
        }
        api.digest_end_sequence(md);
    }

    /// May run on Redis's lazy-free thread: frees memory, calls nothing of the server's.
    static void free(void* pointer) { delete static_cast<Value*>(pointer); }

    /// Megabytes held: past 64 (Redis's threshold), UNLINK and FLUSHALL ASYNC free it on their
    /// thread.
    static std::size_t free_effort(string*, const void* pointer) {
        return static_cast<std::size_t>(static_cast<const Value*>(pointer)->memory_bytes() >> 20);
    }

    static void* copy(string*, string*, const void* pointer) {
        try {
            return new Value(*static_cast<const Value*>(pointer));
        } catch (const std::exception&) {
            return nullptr;  // COPY then fails
        }
    }

    static type_methods methods() {
        type_methods m;
        m.rdb_load = rdb_load;
        m.rdb_save = rdb_save;
        m.aof_rewrite = aof_rewrite;
        m.mem_usage = mem_usage;
        m.digest = digest;
        m.free = free;
        m.free_effort = free_effort;
        m.copy = copy;
        return m;
    }

private:
    static void* bad(io* rdb, const char* why) {
        api.log_io_error(rdb, "warning", "bloomkit: cannot load a filter from the RDB: %s", why);
        return nullptr;
    }
};

}  // namespace bloomkit::redis_module
