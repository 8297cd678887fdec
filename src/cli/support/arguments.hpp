// src/cli/support/arguments.hpp — parsing and printing the values the subcommands share, with error
// messages that name the option and the offending text.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/hash.hpp"
#include "bloomkit/kinds.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit::cli {

/// A count of keys: a whole number from 1 to 2^64 - 1, as people write them: "1000000",
/// "50e9", "10M" (k, M, G, T: thousand, million, billion, trillion), "10_000_000".
std::uint64_t parse_key_count(std::string_view option, const std::string& text);

/// A false-positive rate strictly between 0 and 1: "0.01", "1e-3", "1%", "0.1%".
double parse_probability(std::string_view option, const std::string& text);

/// A size in bytes as people write them: "512M", "1G", "1.5GiB" (K, M, G, T and KiB... are
/// powers of 1024), "100MB", "1GB" (KB, MB... are powers of 1000), "4096" (bytes).
std::uint64_t parse_size(std::string_view option, const std::string& text);

/// A duration in seconds above 0: "60", "0.5", "1e-3".
double parse_seconds(std::string_view option, const std::string& text);

/// A length of time above 0 as people write it: "24h", "90m", "7d", "1h30m", "1.5s", "250ms",
/// "2w"; a bare number is seconds. Whole milliseconds, at most 100 years.
std::chrono::milliseconds parse_duration(std::string_view option, const std::string& text);

/// A moment: Unix seconds ("1765134000", "1765134000.25") or ISO 8601 ("2026-12-07",
/// "2026-12-07T19:00:00Z", "2026-12-07 19:00:00.5+01:00"; no zone: UTC). At or after 1970.
std::chrono::system_clock::time_point parse_time(std::string_view option, const std::string& text);

/// A small whole number (an option like --bits or --arity; the caller checks its range).
std::uint32_t parse_small_number(std::string_view option, const std::string& text);

/// The -t option: how many threads; "0" is one per core. Refuses more than max_threads().
unsigned parse_threads(const std::string& text);

/// The most threads -t accepts: 4 per core (a larger pool only adds memory and switching).
unsigned max_threads();

/// The options that select a request's type, as the command spells them: "fuse --bits 16".
std::string flags_of(const kind_request& request);

/// What a kind can do beyond lookups, in words: {"adds", "deletes"}, {"static"}.
std::vector<std::string_view> ability_words(const kind_capabilities& can);

/// The same, as a person reads it: "adds, deletes", "static".
std::string abilities_of(const kind_capabilities& can);

/// A 64-bit seed in decimal or 0x-hex, or "random" for one from the OS entropy source.
std::uint64_t parse_seed(const std::string& text);

/// "59.96 GB" — decimal units, as disks are sold; exact bytes are printed beside it.
std::string human_bytes(double bytes);

/// A JSON string literal.
std::string json_string(std::string_view text);

/// A JSON number (null for infinity / NaN, which JSON cannot spell).
std::string json_number(double value);

}  // namespace bloomkit::cli
