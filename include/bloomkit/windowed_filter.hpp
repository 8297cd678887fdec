// bloomkit/windowed_filter.hpp — a Bloom filter that forgets: "seen in the last 24 hours"
// (docs/design/windowed.md). Keys are remembered for at least the window W — never a false
// negative inside it — and forgotten by W(1 + 1/G).
//
// A ring of G + 1 block Bloom filters, the generations, each covering W/G of time
// (sizing/windowed_bloom.hpp has the arithmetic). An insert sets the generation of its time; a
// lookup asks the G + 1 live ones, one digest serving all, in one pass (detail::mark_held for a
// batch). When time reaches a new generation, the ring slot it takes over is cleared, as is every
// slot whose generation fell out of the window: what a filter holds is always the live keys.
//
// Time comes from a clock: by default the system clock, or one the caller sets (a replay of old
// logs, a test), or a time passed with each call. Generations are numbered from the Unix epoch,
// so programs that share W and G agree on them. Time never runs backwards in a filter: a time
// before the newest generation it has opened counts as that generation — a key inserted then is
// remembered from the newest time, later rather than sooner, and nothing is lost.
//
// Thread safety: const members may run concurrently; mutating ones need exclusive access.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/detail/compatibility.hpp"
#include "bloomkit/detail/filter_api.hpp"
#include "bloomkit/detail/stage_probe.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/kind_request.hpp"
#include "bloomkit/options.hpp"
#include "bloomkit/sizing/windowed_bloom.hpp"

namespace bloomkit {

/// How a windowed filter cuts its window and hashes.
struct windowed_options {
    /// G: generations per window (1 to windowed_max_generations).
    std::uint32_t generations = 4;
    /// The hash seed of every generation.
    std::uint64_t seed = default_seed;
    /// Defaults to xxh3_64_mum.
    std::optional<hash_algorithm> hash{};
    /// What the keys are (filter_options::keys).
    key_format keys = key_format::unrecorded;
};

/// A Bloom filter whose keys expire: found for at least window(), gone by
/// window()·(1 + 1/generation_count()). Also has the members every kind shares
/// (detail::filter_api); expected_keys() is the keys per window it was sized for.
class windowed_filter : public detail::filter_api<windowed_filter> {
    using api = detail::filter_api<windowed_filter>;
    friend api;

public:
    /// A generation.
    using generation_type = block_bloom_filter;
    /// Counts of keys and bits.
    using size_type = std::uint64_t;
    /// Where time comes from.
    using clock_type = std::chrono::system_clock;
    /// A moment; only milliseconds count.
    using time_point = clock_type::time_point;
    /// What the filter asks for "now".
    using clock_function = filter_clock;
    /// The label of a ring slot no live generation holds.
    static constexpr std::uint64_t no_generation = UINT64_MAX;

    /// Sized for `keys_per_window` keys in every `window` at FPR `fpr` over the live
    /// generations. Throws invalid_argument for parameters out of range.
    windowed_filter(size_type keys_per_window, double fpr, std::chrono::milliseconds window,
                    windowed_options options = {})
        : windowed_filter(window_parameters{keys_per_window, fpr, window, options.generations},
                          hasher(options.hash.value_or(generation_type::layout_type::default_hash), options.seed)) {
        record_key_format(options.keys);
    }

    /// From its stored parts (io/ codecs): G + 1 ring slots and the generation each holds
    /// (no_generation: none), the newest generation opened. Throws invalid_argument unless the
    /// slots are what the parameters size, hash like `h`, and hold live generations in their
    /// places (generation e in slot e mod (G + 1)).
    windowed_filter(window_parameters params, const hasher& h, std::vector<generation_type> slots,
                    std::vector<std::uint64_t> labels, std::uint64_t newest)
        : api(h, target_of(params)),
          params_(params),
          plan_(plan_windowed_bloom(params)),
          slots_(std::move(slots)),
          labels_(std::move(labels)),
          newest_(newest) {
        const std::size_t ring = plan_.filters;
        if (slots_.size() != ring || labels_.size() != ring)
            throw invalid_argument("a windowed filter of " + std::to_string(params_.generations) + " generations has " +
                                   std::to_string(ring) + " ring slots, not " + std::to_string(slots_.size()));
        for (std::size_t i = 0; i < ring; ++i) {
            const generation_type& slot = slots_[i];
            const std::string which = "ring slot " + std::to_string(i) + " of a windowed filter";
            if (slot.hash_function() != hasher_ || slot.geometry() != plan_.geometry ||
                slot.expected_keys() != plan_.generation.capacity || slot.target_fpr() != plan_.generation.fpr)
                throw invalid_argument(which + " is not the generation its parameters size (" +
                                       std::to_string(plan_.generation.capacity) +
                                       " keys at p = " + show_number(plan_.generation.fpr) + ", same hashing)");
            if (labels_[i] == no_generation) {
                if (slot.inserted_count() != 0) throw invalid_argument(which + " holds keys but no generation");
            } else if (labels_[i] % ring != i || !live_at(labels_[i], newest_)) {
                throw invalid_argument(which + " holds generation " + std::to_string(labels_[i]) +
                                       ", which is not in its place or not live at generation " +
                                       std::to_string(newest_));
            }
        }
    }

    // --- Keys ------------------------------------------------------------------------------

    /// Adds a key at now(): true if no live generation held it. The key is set in the current
    /// generation even when an older one holds it, so it is remembered for a window from now.
    template <hashable_key Key>
    bool insert(const Key& key) {
        return insert(key, now());
    }
    /// insert(key) at time `t`.
    template <hashable_key Key>
    bool insert(const Key& key, time_point t) {
        record_first_keys<Key>();
        const std::uint64_t e = advance(t);
        return insert_hashed(hasher_(key), e);
    }

    using api::contains;

    /// False: the key was not inserted within the window before now() (it may have been
    /// longer ago). True: it probably was.
    template <hashable_key Key>
    [[nodiscard]] bool contains(const Key& key) const {
        return contains(key, now());
    }
    /// contains(key) at time `t`.
    template <hashable_key Key>
    [[nodiscard]] bool contains(const Key& key, time_point t) const {
        return holds(hasher_(key), effective_generation(t));
    }

    /// Inserts every key at now(), read once; returns how many were new.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel>
    requires hashable_key<std::iter_value_t<It>> size_type insert(It first, Sentinel last) {
        size_type added = 0;
        insert_each(first, last, now(), [&](std::size_t, bool fresh) { added += fresh ? 1 : 0; });
        return added;
    }

    /// Writes insert(key)'s answer for each to `out`, all at now(), read once.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel, std::output_iterator<bool> Out>
    requires hashable_key<std::iter_value_t<It>> Out insert(It first, Sentinel last, Out out) {
        std::vector<char> answers;
        insert_each(
            first, last, now(), [&](std::size_t key, bool fresh) { answers[key] = fresh ? 1 : 0; },
            [&](std::size_t keys) { answers.assign(keys, 0); },
            [&] {
                for (const char answer : answers) *out++ = answer != 0;
            });
        return out;
    }

    /// insert() at now() for a key hashed to `d` by hash_function().
    bool insert_digest(const digest& d) { return insert_digest(d, now()); }
    /// insert() at time `t` for a key hashed to `d` by hash_function().
    bool insert_digest(const digest& d, time_point t) { return insert_hashed(d, advance(t)); }
    /// contains() at now() for a key hashed to `d` by hash_function().
    [[nodiscard]] bool contains_digest(const digest& d) const { return contains_digest(d, now()); }
    /// contains() at time `t` for a key hashed to `d` by hash_function().
    [[nodiscard]] bool contains_digest(const digest& d, time_point t) const {
        return holds(d, effective_generation(t));
    }

    // --- Time ------------------------------------------------------------------------------

    /// Makes the filter ask `clock` for the time (a replay, a test, a shared server's clock);
    /// an empty one restores the system clock.
    void set_clock(clock_function clock) { clock_ = std::move(clock); }
    /// The time the filter goes by.
    [[nodiscard]] time_point now() const { return clock_ ? clock_() : clock_type::now(); }

    /// Opens the generation of time `t` (a time before the newest counts as the newest): clears
    /// the ring slot it takes and every generation out of the window. Returns its number.
    /// Throws read_only_filter for a mapped filter that would have to change.
    std::uint64_t advance(time_point t) {
        const std::uint64_t e = effective_generation(t);
        const std::size_t current = slot_of(e);
        if (labels_[current] == e && e == newest_) return e;
        require_writable();
        for (std::size_t i = 0; i < slots_.size(); ++i)
            if (labels_[i] != no_generation && !live_at(labels_[i], e)) {
                slots_[i].clear();
                labels_[i] = no_generation;
            }
        if (labels_[current] != e) {
            slots_[current].clear();
            labels_[current] = e;
        }
        newest_ = e;
        return e;
    }

    /// The generation time `t` falls in, ⌊t·G/W⌋ (sizing/windowed_bloom.hpp).
    [[nodiscard]] std::uint64_t generation_at(time_point t) const {
        return window_generation_at(params_, milliseconds_of(t));
    }
    /// When generation `generation` starts.
    [[nodiscard]] time_point generation_start(std::uint64_t generation) const {
        return time_point(std::chrono::milliseconds(window_generation_start(params_, generation)));
    }
    /// The generations live at time `t` (a time before the newest counts as the newest) that
    /// the ring holds, newest first.
    [[nodiscard]] std::vector<std::uint64_t> live_generations(time_point t) const {
        std::vector<std::uint64_t> live;
        const std::uint64_t e = effective_generation(t);
        for_each_live(e, [&](std::size_t slot) { live.push_back(labels_[slot]); });
        return live;
    }
    /// The ring slot generation `generation` lives in.
    [[nodiscard]] std::size_t slot_of(std::uint64_t generation) const noexcept {
        return static_cast<std::size_t>(generation % plan_.filters);
    }
    /// The newest generation opened (0 before the first).
    [[nodiscard]] std::uint64_t newest_generation() const noexcept { return newest_; }

    // --- The ring --------------------------------------------------------------------------

    /// Forgets every key and every generation.
    void clear() {
        require_writable();
        for (generation_type& slot : slots_) slot.clear();
        std::ranges::fill(labels_, no_generation);
        newest_ = 0;
    }

    /// Union generation by generation: a generation either holds is in the result, and of two in
    /// one ring slot the newer wins (the older is out of the window then). Throws
    /// incompatible_filters unless parameters and hashing are identical.
    windowed_filter& operator|=(const windowed_filter& other) {
        require_compatible(other);
        require_writable();
        combine_key_format(other, "union");
        const std::uint64_t newest = std::max(newest_, other.newest_);
        for (std::size_t i = 0; i < slots_.size(); ++i) {
            const std::uint64_t theirs = other.labels_[i];
            if (theirs == no_generation || !live_at(theirs, newest)) continue;
            if (labels_[i] == theirs) {
                slots_[i] |= other.slots_[i];
            } else if (labels_[i] == no_generation || labels_[i] < theirs) {
                slots_[i].clear();
                slots_[i] |= other.slots_[i];
                labels_[i] = theirs;
            }
        }
        newest_ = newest;
        for (std::size_t i = 0; i < slots_.size(); ++i)
            if (labels_[i] != no_generation && !live_at(labels_[i], newest_)) {
                slots_[i].clear();
                labels_[i] = no_generation;
            }
        return *this;
    }

    /// The union of two filters (operator|=).
    friend windowed_filter operator|(windowed_filter a, const windowed_filter& b) { return a |= b; }

    /// Same parameters, hashing, generations and bits (the clocks are not compared).
    friend bool operator==(const windowed_filter& a, const windowed_filter& b) noexcept {
        return a.params_ == b.params_ && a.hasher_ == b.hasher_ && a.newest_ == b.newest_ && a.labels_ == b.labels_ &&
               a.slots_ == b.slots_;
    }

    /// Same parameters and hashing, so that the two combine.
    [[nodiscard]] bool compatible_with(const windowed_filter& other) const noexcept {
        return params_ == other.params_ && hasher_ == other.hasher_;
    }

    /// Keys per window, target FPR, window and generations.
    [[nodiscard]] const window_parameters& parameters() const noexcept { return params_; }
    /// W: keys are remembered at least this long.
    [[nodiscard]] std::chrono::milliseconds window() const noexcept { return params_.window; }
    /// G: generations per window; G + 1 are kept.
    [[nodiscard]] std::uint32_t generation_count() const noexcept { return params_.generations; }
    /// What each generation is sized for, and the ring's cost.
    [[nodiscard]] const windowed_plan& plan() const noexcept { return plan_; }

    /// The G + 1 ring slots; generation e lives in slot e mod (G + 1).
    [[nodiscard]] std::span<const generation_type> slots() const noexcept { return slots_; }
    /// The generation each slot holds, or no_generation.
    [[nodiscard]] std::span<const std::uint64_t> slot_generations() const noexcept { return labels_; }

    /// Bytes of all slots' bits.
    [[nodiscard]] size_type size_in_bytes() const noexcept {
        return std::uint64_t{plan_.filters} * slots_.front().size_in_bytes();
    }
    /// Keys the live generations took (a key refreshed in a newer generation counts again).
    [[nodiscard]] size_type inserted_count() const noexcept {
        size_type sum = 0;
        for (const generation_type& slot : slots_) sum += slot.inserted_count();
        return sum;
    }
    /// The sum of the live generations' estimates from their fill. O(m).
    [[nodiscard]] double approximate_count() const noexcept {
        double sum = 0;
        for (const generation_type& slot : slots_) sum += slot.approximate_count();
        return sum;
    }
    /// 1 − Π(1 − fpr_i) over the generations live at the newest. O(m).
    [[nodiscard]] double current_fpr() const {
        double log_all_negative = 0;  // Σ log(1 − fpr_i): tiny rates survive the product
        for (const generation_type& slot : slots_) log_all_negative += std::log1p(-slot.current_fpr());
        return -std::expm1(log_all_negative);
    }

    /// True for a filter mapped from a file: it can be queried, not modified.
    [[nodiscard]] bool read_only() const noexcept { return slots_.front().read_only(); }

private:
    windowed_filter(window_parameters params, hasher h)
        : api(h, target_of(params)),
          params_(params),
          plan_(plan_windowed_bloom(params)),
          labels_(plan_.filters, no_generation) {
        slots_.reserve(plan_.filters);
        for (std::uint32_t i = 0; i < plan_.filters; ++i)
            slots_.emplace_back(plan_.generation.capacity, plan_.generation.fpr,
                                filter_options{.seed = hasher_.seed(), .hash = hasher_.algorithm()});
    }

    static sizing_target target_of(const window_parameters& params) noexcept {
        return {params.keys_per_window, params.fpr};
    }

    static std::int64_t milliseconds_of(time_point t) {
        return std::chrono::floor<std::chrono::milliseconds>(t).time_since_epoch().count();
    }

    // Live at the time of generation e: one of e − G .. e.
    [[nodiscard]] bool live_at(std::uint64_t generation, std::uint64_t e) const noexcept {
        return generation <= e && e - generation <= params_.generations;
    }

    [[nodiscard]] std::uint64_t effective_generation(time_point t) const { return std::max(generation_at(t), newest_); }

    // The live slots at generation e, newest first: the likeliest to hold a key come first.
    template <class Visit>
    void for_each_live(std::uint64_t e, Visit visit) const {
        for (std::uint64_t back = 0; back <= params_.generations && back <= e; ++back) {
            const std::size_t slot = slot_of(e - back);
            if (labels_[slot] == e - back) visit(slot);
        }
    }

    [[nodiscard]] bool holds(const digest& d, std::uint64_t e) const noexcept {
        bool found = false;
        for_each_live(e, [&](std::size_t slot) { found = found || slots_[slot].contains_digest(d); });
        return found;
    }

    // At generation e, opened: set in the current generation unless it holds the key already.
    bool insert_hashed(const digest& d, std::uint64_t e) {
        const std::size_t now_slot = slot_of(e);
        generation_type& current = slots_[now_slot];
        if (current.contains_digest(d)) return false;
        bool held = false;  // by an older live generation
        for_each_live(e,
                      [&](std::size_t slot) { held = held || (slot != now_slot && slots_[slot].contains_digest(d)); });
        current.insert_digest(d);
        return !held;
    }

    void require_writable() const {
        if (read_only())
            throw read_only_filter(
                "this windowed filter is a read-only view of a memory-mapped file; load() it to modify it");
    }

    void require_compatible(const windowed_filter& other) const {
        detail::compatibility_check("union", "windowed filters")
            .same("keys per window", params_.keys_per_window, other.params_.keys_per_window, "")
            .same("target false-positive rates", params_.fpr, other.params_.fpr)
            .same("windows", static_cast<std::uint64_t>(params_.window.count()),
                  static_cast<std::uint64_t>(other.params_.window.count()), " ms")
            .same("generation counts", std::uint64_t{params_.generations}, std::uint64_t{other.params_.generations}, "")
            .same_hashing(hasher_, other.hasher_);
    }

    // filter_api's bulk hook: the live generations at now(), read once, asked a chunk at a time.
    template <class It, class Sentinel, class Use>
    Use for_each_answer(It first, Sentinel last, Use use) const {
        const std::vector<const generation_type*> live = live_newest_first(effective_generation(now()), false);
        detail::held_keys held;
        std::vector<digest> digests;
        while (first != last) {
            detail::hash_batch(hasher_, first, last, bulk_chunk, digests);
            detail::mark_held<generation_type>(live, digests, held);
            for (const char h : held.held) use(h != 0);
        }
        return use;
    }

    [[nodiscard]] std::vector<const generation_type*> live_newest_first(std::uint64_t e, bool skip_current) const {
        std::vector<const generation_type*> live;
        for_each_live(e, [&](std::size_t slot) {
            if (!skip_current || slot != slot_of(e)) live.push_back(&slots_[slot]);
        });
        return live;
    }

    // Keys hashed ahead; the older generations answer for a chunk first, then each key goes into
    // the current one in order (a key repeated in the chunk is not new the second time).
    static constexpr std::size_t bulk_chunk = 4096;

    template <class It, class Sentinel, class Answer, class ChunkStart = void (*)(std::size_t),
              class ChunkDone = void (*)()>
    void insert_each(
        It& first, Sentinel last, time_point t, Answer answer, ChunkStart chunk_start = [](std::size_t) {},
        ChunkDone chunk_done = [] {}) {
        record_first_keys<std::iter_value_t<It>>();
        if (first == last) return;
        const std::uint64_t e = advance(t);
        const std::vector<const generation_type*> older = live_newest_first(e, true);
        generation_type& current = slots_[slot_of(e)];
        detail::held_keys held;
        std::vector<digest> digests;
        while (first != last) {
            detail::hash_batch(hasher_, first, last, bulk_chunk, digests);
            chunk_start(digests.size());
            detail::mark_held<generation_type>(older, digests, held);
            for (std::size_t j = 0; j < digests.size(); ++j) {
                if (j + detail::pipeline_distance < digests.size())
                    current.prefetch_digest(digests[j + detail::pipeline_distance]);
                const bool in_current = current.contains_digest(digests[j]);
                if (!in_current) current.insert_digest(digests[j]);
                answer(j, !in_current && held.held[j] == 0);
            }
            chunk_done();
        }
    }

    window_parameters params_;
    windowed_plan plan_;
    std::vector<generation_type> slots_;  // G + 1
    std::vector<std::uint64_t> labels_;   // the generation each slot holds, or no_generation
    std::uint64_t newest_ = 0;
    clock_function clock_;  // empty: the system clock
};

template <>
/// The registry's entry (kind_request.hpp): kind "windowed".
struct kind_traits<windowed_filter> {
    /// The kind's word.
    static constexpr std::string_view word = "windowed";
    /// Why one would choose it.
    static constexpr std::string_view summary = "keys found for a window W (--window, 24h), gone by W(1 + 1/G)";
    /// The window when a request sets none: "seen in the last 24 hours".
    static constexpr std::chrono::milliseconds default_window = std::chrono::hours(24);
    /// How messages name the type.
    static std::string name() { return "windowed Bloom filter"; }
    /// Kind "windowed".
    static kind_request request() { return {std::string(word), {}, {}, {}, {}, {}}; }
    /// It takes a window and a number of generations.
    static constexpr request_options accepted_options{.window = true, .generations = true};
    /// Whether `r` asks for kind "windowed".
    static bool accepts(const kind_request& r, double) { return r.kind == word; }
    /// n keys per window at p: G + 1 generations of n/G keys.
    static kind_plan plan(double n, double p, const kind_request& r = {}) {
        const windowed_plan plan = plan_windowed_bloom(parameters_of(n, p, r));
        const auto generation_bytes = [&](std::size_t) -> std::uint64_t { return plan.geometry.bits / 8; };
        return {detail::stage_table_payload_size(plan.filters, generation_bytes), plan.fpr, plan.geometry.hashes, 0};
    }
    /// An empty filter for n keys per window at p.
    static windowed_filter make(std::uint64_t n, double p, const kind_request& r, filter_options options) {
        const window_parameters params = parameters_of(static_cast<double>(n), p, r);
        return {params.keys_per_window,
                p,
                params.window,
                {.generations = params.generations, .seed = options.seed, .hash = options.hash, .keys = options.keys}};
    }

private:
    static window_parameters parameters_of(double n, double p, const kind_request& r) {
        detail::require_keys(n);
        return {static_cast<std::uint64_t>(std::ceil(n)), p, r.window.value_or(default_window),
                r.generations.value_or(windowed_options{}.generations)};
    }
};

}  // namespace bloomkit
