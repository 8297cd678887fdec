// bloomkit/io/bloom_codec.hpp — the bkf codec of the Bloom filters (kind 1, docs/FORMAT.md).
//
// Header: [14] layout, [24] bits, [32] hashes, [36] block bits, [64] bits set. Payload: the
// words, 64-bit (classic, Guava's and DCSO's: ⌈m/64⌉, the last one padded with zero bits;
// block: m/64) or 32-bit (split block: m/32, so the payload is exactly a Parquet bitset). A
// Guava filter's funnel is the header's common byte 89 (io/header.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/detail/geometry_checks.hpp"
#include "bloomkit/io/codec.hpp"

namespace bloomkit {

namespace detail {

/// Payload bytes of a Bloom filter: whole words (the blocked layouts' blocks are whole words
/// already; classic and the foreign layouts round up to a 64-bit word).
inline std::uint64_t bloom_payload_bytes(bloom_layout layout, bloom_geometry g) noexcept {
    return block_bits(layout) == 0 ? (g.bits / 64 + (g.bits % 64 != 0)) * 8 : g.bits / 8;
}

/// The Bloom filter a validated header describes, from its words at `offset` bytes into the
/// payload (0 for a Bloom filter file; a scalable filter's stages lie further in).
template <class Layout>
basic_bloom_filter<Layout> assemble_bloom(const file_header& h, payload_source& payload, std::uint64_t offset = 0) {
    using filter_type = basic_bloom_filter<Layout>;
    using word = typename filter_type::word_type;
    auto words = payload.words<word>(offset, bloom_payload_bytes(Layout::id, h.geometry) / sizeof(word));
    return filter_type(h.geometry, hasher_of(h), std::move(words), sizing_of(h), h.inserted_count);
}

/// Checks the Bloom parameters of a header; returns the payload size they need.
inline std::uint64_t read_bloom_parameters(const header_bytes& b, file_header& h, const std::string& where) {
    namespace f = header_field;
    const auto layout = b.get<std::uint8_t>(f::layout);
    if (layout < 1 || layout > static_cast<std::uint8_t>(bloom_layout::dcso))
        reject_field(where, "unknown Bloom filter layout " + std::to_string(layout));
    h.layout = static_cast<bloom_layout>(layout);
    if (is_foreign(h.layout)) {  // Guava's and DCSO's layouts answer as their programs only with their hash
        const hash_algorithm own =
            h.layout == bloom_layout::dcso ? hash_algorithm::fnv1_64 : hash_algorithm::murmur3_128;
        if (h.hash != own)
            reject_field(where, "a " + std::string(to_string(h.layout)) + " Bloom filter hashed with " +
                                    std::string(to_string(h.hash)) + ", not " + std::string(to_string(own)));
    }
    h.geometry = {b.get<std::uint64_t>(f::bits), b.get<std::uint32_t>(f::hashes)};
    check_field(where, [&] { check_geometry(h.layout, h.geometry); });
    if (const auto stored = b.get<std::uint32_t>(f::block_bits); stored != block_bits(h.layout))
        reject_field(where, "block size " + std::to_string(stored) + " bits does not match the " +
                                std::string(to_string(h.layout)) + " layout");
    h.set_bits = b.get<std::uint64_t>(f::set_bits);
    if (h.set_bits > h.geometry.bits)
        reject_field(where, std::to_string(h.set_bits) + " bits set out of only " + std::to_string(h.geometry.bits));
    check_reserved(b, f::extra, where);
    return bloom_payload_bytes(h.layout, h.geometry);
}

}  // namespace detail

template <class Layout>
/// The bkf codec of the Bloom filters (file_codec, io/codec.hpp): kind code bloom, the layout in
/// the header.
struct file_codec<basic_bloom_filter<Layout>> {
    /// The filter type it reads and writes.
    using filter_type = basic_bloom_filter<Layout>;
    /// The kind code in the header.
    static constexpr filter_kind kind = filter_kind::bloom;

    /// Whether `h` describes a Bloom filter of this layout.
    static bool holds(const file_header& h) noexcept { return h.kind == kind && h.layout == Layout::id; }
    /// Checks the Bloom parameters of the header bytes `b` of the file `where`, fills them into
    /// `h`, and returns the payload size they need; throws file_format_error for a bad field.
    static std::uint64_t read_parameters(const detail::header_bytes& b, file_header& h, const std::string& where) {
        return detail::read_bloom_parameters(b, h, where);
    }
    /// Keys held, estimated from the set bits the header records (+infinity when every bit is set).
    static double approximate_count(const file_header& h) { return estimate_keys(h.layout, h.geometry, h.set_bits); }
    /// The FPR now, from the set bits the header records.
    static double current_fpr(const file_header& h) { return bloomkit::current_fpr(h.layout, h.geometry, h.set_bits); }

    /// Fills the header fields of `filter`: hashing, sizing, layout, geometry, counts, payload
    /// size.
    static void describe(const filter_type& filter, file_header& h) {
        detail::describe_common(filter, h);
        h.layout = Layout::id;
        h.geometry = filter.geometry();
        h.inserted_count = filter.inserted_count();
        h.set_bits = filter.set_bit_count();
        h.payload_size = filter.size_in_bytes();
    }
    /// Writes the Bloom parameters of `h` into the header bytes.
    static void write_parameters(const file_header& h, detail::header_bytes& b) {
        namespace f = detail::header_field;
        b.set<std::uint8_t>(f::layout, static_cast<std::uint8_t>(h.layout));
        b.set<std::uint64_t>(f::bits, h.geometry.bits);
        b.set<std::uint32_t>(f::hashes, h.geometry.hashes);
        b.set<std::uint32_t>(f::block_bits, static_cast<std::uint32_t>(block_bits(h.layout)));
        b.set<std::uint64_t>(f::set_bits, h.set_bits);
    }
    /// Writes the payload: the words, little-endian.
    static void write_payload(const filter_type& filter, detail::payload_sink& sink) { sink.words(filter.words()); }
    /// The filter of a validated header and its payload.
    static filter_type assemble(const file_header& h, detail::payload_source& payload) {
        return detail::assemble_bloom<Layout>(h, payload);
    }
};

}  // namespace bloomkit
