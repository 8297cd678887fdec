// bloomkit/io/bloom_codec.hpp — the bkf codec of the Bloom filters (kind 1, docs/FORMAT.md).
//
// Header: [14] layout, [24] bits, [32] hashes, [36] block bits, [64] bits set. Payload: the
// words, 64-bit (classic, Guava's and DCSO's: ⌈m/64⌉, the last one padded with zero bits;
// block: m/64) or 32-bit (split block: m/32, so the payload is exactly a Parquet bitset). A
// Guava filter's funnel is the header's common byte 89 (io/header.hpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/detail/geometry_checks.hpp"
#include "bloomkit/io/codec.hpp"

namespace bloomkit {

/// A Bloom filter's header parameters.
struct bloom_file_parameters {
    bloom_layout layout = bloom_layout::block;  ///< where a key's bits go
    bloom_geometry geometry{};                  ///< bits and probes per key
    std::uint64_t set_bits = 0;                 ///< bits set, so that a reader of the header alone knows the fill
    /// Every field equal.
    friend bool operator==(const bloom_file_parameters&, const bloom_file_parameters&) = default;
};

namespace detail {

/// Byte offsets of the Bloom parameters in the header.
namespace bloom_field {
inline constexpr std::size_t layout = header_field::variant, bits = header_field::parameter64,
                             hashes = header_field::parameter32a, block_bits = header_field::parameter32b,
                             set_bits = header_field::parameter_aux;
}  // namespace bloom_field

/// Payload bytes of a Bloom filter: whole words (the blocked layouts' blocks are whole words
/// already; the others round up to a 64-bit word).
inline std::uint64_t bloom_payload_bytes(bloom_layout layout, bloom_geometry g) noexcept {
    return block_bits(layout) == 0 ? (g.bits / 64 + (g.bits % 64 != 0)) * 8 : g.bits / 8;
}

/// The Bloom filter of geometry `g` (and the sizing and count of `h`), from its words at
/// `offset` bytes into the payload (0 for a Bloom filter file; a scalable filter's stages lie
/// further in).
template <class Layout>
basic_bloom_filter<Layout> assemble_bloom(const file_header& h, bloom_geometry g, payload_source& payload,
                                          std::uint64_t offset = 0) {
    using filter_type = basic_bloom_filter<Layout>;
    using word = typename filter_type::word_type;
    auto words = payload.words<word>(offset, bloom_payload_bytes(Layout::id, g) / sizeof(word));
    return filter_type(g, hasher_of(h), std::move(words), sizing_of(h), h.inserted_count);
}

/// Checks the Bloom parameters of a header; returns the payload size they need.
inline std::uint64_t read_bloom_parameters(const header_bytes& b, file_header& h, const std::string& where) {
    namespace f = bloom_field;
    const bloom_layout_facts* layout = find_layout(b.get<std::uint8_t>(f::layout));
    if (layout == nullptr)
        reject_field(where, "unknown Bloom filter layout " + std::to_string(b.get<std::uint8_t>(f::layout)));
    if (layout->foreign) {  // Guava's and DCSO's layouts answer as their programs only with their hash
        const hash_algorithm own =
            layout->id == bloom_layout::dcso ? hash_algorithm::fnv1_64 : hash_algorithm::murmur3_128;
        if (h.hash != own)
            reject_field(where, "a " + std::string(layout->word) + " Bloom filter hashed with " +
                                    std::string(to_string(h.hash)) + ", not " + std::string(to_string(own)));
    }
    bloom_file_parameters p{layout->id,
                            {b.get<std::uint64_t>(f::bits), b.get<std::uint32_t>(f::hashes)},
                            b.get<std::uint64_t>(f::set_bits)};
    check_field(where, [&] { check_geometry(p.layout, p.geometry); });
    if (const auto stored = b.get<std::uint32_t>(f::block_bits); stored != layout->block_bits)
        reject_field(where, "block size " + std::to_string(stored) + " bits does not match the " +
                                std::string(layout->word) + " layout");
    if (p.set_bits > p.geometry.bits)
        reject_field(where, std::to_string(p.set_bits) + " bits set out of only " + std::to_string(p.geometry.bits));
    check_reserved(b, header_field::extra, where);
    h.parameters = p;
    return bloom_payload_bytes(p.layout, p.geometry);
}

/// The rate at which `filter` answers "maybe" for `trials` distinct keys no one inserts.
template <class Filter>
double measured_fpr(const Filter& filter, std::uint64_t trials) {
    std::uint64_t positives = 0;
    for (std::uint64_t i = 0; i < trials; ++i)
        positives += filter.contains("bloomkit: a key no one inserts #" + std::to_string(i)) ? 1 : 0;
    return static_cast<double>(positives) / static_cast<double>(trials);
}

/// What info says of a DCSO filter beyond its parameters: the rate it answers with, measured,
/// and a warning when that is far above what its fill predicts (DCSO/bloom#19: its index rule
/// is weak when the bit count has a large power of two as a factor).
template <class Filter>
filter_fact dcso_measured_rate(const Filter& filter, const bloom_file_parameters& p) {
    constexpr std::uint64_t trials = 100000;
    const double measured = measured_fpr(filter, trials), model = current_fpr(p.layout, p.geometry, p.set_bits);
    filter_fact fact{"measured FPR",
                     show_percent(measured) + " on " + std::to_string(trials) + " keys never inserted",
                     "measured_fpr",
                     measured,
                     {},
                     {}};
    // Beyond what chance explains (~4 standard deviations above twice the model).
    if (measured > 2 * model + 4 * std::sqrt(model / trials) + 1e-4)
        fact.warning = "answers \"maybe\" for " + show_percent(measured, 3) +
                       " of keys never inserted, far above the " + show_percent(model, 3) +
                       " its fill predicts: DCSO's index rule is weak when the bit count (" +
                       std::to_string(p.geometry.bits) +
                       ") has a large power of two as a factor (DCSO/bloom#19); size it for another capacity, or "
                       "rebuild it from the keys as a native filter";
    return fact;
}

}  // namespace detail

template <class Layout>
/// The bkf codec of the Bloom filters (file_codec, io/codec.hpp): kind code 1, the layout in
/// the header.
struct file_codec<basic_bloom_filter<Layout>> {
    /// The filter type it reads and writes.
    using filter_type = basic_bloom_filter<Layout>;
    /// The kind's header parameters.
    using parameters = bloom_file_parameters;
    /// The kind code in the header.
    static constexpr filter_kind kind{1};
    /// approximate_count() estimates from the bits set.
    static constexpr bool estimates_count = true;

    /// Whether `h` describes a Bloom filter of this layout.
    static bool holds(const file_header& h) noexcept {
        const auto* p = std::any_cast<parameters>(&h.parameters);
        return h.kind == kind && p != nullptr && p->layout == Layout::id;
    }
    /// Checks the Bloom parameters of the header bytes `b` of the file `where`, fills them into
    /// `h`, and returns the payload size they need; throws file_format_error for a bad field.
    static std::uint64_t read_parameters(const detail::header_bytes& b, file_header& h, const std::string& where) {
        return detail::read_bloom_parameters(b, h, where);
    }
    /// Keys held, estimated from the set bits the header records (+infinity when every bit is set).
    static double approximate_count(const file_header& h) {
        const parameters& p = kind_parameters<filter_type>(h);
        return estimate_keys(p.layout, p.geometry, p.set_bits);
    }
    /// The FPR now, from the set bits the header records.
    static double current_fpr(const file_header& h) {
        const parameters& p = kind_parameters<filter_type>(h);
        return bloomkit::current_fpr(p.layout, p.geometry, p.set_bits);
    }
    /// Whether `now` is the filter `then` with keys added in place (file_update.hpp): the same
    /// parameters, more keys, no bit fewer.
    static bool grown(const file_header& then, const file_header& now) {
        const parameters &a = kind_parameters<filter_type>(then), &b = kind_parameters<filter_type>(now);
        return a.layout == b.layout && a.geometry == b.geometry && now.inserted_count > then.inserted_count &&
               b.set_bits >= a.set_bits;
    }
    /// Its layout, size and fill, and for a DCSO filter the rate it answers with.
    static std::vector<filter_fact> facts(const filter_type& filter, const file_header& h) {
        const parameters& p = kind_parameters<filter_type>(h);
        const std::string layout(to_string(p.layout));
        std::vector<filter_fact> out{
            {"kind",
             is_foreign(p.layout) ? kind_traits<filter_type>::name() : "Bloom filter, " + layout + " layout",
             "layout",
             layout,
             {},
             {}},
            {"size",
             std::to_string(p.geometry.bits) + " bits, " + std::to_string(p.geometry.hashes) + " hash probes per key",
             "bits",
             p.geometry.bits,
             {},
             {}},
            {"", "", "hashes", std::uint64_t{p.geometry.hashes}, {}, {}},
            {"fill",
             show_percent(static_cast<double>(p.set_bits) / static_cast<double>(p.geometry.bits), 2, true) +
                 " of bits set",
             "set_bits",
             p.set_bits,
             {},
             {}}};
        if (p.layout == bloom_layout::dcso) out.push_back(detail::dcso_measured_rate(filter, p));
        return out;
    }

    /// Fills the header fields of `filter`: hashing, sizing, layout, geometry, counts, payload
    /// size.
    static void describe(const filter_type& filter, file_header& h) {
        detail::describe_common(filter, h);
        h.parameters = parameters{Layout::id, filter.geometry(), filter.set_bit_count()};
        h.inserted_count = filter.inserted_count();
        h.payload_size = filter.size_in_bytes();
    }
    /// Writes the Bloom parameters of `h` into the header bytes.
    static void write_parameters(const file_header& h, detail::header_bytes& b) {
        namespace f = detail::bloom_field;
        const parameters& p = kind_parameters<filter_type>(h);
        b.set<std::uint8_t>(f::layout, static_cast<std::uint8_t>(p.layout));
        b.set<std::uint64_t>(f::bits, p.geometry.bits);
        b.set<std::uint32_t>(f::hashes, p.geometry.hashes);
        b.set<std::uint32_t>(f::block_bits, static_cast<std::uint32_t>(block_bits(p.layout)));
        b.set<std::uint64_t>(f::set_bits, p.set_bits);
    }
    /// Writes the payload: the words, little-endian.
    static void write_payload(const filter_type& filter, detail::payload_sink& sink) { sink.words(filter.words()); }
    /// The filter of a validated header and its payload.
    static filter_type assemble(const file_header& h, detail::payload_source& payload) {
        return detail::assemble_bloom<Layout>(h, kind_parameters<filter_type>(h).geometry, payload);
    }
};

}  // namespace bloomkit
