// src/redis/module_transfer.cpp — a whole filter in and out of a BF.* or CF.* key of the module
// bloomkit.so, through its SCANDUMP and LOADCHUNK (src/redis_module/dump.hpp gives the protocol:
// chunk k is bytes [k·C, (k+1)·C) of the file; LOADCHUNK takes the offset past a chunk as its
// iterator). Only the protocol is shared with the module, no code.
#include <string>

#include "bloomkit/redis.hpp"
#include "node_router.hpp"

namespace bloomkit::redis {
namespace {

void require_reply(bool ok, const std::string& what, const std::string& key) {
    if (!ok)
        throw server_error("an unexpected reply to " + what + " of " + key +
                           " (is bloomkit.so the module serving it?)");
}

}  // namespace

std::vector<std::byte> dump_module_filter(client& c, const std::string& key, bool cuckoo) {
    const std::string command = cuckoo ? "CF.SCANDUMP" : "BF.SCANDUMP";
    std::vector<std::byte> file;
    long long iterator = 0;
    do {
        detail::command_batch batch;
        batch.start(3, command, key, false);
        batch.argument(std::to_string(iterator));
        detail::router_of(c).run(batch, {}, [&](std::size_t, const redisReply& r) {
            require_reply(r.type == REDIS_REPLY_ARRAY && r.elements == 2 && r.element[0]->type == REDIS_REPLY_INTEGER,
                          command, key);
            iterator = r.element[0]->integer;
            const redisReply& chunk = *r.element[1];
            if (chunk.type == REDIS_REPLY_STRING) {
                const auto* bytes = reinterpret_cast<const std::byte*>(chunk.str);
                file.insert(file.end(), bytes, bytes + chunk.len);
            }
        });
    } while (iterator != 0);
    return file;
}

void load_module_filter(client& c, const std::string& key, std::span<const std::byte> file, bool cuckoo,
                        std::size_t piece_bytes) {
    const std::string command = cuckoo ? "CF.LOADCHUNK" : "BF.LOADCHUNK";
    if (piece_bytes == 0) throw invalid_argument("a filter is loaded in pieces of at least one byte");
    for (std::size_t at = 0; at < file.size(); at += piece_bytes) {
        const std::span<const std::byte> piece = file.subspan(at, std::min(piece_bytes, file.size() - at));
        detail::command_batch batch;
        batch.start(4, command, key, true);
        batch.argument(std::to_string(at + piece.size()));
        batch.argument(std::string_view(reinterpret_cast<const char*>(piece.data()), piece.size()));
        detail::router_of(c).run(batch, {}, [&](std::size_t, const redisReply&) {});
    }
}

}  // namespace bloomkit::redis
