// src/redis/claim.hpp — the right to make or delete a filter's shards, held by one process at a
// time: NAME:meta in state "creating" (create, push) or "dropping" (drop), naming a random
// owner token and the server's time of the owner's last progress.
//
// Only the owner moves a claim on (beat, finish, end), each time by a compare-and-set against
// the exact text it wrote last: if anyone else wrote NAME:meta meanwhile (took the claim over,
// dropped the filter), the owner learns it at its next step and stops, without deleting
// anything. Taking a claim over gives it a new owner and, for a creation, a new generation:
// the shards the old owner made are then made anew (make_shard resets shards of the
// generation taken over), and the old owner's conditional writes (scripts.hpp) no longer
// find its generation in them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "meta_store.hpp"
#include "metadata.hpp"

namespace bloomkit::redis::detail {

class claim {
public:
    /// Claims NAME, which has no record, for `d` (given a new generation here) in `state`.
    /// nullopt when another process recorded one first.
    [[nodiscard]] static std::optional<claim> make(const meta_store& store, filter_description d, filter_state state);

    /// Takes over the claim (or, for a drop, the ready filter) recorded as `current`, read as
    /// `held`: records `d` under a new owner in `state`. A creation (state creating) draws a
    /// new generation and remembers the old one's (previous_generation()); a drop keeps the
    /// filter's. nullopt when NAME:meta changed since it was read.
    [[nodiscard]] static std::optional<claim> take_over(const meta_store& store, const std::string& current,
                                                        const stored_meta& held, filter_description d,
                                                        filter_state state);

    [[nodiscard]] const filter_description& description() const noexcept { return description_; }
    /// The creation taken over, if any: its shards are ours to make anew (or to delete, those
    /// beyond our own count).
    [[nodiscard]] const std::optional<filter_description>& previous() const noexcept { return previous_; }
    [[nodiscard]] std::uint64_t previous_generation() const noexcept { return previous_ ? previous_->generation : 0; }

    /// Records progress (the server's time), so that nobody takes the claim over while we work.
    /// Throws filter_mismatch when the claim is no longer ours.
    void beat();
    /// Marks the filter ready: the claim ends, readers may open it. Throws as beat().
    void finish();
    /// Deletes NAME:meta (a drop's last step). Throws as beat().
    void end();
    /// After a failure: deletes NAME:meta if the claim is still ours; true if it did.
    bool release() noexcept;

private:
    claim(const meta_store& store, filter_description d, filter_state state, std::string owner, std::string text)
        : store_(&store), description_(std::move(d)), state_(state), owner_(std::move(owner)), text_(std::move(text)) {}
    // Writes the claim's record anew as `state` (owner "" when ready), or deletes it.
    void write(filter_state state, bool keep);
    [[noreturn]] void lost() const;

    const meta_store* store_;
    filter_description description_;
    filter_state state_;
    std::string owner_;
    std::string text_;  // NAME:meta as we wrote it last
    std::optional<filter_description> previous_;
};

/// A new generation: random and odd (its last bit is every shard's sentinel).
[[nodiscard]] std::uint64_t random_generation();

}  // namespace bloomkit::redis::detail
