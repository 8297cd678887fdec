// bloomkit/io/guava.hpp — Guava's BloomFilter stream (BloomFilter.writeTo / readFrom), read and
// written byte for byte, so that a filter goes between a Java service and C++, Python or the
// command with the same answers on both sides (docs/FORMAT.md, "Guava streams").
//
//     offset 0  int8        strategy ordinal: 0 MURMUR128_MITZ_32, 1 MURMUR128_MITZ_64
//            1  uint8       k, the number of hash functions (1..255)
//            2  int32 BE    N, the number of 64-bit words (1..2^31 - 1)
//            6  N × int64 BE  the bits: bit i is bit i mod 64 of word i / 64
//
// No magic, version or checksum, and no funnel: the reader names the funnel the writer used,
// as Java's readFrom(in, funnel) does (hash/guava_funnel.hpp; string_utf8 unless told). Nor
// does it record what the filter was sized for or how many keys it took. Every length is
// checked against the input before anything is allocated (Guava's own reader allocates what a
// hostile header asks).
//
//     auto filter = bloomkit::io::guava::from_bytes<bloomkit::guava_bloom_filter>(bytes);
//     bool maybe = filter.contains("apple");                 // what mightContain answers
//     std::vector<std::byte> out = bloomkit::io::guava::to_bytes(filter);   // for readFrom
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash/endian.hpp"
#include "bloomkit/io/bkf.hpp"
#include "bloomkit/io/filter_contents.hpp"
#include "bloomkit/io/header.hpp"
#include "bloomkit/io/streams.hpp"
#include "bloomkit/kinds.hpp"

namespace bloomkit::io::guava {

/// Bytes before the words.
inline constexpr std::size_t header_size = 6;

/// Guava's two strategies, by the ordinal the stream stores.
enum class strategy : std::int8_t {
    murmur128_mitz32 = 0,  ///< before Guava 17.0 (guava_mitz32_bloom_filter)
    murmur128_mitz64 = 1,  ///< Guava 17.0 and later (guava_bloom_filter)
};

/// The filter types a Guava stream holds.
template <class F>
concept guava_filter = std::same_as<F, guava_bloom_filter> || std::same_as<F, guava_mitz32_bloom_filter>;

/// What from_bytes() and load() make: one of them, or any_filter (whichever the stream holds).
template <class T>
concept guava_target = guava_filter<T> || std::same_as<T, any_filter>;

/// A stream's first six bytes, decoded and checked.
struct stream_header {
    /// The strategy, by its ordinal.
    strategy kind = strategy::murmur128_mitz64;
    std::uint32_t hashes = 0;  ///< k
    std::uint32_t words = 0;   ///< N
    /// Bytes of the words after the header: 8·N.
    [[nodiscard]] std::uint64_t payload_size() const noexcept { return std::uint64_t{words} * 8; }
};

/// The key format a filter of `funnel` records, for whoever reads lines into keys for it.
[[nodiscard]] constexpr key_format key_format_of(guava_funnel funnel) noexcept {
    return takes_integers(funnel) ? key_format::i64 : key_format::text;
}

/// The funnel and key format of a Guava filter.
struct funnel_and_keys {
    guava_funnel funnel;  ///< the funnel the keys go through
    key_format keys;      ///< what the filter records its keys to be
};
/// The funnel and key format of a Guava filter, from what its writer or reader says of them:
/// neither is in the stream, so both come from the user, by one rule in every face — the funnel
/// said, else Funnels.longFunnel() for integer keys and Funnels.stringFunnel(UTF_8) for the
/// rest; the key format said, else the funnel's (i64 for Java's ints and longs, text for the
/// rest). Throws invalid_argument when the two contradict each other.
[[nodiscard]] inline funnel_and_keys funnel_and_keys_of(guava_funnel funnel, key_format keys) {
    if (funnel == guava_funnel::none)
        funnel = is_integer(keys) ? guava_funnel::long_integer : guava_funnel::string_utf8;
    if (keys == key_format::unrecorded) keys = key_format_of(funnel);
    if (is_integer(keys) != takes_integers(funnel))
        throw invalid_argument(
            std::string(is_integer(keys) ? "integer" : "text") + " keys (" + std::string(to_string(keys)) +
            ") do not go through " + std::string(java_name(funnel)) +
            (takes_integers(funnel) ? ", which takes Java ints or longs" : ", which takes strings or bytes"));
    return {funnel, keys};
}

namespace detail {

using bloomkit::detail::reject;

/// Decodes and checks the header in `seen` (the input's first bytes, up to six).
inline stream_header decode_header(std::span<const std::byte> seen, const std::string& where) {
    if (seen.size() < header_size)
        reject(format_errc::truncated, where,
               "truncated: " + bloomkit::detail::byte_count(seen.size()) + ", not even a Guava stream's 6-byte header");
    const auto ordinal = static_cast<std::int8_t>(seen[0]);
    const auto hashes = std::to_integer<std::uint32_t>(seen[1]);
    const auto words = static_cast<std::int32_t>(bloomkit::detail::load_be<std::uint32_t>(seen.data() + 2));
    if (ordinal != 0 && ordinal != 1)
        reject(format_errc::bad_magic, where,
               "not a Guava BloomFilter stream: strategy ordinal " + std::to_string(ordinal) +
                   " (Guava's are 0, MURMUR128_MITZ_32, and 1, MURMUR128_MITZ_64)");
    if (hashes == 0) reject(format_errc::invalid_field, where, "a Guava filter of 0 hash functions");
    if (words <= 0) reject(format_errc::invalid_field, where, "a Guava filter of " + std::to_string(words) + " longs");
    return {static_cast<strategy>(ordinal), hashes, static_cast<std::uint32_t>(words)};
}

/// The filter of type T a checked header and its words (big-endian, as read) make.
template <guava_target T>
T assemble(const stream_header& h, bloomkit::detail::zeroed_block payload, guava_funnel funnel,
           const std::string& where) {
    auto* words = static_cast<std::uint64_t*>(payload.data());
    for (std::uint32_t i = 0; i < h.words; ++i)
        words[i] = bloomkit::detail::load_be<std::uint64_t>(reinterpret_cast<const std::byte*>(words + i));
    const auto make = [&]<class F>(std::type_identity<F>) -> T {
        if constexpr (std::same_as<T, any_filter> || std::same_as<T, F>) {
            F filter({std::uint64_t{h.words} * 64, h.hashes}, hasher(hash_algorithm::murmur3_128, 0, funnel),
                     bloomkit::detail::word_storage<std::uint64_t>::adopt(std::move(payload), h.words));
            filter.record_key_format(key_format_of(funnel));
            return T(std::move(filter));
        } else {
            reject(format_errc::wrong_kind, where,
                   "holds a " + kind_traits<F>::name() + ", not a " + bloomkit::detail::type_name<T>());
        }
    };
    if (h.kind == strategy::murmur128_mitz64) return make(std::type_identity<guava_bloom_filter>{});
    return make(std::type_identity<guava_mitz32_bloom_filter>{});
}

template <guava_filter F>
constexpr strategy strategy_of() noexcept {
    return std::same_as<F, guava_bloom_filter> ? strategy::murmur128_mitz64 : strategy::murmur128_mitz32;
}

/// Writes `filter` as a Guava stream through write(span of bytes), in pieces of 64 KiB.
template <guava_filter F, class Write>
void write_stream(const F& filter, Write write) {
    std::byte head[header_size];
    head[0] = static_cast<std::byte>(strategy_of<F>());
    head[1] = static_cast<std::byte>(filter.hash_count());
    bloomkit::detail::store_be<std::uint32_t>(head + 2, static_cast<std::uint32_t>(filter.words().size()));
    write(std::span<const std::byte>(head));
    std::vector<std::byte> piece(std::size_t{1} << 16);
    const std::span<const std::uint64_t> words = filter.words();
    for (std::size_t at = 0; at < words.size();) {
        const std::size_t count = std::min(piece.size() / 8, words.size() - at);
        for (std::size_t i = 0; i < count; ++i) bloomkit::detail::store_be(piece.data() + 8 * i, words[at + i]);
        write(std::span<const std::byte>(piece.data(), count * 8));
        at += count;
    }
}

}  // namespace detail

/// Why `filter` cannot be written as a Guava stream (it is not a Guava filter: its bits mean
/// nothing to Guava, which places them itself), or empty when it can.
template <class F>
std::string refusal_for() {
    if constexpr (guava_filter<F>) return {};
    else
        return "a " + kind_traits<F>::name() +
               " cannot be written as a Guava stream: Guava places a key's bits itself, so only a Guava filter "
               "converts; build one from the keys (--format guava)";
}
/// refusal_for() of the type `filter` holds.
inline std::string refusal(const any_filter& filter) {
    return std::visit([](const auto& f) { return refusal_for<std::decay_t<decltype(f)>>(); }, filter);
}

namespace detail {

/// Calls use(guava filter) with the Guava filter `filter` holds; throws invalid_argument with
/// refusal()'s reason for any other kind.
template <class Use>
decltype(auto) with_guava_filter(const any_filter& filter, Use use) {
    // The result type named outside the lambda: Clang 14 crashes on a trailing return type
    // that names a capture.
    using result = decltype(use(std::declval<const guava_bloom_filter&>()));
    return std::visit(
        [&](const auto& f) -> result {
            using F = std::decay_t<decltype(f)>;
            if constexpr (guava_filter<F>) return use(f);
            else throw invalid_argument(refusal_for<F>());
        },
        filter);
}

}  // namespace detail

// --- Byte buffers ---------------------------------------------------------------------------

/// The filter as Guava's writeTo writes it.
template <guava_filter F>
std::vector<std::byte> to_bytes(const F& filter) {
    std::vector<std::byte> bytes;
    bytes.reserve(header_size + filter.size_in_bytes());
    detail::write_stream(filter, [&](std::span<const std::byte> p) { bytes.insert(bytes.end(), p.begin(), p.end()); });
    return bytes;
}
/// The Guava filter `filter` holds, as a Guava stream. Throws invalid_argument for another kind.
inline std::vector<std::byte> to_bytes(const any_filter& filter) {
    return detail::with_guava_filter(filter, [](const auto& f) { return guava::to_bytes(f); });
}

/// Decodes and checks the header of a Guava stream (its first six bytes or more).
inline stream_header read_header(std::span<const std::byte> bytes, const std::string& name = "buffer") {
    return detail::decode_header(bytes.first(std::min(bytes.size(), header_size)), name);
}

/// The filter a Guava stream in `bytes` holds, hashing keys through `funnel` (the writer's:
/// the stream does not say). The bytes must hold exactly one stream. Throws file_format_error
/// naming what is wrong (wrong_kind for the other strategy than T).
template <guava_target T = any_filter>
T from_bytes(std::span<const std::byte> bytes, guava_funnel funnel = guava_funnel::string_utf8,
             const std::string& name = "buffer") {
    const stream_header h = read_header(bytes, name);
    const std::uint64_t expected = header_size + h.payload_size();
    if (bytes.size() < expected)
        bloomkit::detail::reject(format_errc::truncated, name,
                                 "truncated: " + bloomkit::detail::byte_count(bytes.size()) +
                                     ", but its header announces a Guava filter of " +
                                     bloomkit::detail::byte_count(expected));
    if (bytes.size() > expected)
        bloomkit::detail::reject(format_errc::invalid_field, name,
                                 std::to_string(bytes.size() - expected) +
                                     " unexpected bytes after the Guava filter (Java's readFrom would leave them "
                                     "unread: several filters in one stream? load() reads them one by one)");
    bloomkit::detail::zeroed_block payload = bloomkit::detail::payload_memory(h.payload_size());
    std::memcpy(payload.data(), bytes.data() + header_size, static_cast<std::size_t>(h.payload_size()));
    return detail::assemble<T>(h, std::move(payload), funnel, name);
}

// --- Streams --------------------------------------------------------------------------------

/// Writes the filter to `out` as Guava's writeTo does. Throws io_error when the stream fails.
template <guava_filter F>
void save(const F& filter, std::ostream& out) {
    bloomkit::detail::write_to(out, [&](const auto& write) { detail::write_stream(filter, write); });
}
/// Writes the Guava filter `filter` holds; throws invalid_argument for another kind.
inline void save(const any_filter& filter, std::ostream& out) {
    detail::with_guava_filter(filter, [&](const auto& f) { guava::save(f, out); });
}

/// Reads one Guava filter from `in`, as readFrom does, and leaves the stream just past it (a
/// stream may hold several). Throws file_format_error for an invalid or cut-short stream,
/// io_error when the stream fails.
template <guava_target T = any_filter>
T load(std::istream& in, guava_funnel funnel = guava_funnel::string_utf8, const std::string& name = "stream") {
    std::byte head[header_size];
    const stream_header h = detail::decode_header(
        std::span<const std::byte>(head, bloomkit::detail::read_some(in, head, sizeof head)), name);
    auto payload = bloomkit::detail::read_payload(in, h.payload_size(), [&](std::uint64_t got) {
        bloomkit::detail::reject(format_errc::truncated, name,
                                 "truncated: the Guava filter's " + std::to_string(h.words) + " longs are " +
                                     std::to_string(h.payload_size()) + " bytes, but the input ends after " +
                                     std::to_string(got));
    });
    return detail::assemble<T>(h, std::move(payload), funnel, name);
}

// --- The format, for formats.hpp -----------------------------------------------------------

/// Whether the whole input `bytes` is one Guava stream: a valid header announcing exactly the
/// words that follow (Guava streams have no signature, so the length must agree too).
[[nodiscard]] inline bool recognizes(std::span<const std::byte> bytes) noexcept {
    try {
        return bytes.size() == header_size + read_header(bytes).payload_size();
    } catch (const error&) {
        return false;
    }
}

/// Guava's BloomFilter stream as a format of formats.hpp.
struct format {
    /// The format's word, as the command's --format takes it.
    static constexpr std::string_view word = "guava";
    /// The format's name in messages.
    static constexpr std::string_view name = "Guava BloomFilter stream";
    /// The layout a filter converted to it gets: MURMUR128_MITZ_64, Guava's default.
    static constexpr std::optional<bloom_layout> layout = bloom_layout::guava;
    ///@{
    /// A stream keeps neither the inserted count nor the funnel (its reader is told the funnel:
    /// read_options::funnel), and carries no attached data.
    static constexpr bool records_count = false, records_funnel = false, keeps_attached_data = false;
    ///@}
    /// Whether the whole input `bytes` is one Guava stream.
    static bool recognizes(std::span<const std::byte> bytes) noexcept { return guava::recognizes(bytes); }
    /// The filter in `bytes`, its keys hashed through `options.funnel`; `where` names the input
    /// in messages.
    static filter_contents read(std::span<const std::byte> bytes, const read_options& options,
                                const std::string& where) {
        // A reader who says neither the funnel nor the keys gets Guava's string funnel and a
        // filter that records no format: what it holds is not known, so nothing adds to it
        // unless told (keys.hpp: key_format_to_write).
        const bool said_nothing = options.funnel == guava_funnel::none && options.keys == key_format::unrecorded;
        const funnel_and_keys said = funnel_and_keys_of(options.funnel, options.keys);
        any_filter filter = from_bytes<any_filter>(bytes, said.funnel, where);
        std::visit([&](auto& f) { f.record_key_format(said_nothing ? key_format::unrecorded : said.keys); }, filter);
        return {std::move(filter), word, {}};
    }
    /// Why a Guava stream cannot hold `filter` exactly, or empty when it can.
    static std::string refusal(const any_filter& filter) { return guava::refusal(filter); }
    /// The stream Guava's readFrom reads.
    static std::vector<std::byte> write(const any_filter& filter, std::span<const std::byte>) {
        return guava::to_bytes(filter);
    }
};

}  // namespace bloomkit::io::guava
