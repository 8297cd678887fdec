// src/jobs/filter/remove_lines.hpp — removing lines from a filter file of a kind that removes
// (counting Bloom, cuckoo), replacing it atomically under its writer lock.
//
// Removing a key that was never added takes away part of other keys: a counting filter
// decrements counters that other keys rely on, a cuckoo filter deletes another key's matching
// fingerprint, and those keys become false negatives. A line never added that tests present by
// chance cannot be told from one that was added; but a line the filter certainly does not hold
// can, and it is evidence that the input is not what was added — so that some of its other
// lines, which test present, may be such false positives too. So a removal is all or nothing: if
// any line is certainly absent when its turn comes, nothing is removed and those lines are
// named. Partial removes the lines that test present anyway and refuses only the others.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/keys.hpp"
#include "jobs/filter/filter_files.hpp"
#include "jobs/line_reader.hpp"

namespace bloomkit::jobs {

/// A filter file of a kind that cannot remove keys, given lines to remove.
class cannot_remove : public error {
public:
    cannot_remove(const std::string& path, const std::string& kind);
};

/// How remove_lines reads the lines.
struct remove_settings {
    /// What the lines are: unrecorded to read them as the file records (keys.hpp).
    key_format keys = key_format::unrecorded;
    /// Remove the lines that test present even if others are certainly absent.
    bool partial = false;
    /// How the writer lock is taken.
    lock_policy lock{};
};

/// What remove_lines did: lines removed, lines refused (certainly absent) and the first of those,
/// named ("line 3 of 'x': 'foo'"). The file changed only if some line was removed and none
/// refused, or `partial`.
struct remove_report {
    std::uint64_t removed = 0;
    std::uint64_t refused = 0;
    std::vector<std::string> first_refused;
};

/// Removes every line of `lines` from the filter file `path` (see the top of this file).
remove_report remove_lines(const std::string& path, line_reader& lines, const remove_settings& settings);

}  // namespace bloomkit::jobs
