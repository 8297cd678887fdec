// src/redis/command_batch.hpp — commands encoded once, in the Redis protocol (RESP2), ready to
// be pipelined to whichever node serves each one's key.
//
// A filter's batch is thousands of BITFIELD commands of 10–40 arguments; building each as an
// argv of strings and letting hiredis format it would allocate per argument. Here every
// command is appended straight into one buffer as RESP text ("*N\r\n$len\r\narg\r\n…") and
// handed to hiredis as is (redisAppendFormattedCommand).
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis.hpp"

namespace bloomkit::redis::detail {

class command_batch {
public:
    struct command {
        std::uint32_t begin = 0, end = 0;           // its RESP bytes
        std::uint32_t key_begin = 0, key_size = 0;  // its key, inside those bytes (for messages)
        std::uint16_t slot = 0;
        bool write = false;  // a write: covered by WAIT when replicas are asked for
    };

    /// Starts a command of `arguments` arguments in all (name and key included) on `key`.
    void start(std::size_t arguments, std::string_view name, std::string_view key, bool write) {
        start(arguments, name, key, write, key_slot(key));
    }
    /// The same, for a key whose slot is known (a filter's shards: computed once).
    void start(std::size_t arguments, std::string_view name, std::string_view key, bool write, std::uint16_t slot) {
        command& c = begin(arguments, name);
        c.slot = slot;
        c.write = write;
        argument(key);
        c.key_size = static_cast<std::uint32_t>(key.size());
        c.key_begin = c.end - 2 - c.key_size;
    }
    /// Starts `EVAL script 1 key` (the scripts of scripts.hpp: one key each), routed by `key`,
    /// to be followed by `arguments` ARGV.
    void start_script(std::string_view script, std::string_view key, std::size_t arguments, bool write) {
        command& c = begin(4 + arguments, "EVAL");
        c.slot = key_slot(key);
        c.write = write;
        argument(script);
        argument("1");
        argument(key);
        c.key_size = static_cast<std::uint32_t>(key.size());
        c.key_begin = c.end - 2 - c.key_size;
    }
    /// Starts a command with no key (PING, INFO): any node may run it.
    void start_without_key(std::size_t arguments, std::string_view name) {
        command& c = begin(arguments, name);
        c.key_begin = c.end;
    }
    /// Appends an argument to the command started last.
    void argument(std::string_view text) {
        put("$");
        append_number(text.size());
        put("\r\n");
        put(text);
        put("\r\n");
        commands_.back().end = static_cast<std::uint32_t>(bytes_.size());
    }
    void argument(std::uint64_t number) {
        char text[24];
        const auto end = std::to_chars(text, text + sizeof text, number).ptr;
        argument(std::string_view(text, static_cast<std::size_t>(end - text)));
    }

    [[nodiscard]] std::size_t size() const noexcept { return commands_.size(); }
    [[nodiscard]] bool empty() const noexcept { return commands_.empty(); }
    [[nodiscard]] const command& operator[](std::size_t i) const noexcept { return commands_[i]; }
    [[nodiscard]] std::string_view resp(std::size_t i) const noexcept {
        return {bytes_.data() + commands_[i].begin, commands_[i].end - commands_[i].begin};
    }
    [[nodiscard]] std::string_view key(std::size_t i) const noexcept {
        return {bytes_.data() + commands_[i].key_begin, commands_[i].key_size};
    }
    /// The command's name, for messages ("BITFIELD_RO").
    [[nodiscard]] std::string_view name(std::size_t i) const noexcept {
        const std::string_view text = resp(i);
        const auto start = text.find("\r\n$");
        const auto name_start = text.find("\r\n", start + 3) + 2;
        return text.substr(name_start, text.find("\r\n", name_start) - name_start);
    }
    /// Empties the batch, keeping its memory for the next.
    void clear() noexcept {
        bytes_.clear();
        commands_.clear();
    }

private:
    // A new command: its argument count and its name.
    command& begin(std::size_t arguments, std::string_view name) {
        command& c = commands_.emplace_back();
        c.begin = static_cast<std::uint32_t>(bytes_.size());
        put("*");
        append_number(arguments);
        put("\r\n");
        argument(name);
        return c;
    }
    void append_number(std::size_t n) {
        char text[24];
        const auto end = std::to_chars(text, text + sizeof text, n).ptr;
        put(std::string_view(text, static_cast<std::size_t>(end - text)));
    }
    // (A vector, not a string: GCC 12 at -O3 warns falsely about std::string appends, -Wrestrict.)
    void put(std::string_view text) { bytes_.insert(bytes_.end(), text.begin(), text.end()); }

    std::vector<char> bytes_;
    std::vector<command> commands_;
};

}  // namespace bloomkit::redis::detail
