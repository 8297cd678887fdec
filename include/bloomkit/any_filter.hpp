// bloomkit/any_filter.hpp — a filter whose kind is known only at run time: any_filter, the
// variant over every type of the registry (kinds.hpp), opened from any file, buffer or stream
// (io/any_codec.hpp), and what every filter offers asked of whichever it holds.
//
//     bloomkit::any_filter f = bloomkit::load<bloomkit::any_filter>("seen.bkf");
//     std::visit([](const auto& filter) { ... }, f);
//
// Batches of keys over any kind, visiting the variant once per batch: bulk.hpp. Code chosen by
// the kind a file's header describes, before (or instead of) opening the filter: visit_kind
// (io/bkf.hpp).
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

/// How whichever filter `filter` holds hashes its keys: a key hashed by it once can be given as
/// its digest to every call (bulk.hpp) of this filter and of any that hashes alike.
[[nodiscard]] inline const hasher& hash_function(const any_filter& filter) noexcept {
    return std::visit([](const auto& f) -> const hasher& { return f.hash_function(); }, filter);
}

/// An empty filter of the same type and parameters as the one `filter` holds — geometry, hash,
/// seed, what it was sized for, key format — which its union takes in exactly: for the kinds
/// made of a geometry alone (Bloom, counting Bloom), so that threads can fill copies privately
/// and unite them. Empty for the others, and for a DCSO filter, whose count of keys depends on
/// the order of the inserts.
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

/// What every kind answers, asked of whichever filter `filter` holds: its false-positive rate
/// now (from its fill; a scalable filter's compound over its stages; a binary fuse filter's
/// fixed one), the keys inserted (each kind's inserted_count()), and its bytes.
[[nodiscard]] inline double current_fpr(const any_filter& filter) {
    return std::visit([](const auto& f) { return f.current_fpr(); }, filter);
}
/// The inserted_count() of whichever filter `filter` holds.
[[nodiscard]] inline std::uint64_t inserted_count(const any_filter& filter) noexcept {
    return std::visit([](const auto& f) -> std::uint64_t { return f.inserted_count(); }, filter);
}
/// What whichever filter `filter` holds was sized for (0, 0 when built from a geometry or its
/// keys).
[[nodiscard]] inline const sizing_target& sized_for(const any_filter& filter) noexcept {
    return std::visit([](const auto& f) -> const sizing_target& { return f.sized_for(); }, filter);
}
/// The size_in_bytes() of whichever filter `filter` holds.
[[nodiscard]] inline std::uint64_t size_in_bytes(const any_filter& filter) noexcept {
    return std::visit([](const auto& f) -> std::uint64_t { return f.size_in_bytes(); }, filter);
}

/// What the keys of whichever filter `filter` holds are, as it records them.
inline key_format recorded_key_format(const any_filter& filter) noexcept {
    return std::visit([](const auto& f) { return f.recorded_key_format(); }, filter);
}

/// Whether whichever filter `filter` holds has keys: inserted ones, or bits set by keys of a
/// file that does not count them (Guava's). What decides whether a filter that records no key
/// format may take the format of its next writer (keys.hpp: key_format_to_write).
[[nodiscard]] inline bool holds_keys(const any_filter& filter) {
    return std::visit(
        [](const auto& f) {
            if (f.inserted_count() > 0) return true;
            if constexpr (requires { f.set_bit_count(); }) return f.set_bit_count() > 0;
            else return false;
        },
        filter);
}

/// Records what the keys of whichever filter `filter` holds are.
inline void record_key_format(any_filter& filter, key_format keys) noexcept {
    std::visit([&](auto& f) { f.record_key_format(keys); }, filter);
}

/// header_of(), to_bytes() and save() of whichever filter `filter` holds.
inline file_header header_of(const any_filter& filter) {
    return std::visit([](const auto& f) { return header_of(f); }, filter);
}
/// The bkf bytes of whichever filter `filter` holds: what its file would hold.
inline std::vector<std::byte> to_bytes(const any_filter& filter) {
    return std::visit([](const auto& f) { return to_bytes(f); }, filter);
}
/// Writes whichever filter `filter` holds to `out` in the bkf format.
inline void save(const any_filter& filter, std::ostream& out) {
    std::visit([&](const auto& f) { save(f, out); }, filter);
}

}  // namespace bloomkit
