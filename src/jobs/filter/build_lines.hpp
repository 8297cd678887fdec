// src/jobs/filter/build_lines.hpp — a filter of any kind the registry has, from lines: sized by a
// number of keys, a rate or a memory budget, counting the lines first when the size depends on
// them (an input that is not a regular file is spooled to be read twice); a scalable filter
// needs no count (it grows); a static one (binary fuse) is built from all the keys at once.
#pragma once

#include <chrono>
#include <optional>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/kind_request.hpp"
#include "bloomkit/options.hpp"
#include "jobs/filter/sizing.hpp"
#include "jobs/line_reader.hpp"

namespace bloomkit::jobs {

/// What build_from_lines makes.
struct build_settings {
    /// The kind (and layout, fingerprint bits, arity) asked for.
    kind_request kind{"bloom", {}, {}, {}, {}, {}};
    /// Its size.
    sizing_request sizing{};
    /// Its hash, seed and what its keys are (the lines are read as `hashing.keys`: text or a
    /// decimal integer format).
    filter_options hashing{.keys = key_format::text};
    /// Threads inserting.
    unsigned threads = 1;
    /// The time a filter that forgets is built at (unset: the system clock's), and goes by.
    std::optional<std::chrono::system_clock::time_point> now{};
};

/// Sets the clock of `filter`, if it forgets, to the fixed time `now` (unset: it keeps the
/// system clock).
inline void set_time(any_filter& filter, const std::optional<std::chrono::system_clock::time_point>& now) {
    if (now) set_clock(filter, [t = *now] { return t; });
}

/// The filter holding every line of `lines`, as `settings` ask. A repeated line is one key (a
/// cuckoo filter stores it once). Throws empty_input when the size depends on the lines and
/// there are none.
any_filter build_from_lines(line_reader& lines, const build_settings& settings);

}  // namespace bloomkit::jobs
