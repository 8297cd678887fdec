// bloomkit/io/cuckoo_codec.hpp — the bkf codec of the cuckoo filter (kind 3, docs/FORMAT.md).
//
// Header: [24] buckets, [32] fingerprint bits, [36] bucket size (4), [56] fingerprints stored
// (the stash included), [64] stash bucket, [96] stash fingerprint (0: empty). Payload: the
// buckets packed back to back (4·f bits each) in 64-bit words, padded.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/io/codec.hpp"

namespace bloomkit {

namespace detail {

/// Checks the cuckoo parameters of a header; returns the payload size they need.
inline std::uint64_t read_cuckoo_parameters(const header_bytes& b, file_header& h, const std::string& where) {
    namespace f = header_field;
    if (b.get<std::uint8_t>(f::variant) != 0 || b.get<std::uint32_t>(f::parameter32b) != cuckoo_bucket_size)
        reject_field(where, "unknown cuckoo filter layout (this bloomkit reads buckets of 4 fingerprints)");
    h.cuckoo = {b.get<std::uint64_t>(f::parameter64), b.get<std::uint32_t>(f::parameter32a)};
    check_field(where, [&] { check_cuckoo_geometry(h.cuckoo); });
    h.stash = {b.get<std::uint32_t>(f::extra), b.get<std::uint64_t>(f::parameter_aux)};
    const std::uint64_t max_fingerprint = (std::uint64_t{1} << h.cuckoo.fingerprint_bits) - 1;
    if (h.stash.fingerprint > max_fingerprint || h.stash.bucket >= h.cuckoo.buckets)
        reject_field(where, "the stash (fingerprint " + std::to_string(h.stash.fingerprint) + ", bucket " +
                                std::to_string(h.stash.bucket) + ") does not fit the table");
    if (h.inserted_count > 4 * h.cuckoo.buckets + 1)
        reject_field(where, std::to_string(h.inserted_count) + " fingerprints stored in only " +
                                std::to_string(4 * h.cuckoo.buckets + 1) + " places");
    check_reserved(b, f::extra + 4, where);
    return cuckoo_word_count(h.cuckoo) * 8;
}

}  // namespace detail

template <>
/// The bkf codec of the cuckoo filter (file_codec, io/codec.hpp): kind code cuckoo.
struct file_codec<cuckoo_filter> {
    /// The kind code in the header.
    static constexpr filter_kind kind = filter_kind::cuckoo;

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
        if (h.cuckoo.buckets == 0) return 0.0;
        return cuckoo_fpr(h.cuckoo.fingerprint_bits,
                          static_cast<double>(h.inserted_count) /
                              (static_cast<double>(cuckoo_bucket_size) * static_cast<double>(h.cuckoo.buckets)));
    }

    /// Fills the header fields of `filter`: hashing, sizing, geometry, stash, count, payload size.
    static void describe(const cuckoo_filter& filter, file_header& h) {
        detail::describe_common(filter, h);
        h.cuckoo = filter.geometry();
        h.stash = filter.stash();
        h.inserted_count = filter.size();
        h.payload_size = filter.size_in_bytes();
    }
    /// Writes the cuckoo parameters of `h`, the stash included, into the header bytes.
    static void write_parameters(const file_header& h, detail::header_bytes& b) {
        namespace f = detail::header_field;
        b.set<std::uint64_t>(f::parameter64, h.cuckoo.buckets);
        b.set<std::uint32_t>(f::parameter32a, h.cuckoo.fingerprint_bits);
        b.set<std::uint32_t>(f::parameter32b, cuckoo_bucket_size);
        b.set<std::uint64_t>(f::parameter_aux, h.stash.bucket);
        b.set<std::uint32_t>(f::extra, h.stash.fingerprint);
    }
    /// Writes the payload: the packed buckets' words, little-endian.
    static void write_payload(const cuckoo_filter& filter, detail::payload_sink& sink) { sink.words(filter.words()); }
    /// The filter of a validated header and its payload.
    static cuckoo_filter assemble(const file_header& h, detail::payload_source& payload) {
        auto words = payload.words<std::uint64_t>(0, h.payload_size / 8);
        return {h.cuckoo, detail::hasher_of(h), std::move(words), h.stash, h.inserted_count, detail::sizing_of(h)};
    }
};

}  // namespace bloomkit
