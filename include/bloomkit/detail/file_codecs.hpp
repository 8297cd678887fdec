// bloomkit/detail/file_codecs.hpp — how each filter kind fills the kind-specific bytes of the
// header and lays out its payload (docs/FORMAT.md), and how it is put back together from them.
//
// A codec is a specialisation of file_codec<Filter> with:
//   kind                       the filter_kind code
//   holds(header)              whether a file's header describes exactly this Filter type
//   name()                     how errors name it ("block Bloom filter")
//   describe(filter, header)   the kind's header fields and payload size
//   write(header, bytes)       those fields into the header's bytes
//   payload(filter, piece)     piece(bytes) for each part of the payload, in order
//   assemble(header, payload)  the filter, from a validated header and its payload
// and read_kind_parameters() below checks the bytes of every kind before anything trusts them.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/binary_fuse_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/detail/file_header.hpp"
#include "bloomkit/detail/word_storage.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit {

/// Every field of a file's header, decoded and validated. The common fields hold for every
/// kind; of the kind parameters, only those of `kind` are meaningful.
struct file_header {
    std::uint16_t version = file_format_version;
    filter_kind kind = filter_kind::bloom;
    hash_algorithm hash = hash_algorithm::xxh3_128;
    std::uint64_t seed = default_seed;
    std::uint64_t expected_keys = 0;  ///< what the filter was sized for; 0 if built from a geometry
    double target_fpp = 0;            ///< likewise
    std::uint64_t inserted_count = 0; ///< the filter's inserted_count() (cuckoo: size(); fuse: keys)
    std::uint64_t payload_offset = file_header_size;
    std::uint64_t payload_size = 0;
    std::uint64_t payload_checksum = 0;

    // Bloom filter (and the stage layout of a scalable one)
    bloom_layout layout = bloom_layout::block;
    bloom_geometry geometry{};
    std::uint64_t set_bits = 0;  ///< Bloom: bits set; counting: nonzero counters — so info reads no payload
    // Counting Bloom filter
    counting_geometry counting{};
    // Cuckoo filter
    cuckoo_geometry cuckoo{};
    cuckoo_victim stash{};
    // Scalable Bloom filter
    scalable_parameters scalable{};
    std::uint32_t stages = 0;
    // Binary fuse filter
    binary_fuse_parameters fuse{};

    /// Keys held, from the header alone: estimated from the fill for Bloom and counting
    /// filters (+infinity when full), exact for cuckoo and binary fuse, inserted_count for
    /// scalable.
    [[nodiscard]] double approximate_count() const {
        switch (kind) {
            case filter_kind::bloom: return estimate_keys(layout, geometry, set_bits);
            case filter_kind::counting_bloom: return estimate_counting_keys(counting, set_bits);
            case filter_kind::cuckoo: return static_cast<double>(inserted_count);
            case filter_kind::scalable_bloom: return static_cast<double>(inserted_count);
            case filter_kind::binary_fuse: return static_cast<double>(fuse.keys);
        }
        return 0;
    }
    /// The FPR the filter has now, from the header alone; NaN for scalable (it depends on each
    /// stage's fill: ask the filter).
    [[nodiscard]] double current_fpr() const {
        switch (kind) {
            case filter_kind::bloom: return bloomkit::current_fpr(layout, geometry, set_bits);
            case filter_kind::counting_bloom: return current_counting_fpr(counting, set_bits);
            case filter_kind::cuckoo:
                return cuckoo.buckets == 0 ? 0.0
                                           : cuckoo_fpr(cuckoo.fingerprint_bits, static_cast<double>(inserted_count) /
                                                                                     (4.0 * static_cast<double>(cuckoo.buckets)));
            case filter_kind::scalable_bloom: return std::nan("");
            case filter_kind::binary_fuse: return fuse.keys == 0 ? 0.0 : std::ldexp(1.0, -static_cast<int>(fuse.fingerprint_bits));
        }
        return 1;
    }
};

namespace detail {

/// Byte-swaps loaded words on big-endian machines (compiled away on little-endian ones).
template <class Word>
void words_from_little_endian(word_storage<Word>& words) noexcept {
    if constexpr (std::endian::native != std::endian::little && sizeof(Word) > 1)
        if (!words.read_only())
            for (Word* w = const_cast<Word*>(words.data()), *end = w + words.size(); w != end; ++w) *w = little_endian(*w);
}

/// The payload of a file being opened: read into memory (load) or mapped (map). Hands its
/// words to the filter being assembled: adopted without a copy where it can, viewed in place
/// when mapped.
class payload_source {
public:
    /// An owned payload read from a file.
    explicit payload_source(zeroed_block owned, std::uint64_t size) : owned_(std::move(owned)), size_(size) {
        data_ = static_cast<const std::byte*>(owned_.data());
    }
    /// A mapped payload, kept alive by `keepalive`.
    payload_source(const std::byte* data, std::uint64_t size, std::shared_ptr<const void> keepalive)
        : data_(data), size_(size), keepalive_(std::move(keepalive)) {}

    [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_, static_cast<std::size_t>(size_)}; }

    /// `count` little-endian words at `offset` bytes into the payload (64-byte aligned), in the
    /// machine's byte order.
    template <class Word>
    word_storage<Word> words(std::uint64_t offset, std::uint64_t count) {
        word_storage<Word> words = raw_words<Word>(offset, count);
        words_from_little_endian(words);
        return words;
    }

private:
    template <class Word>
    word_storage<Word> raw_words(std::uint64_t offset, std::uint64_t count) {
        const auto* first = reinterpret_cast<const Word*>(data_ + offset);
        if (keepalive_) return word_storage<Word>::view(first, count, keepalive_);
        if (offset == 0 && count * sizeof(Word) == size_ && owned_.data() != nullptr) {
            data_ = nullptr;
            return word_storage<Word>::adopt(std::move(owned_), count);  // the whole payload: no copy
        }
        word_storage<Word> copy(count);
        std::copy_n(first, count, const_cast<Word*>(copy.data()));
        return copy;
    }

    zeroed_block owned_;
    const std::byte* data_ = nullptr;
    std::uint64_t size_ = 0;
    std::shared_ptr<const void> keepalive_;
};

/// Words as their little-endian bytes (the machine's own bytes on a little-endian machine; a
/// swapped copy elsewhere), for writing.
template <class Word, class Piece>
void little_endian_piece(std::span<const Word> words, Piece&& piece) {
    if constexpr (std::endian::native == std::endian::little || sizeof(Word) == 1) {
        piece(std::as_bytes(words));
    } else {
        std::vector<Word> swapped(words.begin(), words.end());
        for (Word& w : swapped) w = little_endian(w);
        piece(std::as_bytes(std::span<const Word>(swapped)));
    }
}

template <class Filter>
void describe_common(const Filter& filter, file_header& h) {
    h.hash = filter.hash_function().algorithm();
    h.seed = filter.hash_function().seed();
}

inline hasher hasher_of(const file_header& h) { return hasher(h.hash, h.seed); }

template <class Filter>
struct file_codec;

// --- Bloom filter: kind 1 ----------------------------------------------------------------
// [14] layout, [24] bits, [32] hashes, [36] block bits, [64] set bits; payload: the words.

/// Payload bytes of a Bloom filter: whole words (the blocked layouts' blocks are whole words
/// already; classic rounds up to a 64-bit word).
inline std::uint64_t payload_bytes(bloom_layout layout, bloom_geometry g) noexcept {
    return layout == bloom_layout::classic ? (g.bits / 64 + (g.bits % 64 != 0)) * 8 : g.bits / 8;
}

struct bloom_file_access {
    /// The filter `h` describes, from its words at `offset` bytes into the payload.
    template <class Layout>
    static basic_bloom_filter<Layout> assemble(const file_header& h, payload_source& payload, std::uint64_t offset = 0) {
        using filter_type = basic_bloom_filter<Layout>;
        using word = typename filter_type::word_type;
        auto words = payload.words<word>(offset, payload_bytes(Layout::id, h.geometry) / sizeof(word));
        filter_type filter(h.geometry, hasher_of(h), std::move(words));
        filter.expected_keys_ = h.expected_keys;
        filter.target_fpp_ = h.target_fpp;
        filter.inserted_ = h.inserted_count;
        return filter;
    }
};

template <class Layout>
struct file_codec<basic_bloom_filter<Layout>> {
    using filter_type = basic_bloom_filter<Layout>;
    static constexpr filter_kind kind = filter_kind::bloom;

    static bool holds(const file_header& h) noexcept { return h.kind == kind && h.layout == Layout::id; }
    static std::string name() { return std::string(to_string(Layout::id)) + " Bloom filter"; }

    static void describe(const filter_type& filter, file_header& h) {
        describe_common(filter, h);
        h.layout = Layout::id;
        h.geometry = filter.geometry();
        h.expected_keys = filter.expected_keys();
        h.target_fpp = filter.target_fpp();
        h.inserted_count = filter.inserted_count();
        h.set_bits = filter.set_bit_count();
        h.payload_size = filter.size_in_bytes();
    }
    static void write(const file_header& h, header_bytes& b) {
        namespace f = header_field;
        b.set<std::uint8_t>(f::layout, static_cast<std::uint8_t>(h.layout));
        b.set<std::uint64_t>(f::bits, h.geometry.bits);
        b.set<std::uint32_t>(f::hashes, h.geometry.hashes);
        b.set<std::uint32_t>(f::block_bits, static_cast<std::uint32_t>(block_bits(h.layout)));
        b.set<std::uint64_t>(f::set_bits, h.set_bits);
    }
    template <class Piece>
    static void payload(const filter_type& filter, Piece&& piece) {
        little_endian_piece(filter.words(), piece);
    }
    static filter_type assemble(const file_header& h, payload_source& payload) {
        return bloom_file_access::assemble<Layout>(h, payload);
    }
};

inline std::uint64_t read_bloom_parameters(const header_bytes& b, file_header& h, const std::string& where) {
    namespace f = header_field;
    const auto layout = b.get<std::uint8_t>(f::layout);
    if (layout < 1 || layout > 3) reject_field(where, "unknown Bloom filter layout " + std::to_string(layout));
    h.layout = static_cast<bloom_layout>(layout);
    h.geometry = {b.get<std::uint64_t>(f::bits), b.get<std::uint32_t>(f::hashes)};
    try {
        check_geometry(h.layout, h.geometry);
    } catch (const invalid_argument& e) {
        reject_field(where, e.what());
    }
    if (const auto stored = b.get<std::uint32_t>(f::block_bits); stored != block_bits(h.layout))
        reject_field(where, "block size " + std::to_string(stored) + " bits does not match the " +
                                std::string(to_string(h.layout)) + " layout");
    h.set_bits = b.get<std::uint64_t>(f::set_bits);
    if (h.set_bits > h.geometry.bits)
        reject_field(where, std::to_string(h.set_bits) + " bits set out of only " + std::to_string(h.geometry.bits));
    check_reserved(b, f::extra, where);
    return payload_bytes(h.layout, h.geometry);
}

// --- Counting Bloom filter: kind 2 -------------------------------------------------------
// [14] 1 (blocks of 128 4-bit counters), [24] counters, [32] hashes, [36] counters per block
// (128), [64] nonzero counters, [96] counter bits (4); payload: 16 counters per 64-bit word.

inline constexpr std::uint32_t counting_variant = 1, counters_per_block = 128, counter_bits = 4;

struct counting_file_access {
    static counting_bloom_filter assemble(const file_header& h, payload_source& payload) {
        auto words = payload.words<std::uint64_t>(0, h.payload_size / 8);
        counting_bloom_filter filter(h.counting, hasher_of(h), std::move(words));
        filter.expected_keys_ = h.expected_keys;
        filter.target_fpp_ = h.target_fpp;
        filter.inserted_ = h.inserted_count;
        return filter;
    }
};

template <>
struct file_codec<counting_bloom_filter> {
    static constexpr filter_kind kind = filter_kind::counting_bloom;
    static bool holds(const file_header& h) noexcept { return h.kind == kind; }
    static std::string name() { return "counting Bloom filter"; }

    static void describe(const counting_bloom_filter& filter, file_header& h) {
        describe_common(filter, h);
        h.counting = filter.geometry();
        h.expected_keys = filter.expected_keys();
        h.target_fpp = filter.target_fpp();
        h.inserted_count = filter.inserted_count();
        h.set_bits = filter.nonzero_counter_count();
        h.payload_size = filter.size_in_bytes();
    }
    static void write(const file_header& h, header_bytes& b) {
        namespace f = header_field;
        b.set<std::uint8_t>(f::variant, counting_variant);
        b.set<std::uint64_t>(f::parameter64, h.counting.counters);
        b.set<std::uint32_t>(f::parameter32a, h.counting.hashes);
        b.set<std::uint32_t>(f::parameter32b, counters_per_block);
        b.set<std::uint64_t>(f::parameter_aux, h.set_bits);
        b.set<std::uint32_t>(f::extra, counter_bits);
    }
    template <class Piece>
    static void payload(const counting_bloom_filter& filter, Piece&& piece) {
        little_endian_piece(filter.words(), piece);
    }
    static counting_bloom_filter assemble(const file_header& h, payload_source& payload) {
        return counting_file_access::assemble(h, payload);
    }
};

inline std::uint64_t read_counting_parameters(const header_bytes& b, file_header& h, const std::string& where) {
    namespace f = header_field;
    if (b.get<std::uint8_t>(f::variant) != counting_variant || b.get<std::uint32_t>(f::parameter32b) != counters_per_block ||
        b.get<std::uint32_t>(f::extra) != counter_bits)
        reject_field(where, "unknown counting Bloom filter layout (this bloomkit reads blocks of 128 4-bit counters)");
    h.counting = {b.get<std::uint64_t>(f::parameter64), b.get<std::uint32_t>(f::parameter32a)};
    if (h.counting.counters == 0 || h.counting.counters % counters_per_block != 0)
        reject_field(where, std::to_string(h.counting.counters) + " counters is not a whole number of 128-counter blocks");
    if (h.counting.hashes == 0 || h.counting.hashes > max_hashes)
        reject_field(where, "the number of hash probes must be between 1 and " + std::to_string(max_hashes) + ", got " +
                                std::to_string(h.counting.hashes));
    h.set_bits = b.get<std::uint64_t>(f::parameter_aux);
    if (h.set_bits > h.counting.counters)
        reject_field(where, std::to_string(h.set_bits) + " nonzero counters out of only " + std::to_string(h.counting.counters));
    check_reserved(b, f::extra + 4, where);
    return h.counting.counters / 2;  // 4 bits each
}

// --- Cuckoo filter: kind 3 ---------------------------------------------------------------
// [24] buckets, [32] fingerprint bits, [36] bucket size (4), [56] stored fingerprints,
// [64] stash bucket, [96] stash fingerprint (0: empty); payload: the packed table.

struct cuckoo_file_access {
    static cuckoo_filter assemble(const file_header& h, payload_source& payload) {
        auto words = payload.words<std::uint64_t>(0, h.payload_size / 8);
        cuckoo_filter filter(h.cuckoo, hasher_of(h), std::move(words), h.stash, h.inserted_count);
        filter.expected_keys_ = h.expected_keys;
        filter.target_fpp_ = h.target_fpp;
        return filter;
    }
};

template <>
struct file_codec<cuckoo_filter> {
    static constexpr filter_kind kind = filter_kind::cuckoo;
    static bool holds(const file_header& h) noexcept { return h.kind == kind; }
    static std::string name() { return "cuckoo filter"; }

    static void describe(const cuckoo_filter& filter, file_header& h) {
        describe_common(filter, h);
        h.cuckoo = filter.geometry();
        h.stash = filter.stash();
        h.expected_keys = filter.expected_keys();
        h.target_fpp = filter.target_fpp();
        h.inserted_count = filter.size();
        h.payload_size = filter.words().size_bytes();
    }
    static void write(const file_header& h, header_bytes& b) {
        namespace f = header_field;
        b.set<std::uint64_t>(f::parameter64, h.cuckoo.buckets);
        b.set<std::uint32_t>(f::parameter32a, h.cuckoo.fingerprint_bits);
        b.set<std::uint32_t>(f::parameter32b, cuckoo_bucket_size);
        b.set<std::uint64_t>(f::parameter_aux, h.stash.bucket);
        b.set<std::uint32_t>(f::extra, h.stash.fingerprint);
    }
    template <class Piece>
    static void payload(const cuckoo_filter& filter, Piece&& piece) {
        little_endian_piece(filter.words(), piece);
    }
    static cuckoo_filter assemble(const file_header& h, payload_source& payload) { return cuckoo_file_access::assemble(h, payload); }
};

inline std::uint64_t read_cuckoo_parameters(const header_bytes& b, file_header& h, const std::string& where) {
    namespace f = header_field;
    if (b.get<std::uint8_t>(f::variant) != 0 || b.get<std::uint32_t>(f::parameter32b) != cuckoo_bucket_size)
        reject_field(where, "unknown cuckoo filter layout (this bloomkit reads buckets of 4 fingerprints)");
    h.cuckoo = {b.get<std::uint64_t>(f::parameter64), b.get<std::uint32_t>(f::parameter32a)};
    try {
        check_cuckoo_geometry(h.cuckoo);
    } catch (const invalid_argument& e) {
        reject_field(where, e.what());
    }
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

// --- Scalable Bloom filter: kind 4 -------------------------------------------------------
// [14] 2 (stages are block Bloom filters), [24] initial capacity, [32] stages, [40] initial
// capacity again (expected keys), [48] p, [96] growth, [104] tightening (binary64);
// payload: a 64-byte entry per stage, then each stage's words at a 64-byte aligned offset.

namespace scalable_entry {
inline constexpr std::size_t size = 64, bits = 0, hashes = 8, expected_keys = 16, target_fpp = 24, inserted_count = 32,
                             set_bits = 40, offset = 48;
}

struct scalable_file_access {
    static scalable_bloom_filter assemble(const file_header& h, payload_source& payload);
};

template <>
struct file_codec<scalable_bloom_filter> {
    static constexpr filter_kind kind = filter_kind::scalable_bloom;
    static bool holds(const file_header& h) noexcept { return h.kind == kind; }
    static std::string name() { return "scalable Bloom filter"; }

    static std::uint64_t stage_offset(std::uint64_t table_end) noexcept { return (table_end + 63) / 64 * 64; }

    static void describe(const scalable_bloom_filter& filter, file_header& h) {
        describe_common(filter, h);
        h.scalable = filter.parameters();
        h.stages = static_cast<std::uint32_t>(filter.stage_count());
        h.expected_keys = h.scalable.initial_capacity;
        h.target_fpp = h.scalable.fpp;
        h.inserted_count = filter.inserted_count();
        std::uint64_t size = filter.stage_count() * scalable_entry::size;
        for (const block_bloom_filter& stage : filter.stages()) size = stage_offset(size) + stage.size_in_bytes();
        h.payload_size = size;
    }
    static void write(const file_header& h, header_bytes& b) {
        namespace f = header_field;
        b.set<std::uint8_t>(f::variant, static_cast<std::uint8_t>(bloom_layout::block));
        b.set<std::uint64_t>(f::parameter64, h.scalable.initial_capacity);
        b.set<std::uint32_t>(f::parameter32a, h.stages);
        b.set<double>(f::extra, h.scalable.growth);
        b.set<double>(f::extra + 8, h.scalable.tightening);
    }
    template <class Piece>
    static void payload(const scalable_bloom_filter& filter, Piece&& piece) {
        // The stage table first, then the stages' words, each padded to a 64-byte boundary.
        const auto stages = filter.stages();
        std::vector<std::byte> table(stages.size() * scalable_entry::size);
        std::uint64_t offset = table.size();
        for (std::size_t i = 0; i < stages.size(); ++i) {
            header_bytes entry;  // reuses the little-endian accessors
            namespace e = scalable_entry;
            offset = stage_offset(offset);
            entry.set<std::uint64_t>(e::bits, stages[i].bit_count());
            entry.set<std::uint32_t>(e::hashes, stages[i].hash_count());
            entry.set<std::uint64_t>(e::expected_keys, stages[i].expected_keys());
            entry.set<double>(e::target_fpp, stages[i].target_fpp());
            entry.set<std::uint64_t>(e::inserted_count, stages[i].inserted_count());
            entry.set<std::uint64_t>(e::set_bits, stages[i].set_bit_count());
            entry.set<std::uint64_t>(e::offset, offset);
            std::copy_n(entry.bytes.data(), e::size, table.data() + i * e::size);
            offset += stages[i].size_in_bytes();
        }
        piece(std::span<const std::byte>(table));
        std::uint64_t written = table.size();
        static constexpr std::byte zeros[64] = {};
        for (const block_bloom_filter& stage : stages) {
            piece(std::span<const std::byte>(zeros, static_cast<std::size_t>(stage_offset(written) - written)));
            little_endian_piece(stage.words(), piece);
            written = stage_offset(written) + stage.size_in_bytes();
        }
    }
    static scalable_bloom_filter assemble(const file_header& h, payload_source& payload) {
        return scalable_file_access::assemble(h, payload);
    }
};

inline scalable_bloom_filter scalable_file_access::assemble(const file_header& h, payload_source& payload) {
    namespace e = scalable_entry;
    const auto table = payload.bytes();
    const std::uint64_t table_size = std::uint64_t{h.stages} * e::size;
    auto fail = [](const std::string& why) {
        throw file_format_error(format_errc::invalid_field, "scalable Bloom filter: " + why);
    };
    if (table.size() < table_size) fail("the stage table is cut short");
    std::vector<block_bloom_filter> stages;
    std::uint64_t next = table_size;
    for (std::uint32_t i = 0; i < h.stages; ++i) {
        header_bytes entry;
        std::copy_n(table.data() + i * e::size, e::size, entry.bytes.data());
        const bloom_geometry g{entry.get<std::uint64_t>(e::bits), entry.get<std::uint32_t>(e::hashes)};
        try {
            check_geometry(bloom_layout::block, g);
        } catch (const invalid_argument& err) {
            fail("stage " + std::to_string(i) + ": " + err.what());
        }
        const std::uint64_t offset = entry.get<std::uint64_t>(e::offset), bytes = g.bits / 8;
        if (offset != file_codec<scalable_bloom_filter>::stage_offset(next) || offset > table.size() || bytes > table.size() - offset)
            fail("stage " + std::to_string(i) + " lies outside the payload or out of order");
        next = offset + bytes;
        file_header stage_header = h;
        stage_header.layout = bloom_layout::block;
        stage_header.geometry = g;
        stage_header.expected_keys = entry.get<std::uint64_t>(e::expected_keys);
        stage_header.target_fpp = entry.get<double>(e::target_fpp);
        stage_header.inserted_count = entry.get<std::uint64_t>(e::inserted_count);
        block_bloom_filter stage = bloom_file_access::assemble<block_layout>(stage_header, payload, offset);
        stages.push_back(std::move(stage));
    }
    if (next != table.size()) fail("the payload does not end with the last stage");
    std::uint64_t held = 0;
    for (const block_bloom_filter& stage : stages) {
        if (stage.inserted_count() > UINT64_MAX - held) fail("the stages' key counts overflow");
        held += stage.inserted_count();
    }
    if (held != h.inserted_count)
        fail("the header counts " + std::to_string(h.inserted_count) + " keys, the stages " + std::to_string(held));
    return scalable_bloom_filter(h.scalable, hasher_of(h), std::move(stages));  // checks the stages follow the plan
}

inline std::uint64_t read_scalable_parameters(const header_bytes& b, file_header& h, const std::string& where) {
    namespace f = header_field;
    if (b.get<std::uint8_t>(f::variant) != static_cast<std::uint8_t>(bloom_layout::block))
        reject_field(where, "unknown scalable Bloom filter stage layout");
    h.scalable = {b.get<std::uint64_t>(f::parameter64), h.target_fpp, b.get<double>(f::extra), b.get<double>(f::extra + 8)};
    h.stages = b.get<std::uint32_t>(f::parameter32a);
    if (h.scalable.initial_capacity == 0 || !(h.scalable.fpp > 0) || !(h.scalable.growth >= 1 && h.scalable.growth <= 16) ||
        !(h.scalable.tightening > 0 && h.scalable.tightening < 1))
        reject_field(where, "impossible scalable Bloom filter parameters (capacity, p, growth or tightening)");
    if (h.stages == 0 || h.stages > 4096) reject_field(where, std::to_string(h.stages) + " stages");
    if (h.expected_keys != h.scalable.initial_capacity)
        reject_field(where, "expected keys " + std::to_string(h.expected_keys) + " differ from the initial capacity " +
                                std::to_string(h.scalable.initial_capacity));
    if (b.get<std::uint32_t>(f::parameter32b) != 0 || b.get<std::uint64_t>(f::parameter_aux) != 0)
        reject_field(where, "reserved scalable Bloom filter fields are not zero");
    check_reserved(b, f::extra + 16, where);
    return h.payload_size;  // checked stage by stage when assembled
}

// --- Binary fuse filter: kind 5 ----------------------------------------------------------
// [14] arity, [24] array length, [32] fingerprint bits, [36] segment length, [56] keys,
// [64] construction seed, [96] segment count; payload: the fingerprints.

struct fuse_file_access {
    template <class Fingerprint, unsigned Arity>
    static basic_binary_fuse_filter<Fingerprint, Arity> assemble(const file_header& h, payload_source& payload) {
        auto fingerprints = payload.words<Fingerprint>(0, h.fuse.geometry.array_length);
        return basic_binary_fuse_filter<Fingerprint, Arity>(h.fuse, hasher_of(h), std::move(fingerprints));
    }
};

template <class Fingerprint, unsigned Arity>
struct file_codec<basic_binary_fuse_filter<Fingerprint, Arity>> {
    using filter_type = basic_binary_fuse_filter<Fingerprint, Arity>;
    static constexpr filter_kind kind = filter_kind::binary_fuse;
    static bool holds(const file_header& h) noexcept {
        return h.kind == kind && h.fuse.arity == Arity && h.fuse.fingerprint_bits == 8 * sizeof(Fingerprint);
    }
    static std::string name() {
        return std::to_string(Arity) + "-wise " + std::to_string(8 * sizeof(Fingerprint)) + "-bit binary fuse filter";
    }
    static void describe(const filter_type& filter, file_header& h) {
        describe_common(filter, h);
        h.fuse = filter.parameters();
        h.inserted_count = filter.size();
        h.payload_size = filter.size_in_bytes();
    }
    static void write(const file_header& h, header_bytes& b) {
        namespace f = header_field;
        b.set<std::uint8_t>(f::variant, static_cast<std::uint8_t>(h.fuse.arity));
        b.set<std::uint64_t>(f::parameter64, h.fuse.geometry.array_length);
        b.set<std::uint32_t>(f::parameter32a, h.fuse.fingerprint_bits);
        b.set<std::uint32_t>(f::parameter32b, static_cast<std::uint32_t>(h.fuse.geometry.segment_length));
        b.set<std::uint64_t>(f::parameter_aux, h.fuse.construction_seed);
        b.set<std::uint64_t>(f::extra, h.fuse.geometry.segment_count);
    }
    template <class Piece>
    static void payload(const filter_type& filter, Piece&& piece) {
        little_endian_piece(filter.fingerprints(), piece);
    }
    static filter_type assemble(const file_header& h, payload_source& payload) {
        return fuse_file_access::assemble<Fingerprint, Arity>(h, payload);
    }
};

inline std::uint64_t read_fuse_parameters(const header_bytes& b, file_header& h, const std::string& where) {
    namespace f = header_field;
    h.fuse.arity = b.get<std::uint8_t>(f::variant);
    h.fuse.fingerprint_bits = b.get<std::uint32_t>(f::parameter32a);
    if ((h.fuse.arity != 3 && h.fuse.arity != 4) || (h.fuse.fingerprint_bits != 8 && h.fuse.fingerprint_bits != 16))
        reject_field(where, "unknown binary fuse filter: " + std::to_string(h.fuse.arity) + "-wise with " +
                                std::to_string(h.fuse.fingerprint_bits) + "-bit fingerprints");
    h.fuse.keys = h.inserted_count;
    h.fuse.geometry = {b.get<std::uint32_t>(f::parameter32b), b.get<std::uint64_t>(f::extra), b.get<std::uint64_t>(f::parameter64)};
    h.fuse.construction_seed = b.get<std::uint64_t>(f::parameter_aux);
    const binary_fuse_geometry& g = h.fuse.geometry;
    if (g.segment_length > binary_fuse_max_segment_length || g.segment_count > (std::uint64_t{1} << 40) ||
        g.array_length != (g.segment_count == 0 && g.segment_length == 0 ? 0 : (g.segment_count + h.fuse.arity - 1) * g.segment_length))
        reject_field(where, "inconsistent binary fuse geometry (segments of " + std::to_string(g.segment_length) + " slots, " +
                                std::to_string(g.segment_count) + " segments, " + std::to_string(g.array_length) + " slots)");
    try {
        check_binary_fuse_parameters(h.fuse);
    } catch (const invalid_argument& e) {
        reject_field(where, e.what());
    }
    if (h.expected_keys != 0 || h.target_fpp != 0) reject_field(where, "a binary fuse filter has no expected keys or target fpp");
    check_reserved(b, f::extra + 8, where);
    return g.array_length * (h.fuse.fingerprint_bits / 8);
}

// --- Every kind --------------------------------------------------------------------------

/// Decodes and validates a whole header read from a file of `file_size` bytes; `seen` holds
/// the file's first min(file_size, 128) bytes.
inline file_header decode_header(std::span<const std::byte> seen, std::uint64_t file_size, const std::string& where) {
    namespace f = header_field;
    const header_bytes b = check_common_header(seen, file_size, where);
    file_header h;
    h.version = b.get<std::uint16_t>(f::version);
    h.kind = static_cast<filter_kind>(b.get<std::uint16_t>(f::kind));
    h.hash = static_cast<hash_algorithm>(b.get<std::uint8_t>(f::hash));
    h.seed = b.get<std::uint64_t>(f::seed);
    h.expected_keys = b.get<std::uint64_t>(f::expected_keys);
    h.target_fpp = b.get<double>(f::target_fpp);
    h.inserted_count = b.get<std::uint64_t>(f::inserted_count);
    h.payload_size = b.get<std::uint64_t>(f::payload_size);
    h.payload_checksum = b.get<std::uint64_t>(f::payload_checksum);
    std::uint64_t expected_payload = 0;
    switch (h.kind) {
        case filter_kind::bloom: expected_payload = read_bloom_parameters(b, h, where); break;
        case filter_kind::counting_bloom: expected_payload = read_counting_parameters(b, h, where); break;
        case filter_kind::cuckoo: expected_payload = read_cuckoo_parameters(b, h, where); break;
        case filter_kind::scalable_bloom: expected_payload = read_scalable_parameters(b, h, where); break;
        case filter_kind::binary_fuse: expected_payload = read_fuse_parameters(b, h, where); break;
    }
    if (h.payload_size != expected_payload)
        reject_field(where, "payload size " + std::to_string(h.payload_size) + " bytes, but the " +
                                std::string(to_string(h.kind)) + " filter's parameters need " + std::to_string(expected_payload));
    check_file_size(h.payload_size, file_size, where);
    return h;
}

/// The header's bytes for a filter's description.
template <class Filter>
header_bytes encode_header(const file_header& h) {
    namespace f = header_field;
    header_bytes b;
    b.set<std::uint16_t>(f::kind, static_cast<std::uint16_t>(file_codec<Filter>::kind));
    b.set<std::uint8_t>(f::hash, static_cast<std::uint8_t>(h.hash));
    b.set<std::uint64_t>(f::seed, h.seed);
    b.set<std::uint64_t>(f::expected_keys, h.expected_keys);
    b.set<double>(f::target_fpp, h.target_fpp);
    b.set<std::uint64_t>(f::inserted_count, h.inserted_count);
    b.set<std::uint64_t>(f::payload_size, h.payload_size);
    b.set<std::uint64_t>(f::payload_checksum, h.payload_checksum);
    file_codec<Filter>::write(h, b);
    seal(b);
    return b;
}

}  // namespace detail
}  // namespace bloomkit
