// bloomkit/io/windowed_bloom_codec.hpp — the bkf codec of the windowed Bloom filter (kind 6,
// docs/FORMAT.md).
//
// Header: [14] 2 (generations are block Bloom filters), [24] keys per window, [32] generations G,
// [40] keys per window again (expected keys), [48] p, [56] keys in the ring, [64] the newest
// generation opened, [96] the window in milliseconds. Payload: a stage table (io/stage_table.hpp)
// of the G + 1 ring slots, each labelled with the generation it holds (2^64 − 1: none).
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bloomkit/io/codec.hpp"
#include "bloomkit/io/stage_table.hpp"
#include "bloomkit/windowed_filter.hpp"

namespace bloomkit {

/// A windowed filter's header parameters.
struct windowed_file_parameters {
    window_parameters window{};  ///< keys per window, p, W and G
    std::uint64_t newest = 0;    ///< the newest generation opened
    /// Every field equal.
    friend bool operator==(const windowed_file_parameters&, const windowed_file_parameters&) = default;
};

template <>
/// The bkf codec of the windowed Bloom filter (file_codec, io/codec.hpp): kind code 6, its ring
/// in the payload.
struct file_codec<windowed_filter> {
    /// The kind's header parameters.
    using parameters = windowed_file_parameters;
    /// The kind code in the header.
    static constexpr filter_kind kind{6};

    /// Whether `h` describes a windowed filter.
    static bool holds(const file_header& h) noexcept { return h.kind == kind; }

    /// Checks the windowed parameters of the header bytes `b` of the file `where`, fills them into
    /// `h`, and returns the payload size they need; throws file_format_error for a bad field.
    static std::uint64_t read_parameters(const detail::header_bytes& b, file_header& h, const std::string& where) {
        namespace f = detail::header_field;
        if (b.get<std::uint8_t>(f::variant) != static_cast<std::uint8_t>(bloom_layout::block))
            detail::reject_field(where, "unknown windowed Bloom filter generation layout");
        const std::uint64_t window_ms = b.get<std::uint64_t>(f::extra);
        if (window_ms > static_cast<std::uint64_t>(INT64_MAX))
            detail::reject_field(where, "a windowed filter's window of " + std::to_string(window_ms) + " ms");
        const parameters p{
            {b.get<std::uint64_t>(f::parameter64), h.target_fpr,
             std::chrono::milliseconds(static_cast<std::int64_t>(window_ms)), b.get<std::uint32_t>(f::parameter32a)},
            b.get<std::uint64_t>(f::parameter_aux)};
        windowed_plan plan;
        detail::check_field(where, [&] { plan = plan_windowed_bloom(p.window); });
        if (h.expected_keys != p.window.keys_per_window)
            detail::reject_field(where, "expected keys " + std::to_string(h.expected_keys) +
                                            " differ from the keys per window " +
                                            std::to_string(p.window.keys_per_window));
        if (b.get<std::uint32_t>(f::parameter32b) != 0)
            detail::reject_field(where, "reserved windowed Bloom filter fields are not zero");
        detail::check_reserved(b, f::extra + 8, where);
        h.parameters = p;
        return detail::stage_table_payload_size(plan.filters,
                                                [&](std::size_t) -> std::uint64_t { return plan.geometry.bits / 8; });
    }
    /// Keys held: the inserted count the header records.
    static double approximate_count(const file_header& h) { return static_cast<double>(h.inserted_count); }
    /// NaN: it depends on each generation's fill, which the header does not hold (ask the filter).
    static double current_fpr(const file_header&) { return std::nan(""); }

    /// Its window and generations, each live generation's age and fill, and the rate now.
    static std::vector<filter_fact> facts(const windowed_filter& filter, const file_header&) {
        const window_parameters& w = filter.parameters();
        const windowed_filter::time_point now = filter.now();
        filter_fact generations{"generations", "", "generations", {}, {}, {}};
        const std::vector<std::uint64_t> live = filter.live_generations(now);
        for (const std::uint64_t e : live) {
            const block_bloom_filter& g = filter.slots()[filter.slot_of(e)];
            const auto age = std::chrono::duration_cast<std::chrono::milliseconds>(now - filter.generation_start(e));
            generations.text += "\n    " + std::to_string(e) + ": from " + show_time(filter.generation_start(e)) +
                                " (" + show_duration(age) + " ago), " + std::to_string(g.inserted_count()) + " keys, " +
                                show_percent(g.current_fpr(), 3);
            generations.records.push_back(
                {{"generation", e},
                 {"starts_ms", static_cast<std::uint64_t>(milliseconds_since_epoch(filter.generation_start(e)))},
                 {"age_seconds", static_cast<double>(age.count()) / 1000},
                 {"inserted_keys", g.inserted_count()},
                 {"current_fpr", g.current_fpr()}});
        }
        generations.text =
            std::to_string(live.size()) + " live of " + std::to_string(w.generations + 1) + generations.text;
        return {{"kind",
                 "windowed Bloom filter (forgets): window " + show_duration(w.window) + ", " +
                     std::to_string(w.generations) + " generations of " + show_duration(w.window / w.generations) +
                     "; keys found for " + show_duration(w.window) + ", gone by " +
                     show_duration(w.window + w.window / w.generations),
                 "window_ms",
                 static_cast<std::uint64_t>(w.window.count()),
                 {},
                 {}},
                {"", "", "generation_count", std::uint64_t{w.generations}, {}, {}},
                {"per generation",
                 std::to_string(filter.plan().generation.capacity) + " keys at " +
                     show_percent(filter.plan().generation.fpr, 3) + ", " +
                     show_bytes(static_cast<double>(filter.plan().geometry.bits / 8)),
                 "",
                 {},
                 {},
                 {}},
                std::move(generations),
                {"current FPR",
                 show_percent(filter.current_fpr()) + " (compound over the live generations)",
                 "",
                 {},
                 {},
                 {}}};
    }

    /// Fills the header fields of `filter`: hashing, sizing, parameters, count, payload size.
    static void describe(const windowed_filter& filter, file_header& h) {
        detail::describe_common(filter, h);
        h.parameters = parameters{filter.parameters(), filter.newest_generation()};
        h.inserted_count = filter.inserted_count();
        h.payload_size = detail::stage_table_payload_size(
            filter.slots().size(), [&](std::size_t i) -> std::uint64_t { return filter.slots()[i].size_in_bytes(); });
    }
    /// Writes the windowed parameters of `h` into the header bytes.
    static void write_parameters(const file_header& h, detail::header_bytes& b) {
        namespace f = detail::header_field;
        const parameters& p = kind_parameters<windowed_filter>(h);
        b.set<std::uint8_t>(f::variant, static_cast<std::uint8_t>(bloom_layout::block));
        b.set<std::uint64_t>(f::parameter64, p.window.keys_per_window);
        b.set<std::uint32_t>(f::parameter32a, p.window.generations);
        b.set<std::uint64_t>(f::parameter_aux, p.newest);
        b.set<std::uint64_t>(f::extra, static_cast<std::uint64_t>(p.window.window.count()));
    }

    /// The ring slots as a stage table, each labelled with its generation.
    static void write_payload(const windowed_filter& filter, detail::payload_sink& sink) {
        detail::write_stage_table(filter.slots(), sink, [&](std::size_t i) { return filter.slot_generations()[i]; });
    }

    /// The filter of a validated header and its payload; throws file_format_error when the table
    /// does not describe the payload, and invalid_argument (as a file_format_error) when the ring
    /// is not one the parameters allow.
    static windowed_filter assemble(const file_header& h, detail::payload_source& payload) {
        const parameters& p = kind_parameters<windowed_filter>(h);
        detail::stored_stages stored =
            detail::read_stage_table(h, payload, p.window.generations + 1, "windowed Bloom filter", "generation");
        try {
            return {p.window, detail::hasher_of(h), std::move(stored.filters), std::move(stored.labels), p.newest};
        } catch (const invalid_argument& e) {
            throw file_format_error(format_errc::invalid_field, std::string("windowed Bloom filter: ") + e.what());
        }
    }

private:
    static std::int64_t milliseconds_since_epoch(windowed_filter::time_point t) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    }
};

}  // namespace bloomkit
