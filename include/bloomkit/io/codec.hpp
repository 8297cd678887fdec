// bloomkit/io/codec.hpp — what a codec is: how one filter type is written to and read from the
// bkf format (docs/FORMAT.md), and the helpers every codec shares.
//
// A codec is a specialisation of file_codec<Filter>, one header per kind (io/*_codec.hpp):
//   kind                        the filter_kind code
//   holds(header)               whether a decoded header describes exactly this Filter type
//   read_parameters(b, h, where)  checks the kind's header bytes before anything trusts them,
//                               fills them into h, and returns the payload size they need (the
//                               same for every type of a kind code)
//   approximate_count(h), current_fpr(h)  the keys held and the rate now, from the header alone
//   describe(filter, header)    the kind's header fields, counts and payload size
//   write_parameters(h, bytes)  those fields into the header's bytes
//   write_payload(filter, sink) the payload, in order, through a payload_sink
//   assemble(header, payload)   the filter, from a validated header and its payload, through
//                               the kind's public from-parts constructor
// How messages name a type is the registry's (kind_traits<Filter>::name(), kinds.hpp).
#pragma once

#include <string>

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
