// bloomkit/io/any_codec.hpp — the bkf codec of "whatever kind the header says", so that
// load<any_filter>, from_bytes<any_filter> and map<any_filter> open a filter of any kind of the
// registry (kinds.hpp); and what a header alone says of the filter it describes — its name, the
// keys it holds, its rate now — each asked of the codec of the type it describes.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>

#include "bloomkit/io/bkf.hpp"
#include "bloomkit/kinds.hpp"

namespace bloomkit {

template <>
/// The bkf codec of whatever kind the header says (file_codec, io/codec.hpp): reads any filter
/// of the registry, through the codec of the type the header describes.
struct file_codec<any_filter> {
    /// Every header describes some type of the registry.
    static bool holds(const file_header&) noexcept { return true; }
    /// The filter of a validated header and its payload, as the type the header describes.
    static any_filter assemble(const file_header& h, detail::payload_source& payload) {
        return visit_kind(
            h, [&](auto type) { return any_filter(file_codec<typename decltype(type)::type>::assemble(h, payload)); });
    }
};

/// The word of a kind code: "bloom", "counting", "cuckoo", "scalable", "fuse".
[[nodiscard]] inline std::string_view to_string(filter_kind kind) { return detail::kind_word(kind); }

/// What a header describes, as messages name it: "block Bloom filter", "4-wise 8-bit binary
/// fuse filter".
[[nodiscard]] inline std::string filter_name(const file_header& h) {
    return visit_kind(h, [](auto type) { return kind_traits<typename decltype(type)::type>::name(); });
}

/// Keys held, from the header alone: estimated from the fill for Bloom and counting filters
/// (+infinity when full), exact for cuckoo and binary fuse, inserted_count for scalable.
[[nodiscard]] inline double approximate_count(const file_header& h) {
    return visit_kind(h, [&](auto type) { return file_codec<typename decltype(type)::type>::approximate_count(h); });
}

/// The FPR the filter has now, from the header alone; NaN for a scalable filter (it depends on
/// each stage's fill: ask the filter).
[[nodiscard]] inline double current_fpr(const file_header& h) {
    return visit_kind(h, [&](auto type) { return file_codec<typename decltype(type)::type>::current_fpr(h); });
}

}  // namespace bloomkit
