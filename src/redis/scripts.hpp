// src/redis/scripts.hpp — the Lua scripts (EVAL) that make a filter's writes conditional: the
// compare-and-set of NAME:meta, and the writes and deletes of a shard that happen only when
// the shard is ours (holds our generation) or is nobody's (does not exist).
//
// Each script touches the one key it is given, so it runs on a Redis Cluster too (a script's
// keys must share a slot). Redis runs a script as one command: nothing happens between its
// check and its write. Offsets and lengths come as decimal ARGV, bytes as binary-safe ARGV.
// A generation is compared as the 8 bytes a shard stores (shard_header.hpp), never as a Lua
// number: Lua 5.1's numbers are doubles, which hold no 64-bit value exactly.
#pragma once

#include <string_view>

namespace bloomkit::redis::detail::scripts {

/// KEYS[1] NAME:meta. ARGV[1]: the text it must hold now ("" for none), or "*" to read it
/// only; ARGV[2]: its new text ("" deletes it), to which a last line "written <ms>" is added
/// from the server's clock. Returns {1, text written, now} when it wrote, {0, text held ("" for
/// none), now} when not, and {-1, type, now} when NAME:meta is not a string. `now` is the
/// server's clock in ms, as a string.
inline constexpr std::string_view meta_swap = R"lua(
local t = redis.call('TIME')
local now = t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000))
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'string' and kind ~= 'none' then return {-1, kind, now} end
local current = redis.call('GET', KEYS[1]) or ''
if ARGV[1] == '*' or current ~= ARGV[1] then return {0, current, now} end
if ARGV[2] == '' then
    redis.call('DEL', KEYS[1])
    return {1, '', now}
end
local text = ARGV[2] .. 'written ' .. now .. '\n'
redis.call('SET', KEYS[1], text)
return {1, text, now}
)lua";

/// KEYS[1] a shard of a filter being created. ARGV[1]: its length; ARGV[2]: its header (128
/// bytes, the generation last); ARGV[3]: the generation of a claim taken over, whose shards
/// are ours to make anew, or "". Makes the shard unless a key is there already: zeroed, one
/// allocation (SETRANGE of its last byte on a new key allocates exactly), then its header.
/// Returns {"created"}, {"ours"} (made before, by this claim), {"reset"} (a shard of the
/// claim taken over, made anew), or what is there instead: {"type", its type} or
/// {"foreign", its length, its first 128 bytes}.
inline constexpr std::string_view make_shard = R"lua(
local function make()
    redis.call('SETRANGE', KEYS[1], tonumber(ARGV[1]) - 1, '\0')
    redis.call('SETRANGE', KEYS[1], 0, ARGV[2])
end
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'none' then
    make()
    return {'created'}
end
if kind ~= 'string' then return {'type', kind} end
local size = redis.call('STRLEN', KEYS[1])
local head = redis.call('GETRANGE', KEYS[1], 0, 127)
local generation = string.sub(head, 121, 128)
if size == tonumber(ARGV[1]) and generation == string.sub(ARGV[2], 121, 128) then return {'ours'} end
if size >= 128 and generation == ARGV[3] then
    redis.call('UNLINK', KEYS[1])
    make()
    return {'reset'}
end
return {'foreign', size, head}
)lua";

/// KEYS[1] a shard. ARGV[1]: the byte offset of its generation; ARGV[2]: the generation (8
/// bytes); ARGV[3]: an offset; ARGV[4]: bytes. Writes the bytes there if the shard holds that
/// generation. Returns 1, or the 8 bytes found instead ("" for no key).
inline constexpr std::string_view write_if_ours = R"lua(
local found = redis.call('GETRANGE', KEYS[1], ARGV[1], ARGV[1] + 7)
if found ~= ARGV[2] then return found end
redis.call('SETRANGE', KEYS[1], ARGV[3], ARGV[4])
return 1
)lua";

/// KEYS[1] a shard; ARGV[1], ARGV[2] as for write_if_ours. Sets every bit of its blocks to 0,
/// its header kept (one allocation, like its creation), if it holds that generation. Returns
/// 1, or the 8 bytes found instead.
inline constexpr std::string_view clear_if_ours = R"lua(
local found = redis.call('GETRANGE', KEYS[1], ARGV[1], ARGV[1] + 7)
if found ~= ARGV[2] then return found end
local size = redis.call('STRLEN', KEYS[1])
local head = redis.call('GETRANGE', KEYS[1], 0, 127)
redis.call('UNLINK', KEYS[1])
redis.call('SETRANGE', KEYS[1], size - 1, '\0')
redis.call('SETRANGE', KEYS[1], 0, head)
return 1
)lua";

/// KEYS[1] a windowed filter's shard; ARGV[1], ARGV[2] as for write_if_ours; ARGV[3]: the byte
/// offset of its label; ARGV[4]: a label (8 bytes, big-endian); ARGV[5]: the bytes of one
/// region; ARGV[6]: the regions (G + 1); ARGV[7]: the byte offset of region 0. If the shard holds
/// that generation and an older label, the shard moves on to the new one: each generation after
/// the old label up to the new one takes its region (e mod (G + 1)), emptied — every region, as
/// clear_if_ours does, when the ring turned whole — and the label is written. Labels are
/// generations of time, below 2^53: exact as Lua's numbers. Returns 1 when the shard now holds
/// that label or a newer one, or the 8 bytes found in place of the generation.
inline constexpr std::string_view rotate_if_ours = R"lua(
local found = redis.call('GETRANGE', KEYS[1], ARGV[1], ARGV[1] + 7)
if found ~= ARGV[2] then return found end
local function number(bytes)
    local n = 0
    for i = 1, 8 do n = n * 256 + string.byte(bytes, i) end
    return n
end
local held = number(redis.call('GETRANGE', KEYS[1], ARGV[3], ARGV[3] + 7))
local wanted = number(ARGV[4])
if held >= wanted then return 1 end
local region, regions, first = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
if wanted - held >= regions then
    local size = redis.call('STRLEN', KEYS[1])
    local head = redis.call('GETRANGE', KEYS[1], 0, first - 1)
    redis.call('UNLINK', KEYS[1])
    redis.call('SETRANGE', KEYS[1], size - 1, '\0')
    redis.call('SETRANGE', KEYS[1], 0, head)
else
    local zeros = string.rep('\0', math.min(region, 1048576))
    for g = held + 1, wanted do
        local start = first + (g % regions) * region
        local done = 0
        while done < region do
            local n = math.min(#zeros, region - done)
            redis.call('SETRANGE', KEYS[1], start + done, n == #zeros and zeros or string.sub(zeros, 1, n))
            done = done + n
        end
    end
end
redis.call('SETRANGE', KEYS[1], ARGV[3], ARGV[4])
return 1
)lua";

/// KEYS[1] a shard; ARGV[1], ARGV[2] as for write_if_ours; ARGV[3]: a length, or "". Deletes
/// the shard if it holds that generation — or, given a length, if it is a string no longer than
/// that which starts with no header: the bits of an add that ran after the shard was gone
/// (BITFIELD SET makes the key it writes to, as long as its last bit, which may be the shard's
/// last). Returns 1 if it deleted the key, else 0.
inline constexpr std::string_view delete_if_ours = R"lua(
if redis.call('TYPE', KEYS[1]).ok ~= 'string' then return 0 end
if redis.call('GETRANGE', KEYS[1], ARGV[1], ARGV[1] + 7) == ARGV[2] then
    redis.call('UNLINK', KEYS[1])
    return 1
end
if ARGV[3] ~= '' and redis.call('STRLEN', KEYS[1]) <= tonumber(ARGV[3]) and
        redis.call('GETRANGE', KEYS[1], 0, 3) ~= 'BKRS' and redis.call('GETRANGE', KEYS[1], 0, 3) ~= 'BKRW' then
    redis.call('UNLINK', KEYS[1])
    return 1
end
return 0
)lua";

/// KEYS[1] a shard. Returns {its type, its length, its first 128 bytes} ({type, 0, ""} for a
/// key that is not a string, {"none", 0, ""} for no key).
inline constexpr std::string_view inspect_shard = R"lua(
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'string' then return {kind, 0, ''} end
return {kind, redis.call('STRLEN', KEYS[1]), redis.call('GETRANGE', KEYS[1], 0, 127)}
)lua";

}  // namespace bloomkit::redis::detail::scripts
