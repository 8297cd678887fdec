// bloomkit/sizing/by_memory.hpp — sizing by a memory budget: the lowest rate, or the most keys,
// whose plan fits, by bisection (every kind's size grows as p shrinks and n grows).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "bloomkit/error.hpp"

namespace bloomkit {

/// The lowest p, to 0.1%, whose `bytes_for(p)` fits (it throws invalid_argument where no filter
/// reaches p); throws invalid_argument naming `what` when even p = 1/2 does not fit.
template <class BytesFor>
[[nodiscard]] double fpr_for_memory(std::uint64_t bytes, BytesFor bytes_for, const std::string& what) {
    const auto fits = [&](double p) {
        try {
            return bytes_for(p) <= bytes;
        } catch (const invalid_argument&) {
            return false;  // out of this kind's reach
        }
    };
    double loose = 0.5, tight = 1e-15;
    if (!fits(loose))
        throw invalid_argument(what + " does not fit in " + std::to_string(bytes) +
                               " bytes at any useful false-positive rate");
    if (fits(tight)) return tight;
    while (std::log(loose / tight) > 1e-3) {  // loose fits, tight does not
        const double middle = std::sqrt(loose * tight);
        (fits(middle) ? loose : tight) = middle;
    }
    return loose;
}

/// The most n whose `bytes_for(n)` fits; throws invalid_argument naming `what` when no key fits.
template <class BytesFor>
[[nodiscard]] std::uint64_t keys_for_memory(std::uint64_t bytes, BytesFor bytes_for, const std::string& what) {
    const auto fits = [&](double n) {
        try {
            return bytes_for(n) <= bytes;
        } catch (const invalid_argument&) {
            return false;
        }
    };
    if (!fits(1)) throw invalid_argument("not even one key fits " + what + " of " + std::to_string(bytes) + " bytes");
    double low = 1, high = 2;
    while (fits(high) && high < 0x1p62) low = high, high *= 2;
    while (high - low > 1) {
        const double middle = std::floor((low + high) / 2);
        (fits(middle) ? low : high) = middle;
    }
    return static_cast<std::uint64_t>(low);
}

}  // namespace bloomkit
