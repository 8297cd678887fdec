// bloomkit/io/binary_fuse_codec.hpp — the bkf codec of the binary fuse filters (kind 5,
// docs/FORMAT.md).
//
// Header: [14] arity, [24] array length, [32] fingerprint bits, [36] segment length, [56] keys,
// [64] construction seed, [96] segment count, [104] slot hashing (binary_fuse_hashing; 0 in
// the files of the first scheme, which left the byte reserved); expected keys and target FPR
// are 0 (the filter is built from its keys). Payload: the fingerprints, 8- or 16-bit.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bloomkit/binary_fuse_filter.hpp"
#include "bloomkit/io/codec.hpp"

namespace bloomkit {

namespace detail {

/// Where the slot hashing is: after the segment count, in the kind's extra bytes.
inline constexpr std::size_t fuse_hashing_field = header_field::extra + 8;

/// Checks the binary fuse parameters of a header; returns the payload size they need.
inline std::uint64_t read_binary_fuse_parameters(const header_bytes& b, file_header& h, const std::string& where) {
    namespace f = header_field;
    binary_fuse_parameters p;
    p.arity = b.get<std::uint8_t>(f::variant);
    p.fingerprint_bits = b.get<std::uint32_t>(f::parameter32a);
    if ((p.arity != 3 && p.arity != 4) || (p.fingerprint_bits != 8 && p.fingerprint_bits != 16))
        reject_field(where, "unknown binary fuse filter: " + std::to_string(p.arity) + "-wise with " +
                                std::to_string(p.fingerprint_bits) + "-bit fingerprints");
    p.keys = h.inserted_count;
    p.geometry = {b.get<std::uint32_t>(f::parameter32b), b.get<std::uint64_t>(f::extra),
                  b.get<std::uint64_t>(f::parameter64)};
    p.construction_seed = b.get<std::uint64_t>(f::parameter_aux);
    const auto hashing = b.get<std::uint32_t>(fuse_hashing_field);
    if (hashing > static_cast<std::uint32_t>(last_binary_fuse_hashing))
        reject_field(where,
                     "unknown binary fuse slot hashing " + std::to_string(hashing) + " (a newer bloomkit may know it)");
    p.hashing = static_cast<binary_fuse_hashing>(hashing);
    const binary_fuse_geometry& g = p.geometry;
    if (g.segment_length > binary_fuse_max_segment_length || g.segment_count > (std::uint64_t{1} << 40) ||
        g.array_length !=
            (g.segment_count == 0 && g.segment_length == 0 ? 0 : (g.segment_count + p.arity - 1) * g.segment_length))
        reject_field(where, "inconsistent binary fuse geometry (segments of " + std::to_string(g.segment_length) +
                                " slots, " + std::to_string(g.segment_count) + " segments, " +
                                std::to_string(g.array_length) + " slots)");
    check_field(where, [&] { check_binary_fuse_parameters(p); });
    if (h.expected_keys != 0 || h.target_fpr != 0)
        reject_field(where, "a binary fuse filter has no expected keys or target FPR");
    check_reserved(b, fuse_hashing_field + 4, where);
    h.parameters = p;
    return g.array_length * (p.fingerprint_bits / 8);
}

/// A slot hashing's name (JSON's value) and what it is.
inline std::pair<std::string_view, std::string_view> describe_slot_hashing(binary_fuse_hashing hashing) {
    switch (hashing) {
        case binary_fuse_hashing::remix128:
            return {"remix128", "the first scheme: both halves of the digest, an fmix64 each"};
        case binary_fuse_hashing::remix64: return {"remix64", "the digest's low half, one fmix64"};
        case binary_fuse_hashing::direct64:
            return {"direct64", "the digest's low half, as it is at the filter's seed; one fmix64 after a retry"};
    }
    return {"unknown", "unknown"};
}

}  // namespace detail

template <class Fingerprint, unsigned Arity>
/// The bkf codec of the binary fuse filters (file_codec, io/codec.hpp): kind code 5, the arity
/// and fingerprint bits in the header.
struct file_codec<basic_binary_fuse_filter<Fingerprint, Arity>> {
    /// The filter type it reads and writes.
    using filter_type = basic_binary_fuse_filter<Fingerprint, Arity>;
    /// The kind's header parameters.
    using parameters = binary_fuse_parameters;
    /// The kind code in the header.
    static constexpr filter_kind kind{5};

    /// Whether `h` describes a binary fuse filter of this arity and fingerprint width.
    static bool holds(const file_header& h) noexcept {
        const auto* p = std::any_cast<parameters>(&h.parameters);
        return h.kind == kind && p != nullptr && p->arity == Arity && p->fingerprint_bits == 8 * sizeof(Fingerprint);
    }
    /// Checks the binary fuse parameters of the header bytes `b` of the file `where`, fills them
    /// into `h`, and returns the payload size they need; throws file_format_error for a bad field.
    static std::uint64_t read_parameters(const detail::header_bytes& b, file_header& h, const std::string& where) {
        return detail::read_binary_fuse_parameters(b, h, where);
    }
    /// Keys held: those it was built from, exact.
    static double approximate_count(const file_header& h) {
        return static_cast<double>(kind_parameters<filter_type>(h).keys);
    }
    /// 2^-bits; 0 for the empty filter.
    static double current_fpr(const file_header& h) {
        const parameters& p = kind_parameters<filter_type>(h);
        return p.keys == 0 ? 0.0 : std::ldexp(1.0, -static_cast<int>(p.fingerprint_bits));
    }
    /// Its arity, fingerprints, array and slot hashing.
    static std::vector<filter_fact> facts(const filter_type&, const file_header& h) {
        const parameters& p = kind_parameters<filter_type>(h);
        const binary_fuse_geometry& g = p.geometry;
        char bits_per_key[32];
        std::snprintf(bits_per_key, sizeof bits_per_key, "%.2f",
                      p.keys == 0 ? 0.0 : static_cast<double>(h.payload_size) * 8 / static_cast<double>(p.keys));
        const auto [name, how] = detail::describe_slot_hashing(p.hashing);
        return {{"kind",
                 "binary fuse filter (static), " + std::to_string(p.arity) + "-wise, " +
                     std::to_string(p.fingerprint_bits) + "-bit fingerprints",
                 "arity",
                 std::uint64_t{p.arity},
                 {},
                 {}},
                {"", "", "fingerprint_bits", std::uint64_t{p.fingerprint_bits}, {}, {}},
                {"size",
                 std::to_string(g.array_length) + " slots in " + std::to_string(g.segment_count) + " segments of " +
                     std::to_string(g.segment_length) + "; " + bits_per_key + " bits/key",
                 "slots",
                 g.array_length,
                 {},
                 {}},
                {"slot hashing",
                 std::string(name) + " (" + std::string(how) + ")",
                 "slot_hashing",
                 std::string(name),
                 {},
                 {}}};
    }

    /// Fills the header fields of `filter`: hashing, parameters, count, payload size.
    static void describe(const filter_type& filter, file_header& h) {
        detail::describe_common(filter, h);
        h.parameters = filter.parameters();
        h.inserted_count = filter.size();
        h.payload_size = filter.size_in_bytes();
    }
    /// Writes the binary fuse parameters of `h` into the header bytes.
    static void write_parameters(const file_header& h, detail::header_bytes& b) {
        namespace f = detail::header_field;
        const parameters& p = kind_parameters<filter_type>(h);
        b.set<std::uint8_t>(f::variant, static_cast<std::uint8_t>(p.arity));
        b.set<std::uint64_t>(f::parameter64, p.geometry.array_length);
        b.set<std::uint32_t>(f::parameter32a, p.fingerprint_bits);
        b.set<std::uint32_t>(f::parameter32b, static_cast<std::uint32_t>(p.geometry.segment_length));
        b.set<std::uint64_t>(f::parameter_aux, p.construction_seed);
        b.set<std::uint64_t>(f::extra, p.geometry.segment_count);
        b.set<std::uint32_t>(detail::fuse_hashing_field, static_cast<std::uint32_t>(p.hashing));
    }
    /// Writes the payload: the fingerprints, little-endian.
    static void write_payload(const filter_type& filter, detail::payload_sink& sink) {
        sink.words(filter.fingerprints());
    }
    /// The filter of a validated header and its payload.
    static filter_type assemble(const file_header& h, detail::payload_source& payload) {
        const parameters& p = kind_parameters<filter_type>(h);
        return {p, detail::hasher_of(h), payload.words<Fingerprint>(0, p.geometry.array_length)};
    }
};

}  // namespace bloomkit
