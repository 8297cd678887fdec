// bloomkit/detail/compatibility.hpp — the check two filters pass before they combine (union,
// intersection): every parameter that decides where a key's bits go must be equal, and when
// one is not, the error names it with both values so the user sees what to rebuild.
#pragma once

#include <string>
#include <type_traits>

#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit::detail {

/// Throws incompatible_filters at the first difference, e.g. "cannot take the union of two
/// counting Bloom filters with different seeds (1 vs 2)". Chain the checks:
///     compatibility_check("union", "counting Bloom filters")
///         .same("sizes", a.counter_count(), b.counter_count(), " counters")
///         .same_hashing(a.hash_function(), b.hash_function());
class compatibility_check {
public:
    compatibility_check(const char* operation, const char* filters) : operation_(operation), filters_(filters) {}

    template <class T>
    const compatibility_check& same(const char* what, const T& a, const T& b, const char* unit = "") const {
        if (a != b) refuse(std::string("different ") + what + " (" + show(a) + unit + " vs " + show(b) + unit + ")");
        return *this;
    }

    /// Same hash algorithm, seed and (Guava's) funnel: the same key gives the same digest in both.
    const compatibility_check& same_hashing(const hasher& a, const hasher& b) const {
        return same("hash algorithms", a.algorithm(), b.algorithm())
            .same("seeds", a.seed(), b.seed())
            .same("Guava funnels", a.funnel(), b.funnel());
    }

private:
    template <class T>
    static std::string show(const T& value) {
        if constexpr (std::is_same_v<T, hash_algorithm> || std::is_same_v<T, guava_funnel>) {
            return std::string(to_string(value));
        } else if constexpr (std::is_floating_point_v<T>) {
            return show_number(static_cast<double>(value));
        } else {
            return std::to_string(value);
        }
    }

    [[noreturn]] void refuse(const std::string& why) const {
        throw incompatible_filters(std::string("cannot take the ") + operation_ + " of two " + filters_ + " with " +
                                   why);
    }

    const char* operation_;
    const char* filters_;
};

}  // namespace bloomkit::detail
