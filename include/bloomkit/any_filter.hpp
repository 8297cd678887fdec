// bloomkit/any_filter.hpp — a filter whose kind is known only at run time: the variant over every
// type of the registry (kinds.hpp), opened by io/any_codec.hpp, and what every kind answers.
//
//     bloomkit::any_filter f = bloomkit::load<bloomkit::any_filter>("seen.bkf");
//     std::visit([](const auto& filter) { ... }, f);
//
// Batches of keys: bulk.hpp; code chosen by a file header's kind: visit_kind (io/bkf.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/io/any_codec.hpp"
#include "bloomkit/io/bkf.hpp"
#include "bloomkit/kinds.hpp"

namespace bloomkit {

/// The held filter's hasher: its digests serve every filter that hashes alike.
[[nodiscard]] inline const hasher& hash_function(const any_filter& filter) noexcept {
    return std::visit([](const auto& f) -> const hasher& { return f.hash_function(); }, filter);
}

/// An empty filter of the same type and parameters, which its union takes in exactly, so threads
/// can fill copies and unite them: Bloom and counting Bloom only (not DCSO, whose count depends
/// on the order of inserts).
[[nodiscard]] inline std::optional<any_filter> empty_like(const any_filter& filter) {
    return std::visit(
        [](const auto& f) -> std::optional<any_filter> {
            using F = std::decay_t<decltype(f)>;
            constexpr bool order_dependent = [] {
                if constexpr (requires { F::counts_new_keys_only; }) return F::counts_new_keys_only;
                else return false;
            }();
            if constexpr (merging_filter<F> && !order_dependent && requires { F(f.geometry(), filter_options{}); }) {
                F twin(f.geometry(), {.seed = f.hash_function().seed(),
                                      .hash = f.hash_function().algorithm(),
                                      .keys = f.recorded_key_format(),
                                      .funnel = f.hash_function().funnel()});
                return any_filter(std::move(twin));
            } else {
                return std::nullopt;
            }
        },
        filter);
}

/// The held filter's current_fpr() (a scalable filter's compound, a binary fuse filter's fixed).
[[nodiscard]] inline double current_fpr(const any_filter& filter) {
    return std::visit([](const auto& f) { return f.current_fpr(); }, filter);
}
/// The held filter's inserted_count().
[[nodiscard]] inline std::uint64_t inserted_count(const any_filter& filter) noexcept {
    return std::visit([](const auto& f) -> std::uint64_t { return f.inserted_count(); }, filter);
}
/// The held filter's sized_for() (0, 0 when built from a geometry or its keys).
[[nodiscard]] inline const sizing_target& sized_for(const any_filter& filter) noexcept {
    return std::visit([](const auto& f) -> const sizing_target& { return f.sized_for(); }, filter);
}
/// The held filter's size_in_bytes().
[[nodiscard]] inline std::uint64_t size_in_bytes(const any_filter& filter) noexcept {
    return std::visit([](const auto& f) -> std::uint64_t { return f.size_in_bytes(); }, filter);
}

/// The held filter's recorded_key_format().
inline key_format recorded_key_format(const any_filter& filter) noexcept {
    return std::visit([](const auto& f) { return f.recorded_key_format(); }, filter);
}

/// Inserted keys, or bits set by uncounted ones (Guava's): what key_format_to_write asks.
[[nodiscard]] inline bool holds_keys(const any_filter& filter) {
    return std::visit(
        [](const auto& f) {
            if (f.inserted_count() > 0) return true;
            if constexpr (requires { f.set_bit_count(); }) return f.set_bit_count() > 0;
            else return false;
        },
        filter);
}

/// The held filter's record_key_format().
inline void record_key_format(any_filter& filter, key_format keys) noexcept {
    std::visit([&](auto& f) { f.record_key_format(keys); }, filter);
}

/// Makes a filter that forgets (forgetting_filter) go by `clock` (a replay of old logs: a fixed
/// time); the other kinds keep no time.
inline void set_clock(any_filter& filter, const filter_clock& clock) {
    std::visit(
        [&](auto& f) {
            if constexpr (forgetting_filter<std::decay_t<decltype(f)>>) f.set_clock(clock);
        },
        filter);
}

/// header_of(), to_bytes() and save() of whichever filter `filter` holds.
inline file_header header_of(const any_filter& filter) {
    return std::visit([](const auto& f) { return header_of(f); }, filter);
}
/// The held filter's bkf bytes.
inline std::vector<std::byte> to_bytes(const any_filter& filter) {
    return std::visit([](const auto& f) { return to_bytes(f); }, filter);
}
/// The held filter to `out`, in bkf.
inline void save(const any_filter& filter, std::ostream& out) {
    std::visit([&](const auto& f) { save(f, out); }, filter);
}

}  // namespace bloomkit
