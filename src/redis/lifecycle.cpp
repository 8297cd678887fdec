// src/redis/lifecycle.cpp — how a filter of any kind comes to be in Redis and goes away: create,
// open, push (lifecycle.hpp) and drop (bloomkit/redis.hpp), over the claim of NAME:meta
// (claim.hpp), the conditional shard scripts (shards.hpp) and the record's recovery from the
// shards (recovery.hpp).
//
// Whatever happens, a process touches only what it can prove is its own: shards it made in
// its own claim (they hold its generation), or the shards of the filter it drops (they hold
// that filter's generation). A key that exists without our header is refused, never
// overwritten; a shard of a filter whose record is lost is the reason to restore the record,
// never a leftover to wipe.
#include <chrono>
#include <thread>

#include <fmt/core.h>

#include "lifecycle.hpp"

#include "all_shards.hpp"
#include "bloomkit/redis.hpp"
#include "byte_order.hpp"
#include "claim.hpp"
#include "metadata.hpp"
#include "recovery.hpp"
#include "shards.hpp"

namespace bloomkit::redis {
namespace {

using detail::claim;
using detail::filter_state;
using detail::meta_snapshot;
using detail::meta_store;
using detail::recovery;
using detail::stored_meta;

constexpr auto poll_interval = std::chrono::milliseconds(100);      // while another process's claim makes progress
constexpr std::uint64_t transfer_chunk = std::uint64_t{1} << 20;    // bytes per conditional write of a push
constexpr std::uint64_t bytes_per_step = std::uint64_t{256} << 20;  // shards made (or copied) between two beats
constexpr std::uint64_t shards_per_drop_step = 4096;

std::string where(client& c) {
    std::string text;
    for (const std::string& node : c.nodes()) text += (text.empty() ? "" : ", ") + node;
    return text;
}

std::int64_t age_ms(const stored_meta& held, const meta_snapshot& now) { return now.now_ms - held.written_ms; }

bool stale(const stored_meta& held, const meta_snapshot& now, const filter_options& o) {
    return age_ms(held, now) >= o.stale_claim.count();
}

// "process 5f0c1a2b… (last progress 42.0 s ago)": whose claim, and how old, for messages.
std::string claimant(const stored_meta& held, const meta_snapshot& now) {
    return fmt::format("process {}… (its last progress {:.1f} s ago)", held.owner.substr(0, 8),
                       static_cast<double>(age_ms(held, now)) / 1000);
}

[[noreturn]] void refuse_claimed(const stored_meta& held, const meta_snapshot& now, const filter_options& o) {
    const std::string& name = held.description.name;
    if (!stale(held, now, o))
        throw filter_mismatch("filter " + name + " is being created by another " + claimant(held, now) +
                              ": wait until it is ready");
    throw filter_mismatch(fmt::format("filter {} was being created by another {}, which has stopped: if that process "
                                      "is dead, take its claim over "
                                      "or drop what it left",
                                      name, claimant(held, now)),
                          error_remedy::take_over_or_drop);
}

[[noreturn]] void refuse_interrupted_drop(const stored_meta& held, const meta_snapshot& now) {
    const std::string& name = held.description.name;
    throw filter_mismatch("filter " + name + " was being dropped by another " + claimant(held, now) +
                              ", which has stopped: finish the drop",
                          error_remedy::drop);
}

[[noreturn]] void refuse_incomplete(const filter_description& d) {
    throw filter_mismatch(fmt::format("filter {} lost its record {} while it was being created or pushed, and its "
                                      "shards are incomplete: drop them "
                                      "and make it again",
                                      d.name, d.meta_key()),
                          error_remedy::drop);
}

// Sends `writes` within the claim: a shard that refused was taken from us (or evicted).
void run_claimed(detail::shard_writes& writes, claim& mine) {
    const auto refused = writes.run();
    if (!refused) return;
    mine.beat();  // throws if the claim is another's now
    detail::throw_not_ours(mine.description(), refused->shard, refused->found);
}

// Copies the bits of shards [first, last) from `local` (and their labels), then marks those
// shards complete.
void copy_bits(client& c, claim& mine, const detail::pushed_bits& local, std::uint64_t first, std::uint64_t last,
               const filter_options& o) {
    const filter_description& d = mine.description();
    detail::shard_writes writes(c, d, o);
    std::string chunk;
    std::uint64_t queued = 0;
    for (std::uint64_t s = first; s < last; ++s) {
        const std::uint64_t bytes = d.shard_blocks(s) * 64;
        for (std::uint64_t region = 0; region < d.slots(); ++region) {
            const std::uint64_t* words = local.words(s, region);
            for (std::uint64_t offset = 0; offset < bytes; offset += transfer_chunk) {
                const std::uint64_t size = std::min(transfer_chunk, bytes - offset);
                chunk.resize(size);
                detail::words_to_redis(words + offset / 8, size / 8, chunk.data());
                writes.write(s, filter_description::header_bytes + region * bytes + offset, chunk);
                if ((queued += size) >= 16 * transfer_chunk) run_claimed(writes, mine), queued = 0;
            }
        }
    }
    run_claimed(writes, mine);
    for (std::uint64_t s = first; s < last; ++s) {
        if (local.label) writes.write(s, detail::label_offset, detail::generation_bytes(local.label(s)));
        writes.write(s, detail::header_complete_offset, "\x01");
    }
    run_claimed(writes, mine);
}

// Makes the claim's shards (with `local`'s bits, for a push) step by step, recording progress
// after each, then marks the filter ready. On failure, deletes the shards it made and the
// record, if they are still its own, and rethrows.
void build(client& c, claim& mine, const filter_options& o, const detail::pushed_bits* local) {
    const filter_description& d = mine.description();
    try {
        if (const auto& previous = mine.previous(); previous && previous->shards > d.shards)
            (void)detail::delete_shards(c, *previous, d.shards, previous->shards, false, o);
        const std::uint64_t step = std::max<std::uint64_t>(1, bytes_per_step / d.shard_bytes(0));
        for (std::uint64_t first = 0; first < d.shards; first += step) {
            const std::uint64_t last = std::min(d.shards, first + step);
            detail::make_shards(c, d, first, last, local == nullptr, mine.previous_generation(), o);
            if (local) copy_bits(c, mine, *local, first, last, o);
            mine.beat();
        }
        mine.finish();
    } catch (...) {
        try {
            (void)detail::delete_shards(c, d, 0, d.shards, false, o);
        } catch (const error&) {}
        (void)mine.release();
        throw;
    }
}

}  // namespace

namespace detail {

filter_description create_filter(client& c, const filter_description& wanted, const filter_options& options) {
    // Every instance of a service may be doing this at once: one claims the name and makes
    // the shards, the others wait for it, then open what it made.
    const meta_store store(c, wanted.name, options);
    std::uint64_t hint = 0;  // the shard whose header may restore a lost record
    while (true) {
        const meta_snapshot now = store.read();
        if (!now.text) {
            const recovery found = detail::restore_meta(store, hint);
            if (found.result == recovery::restored) continue;
            if (found.result == recovery::incomplete) refuse_incomplete(found.description);
            std::optional<claim> mine = claim::make(store, wanted, filter_state::creating);
            if (!mine) continue;  // another instance claimed it first
            try {
                build(c, *mine, options, nullptr);
            } catch (const detail::foreign_key& e) {
                if (!e.header || e.shard == hint) throw;
                hint = e.shard;  // a shard of this name's filter, whose record is gone: restore it
                continue;
            }
            return mine->description();
        }
        const stored_meta stored = detail::decode_meta(wanted.name, *now.text);
        if (stored.state == filter_state::dropping) {
            if (stale(stored, now, options)) refuse_interrupted_drop(stored, now);
            std::this_thread::sleep_for(poll_interval);  // then create it anew
            continue;
        }
        if (const std::string difference = detail::first_difference(stored.description, wanted); !difference.empty())
            throw filter_mismatch("filter " + wanted.name + " exists in Redis with other parameters (" + difference +
                                  "): open it as it is, or drop it first");
        if (stored.state == filter_state::ready) {
            // Every instance of a service may create the filter at start, and one may have made
            // it without a key format: the first create that says one records it.
            filter_description opened = stored.description;
            if (stored.description.keys == key_format::unrecorded && wanted.keys != key_format::unrecorded) {
                for (const shard_fill& fill : shard_fills(c, opened, options))
                    if (fill.set_bits() > 0)
                        throw filter_mismatch("filter " + wanted.name +
                                              " holds keys and records no key format: its keys cannot be taken for " +
                                              std::string(to_string(wanted.keys)) +
                                              "; open it as it is and record what they are");
                record_key_format(c, opened, options, wanted.keys);
            }
            return opened;
        }
        if (!stale(stored, now, options)) {
            std::this_thread::sleep_for(poll_interval);
            continue;
        }
        if (!options.take_over) refuse_claimed(stored, now, options);
        filter_description taken = stored.description;  // what was claimed, with the key format we know
        if (taken.keys == key_format::unrecorded) taken.keys = wanted.keys;
        std::optional<claim> mine = claim::take_over(store, *now.text, stored, taken, filter_state::creating);
        if (!mine) continue;
        build(c, *mine, options, nullptr);
        return mine->description();
    }
}

filter_description open_filter(client& c, const std::string& name, const filter_options& options) {
    const meta_store store(c, name, options);
    std::optional<std::string> text = store.get();
    if (!text) {
        recovery found;
        try {
            found = detail::restore_meta(store);
        } catch (const server_error& e) {
            throw filter_mismatch("no filter named " + name + " in Redis at " + where(c) + " (no key " + store.key() +
                                  "), and its shards could not be looked at to restore it: " + e.what());
        }
        if (found.result == recovery::incomplete) refuse_incomplete(found.description);
        if (found.result == recovery::restored) text = store.get();
        if (!text)
            throw filter_mismatch("no filter named " + name + " in Redis at " + where(c) + " (no key " + store.key() +
                                  "): create it first");
    }
    const stored_meta stored = detail::decode_meta(name, *text);
    if (stored.state == filter_state::creating)
        throw filter_mismatch(
            "filter " + name + " is being created by process " + stored.owner.substr(0, 8) +
                "…: wait until it is ready (create waits for it); if that process died, take its claim over "
                "or drop it",
            error_remedy::take_over_or_drop);
    if (stored.state == filter_state::dropping)
        throw filter_mismatch("filter " + name + " is being dropped by process " + stored.owner.substr(0, 8) +
                                  "…: if that drop was interrupted, drop it again",
                              error_remedy::drop);
    return stored.description;
}

filter_description push_filter(client& c, const filter_description& d, const pushed_bits& local,
                               const filter_options& options) {
    const meta_store store(c, d.name, options);
    std::uint64_t hint = 0;
    while (true) {
        const meta_snapshot now = store.read();
        std::optional<claim> mine;
        if (!now.text) {
            const recovery found = detail::restore_meta(store, hint);
            if (found.result == recovery::restored) continue;  // it exists after all
            if (found.result == recovery::incomplete) refuse_incomplete(found.description);
            mine = claim::make(store, d, filter_state::creating);
        } else {
            const stored_meta stored = detail::decode_meta(d.name, *now.text);
            if (stored.state == filter_state::ready)
                throw filter_mismatch("filter " + d.name +
                                      " already exists in Redis: drop it first (bloomkit redis drop " + d.name + ")");
            if (stored.state == filter_state::dropping) {
                if (stale(stored, now, options)) refuse_interrupted_drop(stored, now);
                std::this_thread::sleep_for(poll_interval);
                continue;
            }
            if (!stale(stored, now, options) || !options.take_over) refuse_claimed(stored, now, options);
            mine = claim::take_over(store, *now.text, stored, d, filter_state::creating);
        }
        if (!mine) continue;
        try {
            build(c, *mine, options, &local);
        } catch (const detail::foreign_key& e) {
            if (!e.header || e.shard == hint) throw;
            hint = e.shard;
            continue;
        }
        return mine->description();
    }
}

key_format pushed_key_format(key_format file, key_format asked) {
    if (!same_keys(file, asked))
        throw invalid_argument(
            fmt::format("the filter records {} keys, and {} keys were asked for: a line would be read as "
                        "another key than the filter holds",
                        to_string(file), to_string(asked)));
    return file != key_format::unrecorded ? file : asked;
}

}  // namespace detail

filter_description describe_filter(client& c, const std::string& name, filter_options options) {
    return detail::open_filter(c, name, options);
}

bloom_filter bloom_filter::create(client& c, std::string name, size_type expected_keys, double fpr,
                                  filter_options options) {
    detail::require_untagged_name(name);
    const bloom_plan plan = plan_bloom(bloom_layout::block, static_cast<double>(expected_keys), fpr);
    filter_description wanted = detail::plan_shards(std::move(name), plan.geometry, options.max_shard_bytes, true);
    wanted.seed = options.hashing.seed;
    wanted.hash = options.hashing.hash.value_or(block_layout::default_hash);
    wanted.keys = options.hashing.keys;
    wanted.target = {expected_keys, fpr};
    return bloom_filter(c, detail::create_filter(c, wanted, options), options);
}

bloom_filter bloom_filter::open(client& c, std::string name, filter_options options) {
    filter_description d = detail::open_filter(c, name, options);
    if (d.generations != 0)
        throw filter_mismatch("filter " + name + " in Redis is a windowed filter, not a block filter: open it as one");
    return bloom_filter(c, std::move(d), options);
}

bloom_filter bloom_filter::push(client& c, std::string name, const block_bloom_filter& local, filter_options options) {
    detail::require_untagged_name(name);
    filter_description d = detail::plan_shards(std::move(name), local.geometry(), options.max_shard_bytes, false);
    d.seed = local.hash_function().seed();
    d.hash = local.hash_function().algorithm();
    d.keys = detail::pushed_key_format(local.recorded_key_format(), options.hashing.keys);
    d.target = {local.expected_keys(), local.target_fpr()};
    d.inserted = local.inserted_count();
    const detail::pushed_bits bits{
        .words = [&](std::uint64_t s, std::uint64_t) { return local.words().data() + s * d.blocks_per_shard * 8; },
        .label = {}};
    return bloom_filter(c, detail::push_filter(c, d, bits, options), options);
}

bool bloom_filter::drop(client& c, std::string_view name, filter_options options) {
    const meta_store store(c, std::string(name), options);
    bool existed = false;
    while (true) {
        const meta_snapshot now = store.read();
        if (!now.text) {
            const recovery found = detail::restore_meta(store);
            if (found.result == recovery::restored) continue;
            if (found.result == recovery::incomplete) {  // never a filter anyone used: its shards go
                (void)detail::delete_shards(c, found.description, 0, found.description.shards, true, options);
                return true;
            }
            return existed;  // none, or dropped meanwhile by another process
        }
        existed = true;
        const stored_meta stored = detail::decode_meta(store.name(), *now.text);
        if (stored.state == filter_state::creating && !stale(stored, now, options))
            throw filter_mismatch("filter " + store.name() + " is being created by another " + claimant(stored, now) +
                                  ": drop it once it is ready");
        if (stored.state == filter_state::dropping && !stale(stored, now, options)) {
            std::this_thread::sleep_for(poll_interval);  // another drop at work
            continue;
        }
        // The record first says "dropping": nobody opens the filter any more, and a drop that
        // is interrupted is finished by the next one. Then the shards (only those holding its
        // generation, and the leftovers of adds that ran meanwhile), the record last.
        std::optional<claim> mine =
            claim::take_over(store, *now.text, stored, stored.description, filter_state::dropping);
        if (!mine) continue;
        const filter_description& d = mine->description();
        for (std::uint64_t first = 0; first < d.shards; first += shards_per_drop_step) {
            (void)detail::delete_shards(c, d, first, std::min(d.shards, first + shards_per_drop_step), true, options);
            mine->beat();
        }
        mine->end();
        return true;
    }
}

}  // namespace bloomkit::redis
