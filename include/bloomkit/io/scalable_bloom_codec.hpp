// bloomkit/io/scalable_bloom_codec.hpp — the bkf codec of the scalable Bloom filter (kind 4,
// docs/FORMAT.md).
//
// Header: [14] 2 (stages are block Bloom filters), [24] initial capacity, [32] stages, [40]
// initial capacity again (expected keys), [48] p, [96] growth, [104] tightening (binary64).
// Payload: a 64-byte entry per stage, then each stage's words at a 64-byte aligned offset.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bloomkit/io/bloom_codec.hpp"
#include "bloomkit/io/codec.hpp"
#include "bloomkit/io/stage_table.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"

namespace bloomkit {

/// A scalable Bloom filter's header parameters.
struct scalable_file_parameters {
    scalable_parameters chain{};  ///< how its stages follow one another
    std::uint32_t stages = 0;     ///< the stages it holds
    /// Every field equal.
    friend bool operator==(const scalable_file_parameters&, const scalable_file_parameters&) = default;
};

namespace detail {

/// Checks the scalable parameters of a header. The payload size is checked stage by stage
/// when the filter is assembled, so the declared one is returned.
inline std::uint64_t read_scalable_parameters(const header_bytes& b, file_header& h, const std::string& where) {
    namespace f = header_field;
    if (b.get<std::uint8_t>(f::variant) != static_cast<std::uint8_t>(bloom_layout::block))
        reject_field(where, "unknown scalable Bloom filter stage layout");
    const scalable_file_parameters p{
        {b.get<std::uint64_t>(f::parameter64), h.target_fpr, b.get<double>(f::extra), b.get<double>(f::extra + 8)},
        b.get<std::uint32_t>(f::parameter32a)};
    check_field(where, [&] { check_scalable_parameters(p.chain); });
    if (p.stages == 0 || p.stages > scalable_max_stages)
        reject_field(where, std::to_string(p.stages) + " stages (a scalable Bloom filter has 1 to " +
                                std::to_string(scalable_max_stages) + ")");
    if (h.expected_keys != p.chain.initial_capacity)
        reject_field(where, "expected keys " + std::to_string(h.expected_keys) + " differ from the initial capacity " +
                                std::to_string(p.chain.initial_capacity));
    if (b.get<std::uint32_t>(f::parameter32b) != 0 || b.get<std::uint64_t>(f::parameter_aux) != 0)
        reject_field(where, "reserved scalable Bloom filter fields are not zero");
    check_reserved(b, f::extra + 16, where);
    h.parameters = p;
    return h.payload_size;
}

}  // namespace detail

template <>
/// The bkf codec of the scalable Bloom filter (file_codec, io/codec.hpp): kind code 4, its
/// stages in the payload.
struct file_codec<scalable_bloom_filter> {
    /// The kind's header parameters.
    using parameters = scalable_file_parameters;
    /// The kind code in the header.
    static constexpr filter_kind kind{4};

    /// Whether `h` describes a scalable Bloom filter.
    static bool holds(const file_header& h) noexcept { return h.kind == kind; }
    /// Checks the scalable parameters of the header bytes `b` of the file `where`, fills them into
    /// `h`, and returns the payload size they need; throws file_format_error for a bad field.
    static std::uint64_t read_parameters(const detail::header_bytes& b, file_header& h, const std::string& where) {
        return detail::read_scalable_parameters(b, h, where);
    }
    /// Keys held: the inserted count the header records.
    static double approximate_count(const file_header& h) { return static_cast<double>(h.inserted_count); }
    /// NaN: it depends on each stage's fill, which the header does not hold (ask the filter).
    static double current_fpr(const file_header&) { return std::nan(""); }
    /// Its growth and tightening, each stage, and the compound rate now.
    static std::vector<filter_fact> facts(const scalable_bloom_filter& filter, const file_header&) {
        const scalable_parameters& chain = filter.parameters();
        filter_fact stages{"stages", std::to_string(filter.stage_count()), "stages", {}, {}, {}};
        for (std::size_t i = 0; i < filter.stage_count(); ++i) {
            const block_bloom_filter& stage = filter.stages()[i];
            stages.text += "\n    " +
                           std::string(i < 10    ? "  "
                                       : i < 100 ? " "
                                                 : "") +
                           std::to_string(i) + ": " + std::to_string(stage.expected_keys()) + " keys at " +
                           show_percent(stage.target_fpr(), 3) + ", " + std::to_string(stage.inserted_count()) +
                           " of " + std::to_string(stage.expected_keys()) + " held, " +
                           show_bytes(static_cast<double>(stage.size_in_bytes()));
            stages.records.push_back({{"expected_keys", stage.expected_keys()},
                                      {"target_fpr", stage.target_fpr()},
                                      {"inserted_keys", stage.inserted_count()},
                                      {"filter_bytes", stage.size_in_bytes()},
                                      {"current_fpr", stage.current_fpr()}});
        }
        return {{"kind",
                 "scalable Bloom filter (grows): growth " + show_number(chain.growth) + ", tightening " +
                     show_number(chain.tightening),
                 "growth",
                 chain.growth,
                 {},
                 {}},
                {"", "", "tightening", chain.tightening, {}, {}},
                std::move(stages),
                {"current FPR", show_percent(filter.current_fpr()) + " (compound over the stages)", "", {}, {}, {}}};
    }

    /// Fills the header fields of `filter`: hashing, sizing, parameters, stages, count, payload
    /// size.
    static void describe(const scalable_bloom_filter& filter, file_header& h) {
        detail::describe_common(filter, h);
        h.parameters = parameters{filter.parameters(), static_cast<std::uint32_t>(filter.stage_count())};
        h.inserted_count = filter.inserted_count();
        h.payload_size = detail::stage_table_payload_size(
            filter.stage_count(), [&](std::size_t i) -> std::uint64_t { return filter.stages()[i].size_in_bytes(); });
    }
    /// Writes the scalable parameters of `h` into the header bytes.
    static void write_parameters(const file_header& h, detail::header_bytes& b) {
        namespace f = detail::header_field;
        const parameters& p = kind_parameters<scalable_bloom_filter>(h);
        b.set<std::uint8_t>(f::variant, static_cast<std::uint8_t>(bloom_layout::block));
        b.set<std::uint64_t>(f::parameter64, p.chain.initial_capacity);
        b.set<std::uint32_t>(f::parameter32a, p.stages);
        b.set<double>(f::extra, p.chain.growth);
        b.set<double>(f::extra + 8, p.chain.tightening);
    }

    /// The stage table (io/stage_table.hpp), every label 0.
    static void write_payload(const scalable_bloom_filter& filter, detail::payload_sink& sink) {
        detail::write_stage_table(filter.stages(), sink, [](std::size_t) { return std::uint64_t{0}; });
    }

    /// The filter of a validated header and its payload; throws file_format_error when the stage
    /// table does not describe the payload or its counts do not add up.
    static scalable_bloom_filter assemble(const file_header& h, detail::payload_source& payload) {
        const parameters& p = kind_parameters<scalable_bloom_filter>(h);
        detail::stored_stages stored = detail::read_stage_table(h, payload, p.stages, "scalable Bloom filter", "stage");
        if (std::ranges::any_of(stored.labels, [](std::uint64_t label) { return label != 0; }))
            throw file_format_error(format_errc::invalid_field,
                                    "scalable Bloom filter: a stage table entry's reserved field is not zero");
        return {p.chain, detail::hasher_of(h), std::move(stored.filters)};  // checks the stages follow the plan
    }
};

}  // namespace bloomkit
