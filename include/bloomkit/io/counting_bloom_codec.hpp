// bloomkit/io/counting_bloom_codec.hpp — the bkf codec of the counting Bloom filter (kind 2,
// docs/FORMAT.md).
//
// Header: [14] 1 (blocks of 128 4-bit counters), [24] counters, [32] hashes, [36] counters per
// block (128), [64] nonzero counters, [96] counter bits (4). Payload: 16 counters per 64-bit
// word, counter i of a word at its bits 4i..4i+3.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/io/codec.hpp"

namespace bloomkit {

/// A counting Bloom filter's header parameters.
struct counting_file_parameters {
    counting_geometry geometry{};        ///< counters and probes per key
    std::uint64_t nonzero_counters = 0;  ///< so that a reader of the header alone knows the fill
    /// Every field equal.
    friend bool operator==(const counting_file_parameters&, const counting_file_parameters&) = default;
};

namespace detail {

inline constexpr std::uint32_t counting_variant = 1, counter_bits = 4;

/// Checks the counting parameters of a header; returns the payload size they need.
inline std::uint64_t read_counting_parameters(const header_bytes& b, file_header& h, const std::string& where) {
    namespace f = header_field;
    if (b.get<std::uint8_t>(f::variant) != counting_variant ||
        b.get<std::uint32_t>(f::parameter32b) != counting_block_counters ||
        b.get<std::uint32_t>(f::extra) != counter_bits)
        reject_field(where, "unknown counting Bloom filter layout (this bloomkit reads blocks of 128 4-bit counters)");
    const counting_file_parameters p{{b.get<std::uint64_t>(f::parameter64), b.get<std::uint32_t>(f::parameter32a)},
                                     b.get<std::uint64_t>(f::parameter_aux)};
    check_field(where, [&] { counting_block_layout{p.geometry}; });
    if (p.nonzero_counters > p.geometry.counters)
        reject_field(where, std::to_string(p.nonzero_counters) + " nonzero counters out of only " +
                                std::to_string(p.geometry.counters));
    check_reserved(b, f::extra + 4, where);
    h.parameters = p;
    return p.geometry.counters / 2;  // 4 bits each
}

}  // namespace detail

template <>
/// The bkf codec of the counting Bloom filter (file_codec, io/codec.hpp): kind code 2.
struct file_codec<counting_bloom_filter> {
    /// The kind's header parameters.
    using parameters = counting_file_parameters;
    /// The kind code in the header.
    static constexpr filter_kind kind{2};
    /// approximate_count() estimates from the nonzero counters.
    static constexpr bool estimates_count = true;

    /// Whether `h` describes a counting Bloom filter.
    static bool holds(const file_header& h) noexcept { return h.kind == kind; }
    /// Checks the counting parameters of the header bytes `b` of the file `where`, fills them into
    /// `h`, and returns the payload size they need; throws file_format_error for a bad field.
    static std::uint64_t read_parameters(const detail::header_bytes& b, file_header& h, const std::string& where) {
        return detail::read_counting_parameters(b, h, where);
    }
    /// Keys held, estimated from the nonzero counters the header records.
    static double approximate_count(const file_header& h) {
        const parameters& p = kind_parameters<counting_bloom_filter>(h);
        return estimate_counting_keys(p.geometry, p.nonzero_counters);
    }
    /// The FPR now, from the nonzero counters the header records.
    static double current_fpr(const file_header& h) {
        const parameters& p = kind_parameters<counting_bloom_filter>(h);
        return current_counting_fpr(p.geometry, p.nonzero_counters);
    }
    /// Its counters, probes and fill.
    static std::vector<filter_fact> facts(const counting_bloom_filter&, const file_header& h) {
        const parameters& p = kind_parameters<counting_bloom_filter>(h);
        return {
            {"kind", "counting Bloom filter (deletes), blocks of 128 4-bit counters", "", {}, {}, {}},
            {"size",
             std::to_string(p.geometry.counters) + " counters, " + std::to_string(p.geometry.hashes) +
                 " probes per key",
             "counters",
             p.geometry.counters,
             {},
             {}},
            {"", "", "hashes", std::uint64_t{p.geometry.hashes}, {}, {}},
            {"fill",
             show_percent(static_cast<double>(p.nonzero_counters) / static_cast<double>(p.geometry.counters), 2, true) +
                 " of counters nonzero",
             "nonzero_counters",
             p.nonzero_counters,
             {},
             {}}};
    }

    /// Fills the header fields of `filter`: hashing, sizing, geometry, counts, payload size.
    static void describe(const counting_bloom_filter& filter, file_header& h) {
        detail::describe_common(filter, h);
        h.parameters = parameters{filter.geometry(), filter.nonzero_counter_count()};
        h.inserted_count = filter.inserted_count();
        h.payload_size = filter.size_in_bytes();
    }
    /// Writes the counting parameters of `h` into the header bytes.
    static void write_parameters(const file_header& h, detail::header_bytes& b) {
        namespace f = detail::header_field;
        const parameters& p = kind_parameters<counting_bloom_filter>(h);
        b.set<std::uint8_t>(f::variant, detail::counting_variant);
        b.set<std::uint64_t>(f::parameter64, p.geometry.counters);
        b.set<std::uint32_t>(f::parameter32a, p.geometry.hashes);
        b.set<std::uint32_t>(f::parameter32b, counting_block_counters);
        b.set<std::uint64_t>(f::parameter_aux, p.nonzero_counters);
        b.set<std::uint32_t>(f::extra, detail::counter_bits);
    }
    /// Writes the payload: the counters' words, little-endian.
    static void write_payload(const counting_bloom_filter& filter, detail::payload_sink& sink) {
        sink.words(filter.words());
    }
    /// The filter of a validated header and its payload.
    static counting_bloom_filter assemble(const file_header& h, detail::payload_source& payload) {
        auto words = payload.words<std::uint64_t>(0, h.payload_size / 8);
        return {kind_parameters<counting_bloom_filter>(h).geometry, detail::hasher_of(h), std::move(words),
                detail::sizing_of(h), h.inserted_count};
    }
};

}  // namespace bloomkit
