// bloomkit/scalable_bloom_filter.hpp — a Bloom filter that grows with its keys (Almeida, Baquero,
// Preguiça & Hutchison, "Scalable Bloom Filters", Information Processing Letters 101(6), 2007), for
// when n is not known in advance (docs/design/scalable.md).
//
// A chain of block Bloom filters, its stages. Keys go into the newest; once it holds the keys it was
// sized for, the next new key opens a stage `growth` (s) times larger at `tightening` (r) times its
// FPR target. A key is present if any stage says so; an insert checks every stage first, so a key
// held anywhere does not use up the newest stage's capacity.
//
// Why the FPR stays below p: stage i targets p_i = p0·r^i, and an absent key is a false positive
// with probability 1 - Π(1 - p_i) ≤ Σ p_i < p0 / (1 - r), so the first stage gets p0 = p·(1 - r).
// The defaults are RedisBloom's, s = 2 and r = 0.5. Each stage is sized by the exact blocked model
// (sizing/). An absent key probes every stage (about log_s(g) after g-fold growth), so a filter that
// keeps growing was sized too small: stage_count() says how far it has come.
//
// Thread safety: const members may run concurrently; mutating ones need exclusive access.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/detail/bulk_pipeline.hpp"
#include "bloomkit/detail/compatibility.hpp"
#include "bloomkit/detail/filter_api.hpp"
#include "bloomkit/detail/stage_probe.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/kind_request.hpp"
#include "bloomkit/options.hpp"
#include "bloomkit/sizing/scalable_bloom.hpp"

namespace bloomkit {

/// How a scalable Bloom filter grows and hashes; the defaults are RedisBloom's.
struct scalable_options {
    /// Each stage's capacity over the one before's: 1 to 2^32 - 1.
    double growth = 2.0;
    /// Each stage's FPR target over the one before's: in (0, 1).
    double tightening = 0.5;
    /// The hash seed of every stage.
    std::uint64_t seed = default_seed;
    /// Defaults to xxh3_64_mum.
    std::optional<hash_algorithm> hash{};
    /// What the keys are (filter_options::keys).
    key_format keys = key_format::unrecorded;
};

/// A chain of block Bloom filters whose FPR stays below p however many keys come. Also has the
/// members every kind shares (detail::filter_api).
class scalable_bloom_filter : public detail::filter_api<scalable_bloom_filter> {
    using api = detail::filter_api<scalable_bloom_filter>;
    friend api;

public:
    /// A stage of the chain.
    using stage_type = block_bloom_filter;
    /// Counts of keys and bits.
    using size_type = std::uint64_t;

    /// Throws invalid_argument for no initial capacity, fpr outside (0, 1) or options out of range.
    scalable_bloom_filter(size_type initial_capacity, double fpr, scalable_options options = {})
        : scalable_bloom_filter(scalable_parameters{initial_capacity, fpr, options.growth, options.tightening},
                                hasher(options.hash.value_or(stage_type::layout_type::default_hash), options.seed)) {
        record_key_format(options.keys);
    }

    /// From its stored parts (io/ codecs); throws invalid_argument unless the stages are the chain
    /// the parameters describe, all hashing like `h`.
    scalable_bloom_filter(scalable_parameters params, const hasher& h, std::vector<stage_type> stages)
        : api(h, target_of(params)), params_(checked(params)), stages_(std::move(stages)) {
        if (stages_.empty()) throw invalid_argument("a scalable Bloom filter has at least one stage");
        if (stages_.size() > scalable_max_stages)
            throw invalid_argument("a scalable Bloom filter has at most " + std::to_string(scalable_max_stages) +
                                   " stages, not " + std::to_string(stages_.size()));
        scalable_stage_plan plan = scalable_first_stage(params_);
        for (std::size_t i = 0; i < stages_.size(); ++i) {
            if (i > 0) plan = scalable_next_stage(params_, plan);
            const stage_type& stage = stages_[i];
            if (stage.hash_function() != hasher_ || plan_of(stage) != plan)
                throw invalid_argument("stage " + std::to_string(i) + " of a scalable Bloom filter (" +
                                       std::to_string(stage.expected_keys()) +
                                       " keys at p = " + show_number(stage.target_fpr()) +
                                       ") does not follow from its parameters (" + std::to_string(plan.capacity) +
                                       " keys at p = " + show_number(plan.fpr) + ", same hashing)");
        }
    }

    /// True if no stage held the key. May open a stage (allocate, or throw invalid_argument when
    /// planned_stage() cannot size it).
    template <hashable_key Key>
    bool insert(const Key& key) {
        record_first_keys<Key>();
        return insert_hashed(hasher_(key));
    }

    using api::contains;

    /// False: the key was never inserted. True: it probably was (or is a false positive).
    template <hashable_key Key>
    [[nodiscard]] bool contains(const Key& key) const {
        return holds(hasher_(key), 0, stages_.size());
    }

    /// As inserting them one by one (the same stages open at the same keys); returns how many
    /// were new.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel>
    requires hashable_key<std::iter_value_t<It>> size_type insert(It first, Sentinel last) {
        size_type added = 0;
        insert_each(first, last, [&](std::size_t, bool fresh) { added += fresh ? 1 : 0; });
        return added;
    }

    /// Writes insert(key)'s answer for each to `out`.
    template <std::forward_iterator It, std::sentinel_for<It> Sentinel, std::output_iterator<bool> Out>
    requires hashable_key<std::iter_value_t<It>> Out insert(It first, Sentinel last, Out out) {
        std::vector<char> answers;
        insert_each(
            first, last,
            [&](std::size_t key, bool fresh) {
                if (key >= answers.size()) answers.resize(key + 1, 0);
                answers[key] = fresh ? 1 : 0;
            },
            [&] {
                for (const char answer : answers) *out++ = answer != 0;
                answers.clear();
            });
        return out;
    }

    /// insert() for a key hashed to `d` by hash_function().
    bool insert_digest(const digest& d) { return insert_hashed(d); }
    /// contains() for a key hashed to `d` by hash_function().
    [[nodiscard]] bool contains_digest(const digest& d) const noexcept { return holds(d, 0, stages_.size()); }

    /// insert(first, last, out) for keys already hashed (on other threads, say).
    template <std::output_iterator<bool> Out>
    Out insert_digests(std::span<const digest> digests, Out out) {
        bulk_scratch scratch;
        std::vector<char> answers;
        for (std::size_t begin = 0; begin < digests.size(); begin += bulk_chunk) {
            const auto chunk = digests.subspan(begin, std::min(bulk_chunk, digests.size() - begin));
            answers.assign(chunk.size(), 0);
            insert_chunk(chunk, scratch, [&](std::size_t key, bool fresh) { answers[key] = fresh ? 1 : 0; });
            for (const char answer : answers) *out++ = answer != 0;
        }
        return out;
    }

    /// Forgets every key and every stage but the first.
    void clear() {
        stages_.front().clear();  // first: throws read_only_filter before anything changed
        stages_.erase(stages_.begin() + 1, stages_.end());
    }

    /// Union stage by stage (stages only `other` has are copied). A stage may then hold more
    /// keys than its capacity and exceed its FPR target (current_fpr() tells). Throws
    /// incompatible_filters unless parameters and hashing are identical.
    scalable_bloom_filter& operator|=(const scalable_bloom_filter& other) {
        require_compatible(other, "union");
        require_writable();
        combine_key_format(other, "union");
        const std::size_t common = std::min(stages_.size(), other.stages_.size());
        std::vector<stage_type> extra;  // built first: if that throws, nothing has changed
        for (std::size_t i = common; i < other.stages_.size(); ++i) extra.push_back(owned_copy(other.stages_[i]));
        stages_.reserve(stages_.size() + extra.size());
        for (std::size_t i = 0; i < common; ++i) stages_[i] |= other.stages_[i];
        std::ranges::move(extra, std::back_inserter(stages_));
        return *this;
    }

    /// The union of two filters (operator|=).
    friend scalable_bloom_filter operator|(scalable_bloom_filter a, const scalable_bloom_filter& b) { return a |= b; }

    /// Same parameters, hashing, and stages with the same bits.
    friend bool operator==(const scalable_bloom_filter& a, const scalable_bloom_filter& b) noexcept {
        return a.params_ == b.params_ && a.hasher_ == b.hasher_ && a.stages_ == b.stages_;
    }

    /// Same parameters, hashing and stage geometries, so that the two combine.
    [[nodiscard]] bool compatible_with(const scalable_bloom_filter& other) const noexcept {
        const std::size_t common = std::min(stages_.size(), other.stages_.size());
        return params_ == other.params_ && hasher_ == other.hasher_ &&
               std::equal(stages_.begin(), stages_.begin() + static_cast<std::ptrdiff_t>(common), other.stages_.begin(),
                          [](const stage_type& a, const stage_type& b) { return a.compatible_with(b); });
    }

    /// expected_keys() is the first stage's capacity, target_fpr() the whole filter's bound.
    [[nodiscard]] const scalable_parameters& parameters() const noexcept { return params_; }
    /// Keys the first stage is sized for.
    [[nodiscard]] size_type initial_capacity() const noexcept { return params_.initial_capacity; }
    /// Each new stage holds this many times the keys of the one before.
    [[nodiscard]] double growth() const noexcept { return params_.growth; }
    /// Each new stage's FPR target over the one before's.
    [[nodiscard]] double tightening() const noexcept { return params_.tightening; }

    /// Stages opened so far: at least one.
    [[nodiscard]] std::size_t stage_count() const noexcept { return stages_.size(); }

    /// Oldest (smallest) first; each one's expected_keys() and target_fpr() are its own.
    [[nodiscard]] std::span<const stage_type> stages() const noexcept { return stages_; }

    /// Capacity and FPR target of stage `index`, open or not; throws invalid_argument past 2^63 keys.
    [[nodiscard]] scalable_stage_plan planned_stage(std::size_t index) const {
        scalable_stage_plan plan = scalable_first_stage(params_);
        for (std::size_t i = 0; i < index; ++i) plan = scalable_next_stage(params_, plan);
        return plan;
    }

    /// Bytes of all stages' bits.
    [[nodiscard]] size_type size_in_bytes() const noexcept {
        return sum_over_stages([](const stage_type& stage) { return stage.size_in_bytes(); });
    }

    /// How many inserts reported a new key, over all stages (and unions).
    [[nodiscard]] size_type inserted_count() const noexcept {
        return sum_over_stages([](const stage_type& stage) { return stage.inserted_count(); });
    }

    /// The sum of the stages' estimates from their fill; +infinity when one is all set. O(m).
    [[nodiscard]] double approximate_count() const noexcept {
        return sum_over_stages([](const stage_type& stage) { return stage.approximate_count(); });
    }

    /// 1 - Π(1 - fpr_i) over the stages' current FPRs. O(m).
    [[nodiscard]] double current_fpr() const {
        // Σ log(1 - fpr_i), so that tiny rates are not lost to rounding in the product.
        const double log_all_negative =
            sum_over_stages([](const stage_type& stage) { return std::log1p(-stage.current_fpr()); });
        return -std::expm1(log_all_negative);
    }

    /// True for a filter mapped from a file: it can be queried, not modified.
    [[nodiscard]] bool read_only() const noexcept { return stages_.front().read_only(); }

private:
    scalable_bloom_filter(scalable_parameters params, hasher h) : api(h, target_of(params)), params_(checked(params)) {
        stages_.push_back(make_stage(scalable_first_stage(params_)));
    }

    static scalable_parameters checked(scalable_parameters params) {
        check_scalable_parameters(params);
        return params;
    }

    static sizing_target target_of(const scalable_parameters& params) noexcept {
        return {params.initial_capacity, params.fpr};
    }

    // filter_api's bulk hook: use(answer) for every key, in order.
    template <class It, class Sentinel, class Use>
    Use for_each_answer(It first, Sentinel last, Use use) const {
        bulk_scratch scratch;
        std::vector<digest> digests;
        while (first != last) {
            detail::hash_batch(hasher_, first, last, bulk_chunk, digests);
            mark_held(stages_, digests, scratch);
            for (const char held : scratch.keys.held) use(held != 0);
        }
        return use;
    }

    static scalable_stage_plan plan_of(const stage_type& stage) noexcept {
        return {stage.expected_keys(), stage.target_fpr()};
    }

    [[nodiscard]] stage_type make_stage(scalable_stage_plan plan) const {
        try {
            return stage_type(plan.capacity, plan.fpr, {.seed = hasher_.seed(), .hash = hasher_.algorithm()});
        } catch (const invalid_argument& e) {
            throw invalid_argument("cannot size a scalable Bloom filter stage for " + std::to_string(plan.capacity) +
                                   " keys at p = " + show_number(plan.fpr) + ": " + e.what() +
                                   " (a larger initial capacity or growth factor needs fewer stages)");
        }
    }

    // An owned (writable) copy of a stage, even of one mapped read-only from a file.
    [[nodiscard]] stage_type owned_copy(const stage_type& stage) const {
        stage_type copy = make_stage(plan_of(stage));
        copy |= stage;
        return copy;
    }

    static bool is_full(const stage_type& stage) noexcept { return stage.inserted_count() >= stage.expected_keys(); }

    // The caller has checked that the filter is writable.
    stage_type& open_stage() {
        if (!is_full(stages_.back())) return stages_.back();
        if (stages_.size() == scalable_max_stages)
            throw invalid_argument("this scalable Bloom filter has reached its limit of " +
                                   std::to_string(scalable_max_stages) +
                                   " stages and cannot take more keys; build a "
                                   "larger one (a larger initial capacity or growth factor needs fewer stages)");
        stages_.push_back(make_stage(scalable_next_stage(params_, plan_of(stages_.back()))));
        return stages_.back();
    }

    void require_writable() const {
        if (read_only())
            throw read_only_filter(
                "this scalable Bloom filter is a read-only view of a memory-mapped file; load() it to "
                "modify it");
    }

    void require_compatible(const scalable_bloom_filter& other, const char* operation) const {
        const detail::compatibility_check check(operation, "scalable Bloom filters");
        check.same("initial capacities", params_.initial_capacity, other.params_.initial_capacity, " keys")
            .same("target false-positive rates", params_.fpr, other.params_.fpr)
            .same("growth factors", params_.growth, other.params_.growth)
            .same("tightening ratios", params_.tightening, other.params_.tightening)
            .same_hashing(hasher_, other.hasher_);
        const std::size_t common = std::min(stages_.size(), other.stages_.size());
        for (std::size_t i = 0; i < common; ++i)  // differ only when built by different machines' math
            check.same("stage sizes", stages_[i].bit_count(), other.stages_[i].bit_count(), " bits")
                .same("stage probe counts", stages_[i].hash_count(), other.stages_[i].hash_count());
    }

    template <class Of>
    std::invoke_result_t<Of, const stage_type&> sum_over_stages(Of of) const {
        std::invoke_result_t<Of, const stage_type&> sum{};
        for (const stage_type& stage : stages_) sum += of(stage);
        return sum;
    }

    // Stages [from, to), newest first; every stage hashes like hasher_, so one digest serves all.
    [[nodiscard]] bool holds(const digest& d, std::size_t from, std::size_t to) const noexcept {
        const auto begin = stages_.begin() + static_cast<std::ptrdiff_t>(from);
        const auto end = stages_.begin() + static_cast<std::ptrdiff_t>(to);
        return std::any_of(std::make_reverse_iterator(end), std::make_reverse_iterator(begin),
                           [&](const stage_type& stage) { return stage.contains_digest(d); });
    }

    // For a key no stage before `from` holds. The newest is tested before it is set: a key it
    // already holds must not use up its capacity.
    bool insert_hashed(const digest& d, std::size_t from = 0) {
        const std::size_t newest = stages_.size() - 1;
        if (from < newest && holds(d, from, newest)) return false;  // a key held anywhere is not inserted again
        if (stages_.back().contains_digest(d)) return false;
        if (!is_full(stages_.back()) && !read_only()) return stages_.back().insert_digest(d);
        require_writable();                    // before anything changes: a mapped filter neither grows nor changes
        return open_stage().insert_digest(d);  // a new stage: every bit was clear
    }

    // Keys hashed ahead, then answered stage by stage; their digests take 64 KiB
    // (docs/design/scalable.md).
    static constexpr std::size_t bulk_chunk = 4096;
    static constexpr std::size_t prefetch_distance = detail::pipeline_distance;

    struct bulk_scratch {
        detail::held_keys keys;
        std::vector<const stage_type*> newest_first;
    };

    // answer(index in the chunk, was new) for every key, out of order within a chunk, then
    // chunk_done().
    template <class It, class Sentinel, class Answer, class ChunkDone = void (*)()>
    void insert_each(
        It& first, Sentinel last, Answer answer, ChunkDone chunk_done = [] {}) {
        record_first_keys<std::iter_value_t<It>>();
        bulk_scratch scratch;
        std::vector<digest> digests;
        while (first != last) {
            detail::hash_batch(hasher_, first, last, bulk_chunk, digests);
            insert_chunk(digests, scratch, answer);
            chunk_done();
        }
    }

    // The older stages, unchanged by the chunk, answer for all of it first; the keys none holds
    // then go through insert(key)'s logic from the newest stage on, in order.
    template <class Answer>
    void insert_chunk(std::span<const digest> digests, bulk_scratch& scratch, Answer answer) {
        const std::size_t settled = stages_.size() - 1;
        mark_held(std::span<const stage_type>(stages_).first(settled), digests, scratch);
        for (std::size_t i = 0; i < scratch.keys.held.size(); ++i)
            if (scratch.keys.held[i]) answer(i, false);
        const std::span<const std::uint32_t> fresh(scratch.keys.pending);
        for (std::size_t j = 0; j < fresh.size(); ++j) {
            if (j + prefetch_distance < fresh.size())
                stages_.back().prefetch_digest(digests[fresh[j + prefetch_distance]]);
            answer(fresh[j], insert_hashed(digests[fresh[j]], settled));
        }
    }

    // Whether one of `stages` holds each key, newest first (detail::mark_held).
    static void mark_held(std::span<const stage_type> stages, std::span<const digest> digests, bulk_scratch& scratch) {
        scratch.newest_first.clear();
        for (auto stage = stages.rbegin(); stage != stages.rend(); ++stage) scratch.newest_first.push_back(&*stage);
        detail::mark_held<stage_type>(scratch.newest_first, digests, scratch.keys);
    }

    scalable_parameters params_;
    std::vector<stage_type> stages_;  // never empty
};

template <>
/// The registry's entry (kind_request.hpp): kind "scalable".
struct kind_traits<scalable_bloom_filter> {
    /// The kind's word.
    static constexpr std::string_view word = "scalable";
    /// It has no capacity: it grows as keys come.
    static constexpr bool grows = true;
    /// Why one would choose it.
    static constexpr std::string_view summary = "if n is a guess: stages of 2x keys at p/2, p/4, ...";
    /// How messages name the type.
    static std::string name() { return "scalable Bloom filter"; }
    /// Kind "scalable", which takes no options.
    static kind_request request() { return {std::string(word), {}, {}, {}, {}, {}}; }
    /// The options of a kind_request it takes (kinds.hpp refuses the others).
    static constexpr request_options accepted_options{};
    /// Whether `r` asks for kind "scalable".
    static bool accepts(const kind_request& r, double) { return r.kind == word; }
    /// Holding n keys from an initial capacity of n: the first stage only.
    static kind_plan plan(double n, double p, const kind_request& = {}) {
        const scalable_options defaults;
        const scalable_plan plan =
            plan_scalable_bloom(n, {static_cast<std::uint64_t>(n), p, defaults.growth, defaults.tightening});
        const auto stage_bytes = [&](std::size_t i) -> std::uint64_t { return plan.geometries[i].bits / 8; };
        return {detail::stage_table_payload_size(plan.geometries.size(), stage_bytes), plan.fpr,
                plan.geometries.front().hashes, 0};
    }
    /// An empty filter whose first stage holds n keys, at FPR bound p, growing by the defaults.
    static scalable_bloom_filter make(std::uint64_t n, double p, const kind_request&, filter_options options) {
        return {n, p, {.seed = options.seed, .hash = options.hash, .keys = options.keys}};
    }
};

}  // namespace bloomkit
