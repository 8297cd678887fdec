// bloomkit/redis_windowed.hpp — a filter that forgets (windowed_filter.hpp), shared by many
// processes through a Redis server or Redis Cluster, its generations cut by the server's clock
// (library bloomkit::redis, src/redis/windowed_filter.cpp; the design: docs/design/redis.md, "A
// windowed filter").
//
// - Layout: the G + 1 ring slots of a local windowed_filter of the same parameters, sharded
//   together: each shard holds its blocks once per slot, slot after slot, and a label — the
//   newest generation of time it has opened; each slot's copy then holds the newest generation
//   before it that falls in that slot. push() and pull() carry a filter between Redis and a file.
// - Time: the generation of time is ⌊t·G/W⌋ of the time t of the server that serves hash slot 0,
//   so clients whose clocks disagree agree on it. A client reads that clock (TIME) at most a
//   second before it uses it and advances it by its own steady clock, so its idea of the time is
//   never ahead of the server's: it opens a generation late rather than early, and no key is
//   forgotten before its window has passed.
// - A key is one command on its shard, which reads the label with the key's bits in every slot
//   (and sets them in the current one, for an add). An add that finds an older label runs a
//   script that moves the shard on — only if it is still behind: every client may find it so at
//   once — emptying the slots of the generations it opens, and is made again. A lookup counts
//   the slots whose generation is live.
// - Fail-closed as every filter in Redis: a shard gone, or of another filter, is an error.
//
// Thread safety: a client and the filters opened through it are used by one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bloomkit/redis.hpp"
#include "bloomkit/windowed_filter.hpp"

namespace bloomkit::redis {

/// A windowed filter in Redis: keys found for at least window(), gone by
/// window()·(1 + 1/generation_count()). Its client must outlive it; one thread at a time.
class windowed_filter {
public:
    /// Counts of keys.
    using size_type = std::uint64_t;
    /// A moment (only milliseconds count).
    using time_point = bloomkit::windowed_filter::time_point;

    /// Creates NAME for `keys_per_window` keys in every `window` at FPR `fpr` over the live
    /// generations, or opens it if it exists with the same parameters (one creator, the others
    /// wait). Throws invalid_argument for parameters out of range, filter_mismatch for other
    /// parameters, foreign keys or a stale claim.
    static windowed_filter create(client& c, std::string name, size_type keys_per_window, double fpr,
                                  std::chrono::milliseconds window, std::uint32_t generations = 4,
                                  filter_options options = {});
    /// Throws filter_mismatch if NAME does not exist, is being created or dropped, or is a block
    /// filter.
    static windowed_filter open(client& c, std::string name, filter_options options = {});
    /// Into a new NAME, ready only once every bit is in; on failure what it wrote is removed.
    static windowed_filter push(client& c, std::string name, const bloomkit::windowed_filter& local,
                                filter_options options = {});
    /// As bloom_filter::drop: any filter of that name goes.
    static bool drop(client& c, std::string_view name, filter_options options = {}) {
        return bloom_filter::drop(c, name, options);
    }

    /// A local copy holding every key added before the call began and live at the server's time
    /// (later ones may be missing). Its generations' inserted counts are estimates from their fill.
    [[nodiscard]] bloomkit::windowed_filter pull() const;

    /// The server's clock, as this client last read it (at most a second ago) advanced by its own
    /// steady clock: never ahead of the server's.
    [[nodiscard]] time_point server_time() const;
    /// The generation of time `t` falls in: ⌊t·G/W⌋.
    [[nodiscard]] std::uint64_t generation_at(time_point t) const;

    template <hashable_key Key>
    /// Adds a key at the server's time: true if no live generation held it.
    bool insert(const Key& key) {
        return insert(key, server_time());
    }
    template <hashable_key Key>
    /// Adds a key at time `t` (a replay of old logs; a time well ahead of the server's makes the
    /// filter's generations run ahead of it).
    bool insert(const Key& key, time_point t) {
        record_first_keys(key_format_of<Key>());
        const digest d = hasher_(key);
        bool added = false;
        insert_digests({&d, 1}, &added, t);
        return added;
    }
    template <hashable_key Key>
    /// False: the key was not added within the window of the server's time.
    [[nodiscard]] bool contains(const Key& key) const {
        return contains(key, server_time());
    }
    template <hashable_key Key>
    /// The same at time `t`.
    [[nodiscard]] bool contains(const Key& key, time_point t) const {
        const digest d = hasher_(key);
        bool maybe = false;
        contains_digests({&d, 1}, &maybe, t);
        return maybe;
    }

    /// Adds [first, last) at the server's time; returns how many no live generation held.
    template <std::input_iterator It, std::sentinel_for<It> S>
    size_type insert(It first, S last) {
        record_first_keys(key_format_of<std::iter_value_t<It>>());
        const time_point t = server_time();
        size_type added = 0;
        batched(first, last, [&](std::span<const digest> d, bool* answers) {
            insert_digests(d, answers, t);
            for (std::size_t i = 0; i < d.size(); ++i) added += answers[i] ? 1 : 0;
        });
        return added;
    }
    /// Writes to `out`, for each key of [first, last), whether it may have been added within
    /// the window of the server's time.
    template <std::input_iterator It, std::sentinel_for<It> S, class Out>
    Out contains(It first, S last, Out out) const {
        return contains(first, last, out, server_time());
    }
    /// The same at time `t`.
    template <std::input_iterator It, std::sentinel_for<It> S, class Out>
    Out contains(It first, S last, Out out, time_point t) const {
        batched(first, last, [&](std::span<const digest> d, bool* answers) {
            contains_digests(d, answers, t);
            for (std::size_t i = 0; i < d.size(); ++i) *out++ = answers[i];
        });
        return out;
    }

    /// The same for keys hashed by hash_function() elsewhere, at time `t`; answers[i] for
    /// digests[i]. An add returns once every key is in (and replicated), or throws.
    void insert_digests(std::span<const digest> digests, bool* answers, time_point t);
    /// answers[i]: whether the key of digests[i] may have been added within the window of `t`.
    void contains_digests(std::span<const digest> digests, bool* answers, time_point t) const;

    /// Resets every bit of every slot, the headers kept.
    void clear();

    /// A ring slot as Redis holds it: the generation of time of its keys (its newest shard's
    /// label) and its fill.
    struct slot_state {
        std::uint64_t generation = 0;  ///< its shards' newest label
        std::uint64_t set_bits = 0;    ///< in the shards that hold that label
    };
    /// Every ring slot's state, slot 0 first.
    [[nodiscard]] std::vector<slot_state> slot_states() const;
    /// No bit is set in any slot: the filter holds no key, live or not.
    [[nodiscard]] bool empty() const;
    /// The slots holding keys of a generation live at `t` (or at the newest label, when that is
    /// ahead), newest first.
    [[nodiscard]] std::vector<slot_state> live_slots(time_point t) const;
    /// The distinct keys the generations live at `t` hold, estimated from their fill.
    [[nodiscard]] double approximate_count(time_point t) const;
    /// The same at the server's time.
    [[nodiscard]] double approximate_count() const { return approximate_count(server_time()); }
    /// The FPR at `t`: 1 − Π(1 − fpr_i) over the generations live then.
    [[nodiscard]] double current_fpr(time_point t) const;
    /// The same at the server's time.
    [[nodiscard]] double current_fpr() const { return current_fpr(server_time()); }
    /// When generation `generation` starts.
    [[nodiscard]] time_point generation_start(std::uint64_t generation) const;

    /// As NAME:meta recorded it when this client last read it.
    [[nodiscard]] key_format recorded_key_format() const noexcept { return description_.keys; }
    /// As bloom_filter::record_key_format.
    void record_key_format(key_format keys);
    /// As bloom_filter::refresh_key_format.
    key_format refresh_key_format();

    /// The filter's record: the geometry of one generation, the window, shards, hashing.
    [[nodiscard]] const filter_description& description() const noexcept { return description_; }
    /// NAME.
    [[nodiscard]] const std::string& name() const noexcept { return description_.name; }
    /// Keys per window, target FPR, window and generations.
    [[nodiscard]] const window_parameters& parameters() const noexcept { return params_; }
    /// W.
    [[nodiscard]] std::chrono::milliseconds window() const noexcept { return params_.window; }
    /// G.
    [[nodiscard]] std::uint32_t generation_count() const noexcept { return params_.generations; }
    /// The recorded algorithm and seed: what digests passed to *_digests come from.
    [[nodiscard]] const hasher& hash_function() const noexcept { return hasher_; }
    /// The options the filter was created or opened with.
    [[nodiscard]] const filter_options& options() const noexcept { return options_; }

private:
    windowed_filter(client& c, filter_description description, filter_options options);

    static constexpr std::size_t keys_per_batch = 4096;
    template <class It, class S, class Run>
    void batched(It first, S last, Run run) const {
        std::vector<digest> digests;
        std::unique_ptr<bool[]> answers(new bool[keys_per_batch]);
        while (first != last) {
            digests.clear();
            for (; first != last && digests.size() < keys_per_batch; ++first) digests.push_back(hasher_(*first));
            run(std::span<const digest>(digests), answers.get());
        }
    }

    // One pass over the keys: reads every slot of each (and sets the current one's bits, `write`),
    // then answers those whose current slot held generation e or newer. Returns the shards found
    // holding an older label; their keys' answers are not written.
    struct pass_result;
    pass_result run_pass(std::span<const digest> digests, std::span<const std::size_t> which, std::uint64_t e,
                         bool write, bool* answers) const;
    void record_first_keys(key_format keys);

    client* client_;
    filter_description description_;
    filter_options options_;
    window_parameters params_;
    hasher hasher_;
    block_layout layout_;
    detail::shard_names shards_;
    // The server's clock when last read, and this client's steady clock just before it asked.
    mutable std::optional<std::pair<std::int64_t, std::chrono::steady_clock::time_point>> server_clock_;
};

/// A filter in Redis of either kind.
using shared_filter = std::variant<bloom_filter, windowed_filter>;

/// NAME, opened as the kind Redis holds (describe_filter); throws as bloom_filter::open.
[[nodiscard]] shared_filter open_shared(client& c, const std::string& name, filter_options options = {});

}  // namespace bloomkit::redis
