// bloomkit/kind_request.hpp — what every kind's entry in the registry (kinds.hpp) is made of:
// a request for a kind as a user states it ("fuse, 16-bit fingerprints, 4-wise"), what a kind
// costs for (n, p), and the check that a request sets only the options its kind takes. Each
// kind's own header specialises kind_traits with these; kinds.hpp lists the kinds.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bloomkit/error.hpp"
#include "bloomkit/sizing/bloom.hpp"

namespace bloomkit {

/// A kind as a user asks for it: a word ("bloom", "fuse") and the options that pick one type of
/// it. Unset fields take the kind's defaults (a block layout; fingerprint bits chosen from the
/// target FPR; 3-wise).
struct kind_request {
    /// The kind's word (kind_traits<F>::word: "bloom", ...).
    std::string kind = "bloom";
    /// The Bloom layout (kind "bloom" only).
    std::optional<bloom_layout> layout;
    /// Bits per fingerprint (the kinds that store fingerprints).
    std::optional<std::uint32_t> fingerprint_bits;
    /// Slots per key (the kinds whose arity varies).
    std::optional<std::uint32_t> arity;
    /// How long keys are remembered (the kinds that forget).
    std::optional<std::chrono::milliseconds> window;
    /// Generations per window (the kinds that forget).
    std::optional<std::uint32_t> generations;
};

/// What a filter type costs for (n, p), in the terms every kind shares.
struct kind_plan {
    /// What the filter's bits (counters, fingerprints) take in memory.
    std::uint64_t bytes = 0;
    double fpr = 0;                      ///< modelled at n keys
    std::uint32_t hashes = 0;            ///< probes per key (Bloom kinds), else 0
    std::uint32_t fingerprint_bits = 0;  ///< the kinds that store fingerprints, else 0
};

/// The registry's entry for a filter type, specialised in the type's own header:
///   word            the kind's word ("bloom")
///   name()          how messages name the type ("block Bloom filter", "4-wise 8-bit binary
///                   fuse filter")
///   request()       the request that selects the type, its options set only where they
///                   differ from the kind's defaults (the command spells it "fuse --bits 16")
///   summary         why one would choose it
///   options         the request options it takes (request_options); the registry refuses
///                   a request that sets another
///   accepts(r, p)   whether request r, at target p, selects this type (throws
///                   invalid_request for a value the kind does not take)
///   plan(n, p, r)   its cost for n keys at p (throws invalid_argument when it cannot)
///   make(n, p, r, options)   an empty filter sized for (n, p), for the kinds not built from
///                   their keys
/// What a type can do (insert, remove, ...) is not stated here: kinds.hpp reads it off the
/// type's API.
template <class Filter>
struct kind_traits;

/// The options a request sets, each named as the request names it.
struct request_options {
    ///@{
    /// Whether the request sets kind_request's field of the same name.
    bool layout = false, fingerprint_bits = false, arity = false, window = false, generations = false;
    ///@}
};

/// A request names no kind, or sets an option its kind does not take or a value it does not
/// allow. which() says which part of the request is wrong, so that a caller can name it as its
/// user typed it (the command: --kind, --layout, --bits, --arity).
class invalid_request : public invalid_argument {
public:
    /// The parts of a kind_request, by the name of its field.
    enum class part { kind, layout, fingerprint_bits, arity, window, generations };
    /// A refusal of part `which`, explained by `what`.
    invalid_request(part which, const std::string& what) : invalid_argument(what), which_(which) {}
    /// The part of the request that is wrong.
    [[nodiscard]] part which() const noexcept { return which_; }

private:
    part which_;
};

}  // namespace bloomkit
