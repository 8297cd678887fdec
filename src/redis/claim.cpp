// src/redis/claim.cpp — see claim.hpp.
#include "claim.hpp"

#include <random>

#include <fmt/core.h>

namespace bloomkit::redis::detail {
namespace {

std::uint64_t random_64() {
    std::random_device device;
    return (std::uint64_t{device()} << 32) ^ device();
}

// 128 random bits, in hex: who holds a claim.
std::string random_owner() { return fmt::format("{:016x}{:016x}", random_64(), random_64()); }

}  // namespace

std::uint64_t random_generation() { return random_64() | 1; }

std::optional<claim> claim::make(const meta_store& store, filter_description d, filter_state state) {
    d.generation = random_generation();
    std::string owner = random_owner();
    std::optional<std::string> text = store.swap("", encode_meta(d, state, owner));
    if (!text) return std::nullopt;
    return claim(store, std::move(d), state, std::move(owner), std::move(*text));
}

std::optional<claim> claim::take_over(const meta_store& store, const std::string& current, const stored_meta& held,
                                      filter_description d, filter_state state) {
    d.generation = state == filter_state::creating ? random_generation() : held.description.generation;
    std::string owner = random_owner();
    std::optional<std::string> text = store.swap(current, encode_meta(d, state, owner));
    if (!text) return std::nullopt;
    claim taken(store, std::move(d), state, std::move(owner), std::move(*text));
    if (state == filter_state::creating) taken.previous_ = held.description;
    return taken;
}

void claim::beat() { write(state_, true); }

void claim::finish() {
    write(filter_state::ready, true);
    state_ = filter_state::ready;
}

void claim::end() { write(state_, false); }

bool claim::release() noexcept {
    try {
        return store_->swap(text_, "").has_value();
    } catch (...) {
        return false;
    }
}

void claim::write(filter_state state, bool keep) {
    const std::string next = keep ? encode_meta(description_, state, state == filter_state::ready ? "" : owner_) : "";
    std::optional<std::string> written = store_->swap(text_, next);
    if (!written) lost();
    text_ = std::move(*written);
}

void claim::lost() const {
    throw filter_mismatch(
        "another process took over the " + std::string(state_ == filter_state::dropping ? "drop" : "creation") +
        " of filter " + store_->name() +
        " (or dropped it) while this one was at it: stopped here, leaving its shards " + "to the new owner");
}

}  // namespace bloomkit::redis::detail
