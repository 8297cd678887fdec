// bloomkit/io/stage_table.hpp — the stored form of several block Bloom filters in one payload:
// a scalable filter's stages, a windowed filter's generations (docs/FORMAT.md, "Stage tables").
//
// A table of 64-byte entries, one per filter — bits, probes, expected keys, target FPR, keys
// inserted, bits set, the offset of its words, and a label the kind gives it (a windowed
// generation's number; 0 for a scalable stage) — then each filter's words at a 64-byte boundary
// (sizing/stage_table.hpp). Reading checks that the table describes the payload exactly: in
// order, inside it, nothing after the last filter, counts that add up.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/io/bloom_codec.hpp"
#include "bloomkit/io/codec.hpp"
#include "bloomkit/sizing/stage_table.hpp"

namespace bloomkit::detail {

/// Byte offsets in a table entry.
namespace stage_entry {
inline constexpr std::size_t size = 64, bits = 0, hashes = 8, expected_keys = 16, target_fpr = 24, inserted_count = 32,
                             set_bits = 40, offset = 48, label = 56;
}

static_assert(stage_entry::size == stage_entry_bytes);

/// The filters of a table, and each one's label.
struct stored_stages {
    std::vector<block_bloom_filter> filters;
    std::vector<std::uint64_t> labels;
};

/// Writes the table and the filters' words; label_of(i) is filter i's label.
template <class LabelOf>
void write_stage_table(std::span<const block_bloom_filter> filters, payload_sink& sink, const LabelOf& label_of) {
    namespace e = stage_entry;
    std::vector<std::byte> table(filters.size() * e::size);
    std::uint64_t offset = table.size();
    for (std::size_t i = 0; i < filters.size(); ++i) {
        const block_bloom_filter& filter = filters[i];
        header_bytes entry;  // reuses the little-endian accessors
        offset = stage_offset(offset);
        entry.set<std::uint64_t>(e::bits, filter.bit_count());
        entry.set<std::uint32_t>(e::hashes, filter.hash_count());
        entry.set<std::uint64_t>(e::expected_keys, filter.expected_keys());
        entry.set<double>(e::target_fpr, filter.target_fpr());
        entry.set<std::uint64_t>(e::inserted_count, filter.inserted_count());
        entry.set<std::uint64_t>(e::set_bits, filter.set_bit_count());
        entry.set<std::uint64_t>(e::offset, offset);
        entry.set<std::uint64_t>(e::label, label_of(i));
        std::copy_n(entry.bytes.data(), e::size, table.data() + i * e::size);
        offset += filter.size_in_bytes();
    }
    sink.bytes(table);
    for (const block_bloom_filter& filter : filters) {
        sink.zeros(static_cast<std::size_t>(stage_offset(sink.size()) - sink.size()));
        sink.words(filter.words());
    }
}

/// The `count` filters of the payload of a validated header `h` (each hashing as `h` says);
/// throws file_format_error, its message starting with `kind` ("scalable Bloom filter"), when
/// the table does not describe the payload or its counts do not add up to h's.
inline stored_stages read_stage_table(const file_header& h, payload_source& payload, std::uint32_t count,
                                      const std::string& kind, const char* filter_word) {
    namespace e = stage_entry;
    const auto table = payload.bytes();
    const std::uint64_t table_size = std::uint64_t{count} * e::size;
    auto fail = [&](const std::string& why) { throw file_format_error(format_errc::invalid_field, kind + ": " + why); };
    if (table.size() < table_size) fail("the " + std::string(filter_word) + " table is cut short");
    stored_stages stored;
    std::uint64_t next = table_size, held = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::string which = std::string(filter_word) + " " + std::to_string(i);
        header_bytes entry;
        std::copy_n(table.data() + i * e::size, e::size, entry.bytes.data());
        const bloom_geometry geometry{entry.get<std::uint64_t>(e::bits), entry.get<std::uint32_t>(e::hashes)};
        try {
            check_geometry(bloom_layout::block, geometry);
        } catch (const invalid_argument& err) {
            fail(which + ": " + err.what());
        }
        const std::uint64_t offset = entry.get<std::uint64_t>(e::offset), bytes = geometry.bits / 8;
        if (offset != stage_offset(next) || offset > table.size() || bytes > table.size() - offset)
            fail(which + " lies outside the payload or out of order");
        next = offset + bytes;
        file_header stage = h;
        stage.expected_keys = entry.get<std::uint64_t>(e::expected_keys);
        stage.target_fpr = entry.get<double>(e::target_fpr);
        stage.inserted_count = entry.get<std::uint64_t>(e::inserted_count);
        if (stage.inserted_count > UINT64_MAX - held)
            fail("the " + std::string(filter_word) + "s' key counts overflow");
        held += stage.inserted_count;
        stored.filters.push_back(assemble_bloom<block_layout>(stage, geometry, payload, offset));
        stored.labels.push_back(entry.get<std::uint64_t>(e::label));
    }
    if (next != table.size()) fail("the payload does not end with the last " + std::string(filter_word));
    if (held != h.inserted_count)
        fail("the header counts " + std::to_string(h.inserted_count) + " keys, the " + filter_word + "s " +
             std::to_string(held));
    return stored;
}

}  // namespace bloomkit::detail
