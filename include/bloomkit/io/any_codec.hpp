// bloomkit/io/any_codec.hpp — the bkf codec of "whatever kind the header says", so that
// load<any_filter>, from_bytes<any_filter> and map<any_filter> open a filter of any kind of the
// registry (kinds.hpp); and what a header alone says of the filter it describes — its name, the
// keys it holds, its rate now — each asked of the codec of the type it describes.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/io/bkf.hpp"
#include "bloomkit/kinds.hpp"

namespace bloomkit {

template <class... Filter>
/// The bkf codec of whatever kind the header says, of a registry (file_codec, io/codec.hpp):
/// reads any filter of it (any_filter: of the library's), through the codec of the type the
/// header describes.
struct file_codec<std::variant<Filter...>> {
    /// Every header a read of the registry decodes describes some type of it.
    static bool holds(const file_header&) noexcept { return true; }
    /// The filter of a validated header and its payload, as the type the header describes.
    static std::variant<Filter...> assemble(const file_header& h, detail::payload_source& payload) {
        return visit_kind<std::variant<Filter...>>(h, [&](auto type) {
            return std::variant<Filter...>(file_codec<typename decltype(type)::type>::assemble(h, payload));
        });
    }
};

/// The word of a kind code ("bloom"), as kind_traits names it.
[[nodiscard]] inline std::string_view to_string(filter_kind kind) { return detail::kind_word(kind); }

/// What a header describes, as messages name it: "block Bloom filter", "4-wise 8-bit binary
/// fuse filter".
[[nodiscard]] inline std::string filter_name(const file_header& h) {
    return visit_kind(h, [](auto type) { return kind_traits<typename decltype(type)::type>::name(); });
}

/// Keys held, from the header alone: estimated from the fill for the kinds whose header keeps
/// one (+infinity when full: count_is_estimated), else as counted.
[[nodiscard]] inline double approximate_count(const file_header& h) {
    return visit_kind(h, [&](auto type) { return file_codec<typename decltype(type)::type>::approximate_count(h); });
}

/// The FPR the filter has now, from the header alone; NaN when the header cannot tell (a kind
/// whose rate depends on more than its header holds: ask the filter).
[[nodiscard]] inline double current_fpr(const file_header& h) {
    return visit_kind(h, [&](auto type) { return file_codec<typename decltype(type)::type>::current_fpr(h); });
}

/// Whether approximate_count(h) is estimated from a fill (Bloom, counting Bloom) rather than
/// counted.
[[nodiscard]] inline bool count_is_estimated(const file_header& h) {
    return visit_kind(h, [](auto type) {
        if constexpr (requires { file_codec<typename decltype(type)::type>::estimates_count; })
            return file_codec<typename decltype(type)::type>::estimates_count;
        else return false;
    });
}

/// What `filter`, whose header is `h`, says of its kind's parameters (filter_fact): its name,
/// then whatever its codec adds.
[[nodiscard]] inline std::vector<filter_fact> filter_facts(const any_filter& filter, const file_header& h) {
    return std::visit(
        [&](const auto& f) -> std::vector<filter_fact> {
            using F = std::decay_t<decltype(f)>;
            if constexpr (requires { file_codec<F>::facts(f, h); }) return file_codec<F>::facts(f, h);
            else return {{"kind", kind_traits<F>::name(), "", {}, {}, {}}};
        },
        filter);
}

}  // namespace bloomkit
