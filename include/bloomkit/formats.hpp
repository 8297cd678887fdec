// bloomkit/formats.hpp — the file formats bloomkit reads and writes, listed once: bkf, Guava's
// BloomFilter streams and DCSO bloom files, recognised by their bytes. A conversion a format cannot
// make exactly is refused with the reason, never approximated.
//
//     bloomkit::io::filter_contents opened = bloomkit::io::read_any(bytes);        // any of them
//     std::vector<std::byte> java = bloomkit::io::write_as("guava", opened.filter); // for readFrom
//
// A format is a struct of static members (io/guava.hpp and io/dcso.hpp hold theirs):
//   word, name                               "guava", "Guava BloomFilter stream"
//   layout                                   the one Bloom layout it holds, or none (any kind)
//   records_count, records_funnel            whether it keeps the filter's count, a Guava funnel
//   keeps_attached_data                      whether it carries bytes beside the filter (DCSO's)
//   recognizes(bytes)                        whether the whole input `bytes` is one of its files
//   read(bytes, options, where)              the filter and attached data; file_format_error if not
//   refusal(filter)                          why it cannot hold `filter`, or empty when it can
//   write(filter, attached)                  the bytes
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/io/bkf.hpp"
#include "bloomkit/io/dcso.hpp"
#include "bloomkit/io/filter_contents.hpp"
#include "bloomkit/io/guava.hpp"

namespace bloomkit::io {

/// bloomkit's own format (io/bkf.hpp, docs/FORMAT.md): every kind, checksummed.
struct bkf_format {
    /// The format's word, as the command's --format takes it.
    static constexpr std::string_view word = "bkf";
    /// The format's name in messages.
    static constexpr std::string_view name = "bloomkit filter file";
    /// None: it holds every kind.
    static constexpr std::optional<bloom_layout> layout{};
    ///@{
    /// It keeps the inserted count and a Guava filter's funnel, and carries no attached data.
    static constexpr bool records_count = true, records_funnel = true, keeps_attached_data = false;
    ///@}
    /// Whether `bytes` start with the bkf signature.
    static bool recognizes(std::span<const std::byte> bytes) noexcept { return starts_with_magic(bytes); }
    /// The filter in `bytes` (from_bytes<any_filter>); `where` names them in messages.
    static filter_contents read(std::span<const std::byte> bytes, const read_options&, const std::string& where) {
        return {from_bytes<any_filter>(bytes, where), word, {}};
    }
    /// Always empty: the format holds every filter.
    static std::string refusal(const any_filter&) { return {}; }
    /// The filter's bkf bytes (to_bytes).
    static std::vector<std::byte> write(const any_filter& filter, std::span<const std::byte>) {
        return to_bytes(filter);
    }
};

/// Every format, in the order their bytes are tried.
using file_formats = std::tuple<bkf_format, guava::format, dcso::format>;

/// Calls visit(std::type_identity<Format>{}) for each format, in order.
template <class Visit>
constexpr void for_each_format(Visit&& visit) {
    std::apply([&](auto... format) { (visit(std::type_identity<decltype(format)>{}), ...); }, file_formats{});
}

/// The words of the formats, "bkf, guava, dcso": for messages and option help.
[[nodiscard]] inline std::string format_words() {
    std::string words;
    for_each_format([&](auto type) { words += (words.empty() ? "" : ", ") + std::string(decltype(type)::type::word); });
    return words;
}

/// What a format is and keeps, for code that chooses by it without naming formats.
struct format_facts {
    ///@{
    /// The format's word and its name in messages.
    std::string_view word, name;
    ///@}
    std::optional<bloom_layout> layout;  ///< the one Bloom layout it holds; none: any kind
    bool records_count = true;           ///< keeps the filter's inserted_count()
    bool records_funnel = true;          ///< keeps a Guava filter's funnel
    bool keeps_attached_data = false;    ///< carries bytes beside the filter (DCSO's set-data)
};

/// Whether `word` names a format.
[[nodiscard]] inline bool known_format(std::string_view word) {
    bool known = false;
    for_each_format([&](auto type) { known = known || decltype(type)::type::word == word; });
    return known;
}

namespace detail {

/// use(type) for the format named `word`; invalid_argument naming the choices for another.
template <class Use>
auto with_format(std::string_view word, Use use) {
    using result = decltype(use(std::type_identity<bkf_format>{}));
    std::optional<std::conditional_t<std::is_void_v<result>, bool, result>> done;
    for_each_format([&](auto type) {
        if (done || decltype(type)::type::word != word) return;
        if constexpr (std::is_void_v<result>) use(type), done = true;
        else done.emplace(use(type));
    });
    if (!done) throw invalid_argument("unknown format '" + std::string(word) + "': choose " + format_words());
    if constexpr (!std::is_void_v<result>) return std::move(*done);
}

}  // namespace detail

/// The facts of the format named `word`; throws invalid_argument naming the choices for another.
[[nodiscard]] inline format_facts facts_of_format(std::string_view word) {
    return detail::with_format(word, [](auto type) {
        using F = typename decltype(type)::type;
        return format_facts{F::word, F::name, F::layout, F::records_count, F::records_funnel, F::keeps_attached_data};
    });
}

/// The format of a whole file's `bytes`; file_format_error (bad_magic) naming those it is not.
[[nodiscard]] inline std::string_view detect_format(std::span<const std::byte> bytes,
                                                    const std::string& where = "buffer") {
    std::string_view found;
    for_each_format([&](auto type) {
        if (found.empty() && decltype(type)::type::recognizes(bytes)) found = decltype(type)::type::word;
    });
    if (found.empty()) {
        if (bytes.empty())
            bloomkit::detail::reject(format_errc::truncated, where, "empty (0 bytes): not a filter file");
        std::string names;
        for_each_format(
            [&](auto type) { names += (names.empty() ? "" : ", nor a ") + std::string(decltype(type)::type::name); });
        bloomkit::detail::reject(format_errc::bad_magic, where, "not a " + names);
    }
    return found;
}

/// In the format named `format`, or recognised; file_format_error, or invalid_argument for an
/// unknown word.
[[nodiscard]] inline filter_contents read_any(std::span<const std::byte> bytes,
                                              std::optional<std::string_view> format = std::nullopt,
                                              const read_options& options = {}, const std::string& where = "buffer") {
    return detail::with_format(format ? *format : detect_format(bytes, where),
                               [&](auto type) { return decltype(type)::type::read(bytes, options, where); });
}

/// Why a file of format `format` cannot hold `filter` exactly, or empty when it can.
[[nodiscard]] inline std::string refusal(std::string_view format, const any_filter& filter) {
    return detail::with_format(format, [&](auto type) { return decltype(type)::type::refusal(filter); });
}

/// `filter` (and DCSO's attached data) in `format`; invalid_argument with refusal()'s reason.
[[nodiscard]] inline std::vector<std::byte> write_as(std::string_view format, const any_filter& filter,
                                                     std::span<const std::byte> attached = {}) {
    if (std::string why = refusal(format, filter); !why.empty()) throw invalid_argument(why);
    return detail::with_format(format, [&](auto type) { return decltype(type)::type::write(filter, attached); });
}

}  // namespace bloomkit::io
