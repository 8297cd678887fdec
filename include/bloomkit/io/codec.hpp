// bloomkit/io/codec.hpp — what a codec is: how one filter type is written to and read from the
// bkf format (docs/FORMAT.md), and the helpers every codec shares.
//
// A codec is a specialisation of file_codec<Filter>, one header per kind (io/*_codec.hpp), and
// it alone knows the kind's header bytes:
//   kind                        the kind code, its own
//   parameters                  the kind's header parameters, decoded (kind_parameters<F>(h))
//   holds(header)               whether a decoded header describes exactly this Filter type
//   read_parameters(b, h, where)  checks the kind's header bytes before anything trusts them,
//                               fills them into h, and returns the payload size they need (the
//                               same for every type of a kind code)
//   approximate_count(h), current_fpr(h)  the keys held and the rate now, from the header alone
//   estimates_count             (optional) true when approximate_count() estimates from a fill
//   facts(filter, header)       (optional) what `bloomkit info` says of its parameters
//   describe(filter, header)    the kind's header fields, counts and payload size
//   write_parameters(h, bytes)  those fields into the header's bytes
//   write_payload(filter, sink) the payload, in order, through a payload_sink
//   assemble(header, payload)   the filter, from a validated header and its payload, through
//                               the kind's public from-parts constructor
// How messages name a type is the registry's (kind_traits<Filter>::name(), kinds.hpp).
#pragma once

#include <any>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/io/header.hpp"
#include "bloomkit/io/payload.hpp"
#include "bloomkit/options.hpp"

namespace bloomkit {

/// The bkf codec of a filter type; specialised per kind in io/*_codec.hpp.
template <class Filter>
struct file_codec;

/// Every filter type the bkf format stores.
template <class Filter>
concept storable_filter = requires {
    file_codec<Filter>::kind;
};

/// The parameters of a header that describes a type of Filter's kind (file_codec<Filter>::parameters).
/// Throws invalid_argument when it describes another kind.
template <class Filter>
[[nodiscard]] const typename file_codec<Filter>::parameters& kind_parameters(const file_header& h) {
    using parameters = typename file_codec<Filter>::parameters;
    if (const auto* found = std::any_cast<parameters>(&h.parameters)) return *found;
    throw invalid_argument("the header describes a filter of another kind");
}
/// The same, to change.
template <class Filter>
[[nodiscard]] typename file_codec<Filter>::parameters& kind_parameters(file_header& h) {
    using parameters = typename file_codec<Filter>::parameters;
    if (auto* found = std::any_cast<parameters>(&h.parameters)) return *found;
    throw invalid_argument("the header describes a filter of another kind");
}

/// A value a filter_fact gives a program: a count, a number, a flag or text (none: a line only).
using fact_value = std::variant<std::monostate, std::uint64_t, double, bool, std::string>;

/// One thing a filter says of its kind's parameters, to a person (a line: label and text) and
/// to a program (a member: name and value, or a list of records); `bloomkit info` prints them
/// for any kind, knowing none.
struct filter_fact {
    std::string label;  ///< the line's label ("size"); empty: no line
    std::string text;   ///< the line
    std::string name;   ///< the member's name ("bits"); empty: no member
    fact_value value;   ///< the member's value, unless it has records
    /// The member's value as a list of records (a scalable filter's stages).
    std::vector<std::vector<std::pair<std::string, fact_value>>> records;
    /// What the user must be told of (DCSO's weak index rule), or empty.
    std::string warning;
};

namespace detail {

/// The header fields every kind fills the same way: the kind, hashing and what it was sized for.
template <class Filter>
void describe_common(const Filter& filter, file_header& h) {
    h.kind = file_codec<Filter>::kind;
    h.hash = filter.hash_function().algorithm();
    h.seed = filter.hash_function().seed();
    h.funnel = filter.hash_function().funnel();
    h.expected_keys = filter.expected_keys();
    h.target_fpr = filter.target_fpr();
    h.keys = filter.recorded_key_format();
}

inline hasher hasher_of(const file_header& h) { return hasher(h.hash, h.seed, h.funnel); }
inline sizing_target sizing_of(const file_header& h) { return {h.expected_keys, h.target_fpr}; }

/// Runs a parameter check that throws invalid_argument, reporting a failure as an invalid
/// field of the file `where`.
template <class Check>
void check_field(const std::string& where, Check check) {
    try {
        check();
    } catch (const invalid_argument& e) {
        reject_field(where, e.what());
    }
}

}  // namespace detail
}  // namespace bloomkit
