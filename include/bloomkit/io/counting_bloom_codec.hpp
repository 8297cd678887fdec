// bloomkit/io/counting_bloom_codec.hpp — the bkf codec of the counting Bloom filter (kind 2,
// docs/FORMAT.md).
//
// Header: [14] 1 (blocks of 128 4-bit counters), [24] counters, [32] hashes, [36] counters per
// block (128), [64] nonzero counters, [96] counter bits (4). Payload: 16 counters per 64-bit
// word, counter i of a word at its bits 4i..4i+3.
#pragma once

#include <cstdint>
#include <string>

#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/io/codec.hpp"

namespace bloomkit {

namespace detail {

inline constexpr std::uint32_t counting_variant = 1, counter_bits = 4;

/// Checks the counting parameters of a header; returns the payload size they need.
inline std::uint64_t read_counting_parameters(const header_bytes& b, file_header& h, const std::string& where) {
    namespace f = header_field;
    if (b.get<std::uint8_t>(f::variant) != counting_variant ||
        b.get<std::uint32_t>(f::parameter32b) != counting_block_counters ||
        b.get<std::uint32_t>(f::extra) != counter_bits)
        reject_field(where, "unknown counting Bloom filter layout (this bloomkit reads blocks of 128 4-bit counters)");
    h.counting = {b.get<std::uint64_t>(f::parameter64), b.get<std::uint32_t>(f::parameter32a)};
    check_field(where, [&] { counting_block_layout{h.counting}; });
    h.set_bits = b.get<std::uint64_t>(f::parameter_aux);
    if (h.set_bits > h.counting.counters)
        reject_field(
            where, std::to_string(h.set_bits) + " nonzero counters out of only " + std::to_string(h.counting.counters));
    check_reserved(b, f::extra + 4, where);
    return h.counting.counters / 2;  // 4 bits each
}

}  // namespace detail

template <>
/// The bkf codec of the counting Bloom filter (file_codec, io/codec.hpp): kind code
/// counting_bloom.
struct file_codec<counting_bloom_filter> {
    /// The kind code in the header.
    static constexpr filter_kind kind = filter_kind::counting_bloom;

    /// Whether `h` describes a counting Bloom filter.
    static bool holds(const file_header& h) noexcept { return h.kind == kind; }
    /// Checks the counting parameters of the header bytes `b` of the file `where`, fills them into
    /// `h`, and returns the payload size they need; throws file_format_error for a bad field.
    static std::uint64_t read_parameters(const detail::header_bytes& b, file_header& h, const std::string& where) {
        return detail::read_counting_parameters(b, h, where);
    }
    /// Keys held, estimated from the nonzero counters the header records.
    static double approximate_count(const file_header& h) { return estimate_counting_keys(h.counting, h.set_bits); }
    /// The FPR now, from the nonzero counters the header records.
    static double current_fpr(const file_header& h) { return current_counting_fpr(h.counting, h.set_bits); }

    /// Fills the header fields of `filter`: hashing, sizing, geometry, counts, payload size.
    static void describe(const counting_bloom_filter& filter, file_header& h) {
        detail::describe_common(filter, h);
        h.counting = filter.geometry();
        h.inserted_count = filter.inserted_count();
        h.set_bits = filter.nonzero_counter_count();
        h.payload_size = filter.size_in_bytes();
    }
    /// Writes the counting parameters of `h` into the header bytes.
    static void write_parameters(const file_header& h, detail::header_bytes& b) {
        namespace f = detail::header_field;
        b.set<std::uint8_t>(f::variant, detail::counting_variant);
        b.set<std::uint64_t>(f::parameter64, h.counting.counters);
        b.set<std::uint32_t>(f::parameter32a, h.counting.hashes);
        b.set<std::uint32_t>(f::parameter32b, counting_block_counters);
        b.set<std::uint64_t>(f::parameter_aux, h.set_bits);
        b.set<std::uint32_t>(f::extra, detail::counter_bits);
    }
    /// Writes the payload: the counters' words, little-endian.
    static void write_payload(const counting_bloom_filter& filter, detail::payload_sink& sink) {
        sink.words(filter.words());
    }
    /// The filter of a validated header and its payload.
    static counting_bloom_filter assemble(const file_header& h, detail::payload_source& payload) {
        auto words = payload.words<std::uint64_t>(0, h.payload_size / 8);
        return {h.counting, detail::hasher_of(h), std::move(words), detail::sizing_of(h), h.inserted_count};
    }
};

}  // namespace bloomkit
