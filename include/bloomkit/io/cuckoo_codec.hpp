// bloomkit/io/cuckoo_codec.hpp — the bkf codec of the cuckoo filter (kind 3, docs/FORMAT.md).
//
// Header: [24] buckets, [32] fingerprint bits, [36] bucket size (4), [56] fingerprints stored
// (the stash included), [64] stash bucket, [96] stash fingerprint (0: empty). Payload: the
// buckets packed back to back (4·f bits each) in 64-bit words, padded.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/io/codec.hpp"

namespace bloomkit {

/// A cuckoo filter's header parameters.
struct cuckoo_file_parameters {
    cuckoo_geometry geometry{};  ///< buckets and fingerprint bits
    cuckoo_victim stash{};       ///< the fingerprint parked when the table filled, if any
    /// Every field equal.
    friend bool operator==(const cuckoo_file_parameters&, const cuckoo_file_parameters&) = default;
};

namespace detail {

/// Checks the cuckoo parameters of a header; returns the payload size they need.
inline std::uint64_t read_cuckoo_parameters(const header_bytes& b, file_header& h, const std::string& where) {
    namespace f = header_field;
    if (b.get<std::uint8_t>(f::variant) != 0 || b.get<std::uint32_t>(f::parameter32b) != cuckoo_bucket_size)
        reject_field(where, "unknown cuckoo filter layout (this bloomkit reads buckets of 4 fingerprints)");
    const cuckoo_file_parameters p{{b.get<std::uint64_t>(f::parameter64), b.get<std::uint32_t>(f::parameter32a)},
                                   {b.get<std::uint32_t>(f::extra), b.get<std::uint64_t>(f::parameter_aux)}};
    check_field(where, [&] { check_cuckoo_geometry(p.geometry); });
    const std::uint64_t max_fingerprint = (std::uint64_t{1} << p.geometry.fingerprint_bits) - 1;
    if (p.stash.fingerprint > max_fingerprint || p.stash.bucket >= p.geometry.buckets)
        reject_field(where, "the stash (fingerprint " + std::to_string(p.stash.fingerprint) + ", bucket " +
                                std::to_string(p.stash.bucket) + ") does not fit the table");
    if (h.inserted_count > 4 * p.geometry.buckets + 1)
        reject_field(where, std::to_string(h.inserted_count) + " fingerprints stored in only " +
                                std::to_string(4 * p.geometry.buckets + 1) + " places");
    check_reserved(b, f::extra + 4, where);
    h.parameters = p;
    return cuckoo_word_count(p.geometry) * 8;
}

}  // namespace detail

template <>
/// The bkf codec of the cuckoo filter (file_codec, io/codec.hpp): kind code 3.
struct file_codec<cuckoo_filter> {
    /// The kind's header parameters.
    using parameters = cuckoo_file_parameters;
    /// The kind code in the header.
    static constexpr filter_kind kind{3};

    /// Whether `h` describes a cuckoo filter.
    static bool holds(const file_header& h) noexcept { return h.kind == kind; }
    /// Checks the cuckoo parameters of the header bytes `b` of the file `where`, fills them into
    /// `h`, and returns the payload size they need; throws file_format_error for a bad field.
    static std::uint64_t read_parameters(const detail::header_bytes& b, file_header& h, const std::string& where) {
        return detail::read_cuckoo_parameters(b, h, where);
    }
    /// Keys held: the fingerprints stored, exact.
    static double approximate_count(const file_header& h) { return static_cast<double>(h.inserted_count); }
    /// cuckoo_fpr() at the load the stored count gives.
    static double current_fpr(const file_header& h) {
        const cuckoo_geometry& g = kind_parameters<cuckoo_filter>(h).geometry;
        if (g.buckets == 0) return 0.0;
        return cuckoo_fpr(g.fingerprint_bits, load(h));
    }
    /// Its fingerprints, buckets, load and stash.
    static std::vector<filter_fact> facts(const cuckoo_filter&, const file_header& h) {
        const parameters& p = kind_parameters<cuckoo_filter>(h);
        return {{"kind",
                 "cuckoo filter (deletes), " + std::to_string(p.geometry.fingerprint_bits) +
                     "-bit fingerprints, buckets of " + std::to_string(cuckoo_bucket_size),
                 "fingerprint_bits",
                 std::uint64_t{p.geometry.fingerprint_bits},
                 {},
                 {}},
                {"size",
                 std::to_string(p.geometry.buckets) + " buckets, " + show_percent(load(h), 1, true) + " full" +
                     (p.stash.occupied() ? ", one fingerprint in the stash (full)" : ""),
                 "buckets",
                 p.geometry.buckets,
                 {},
                 {}},
                {"", "", "stash_occupied", p.stash.occupied(), {}, {}}};
    }

    /// Fills the header fields of `filter`: hashing, sizing, geometry, stash, count, payload size.
    static void describe(const cuckoo_filter& filter, file_header& h) {
        detail::describe_common(filter, h);
        h.parameters = parameters{filter.geometry(), filter.stash()};
        h.inserted_count = filter.size();
        h.payload_size = filter.size_in_bytes();
    }
    /// Writes the cuckoo parameters of `h`, the stash included, into the header bytes.
    static void write_parameters(const file_header& h, detail::header_bytes& b) {
        namespace f = detail::header_field;
        const parameters& p = kind_parameters<cuckoo_filter>(h);
        b.set<std::uint64_t>(f::parameter64, p.geometry.buckets);
        b.set<std::uint32_t>(f::parameter32a, p.geometry.fingerprint_bits);
        b.set<std::uint32_t>(f::parameter32b, cuckoo_bucket_size);
        b.set<std::uint64_t>(f::parameter_aux, p.stash.bucket);
        b.set<std::uint32_t>(f::extra, p.stash.fingerprint);
    }
    /// Writes the payload: the packed buckets' words, little-endian.
    static void write_payload(const cuckoo_filter& filter, detail::payload_sink& sink) { sink.words(filter.words()); }
    /// The filter of a validated header and its payload.
    static cuckoo_filter assemble(const file_header& h, detail::payload_source& payload) {
        auto words = payload.words<std::uint64_t>(0, h.payload_size / 8);
        const parameters& p = kind_parameters<cuckoo_filter>(h);
        return {p.geometry, detail::hasher_of(h), std::move(words), p.stash, h.inserted_count, detail::sizing_of(h)};
    }

private:
    // The fraction of the slots holding a fingerprint.
    static double load(const file_header& h) {
        const cuckoo_geometry& g = kind_parameters<cuckoo_filter>(h).geometry;
        return static_cast<double>(h.inserted_count) /
               (static_cast<double>(cuckoo_bucket_size) * static_cast<double>(g.buckets));
    }
};

}  // namespace bloomkit
