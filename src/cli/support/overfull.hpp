// src/cli/support/overfull.hpp — the command's warning that a filter holds more keys than it was
// sized for, and so answers above its target rate.
#pragma once

#include <fmt/core.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "bloomkit/any_filter.hpp"

namespace bloomkit::cli {

/// Warns on stderr when a filter holds more keys than it was sized for (as its header says), and
/// its FPR is then above the target. (Kinds that grow, or are built from their keys, have no
/// such size, or no such rate.) Bloom and counting filters' keys are estimated from their
/// fill, within a fraction of a percent: hence the 1% margin.
inline void warn_if_overfull(const file_header& h) {
    const double distinct = approximate_count(h);
    if (h.expected_keys == 0 || !(distinct > 1.01 * static_cast<double>(h.expected_keys))) return;
    if (!(current_fpr(h) > h.target_fpr)) return;  // sized with room to spare: still within its target
    const std::string held = std::isfinite(distinct) ? fmt::format("about {:.0f} distinct keys", distinct)
                                                     : std::string("so many keys that every bit is set");
    fmt::print(stderr,
               "bloomkit: warning: the filter holds {} but was sized for {}; its false-positive rate is now about "
               "{:.4g}% (target {:.4g}%). Rebuild it with a larger -n.\n",
               held, h.expected_keys, 100 * current_fpr(h), 100 * h.target_fpr);
}

/// The same for a filter. The count of inserts bounds the distinct keys from above, so while
/// it is within the size the filter was made for (adding a line to a 1 GiB filter), the fill
/// (which reads the whole filter) is not even counted.
inline void warn_if_overfull(const any_filter& filter) {
    const sizing_target target = sized_for(filter);
    if (target.expected_keys == 0) return;
    if (capabilities(filter).forgets) {
        // Sized for a steady stream: a burst fills one generation past its share however few
        // keys the window holds, so the rate itself is what tells.
        const double rate = current_fpr(filter);
        if (rate > 1.05 * target.fpr)
            fmt::print(stderr,
                       "bloomkit: warning: the {}'s generations hold more than their share of the {} keys a window "
                       "was sized for; its false-positive rate is now about {:.4g}% (target {:.4g}%). Rebuild it "
                       "with -n the keys a whole window brings, or more generations.\n",
                       kind_name(filter), target.expected_keys, 100 * rate, 100 * target.fpr);
        return;
    }
    if (inserted_count(filter) > target.expected_keys) warn_if_overfull(header_of(filter));
}

}  // namespace bloomkit::cli
