// src/redis/windowed_filter.cpp — a windowed filter in Redis (bloomkit/redis_windowed.hpp):
// its key commands over the ring slots' shards, the rotation of a slot's shard to a new
// generation of time, the server's clock, and the copies to and from a local windowed_filter.
// Making and removing it is lifecycle.cpp's, as for every kind.
//
// Why the labels are per shard, not per slot: a shard is what one command reads and one script
// empties atomically. A slot's shards take a new generation one by one, each when an add first
// reaches it; a shard that no add has reached since still holds an older label, which every
// lookup reads beside the bits and ignores once it is out of the window — so its stale bits are
// never counted, and what a slot holds is always one generation's keys.
#include "bloomkit/redis_windowed.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

#include <fmt/core.h>

#include "all_shards.hpp"
#include "key_commands.hpp"
#include "lifecycle.hpp"
#include "metadata.hpp"
#include "run_options.hpp"
#include "shards.hpp"

namespace bloomkit::redis {
namespace {

using detail::command_batch;

// How long a reading of the server's clock serves, advanced by the client's steady clock: two
// clocks' rates differ by parts per million, so a second's drift is microseconds.
constexpr auto clock_reading_lifetime = std::chrono::seconds(1);
// Rounds of add, rotate, add again before an add gives up: a shard's label only grows, so the
// second round finds it current unless the time moved on a whole window meanwhile.
constexpr int most_rotation_rounds = 4;

std::int64_t milliseconds_of(windowed_filter::time_point t) {
    return std::chrono::floor<std::chrono::milliseconds>(t).time_since_epoch().count();
}

// The window a record describes, checked: a hostile record is refused, not sized.
window_parameters parameters_of(const filter_description& d) {
    const window_parameters params{d.target.expected_keys, d.target.fpr, std::chrono::milliseconds(d.window_ms),
                                   d.generations};
    try {
        if (plan_windowed_bloom(params).geometry == d.geometry) return params;
    } catch (const invalid_argument& e) {
        throw filter_mismatch("filter " + d.name + " in Redis records an impossible window: " + e.what());
    }
    throw filter_mismatch("filter " + d.name +
                          " in Redis has generations of another size than its window's parameters give: it was "
                          "written by another bloomkit, or not by bloomkit");
}

// The generation region j of a shard labelled `label` holds: the newest e ≤ label with
// e mod regions = j, or nothing.
std::optional<std::uint64_t> region_generation(std::uint64_t label, std::uint64_t j, std::uint64_t regions) {
    if (label < j) return std::nullopt;
    return label - (label - j) % regions;
}

}  // namespace

struct windowed_filter::pass_result {
    std::vector<std::uint64_t> stale_shards;  // to rotate to the pass's generation
    std::vector<std::size_t> retry;           // the keys (indexes into the digests) to add again
};

windowed_filter::windowed_filter(client& c, filter_description description, filter_options options)
    : client_(&c),
      description_(std::move(description)),
      options_(options),
      params_(parameters_of(description_)),
      hasher_(description_.hash, description_.seed),
      layout_(description_.geometry),
      shards_(description_) {}

windowed_filter windowed_filter::create(client& c, std::string name, size_type keys_per_window, double fpr,
                                        std::chrono::milliseconds window, std::uint32_t generations,
                                        filter_options options) {
    detail::require_untagged_name(name);
    const window_parameters params{keys_per_window, fpr, window, generations};
    const windowed_plan plan = plan_windowed_bloom(params);
    // The generations keep the local filter's geometry (no shard rounded up), so that push and
    // pull carry a filter between Redis and a file unchanged.
    filter_description wanted =
        detail::plan_shards(std::move(name), plan.geometry, options.max_shard_bytes, false, plan.filters);
    wanted.seed = options.hashing.seed;
    wanted.hash = options.hashing.hash.value_or(block_layout::default_hash);
    wanted.keys = options.hashing.keys;
    wanted.target = {keys_per_window, fpr};
    wanted.window_ms = window.count();
    wanted.generations = generations;
    return windowed_filter(c, detail::create_filter(c, wanted, options), options);
}

windowed_filter windowed_filter::open(client& c, std::string name, filter_options options) {
    filter_description d = detail::open_filter(c, name, options);
    if (d.generations == 0)
        throw filter_mismatch("filter " + name + " in Redis is a block filter, not a windowed filter: open it as one");
    return windowed_filter(c, std::move(d), options);
}

windowed_filter windowed_filter::push(client& c, std::string name, const bloomkit::windowed_filter& local,
                                      filter_options options) {
    detail::require_untagged_name(name);
    const window_parameters& params = local.parameters();
    filter_description d = detail::plan_shards(std::move(name), local.plan().geometry, options.max_shard_bytes, false,
                                               local.plan().filters);
    d.seed = local.hash_function().seed();
    d.hash = local.hash_function().algorithm();
    d.keys = detail::pushed_key_format(local.recorded_key_format(), options.hashing.keys);
    d.target = {params.keys_per_window, params.fpr};
    d.window_ms = params.window.count();
    d.generations = params.generations;
    d.inserted = local.inserted_count();
    // Every shard's label is the newest generation a slot holds: the others hold the generations
    // before it, each in its place, as region_generation reads them back.
    std::uint64_t newest = 0;
    for (const std::uint64_t label : local.slot_generations())
        if (label != bloomkit::windowed_filter::no_generation) newest = std::max(newest, label);
    const detail::pushed_bits bits{.words =
                                       [&](std::uint64_t s, std::uint64_t region) {
                                           return local.slots()[region].words().data() + s * d.blocks_per_shard * 8;
                                       },
                                   .label = [newest](std::uint64_t) { return newest; }};
    return windowed_filter(c, detail::push_filter(c, d, bits, options), options);
}

windowed_filter::time_point windowed_filter::server_time() const {
    const auto now = std::chrono::steady_clock::now();
    if (!server_clock_ || now - server_clock_->second >= clock_reading_lifetime) {
        command_batch batch;
        batch.start_without_key(1, "TIME");  // routed to hash slot 0's node: one clock for every client
        const auto asked = std::chrono::steady_clock::now();
        std::int64_t ms = -1;
        detail::router_of(*client_).run(
            batch, detail::run_options_of(*client_, options_, false), [&](std::size_t, const redisReply& r) {
                if (r.type == REDIS_REPLY_ARRAY && r.elements == 2 && r.element[0]->type == REDIS_REPLY_STRING &&
                    r.element[1]->type == REDIS_REPLY_STRING)
                    ms = std::stoll(std::string(r.element[0]->str, r.element[0]->len)) * 1000 +
                         std::stoll(std::string(r.element[1]->str, r.element[1]->len)) / 1000;
            });
        if (ms < 0) throw server_error("TIME: a reply of the wrong shape");
        // The steady time from before the question: the server read its clock after it, so the
        // client's idea of the time can lag the server's, never lead it.
        server_clock_.emplace(ms, asked);
    }
    const auto since =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - server_clock_->second);
    return time_point(std::chrono::milliseconds(server_clock_->first) + since);
}

std::uint64_t windowed_filter::generation_at(time_point t) const {
    return window_generation_at(params_, milliseconds_of(t));
}

windowed_filter::pass_result windowed_filter::run_pass(std::span<const digest> digests,
                                                       std::span<const std::size_t> which, std::uint64_t e, bool write,
                                                       bool* answers) const {
    const filter_description& d = description_;
    const std::uint64_t ring = d.slots(), current = e % ring;
    const std::uint32_t k = d.geometry.hashes;
    thread_local command_batch batch;
    thread_local std::vector<std::uint64_t> shard_of;
    thread_local std::vector<detail::key_reply> replies;
    batch.clear();
    shard_of.clear();
    for (const std::size_t key : which) {
        const auto p = layout_.locate(digests[key]);
        const std::uint64_t shard = p.block / d.blocks_per_shard;
        const std::uint64_t region_bits = d.shard_blocks(shard) * 512;
        const std::uint64_t block_bit = detail::first_block_bit + (p.block % d.blocks_per_shard) * 512;
        detail::start_key_command(batch, shards_.keys[shard], shards_.slots[shard], k,
                                  detail::key_command_reads::generation_and_label, ring, write ? 1 : 0);
        for (std::uint64_t slot = 0; slot < ring; ++slot)
            detail::append_probes(batch, layout_, p.pattern, block_bit + slot * region_bits, write && slot == current);
        shard_of.push_back(shard);
    }
    replies.assign(batch.size(), {});
    detail::shard_refusals refusals;
    detail::router_of(*client_).run(
        batch, detail::run_options_of(*client_, options_, write), [&](std::size_t i, const redisReply& r) {
            replies[i] = detail::read_key_reply(batch, i, r, k, detail::key_command_reads::generation_and_label, ring);
            if (replies[i].generation != d.generation) refusals.note(shard_of[i], replies[i].generation);
        });
    refusals.raise(*client_, d, options_, write);

    pass_result result;
    for (std::size_t i = 0; i < which.size(); ++i) {
        const detail::key_reply& reply = replies[i];
        if (write && reply.label < e) {  // the shard has not opened generation e yet
            result.stale_shards.push_back(shard_of[i]);
            result.retry.push_back(which[i]);
            continue;
        }
        // Time never runs backwards for a key: a label ahead of `e` (a clock read later, or a
        // time passed ahead of it) is the newest generation, and the window ends there.
        const std::uint64_t newest = std::max(e, reply.label);
        bool held = false;
        for (std::uint64_t slot = 0; slot < ring; ++slot) {
            const auto g = region_generation(reply.label, slot, ring);
            held = held || (reply.all_set[slot] && g && *g + params_.generations >= newest);
        }
        answers[which[i]] = write ? !held : held;
    }
    return result;
}

void windowed_filter::insert_digests(std::span<const digest> digests, bool* answers, time_point t) {
    const std::uint64_t e = generation_at(t);
    std::vector<std::size_t> which(digests.size());
    for (std::size_t i = 0; i < which.size(); ++i) which[i] = i;
    for (int round = 0; round < most_rotation_rounds && !which.empty(); ++round) {
        pass_result pass = run_pass(digests, which, e, true, answers);
        if (pass.retry.empty()) return;
        std::sort(pass.stale_shards.begin(), pass.stale_shards.end());
        pass.stale_shards.erase(std::unique(pass.stale_shards.begin(), pass.stale_shards.end()),
                                pass.stale_shards.end());
        detail::shard_writes rotations(*client_, description_, options_);
        for (const std::uint64_t shard : pass.stale_shards) rotations.rotate(shard, e);
        if (const auto refused = rotations.run()) detail::throw_not_ours(description_, refused->shard, refused->found);
        which = std::move(pass.retry);
    }
    if (!which.empty())
        throw server_error(fmt::format("filter {}: shards kept holding generations older than {} after {} rotations",
                                       description_.name, e, most_rotation_rounds));
}

void windowed_filter::contains_digests(std::span<const digest> digests, bool* answers, time_point t) const {
    std::vector<std::size_t> which(digests.size());
    for (std::size_t i = 0; i < which.size(); ++i) which[i] = i;
    (void)run_pass(digests, which, generation_at(t), false, answers);
}

void windowed_filter::clear() { detail::clear_shards(*client_, description_, options_); }

std::vector<windowed_filter::slot_state> windowed_filter::slot_states() const {
    const std::vector<detail::shard_fill> fills = detail::shard_fills(*client_, description_, options_);
    const std::uint64_t ring = description_.slots();
    std::vector<slot_state> slots(ring);
    for (const detail::shard_fill& fill : fills)
        for (std::uint64_t j = 0; j < ring; ++j) {
            const auto g = region_generation(fill.label, j, ring);
            if (!g) continue;
            slot_state& slot = slots[j];
            if (*g > slot.generation) slot = {*g, 0};
            if (*g == slot.generation) slot.set_bits += fill.region_bits[j];
        }
    return slots;
}

std::vector<windowed_filter::slot_state> windowed_filter::live_slots(time_point t) const {
    std::vector<slot_state> slots = slot_states();
    std::uint64_t newest = generation_at(t);
    for (const slot_state& slot : slots) newest = std::max(newest, slot.generation);
    std::erase_if(slots, [&](const slot_state& slot) {
        return slot.set_bits == 0 || slot.generation + params_.generations < newest;  // empty, or out of the window
    });
    std::sort(slots.begin(), slots.end(), [](const auto& a, const auto& b) { return a.generation > b.generation; });
    return slots;
}

double windowed_filter::approximate_count(time_point t) const {
    double sum = 0;
    for (const slot_state& slot : live_slots(t))
        sum += estimate_keys(bloom_layout::block, description_.geometry, slot.set_bits);
    return sum;
}

double windowed_filter::current_fpr(time_point t) const {
    double log_all_negative = 0;  // Σ log(1 − fpr_i): tiny rates survive the product
    for (const slot_state& slot : live_slots(t))
        log_all_negative +=
            std::log1p(-bloomkit::current_fpr(bloom_layout::block, description_.geometry, slot.set_bits));
    return -std::expm1(log_all_negative);
}

windowed_filter::time_point windowed_filter::generation_start(std::uint64_t generation) const {
    return time_point(std::chrono::milliseconds(window_generation_start(params_, generation)));
}

bloomkit::windowed_filter windowed_filter::pull() const {
    const filter_description& d = description_;
    const std::uint64_t ring = d.slots();
    std::vector<block_bloom_filter::storage_type> storage;
    for (std::uint64_t j = 0; j < ring; ++j) storage.emplace_back(d.blocks() * 8);
    const std::vector<std::uint64_t> labels =
        detail::read_shards(*client_, d, options_, [&](std::uint64_t s, std::uint64_t region) {
            return storage[region].mutable_data() + s * d.blocks_per_shard * 8;
        });

    // Each slot holds the newest generation any shard's region holds for it; a shard that has
    // not opened it yet holds an older generation's bits there, which no lookup counts: they
    // are not copied.
    std::vector<std::uint64_t> slot_labels(ring, 0);
    std::uint64_t newest = generation_at(server_time());
    for (const std::uint64_t label : labels) {
        newest = std::max(newest, label);
        for (std::uint64_t j = 0; j < ring; ++j)
            if (const auto g = region_generation(label, j, ring)) slot_labels[j] = std::max(slot_labels[j], *g);
    }
    std::vector<block_bloom_filter> slots;
    std::vector<std::uint64_t> generations(ring, bloomkit::windowed_filter::no_generation);
    const windowed_plan plan = plan_windowed_bloom(params_);
    for (std::uint64_t j = 0; j < ring; ++j) {
        const bool live = slot_labels[j] % ring == j && slot_labels[j] + params_.generations >= newest;
        std::uint64_t set_bits = 0;
        for (std::uint64_t s = 0; s < d.shards; ++s) {
            std::uint64_t* words = storage[j].mutable_data() + s * d.blocks_per_shard * 8;
            if (!live || region_generation(labels[s], j, ring) != slot_labels[j])
                std::fill_n(words, d.shard_blocks(s) * 8, std::uint64_t{0});
            for (std::uint64_t w = 0; w < d.shard_blocks(s) * 8; ++w) set_bits += std::popcount(words[w]);
        }
        if (live && set_bits > 0) generations[j] = slot_labels[j];
        const auto inserted =
            static_cast<std::uint64_t>(std::llround(estimate_keys(bloom_layout::block, d.geometry, set_bits)));
        slots.emplace_back(d.geometry, hasher_, std::move(storage[j]),
                           sizing_target{plan.generation.capacity, plan.generation.fpr}, set_bits > 0 ? inserted : 0);
    }
    bloomkit::windowed_filter local(params_, hasher_, std::move(slots), std::move(generations), newest);
    local.record_key_format(d.keys);
    return local;
}

void windowed_filter::record_key_format(key_format keys) {
    detail::record_key_format(*client_, description_, options_, keys);
}

key_format windowed_filter::refresh_key_format() {
    return detail::refresh_key_format(*client_, description_, options_);
}

bool windowed_filter::empty() const {
    return std::ranges::all_of(detail::shard_fills(*client_, description_, options_),
                               [](const detail::shard_fill& fill) { return fill.set_bits() == 0; });
}

void windowed_filter::record_first_keys(key_format keys) {
    if (keys == key_format::unrecorded || refresh_key_format() != key_format::unrecorded) return;
    if (empty()) record_key_format(keys);
}

shared_filter open_shared(client& c, const std::string& name, filter_options options) {
    if (describe_filter(c, name, options).generations != 0) return windowed_filter::open(c, name, options);
    return bloom_filter::open(c, name, options);
}

}  // namespace bloomkit::redis
