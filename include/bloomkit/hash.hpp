// bloomkit/hash.hpp — from a key to the one 128-bit digest every filter works from: every probe
// derives from it, never from a second hash call. Both steps are fixed, so that a filter means the
// same thing on every machine (docs/design/hashing.md).
//
//  1. A key's bytes. Strings, string views, C strings and contiguous byte ranges are their bytes.
//     An integer (enum, bool) is its value widened to 64 bits, signed values sign-extended: 7 is the
//     same key as an int, a uint8_t or an int64_t, and -1 the same as 2^64 - 1 (keys.hpp: which
//     integers each format holds). Except that under xxh64 and xxh3_128, a filter that records no
//     key format hashes a narrower integer in its own width (INT32 as 4 bytes, as Parquet does).
//     Other types opt in through key_bytes; pointers, floats and padding never hash by accident.
//  2. Bytes to digest, by the filter's hash_algorithm (saved with it):
//      - xxh3_64_mum, the default: byte keys by XXH3-64 (xxHash, Yann Collet), the digest's high
//        half a bijective remix — a filter reads at most 64 bits of a key's hash, and XXH3-64 takes
//        half XXH3-128's multiplications on 17 to 128 bytes; 64-bit integers by two keyed 64×64→128
//        multiplications (mum_integer), since instructions are what a single lookup costs most;
//      - xxh3_mum, xxh3_mix, xxh3_128 (files may record them): byte keys by XXH3-128;
//      - xxh64: XXH64, as the Apache Parquet split-block Bloom filter spec prescribes (seed 0);
//      - murmur3_128, fnv1_64, unseeded: Guava's BloomFilter (MurmurHash3_x64_128 of its funnel's
//        bytes: hash/guava_funnel.hpp) and DCSO's bloom (FNV-1 64), so that a foreign filter
//        answers here exactly as in its own program.
//
// The seed belongs to the filter. 0, the default, keeps files reproducible and matches Parquet;
// against keys chosen to manufacture false positives, use random_seed() or a secret seed, which
// keys XXH3 and the integer mixers alike. Not a MAC: against an adversary who can query the filter
// at will, keep the filter itself secret too.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "bloomkit/error.hpp"
#include "bloomkit/hash/endian.hpp"
#include "bloomkit/hash/fnv.hpp"
#include "bloomkit/hash/guava_funnel.hpp"
#include "bloomkit/hash/murmur3.hpp"
#include "bloomkit/keys.hpp"

namespace bloomkit {

/// The 128 bits a key hashes to; layouts split it as they need.
struct digest {
    /// The low 64 bits (XXH3-128's low64, MurmurHash3's h1, the whole of a 64-bit hash).
    std::uint64_t low = 0;
    /// The high 64 bits (for XXH64, a fixed remix of the low half; 0 for FNV-1).
    std::uint64_t high = 0;
    /// Both halves equal.
    friend constexpr bool operator==(const digest&, const digest&) = default;
};

/// Hash functions a filter may use; the numeric values are stored in files.
enum class hash_algorithm : std::uint8_t {
    xxh3_128 = 1,     ///< XXH3-128 over the bytes, integers in their own width (format version 1's default)
    xxh64 = 2,        ///< XXH64, as the Parquet split-block Bloom filter spec prescribes
    xxh3_mix = 3,     ///< XXH3-128 over byte keys, a three-multiplication mixer over 64-bit integers
    xxh3_mum = 4,     ///< XXH3-128 over byte keys, a two-multiplication keyed mixer over 64-bit integers
    murmur3_128 = 5,  ///< Guava's: MurmurHash3_x64_128 (seed 0) over the bytes of the filter's Guava funnel
    fnv1_64 = 6,      ///< DCSO bloom's: FNV-1 64 over the bytes, integers as their 8 bytes
    xxh3_64_mum = 7,  ///< the default: XXH3-64 over byte keys, integers as xxh3_mum
};

/// The last hash_algorithm a reader knows.
inline constexpr hash_algorithm last_hash_algorithm = hash_algorithm::xxh3_64_mum;

/// The hashing of a filter that does not choose (split block's is xxh64).
inline constexpr hash_algorithm default_hash_algorithm = hash_algorithm::xxh3_64_mum;

/// Guava's or DCSO's hash: unseeded, and bound to that format's encoding of keys.
[[nodiscard]] constexpr bool is_foreign(hash_algorithm algorithm) noexcept {
    return algorithm == hash_algorithm::murmur3_128 || algorithm == hash_algorithm::fnv1_64;
}

/// The algorithm giving the same integer digests: xxh3_mum for xxh3_64_mum, else `algorithm`.
[[nodiscard]] constexpr hash_algorithm integer_hashing_of(hash_algorithm algorithm) noexcept {
    return algorithm == hash_algorithm::xxh3_64_mum ? hash_algorithm::xxh3_mum : algorithm;
}

/// The seed every filter uses unless told otherwise. Zero, as Parquet requires for XXH64.
inline constexpr std::uint64_t default_seed = 0;

/// From the OS's entropy source, for keys an adversary may choose.
inline std::uint64_t random_seed() {
    std::random_device device;
    return (std::uint64_t{device()} << 32) ^ device();
}

/// The name messages show ("xxh3-mum"); "unknown" for a value no enumerator has.
[[nodiscard]] constexpr std::string_view to_string(hash_algorithm algorithm) noexcept {
    switch (algorithm) {
        case hash_algorithm::xxh3_128: return "xxh3-128";
        case hash_algorithm::xxh64: return "xxh64";
        case hash_algorithm::xxh3_mix: return "xxh3-mix";
        case hash_algorithm::xxh3_mum: return "xxh3-mum";
        case hash_algorithm::murmur3_128: return "murmur3-128";
        case hash_algorithm::fnv1_64: return "fnv1-64";
        case hash_algorithm::xxh3_64_mum: return "xxh3-64-mum";
    }
    return "unknown";
}

/// Customisation point: its call operator feeds a user type's parts, each itself a key, to `sink`:
///
///     template <> struct bloomkit::key_bytes<order_id> {
///         template <class Sink> void operator()(const order_id& id, Sink& sink) const {
///             sink(id.shard);   // std::uint32_t: 4 little-endian bytes
///             sink(id.serial);  // std::uint64_t: 8 little-endian bytes
///         }
///     };
///
/// The parts are concatenated, so feed a length before each variable-length part.
template <class Key>
struct key_bytes;

namespace detail {

template <class T>
inline constexpr bool is_byte_like_v =
    std::is_same_v<T, char> || std::is_same_v<T, signed char> || std::is_same_v<T, unsigned char> ||
    std::is_same_v<T, char8_t> || std::is_same_v<T, std::byte>;

}  // namespace detail

/// Keys that already are a run of bytes and hash in place, without a copy.
template <class Key>
concept byte_sequence_key = std::convertible_to<const Key&, std::string_view> ||
    (std::ranges::contiguous_range<const Key&>&& std::ranges::sized_range<const Key&>&&
         detail::is_byte_like_v<std::remove_cv_t<std::ranges::range_value_t<const Key&>>>);

/// Keys that hash as their little-endian bytes.
template <class Key>
concept integer_key = std::integral<Key> || std::is_enum_v<Key>;

/// Keys a user gave a byte representation through key_bytes.
template <class Key>
concept custom_key = requires {
    sizeof(key_bytes<Key>);
};

/// A digest from the filter's own hash_function(), taken unhashed by every call that takes keys;
/// a digest from another hasher is another key.
template <class Key>
concept prehashed_key = std::same_as<Key, digest>;

/// Anything a filter accepts as a key.
template <class Key>
concept hashable_key = byte_sequence_key<Key> || integer_key<Key> || custom_key<Key> || prehashed_key<Key>;

/// What a filter typed by its keys records: text, u64 or i64; unrecorded for enums, bool and
/// custom keys, whose bytes no line of text spells.
template <hashable_key Key>
[[nodiscard]] constexpr key_format key_format_of() noexcept {
    if constexpr (byte_sequence_key<Key>) return key_format::text;
    else if constexpr (std::integral<Key> && !std::is_same_v<Key, bool> && sizeof(Key) <= 8)
        return std::is_signed_v<Key> ? key_format::i64 : key_format::u64;
    else return key_format::unrecorded;
}

namespace detail {

template <byte_sequence_key Key>
std::span<const std::byte> as_bytes(const Key& key) noexcept {
    if constexpr (std::convertible_to<const Key&, std::string_view>) {
        const std::string_view view = key;
        return {reinterpret_cast<const std::byte*>(view.data()), view.size()};
    } else {
        return {reinterpret_cast<const std::byte*>(std::ranges::data(key)), std::ranges::size(key)};
    }
}

template <class Key>
struct integer_of {
    using type = Key;
};
template <class Key>
requires std::is_enum_v<Key>
struct integer_of<Key> {
    using type = std::underlying_type_t<Key>;
};
template <>
struct integer_of<bool> {  // one byte, 0 or 1
    using type = unsigned char;
};

template <integer_key Key>
struct little_endian_bytes {
    using value_type = typename integer_of<Key>::type;
    unsigned char bytes[sizeof(value_type)];

    explicit little_endian_bytes(Key key) noexcept {
        // One store on little-endian machines.
        const auto value = little_endian(static_cast<std::make_unsigned_t<value_type>>(static_cast<value_type>(key)));
        std::memcpy(bytes, &value, sizeof value);
    }
    /// Fixed-size, so the hash sees the length as a constant.
    [[nodiscard]] std::span<const std::byte, sizeof(value_type)> span() const noexcept {
        return std::as_bytes(std::span<const unsigned char, sizeof(value_type)>(bytes));
    }
};

/// A custom key's parts as one run of bytes (on the stack while short), hashed by one call.
class byte_sink {
public:
    byte_sink() = default;
    byte_sink(const byte_sink&) = delete;
    byte_sink& operator=(const byte_sink&) = delete;

    template <hashable_key Part>
    void operator()(const Part& part);

    void append(std::span<const std::byte> part) {
        if (spill_.empty() && size_ + part.size() <= sizeof(inline_)) {
            if (!part.empty()) std::memcpy(inline_ + size_, part.data(), part.size());
        } else {
            if (spill_.empty()) spill_.assign(reinterpret_cast<const char*>(inline_), size_);
            spill_.append(reinterpret_cast<const char*>(part.data()), part.size());
        }
        size_ += part.size();
    }

    [[nodiscard]] std::span<const std::byte> bytes() const noexcept {
        if (spill_.empty()) return {inline_, size_};
        return {reinterpret_cast<const std::byte*>(spill_.data()), spill_.size()};
    }

private:
    std::byte inline_[192];
    std::size_t size_ = 0;
    std::string spill_;
};

template <hashable_key Key, class Use>
decltype(auto) with_key_bytes(const Key& key, Use&& use) {
    if constexpr (byte_sequence_key<Key>) {
        return use(as_bytes(key));
    } else if constexpr (integer_key<Key>) {
        const little_endian_bytes<Key> bytes(key);
        return use(bytes.span());
    } else {
        byte_sink sink;
        key_bytes<Key>{}(key, sink);
        return use(sink.bytes());
    }
}

template <hashable_key Part>
void byte_sink::operator()(const Part& part) {
    with_key_bytes(part, [this](std::span<const std::byte> bytes) { append(bytes); });
}

/// MurmurHash3's 64-bit finaliser (hash/murmur3.hpp): a bijection with full avalanche.
constexpr std::uint64_t mix64(std::uint64_t x) noexcept { return murmur3_fmix64(x); }

/// XXH64 (xxHash's "XXH64 algorithm description") of a 4- or 8-byte little-endian value: the
/// seeded accumulator, one step, the avalanche. Written out to inline, where the library's
/// XXH64 for any length stays a call.
template <std::size_t Bytes>
[[nodiscard]] constexpr std::uint64_t xxh64_of_short(std::uint64_t value, std::uint64_t seed) noexcept {
    static_assert(Bytes == 4 || Bytes == 8);
    constexpr std::uint64_t prime1 = 0x9e3779b185ebca87ULL, prime2 = 0xc2b2ae3d27d4eb4fULL,
                            prime3 = 0x165667b19e3779f9ULL, prime4 = 0x85ebca77c2b2ae63ULL,
                            prime5 = 0x27d4eb2f165667c5ULL;
    std::uint64_t h = seed + prime5 + Bytes;
    if constexpr (Bytes == 8) {
        h ^= std::rotl(value * prime2, 31) * prime1;
        h = std::rotl(h, 27) * prime1 + prime4;
    } else {
        h ^= (value & 0xffffffffULL) * prime1;
        h = std::rotl(h, 23) * prime2 + prime3;
    }
    h ^= h >> 33;
    h *= prime2;
    h ^= h >> 29;
    h *= prime3;
    return h ^ (h >> 32);
}

/// h itself (all a split block reads, as Parquet prescribes) and a bijective mix for the high half.
[[nodiscard]] constexpr digest digest_of_64(std::uint64_t h) noexcept { return {h, mix64(h)}; }

/// Sign-extended, so every type holding the same value gives the same key.
template <integer_key Key>
[[nodiscard]] constexpr std::uint64_t widened(Key key) noexcept {
    using value_type = typename integer_of<Key>::type;
    const auto value = static_cast<value_type>(key);
    if constexpr (std::is_signed_v<value_type>) return static_cast<std::uint64_t>(static_cast<std::int64_t>(value));
    else return static_cast<std::uint64_t>(value);
}

/// a·b as 128 bits, its halves XORed: every output bit depends on every input bit (the "mum" of
/// wyhash and rapidhash).
[[nodiscard]] constexpr std::uint64_t folded_multiply(std::uint64_t a, std::uint64_t b) noexcept {
    __extension__ const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
    return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
}

/// xxh3_mix: one keyed 64×64→128 multiplication, its halves then multiplied with each other
/// twice; the data × data round is what strided keys need (docs/design/hashing.md).
[[nodiscard]] constexpr digest mix_integer(std::uint64_t value, std::uint64_t seed_key) noexcept {
    const std::uint64_t keyed = value + seed_key;
    __extension__ const unsigned __int128 spread =
        static_cast<unsigned __int128>(keyed ^ 0xa0761d6478bd642fULL) * 0xe7037ed1a0b428dbULL;
    const auto low = static_cast<std::uint64_t>(spread), high = static_cast<std::uint64_t>(spread >> 64);
    return {folded_multiply(low ^ 0x8ebc6af09c88c6e3ULL, high ^ 0x589965cc75374cc3ULL),
            folded_multiply(low ^ 0x1d8e4e27c47d124fULL, high ^ 0xa0761d6478bd642fULL)};
}

/// xxh3_mum's secrets (from the seed) and constants, together so that the multiplications read
/// them as memory operands: a 64-bit immediate costs a `movabs` instruction every call.
struct mum_secrets {
    std::uint64_t input, low, high;
    std::uint64_t spread = 0xe7037ed1a0b428dbULL;  // wyhash's
    std::uint64_t odd = 0x9e3779b97f4a7c15ULL;     // 2^64 / golden ratio
    friend constexpr bool operator==(const mum_secrets&, const mum_secrets&) = default;
};

[[nodiscard]] constexpr mum_secrets mum_secrets_of(std::uint64_t seed) noexcept {
    return {mix64(seed ^ 0x2d358dccaa6c78a5ULL), mix64(seed ^ 0x8bb84b93962eacc9ULL),
            mix64(seed ^ 0x4b33a62ed433d4a3ULL)};
}

/// xxh3_mum: the keyed value times an odd constant (64×64→128), then the two halves, each keyed,
/// multiplied with each other and folded: f, the low half. The data × data round gives full
/// avalanche (docs/design/hashing.md). The high half is f times an odd constant, a bijection whose
/// top bits depend on all of f (a product's high half alone is skewed: density −ln t).
[[nodiscard, gnu::always_inline]] constexpr digest mum_integer(std::uint64_t value,
                                                               const mum_secrets& secrets) noexcept {
    __extension__ const unsigned __int128 spread =
        static_cast<unsigned __int128>(value ^ secrets.input) * secrets.spread;
    const auto low = static_cast<std::uint64_t>(spread), high = static_cast<std::uint64_t>(spread >> 64);
    const std::uint64_t folded = folded_multiply(low ^ secrets.low, high ^ secrets.high);
    return {folded, folded * secrets.odd};
}

}  // namespace detail

/// A seeded hash from keys to digests; part of a filter's identity (filters combine only if
/// their hashers are equal).
class hasher {
public:
    constexpr hasher() noexcept = default;
    /// murmur3_128 takes seed 0 and a Guava funnel (default string_utf8), the others no funnel;
    /// throws invalid_argument otherwise.
    constexpr explicit hasher(hash_algorithm algorithm, std::uint64_t seed = default_seed,
                              guava_funnel funnel = guava_funnel::none)
        : algorithm_(checked(algorithm)),
          seed_(seed),
          seed_key_(seed_key_of(seed)),
          secrets_(detail::mum_secrets_of(seed)),
          funnel_(checked_funnel(algorithm, seed, funnel)) {}

    /// The hash algorithm.
    [[nodiscard]] constexpr hash_algorithm algorithm() const noexcept { return algorithm_; }
    /// The seed (0 for murmur3_128 and fnv1_64, which take none).
    [[nodiscard]] constexpr std::uint64_t seed() const noexcept { return seed_; }
    /// The Guava funnel of a murmur3_128 hasher; none for the others.
    [[nodiscard]] constexpr guava_funnel funnel() const noexcept { return funnel_; }

    /// For a Guava hasher, the bytes its funnel makes of a key (unencoded_chars: from UTF-8).
    [[nodiscard]] digest hash_bytes(std::span<const std::byte> bytes) const { return hash_span(bytes); }

    /// Forced inline, so a short integer hash is never behind a call; the rarer algorithms'
    /// integer paths are out of line.
    template <hashable_key Key>
    [[nodiscard, gnu::always_inline]] digest operator()(const Key& key) const {
        if constexpr (prehashed_key<Key>) {
            return key;
        } else if constexpr (integer_key<Key>) {
            if (integer_hashing_of(algorithm_) == hash_algorithm::xxh3_mum) [[likely]]
                return integer_digest<hash_algorithm::xxh3_mum>(key);
            if (algorithm_ == hash_algorithm::xxh64) return integer_digest<hash_algorithm::xxh64>(key);
            return hash_integer_otherwise(key);
        } else {
            if (takes_integers(funnel_)) [[unlikely]]
                refuse_key("bytes or a string");
            return hash_key_bytes(key);
        }
    }

    /// (*this)(key) with no test of the algorithm, for a caller that checked once that
    /// integer_hashing_of(algorithm()) is `Algorithm` (docs/design/performance.md, "Plain lookups").
    template <hash_algorithm Algorithm, integer_key Key>
    [[nodiscard, gnu::always_inline]] digest integer_digest(Key key) const
        requires(Algorithm == hash_algorithm::xxh3_mum || Algorithm == hash_algorithm::xxh64) {
        if constexpr (Algorithm == hash_algorithm::xxh3_mum) {
            return detail::mum_integer(detail::widened(key), secrets_);
        } else {
            constexpr std::size_t width = sizeof(typename detail::integer_of<Key>::type);
            if constexpr (width < 8)
                if (!own_width_integers()) return integer_digest<Algorithm>(detail::widened(key));
            if constexpr (width == 4 || width == 8)
                return detail::digest_of_64(detail::xxh64_of_short<width>(detail::widened(key), seed_));
            const detail::little_endian_bytes<Key> bytes(key);
            return detail::digest_of_64(XXH64(bytes.span().data(), bytes.span().size(), seed_));
        }
    }

    /// f(digest_of), digest_of being (*this) for keys of type Key with the algorithm chosen once,
    /// so that a bulk loop's body is the hash itself.
    template <hashable_key Key, class F>
    decltype(auto) with_digest_of(F&& f) const {
        if constexpr (integer_key<Key> && !prehashed_key<Key>) {
            if (integer_hashing_of(algorithm_) == hash_algorithm::xxh3_mum)
                return std::forward<F>(f)(mum_integer_hasher{secrets_});
        } else if constexpr (byte_sequence_key<Key>) {
            const int bits = xxh3_bits_of(algorithm_);
            if (bits == 64) return std::forward<F>(f)(xxh3_bytes_hasher<64>{seed_});
            if (bits == 128) return std::forward<F>(f)(xxh3_bytes_hasher<128>{seed_});
        }
        return std::forward<F>(f)(*this);
    }

    /// Whether narrower integers hash in their own width under xxh64 and xxh3_128 (filters that
    /// record no key format). Atomic: set while other threads may insert (insert(key, concurrent)).
    [[nodiscard]] bool own_width_integers() const noexcept { return __atomic_load_n(&own_width_, __ATOMIC_ACQUIRE); }
    /// Set by a filter from the key format it records.
    void own_width_integers(bool own) noexcept { __atomic_store_n(&own_width_, own, __ATOMIC_RELEASE); }

    /// Same algorithm, seed and funnel (own_width_integers() is the filter's, not the hash's).
    friend constexpr bool operator==(const hasher& a, const hasher& b) noexcept {
        return a.algorithm_ == b.algorithm_ && a.seed_ == b.seed_ && a.funnel_ == b.funnel_;
    }

private:
    // By reference: the hash reads the secrets as memory operands.
    struct mum_integer_hasher {
        const detail::mum_secrets& secrets;
        template <integer_key Key>
        [[nodiscard, gnu::always_inline]] digest operator()(const Key& key) const noexcept {
            return detail::mum_integer(detail::widened(key), secrets);
        }
    };

    // 64, 128, or 0 for the hashes that are not XXH3.
    static constexpr int xxh3_bits_of(hash_algorithm algorithm) noexcept {
        if (algorithm == hash_algorithm::xxh3_64_mum) return 64;
        const bool xxh3_128 = algorithm == hash_algorithm::xxh3_mum || algorithm == hash_algorithm::xxh3_mix ||
                              algorithm == hash_algorithm::xxh3_128;
        return xxh3_128 ? 128 : 0;
    }

    template <int Bits>
    struct xxh3_bytes_hasher {
        std::uint64_t seed;
        template <byte_sequence_key Key>
        [[nodiscard, gnu::always_inline]] digest operator()(const Key& key) const noexcept {
            return xxh3_digest<Bits>(detail::as_bytes(key), seed);
        }
    };
    template <int Bits>
    [[nodiscard, gnu::always_inline]] static digest xxh3_digest(std::span<const std::byte> bytes,
                                                                std::uint64_t seed) noexcept {
        if constexpr (Bits == 64) {
            return detail::digest_of_64(XXH3_64bits_withSeed(bytes.data(), bytes.size(), seed));
        } else {
            const XXH128_hash_t h = XXH3_128bits_withSeed(bytes.data(), bytes.size(), seed);
            return {h.low64, h.high64};
        }
    }

    // Not gnu::pure, though it writes nothing: it throws for a key the funnel refuses, and Clang
    // takes a pure function for one that never throws (no handler would catch it).
    template <integer_key Key>
    [[nodiscard, gnu::noinline]] digest hash_integer_otherwise(Key key) const {
        if (algorithm_ == hash_algorithm::xxh3_mix) return detail::mix_integer(detail::widened(key), seed_key_);
        if (algorithm_ == hash_algorithm::murmur3_128) return hash_guava_integer(detail::widened(key));
        if (algorithm_ == hash_algorithm::fnv1_64) {  // DCSO takes bytes: an integer is its 8, widened
            const detail::little_endian_bytes<std::uint64_t> bytes(detail::widened(key));
            return hash_span(bytes.span());
        }
        if constexpr (sizeof(typename detail::integer_of<Key>::type) < 8)
            if (!own_width_integers()) return hash_key_bytes(detail::widened(key));
        return hash_key_bytes(key);
    }

    // A Java int or long, little-endian; a 64-bit value is a two's complement long.
    [[nodiscard]] digest hash_guava_integer(std::uint64_t value) const {
        const auto signed_value = static_cast<std::int64_t>(value);
        if (funnel_ == guava_funnel::long_integer) {
            const detail::little_endian_bytes<std::uint64_t> bytes(value);
            return murmur3_digest(bytes.span());
        }
        if (funnel_ != guava_funnel::integer) refuse_key("an integer");
        if (signed_value < INT32_MIN || signed_value > INT32_MAX)
            throw invalid_argument("the key " + std::to_string(signed_value) +
                                   " is not a Java int (-2147483648 to 2147483647), which a Guava filter of "
                                   "Funnels.integerFunnel() takes");
        const detail::little_endian_bytes<std::uint32_t> bytes(static_cast<std::uint32_t>(signed_value));
        return murmur3_digest(bytes.span());
    }

    [[noreturn]] void refuse_key(const char* given) const {
        throw invalid_argument("a Guava filter of " + std::string(java_name(funnel_)) + " takes " +
                               (takes_integers(funnel_) ? "integer keys" : "strings or bytes") + ", not " + given);
    }

    [[nodiscard]] static digest murmur3_digest(std::span<const std::byte> bytes) noexcept {
        const murmur3_128_hash h = murmur3_x64_128(bytes);
        return {h.h1, h.h2};
    }

    // Out of line, so the native hashes' inlined path stays short.
    [[nodiscard, gnu::noinline]] digest hash_foreign_bytes(std::span<const std::byte> bytes) const {
        if (algorithm_ == hash_algorithm::fnv1_64) return {fnv1_64(bytes), 0};
        if (funnel_ == guava_funnel::unencoded_chars) {
            thread_local std::vector<std::byte> units;
            utf16le_of_utf8(bytes, units);
            return murmur3_digest(units);
        }
        return murmur3_digest(bytes);
    }

    template <hashable_key Key>
    [[nodiscard]] digest hash_key_bytes(const Key& key) const {
        return detail::with_key_bytes(key, [this](auto bytes) { return this->hash_span(bytes); });
    }

    // Inlined, so a fixed extent folds XXH3's dispatch on length away.
    template <std::size_t Extent>
    [[nodiscard, gnu::always_inline]] digest hash_span(std::span<const std::byte, Extent> bytes) const {
        if (is_foreign(algorithm_)) [[unlikely]]
            return hash_foreign_bytes(bytes);
        if (algorithm_ == hash_algorithm::xxh64) return detail::digest_of_64(XXH64(bytes.data(), bytes.size(), seed_));
        if (algorithm_ == hash_algorithm::xxh3_64_mum) return xxh3_digest<64>(bytes, seed_);
        return xxh3_digest<128>(bytes, seed_);
    }

    static constexpr hash_algorithm checked(hash_algorithm algorithm) {
        if (algorithm < hash_algorithm::xxh3_128 || algorithm > last_hash_algorithm)
            throw invalid_argument("unknown hash algorithm code " + std::to_string(static_cast<int>(algorithm)));
        return algorithm;
    }

    static constexpr guava_funnel checked_funnel(hash_algorithm algorithm, std::uint64_t seed, guava_funnel funnel) {
        if (funnel > last_guava_funnel)
            throw invalid_argument("unknown Guava funnel code " + std::to_string(static_cast<int>(funnel)));
        if (algorithm == hash_algorithm::fnv1_64 && seed != 0)
            throw invalid_argument("DCSO's hash (fnv1-64) has no seed, not " + std::to_string(seed));
        if (algorithm != hash_algorithm::murmur3_128) {
            if (funnel != guava_funnel::none)
                throw invalid_argument("a Guava funnel goes with Guava's hash (murmur3-128), not " +
                                       std::string(to_string(algorithm)));
            return funnel;
        }
        if (seed != 0) throw invalid_argument("Guava's hash (murmur3-128) has seed 0, not " + std::to_string(seed));
        return funnel == guava_funnel::none ? guava_funnel::string_utf8 : funnel;
    }

    /// Scrambled, so that seeds 0, 1, 2... give unrelated keys.
    static constexpr std::uint64_t seed_key_of(std::uint64_t seed) noexcept {
        return detail::mix64(seed ^ 0x2d358dccaa6c78a5ULL);
    }

    hash_algorithm algorithm_ = default_hash_algorithm;
    std::uint64_t seed_ = default_seed;
    std::uint64_t seed_key_ = seed_key_of(default_seed);                  // derived from seed_; equal when seeds are
    detail::mum_secrets secrets_ = detail::mum_secrets_of(default_seed);  // likewise
    guava_funnel funnel_ = guava_funnel::none;
    bool own_width_ = true;  // own_width_integers()
};

}  // namespace bloomkit
