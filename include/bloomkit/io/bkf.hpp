// bloomkit/io/bkf.hpp — the bkf format (docs/FORMAT.md) over bytes and streams: a filter to a
// byte buffer or a std::ostream and back, with the same validation as files (file.hpp adds
// paths, atomic replacement and memory maps on top of the same pieces).
//
//     std::vector<std::byte> bytes = bloomkit::to_bytes(filter);       // Redis, pickling, sockets
//     auto copy = bloomkit::from_bytes<bloomkit::bloom_filter>(bytes);
//     bloomkit::save(filter, std::cout);                                // a pipe
//     auto again = bloomkit::load<bloomkit::any_filter>(std::cin);      // whatever kind it is
//
// Reading never trusts its input: every header field is checked before it is used, the
// payload checksum before the filter is assembled, and each failure throws a
// file_format_error whose reason() names the check. A byte buffer, like a file, must end where
// the payload does; a stream is read exactly up to the end of the filter, so several filters
// (or a filter and other data) can follow one another in one stream.
//
// Writing makes one pass over the filter's words, in order (io/payload.hpp): the header, the
// payload, checksummed by chunks as it is written, then the chunk table (io/chunks.hpp). So a
// filter streams to a pipe as it does to a file. Version 1 files (a whole-payload checksum in
// the header) are still read.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <istream>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/io/chunks.hpp"
#include "bloomkit/io/codec.hpp"
#include "bloomkit/io/header.hpp"
#include "bloomkit/io/payload.hpp"
#include "bloomkit/io/streams.hpp"
#include "bloomkit/kinds.hpp"

namespace bloomkit {

/// What load() and from_bytes() can produce: a filter type of its own codec, or a type whose
/// codec assembles whichever filter a header describes (any_filter, any_filter.hpp).
template <class Target>
concept loadable_filter = requires(const file_header& h, detail::payload_source& payload) {
    { file_codec<Target>::holds(h) } -> std::convertible_to<bool>;
    { file_codec<Target>::assemble(h, payload) } -> std::same_as<Target>;
};

/// Calls make(std::type_identity<F>{}) for the filter type F of the registry that a file's header
/// describes, and returns what make returns: code chosen by the kind of a file of which only the
/// header has been read (to update a Bloom filter file in place, say, and rewrite the others).
template <filter_registry Registry = any_filter, class Make>
auto visit_kind(const file_header& h, Make make) {
    using result = decltype(make(std::type_identity<std::variant_alternative_t<0, Registry>>{}));
    std::optional<result> made;
    for_each_filter_type<Registry>([&](auto type) {
        if (!made && file_codec<typename decltype(type)::type>::holds(h)) made.emplace(make(type));
    });
    if (!made) throw error("no filter type for this header");  // decode_header admits only known kinds
    return std::move(*made);
}

namespace detail {

/// Calls visit(std::type_identity<F>{}) for the first type F of the registry whose kind code
/// is `kind` (the one that reads that code's parameters: every type of a kind reads them
/// alike), and returns what it returns; std::nullopt for a code no kind has.
template <filter_registry Registry = any_filter, class Visit>
auto for_kind_code(filter_kind kind, Visit visit) {
    using result = decltype(visit(std::type_identity<std::variant_alternative_t<0, Registry>>{}));
    std::optional<result> done;
    for_each_filter_type<Registry>([&](auto type) {
        if (!done && file_codec<typename decltype(type)::type>::kind == kind) done.emplace(visit(type));
    });
    return done;
}

/// The word of a kind code ("bloom"), for messages.
template <filter_registry Registry = any_filter>
std::string_view kind_word(filter_kind kind) {
    return for_kind_code<Registry>(kind, [](auto type) { return kind_traits<typename decltype(type)::type>::word; })
        .value_or("unknown");
}

/// How messages name what a Target is: its type's name, or any filter at all.
template <class Target>
std::string type_name() {
    if constexpr (requires { kind_traits<Target>::name(); }) return kind_traits<Target>::name();
    else return "bloomkit filter";
}

/// Decodes and validates a whole header. `seen` holds the input's first min(size, 128) bytes;
/// `size` is the whole input's size when known (a file's, a buffer's), and then it must end
/// exactly where the payload does; a stream's is not known.
template <filter_registry Registry = any_filter>
file_header decode_header(std::span<const std::byte> seen, std::optional<std::uint64_t> size,
                          const std::string& where) {
    namespace f = header_field;
    const header_bytes b = check_common_header(seen, size, where);
    file_header h;
    h.version = b.get<std::uint16_t>(f::version);
    h.kind = static_cast<filter_kind>(b.get<std::uint16_t>(f::kind));
    h.hash = static_cast<hash_algorithm>(b.get<std::uint8_t>(f::hash));
    h.seed = b.get<std::uint64_t>(f::seed);
    h.expected_keys = b.get<std::uint64_t>(f::expected_keys);
    h.target_fpr = b.get<double>(f::target_fpr);
    h.inserted_count = b.get<std::uint64_t>(f::inserted_count);
    h.payload_size = b.get<std::uint64_t>(f::payload_size);
    if (h.version == 1) h.payload_checksum = b.get<std::uint64_t>(f::payload_checksum);
    if (h.version >= 3) {
        h.keys = static_cast<key_format>(b.get<std::uint8_t>(f::key_format));
        h.funnel = static_cast<guava_funnel>(b.get<std::uint8_t>(f::funnel));
    }
    if (h.version >= 2) {
        h.flags = b.get<std::uint32_t>(f::flags);
        h.chunk_shift = b.get<std::uint32_t>(f::chunk_shift);
    }
    // Each kind code's parameters are checked by its codec.
    const std::optional<std::uint64_t> expected_payload = for_kind_code<Registry>(
        h.kind, [&](auto type) { return file_codec<typename decltype(type)::type>::read_parameters(b, h, where); });
    if (!expected_payload) reject_field(where, "unknown filter kind " + std::to_string(static_cast<unsigned>(h.kind)));
    if (h.payload_size != *expected_payload)
        reject_field(where, "payload size " + std::to_string(h.payload_size) + " bytes, but the " +
                                std::string(kind_word<Registry>(h.kind)) + " filter's parameters need " +
                                std::to_string(*expected_payload));
    if (size) check_file_size(h, *size, where);
    return h;
}

/// The header's bytes for a filter's description, in the current version.
template <storable_filter Filter>
header_bytes encode_header(const file_header& h) {
    namespace f = header_field;
    header_bytes b;
    b.set<std::uint16_t>(f::kind, static_cast<std::uint16_t>(file_codec<Filter>::kind));
    b.set<std::uint8_t>(f::hash, static_cast<std::uint8_t>(h.hash));
    b.set<std::uint64_t>(f::seed, h.seed);
    b.set<std::uint64_t>(f::expected_keys, h.expected_keys);
    b.set<double>(f::target_fpr, h.target_fpr);
    b.set<std::uint64_t>(f::inserted_count, h.inserted_count);
    b.set<std::uint64_t>(f::payload_size, h.payload_size);
    b.set<std::uint8_t>(f::key_format, static_cast<std::uint8_t>(h.keys));
    b.set<std::uint8_t>(f::funnel, static_cast<std::uint8_t>(h.funnel));
    b.set<std::uint32_t>(f::flags, h.flags);
    b.set<std::uint32_t>(f::chunk_shift, h.chunk_shift);
    file_codec<Filter>::write_parameters(h, b);
    seal(b);
    return b;
}

/// Writes `filter` in the bkf format through `write`, in one pass and in order: the header, the
/// payload, the chunk table (checksums of exactly the bytes written).
template <storable_filter Filter>
void write_bkf(const Filter& filter, const payload_sink::writer& write) {
    file_header h;
    file_codec<Filter>::describe(filter, h);
    const header_bytes header = encode_header<Filter>(h);
    write(header.bytes);
    payload_sink sink(write, h.chunk_shift);
    file_codec<Filter>::write_payload(filter, sink);
    if (sink.size() != h.payload_size)
        throw error("internal error: a codec wrote a payload of another size than it announced");
    write(sink.chunk_table());
}

/// Throws wrong_kind unless the header describes a Target.
template <loadable_filter Target>
void require_holds(const file_header& h, const std::string& where) {
    if (!file_codec<Target>::holds(h))
        reject(format_errc::wrong_kind, where,
               "holds a " +
                   visit_kind<registry_for<Target>>(
                       h, [](auto type) { return kind_traits<typename decltype(type)::type>::name(); }) +
                   ", not a " + type_name<Target>());
}

/// Checks the payload against what vouches for it: the chunk table that follows it (version
/// 2), or the header's payload checksum (version 1). `trailer` is what follows the payload.
inline void verify_payload(const file_header& h, std::span<const std::byte> payload, std::span<const std::byte> trailer,
                           const std::string& where) {
    if (h.version >= 2) {
        verify_chunks(h, payload, trailer, where);
    } else if (checksum(payload.data(), payload.size()) != h.payload_checksum) {
        reject(format_errc::payload_checksum, where, "payload checksum mismatch: the filter's contents are corrupt");
    }
}

/// The Target `h` describes, from its payload; whatever the assembly rejects (a stage table
/// out of bounds, an inconsistent fuse array...) is reported as an invalid field of `where`.
template <loadable_filter Target>
Target assemble(const file_header& h, payload_source& payload, const std::string& where) {
    try {
        Target filter = file_codec<Target>::assemble(h, payload);
        if constexpr (requires { filter.record_key_format(h.keys); }) filter.record_key_format(h.keys);
        else std::visit([&](auto& f) { f.record_key_format(h.keys); }, filter);  // any_filter
        return filter;
    } catch (const file_format_error& e) {
        reject(e.reason(), where, e.what());
    } catch (const invalid_argument& e) {
        reject_field(where, e.what());
    }
}

/// The rest of a read: `payload` holds the payload of the filter `h` describes, and `trailer`
/// what follows it.
template <loadable_filter Target>
Target finish_read(const file_header& h, zeroed_block payload, std::span<const std::byte> trailer,
                   const std::string& where) {
    verify_payload(h,
                   std::span(static_cast<const std::byte*>(payload.data()), static_cast<std::size_t>(h.payload_size)),
                   trailer, where);
    payload_source source(std::move(payload), h.payload_size);
    return assemble<Target>(h, source, where);
}

/// How many bytes follow the payload of the filter `h` describes.
inline std::size_t trailer_size(const file_header& h) {
    return static_cast<std::size_t>(trailer_bytes(h.version, h.payload_size, h.chunk_shift));
}

}  // namespace detail

/// The header save() would write for `filter`, as read_header() returns it.
template <storable_filter Filter>
file_header header_of(const Filter& filter) {
    file_header h;
    file_codec<Filter>::describe(filter, h);
    return h;
}

// --- Byte buffers ---------------------------------------------------------------------------

/// The filter in the bkf format, as bytes: exactly what save() writes to a file.
template <storable_filter Filter>
std::vector<std::byte> to_bytes(const Filter& filter) {
    std::vector<std::byte> bytes;
    const file_header h = header_of(filter);  // one allocation: a growing vector would copy it all
    bytes.reserve(static_cast<std::size_t>(file_header_size + h.payload_size) + detail::trailer_size(h));
    detail::write_bkf(filter,
                      [&](std::span<const std::byte> piece) { bytes.insert(bytes.end(), piece.begin(), piece.end()); });
    return bytes;
}

/// The header of a bkf buffer, validated (the payload is neither read nor verified): of a type
/// of Registry's.
template <filter_registry Registry = any_filter>
file_header read_header(std::span<const std::byte> bytes, const std::string& name = "buffer") {
    return detail::decode_header<Registry>(bytes.first(std::min<std::size_t>(bytes.size(), file_header_size)),
                                           bytes.size(), name);
}

/// The header at the start of a bkf input whose end is not known yet (chunks still arriving, a
/// stream): `first` holds its first bytes, at least file_header_size of them for a valid header.
/// Validated as read_header() does, but for the input's size.
template <filter_registry Registry = any_filter>
file_header read_header_prefix(std::span<const std::byte> first, const std::string& name = "buffer") {
    return detail::decode_header<Registry>(first.first(std::min<std::size_t>(first.size(), file_header_size)),
                                           std::nullopt, name);
}

/// The filter a bkf buffer holds, checked as a file is: throws file_format_error when the bytes
/// are not a valid filter of type Target (wrong_kind for another kind), whole and uncorrupted.
/// `name` is how messages call the buffer.
template <loadable_filter Target>
Target from_bytes(std::span<const std::byte> bytes, const std::string& name = "buffer") {
    const file_header h = read_header<registry_for<Target>>(bytes, name);
    detail::require_holds<Target>(h, name);
    detail::zeroed_block payload = detail::payload_memory(h.payload_size);
    if (h.payload_size > 0)
        std::memcpy(payload.data(), bytes.data() + h.payload_offset, static_cast<std::size_t>(h.payload_size));
    return detail::finish_read<Target>(h, std::move(payload), bytes.subspan(h.payload_offset + h.payload_size), name);
}

// --- Streams --------------------------------------------------------------------------------

/// Writes the filter to `out` in the bkf format, in one pass. Throws io_error when the stream
/// fails.
template <storable_filter Filter>
void save(const Filter& filter, std::ostream& out) {
    detail::write_to(out, [&](const auto& write) { detail::write_bkf(filter, write); });
}

/// Reads one filter from `in`, checked as a file is, and leaves the stream just past it.
/// Throws file_format_error for an invalid filter or one cut short (truncated), io_error when
/// the stream fails.
template <loadable_filter Target>
Target load(std::istream& in, const std::string& name = "stream") {
    std::byte head[file_header_size];
    const std::size_t seen = detail::read_some(in, head, sizeof head);
    const file_header h =
        detail::decode_header<registry_for<Target>>(std::span<const std::byte>(head, seen), std::nullopt, name);
    detail::require_holds<Target>(h, name);
    const auto truncated = [&](std::uint64_t got) {
        detail::reject(format_errc::truncated, name,
                       "truncated: the filter's payload is " + std::to_string(h.payload_size) +
                           " bytes, but the input ends after " + std::to_string(got));
    };
    detail::zeroed_block payload = detail::read_payload(in, h.payload_size, truncated);
    std::vector<std::byte> trailer(detail::trailer_size(h));
    if (const std::size_t tail = detail::read_some(in, trailer.data(), trailer.size()); tail != trailer.size())
        detail::reject(format_errc::truncated, name,
                       "truncated: the input ends " + std::to_string(trailer.size() - tail) +
                           " bytes before the end of the "
                           "filter's chunk table");
    return detail::finish_read<Target>(h, std::move(payload), trailer, name);
}

}  // namespace bloomkit
