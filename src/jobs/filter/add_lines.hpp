// src/jobs/filter/add_lines.hpp — adding lines to a filter file, whatever its kind and format,
// under its writer lock: two adds at once both land, and a save by another face waits.
//
// All or nothing, as a reader sees it: every line is read, parsed and hashed before the file
// changes at all, so a bad line, a damaged input or a signal while reading leaves the file as it
// was, and readers see the file before the add or after it.
//
// A Bloom filter file (format version 2 and later) is updated in place (file_update.hpp): the
// digests wait in memory until the input ends, then one short commit ORs their bits in and
// re-checksums only the chunks they touch — adding a line to a filter of gigabytes takes
// milliseconds, and a crash leaves every key it held before. An input too large to wait in
// memory is spooled to a temporary file of digests and applied to a copy of the filter that
// then replaces it. Other kinds, and version 1 files, are loaded, added to and replaced
// atomically; a Guava or DCSO file is read whole and rewritten as it was.
#pragma once

#include <string>
#include <string_view>

#include "bloomkit/io/header.hpp"
#include "bloomkit/keys.hpp"
#include "jobs/filter/filter_files.hpp"
#include "jobs/line_reader.hpp"

namespace bloomkit::jobs {

/// How add_lines reads the file and the lines.
struct add_settings {
    /// The file's format, and what a file that cannot record them holds (a Guava stream's keys
    /// and funnel).
    filter_reading reading{};
    /// What the lines are (keys.hpp: key_format_to_write): unrecorded to read them as the file
    /// records; a file that records nothing takes this, or text while it is empty.
    key_format keys = key_format::unrecorded;
    /// Threads inserting, for the kinds that are rewritten (a Bloom file updated in place needs
    /// none).
    unsigned threads = 1;
    /// How the writer lock is taken.
    lock_policy lock{};
};

/// What add_lines did, for the caller to say.
struct add_report {
    file_header header{};                          ///< the file's, as the add left it
    std::string_view format = "bkf";               ///< the format it is in
    bool recovered = false;                        ///< an update that did not finish was found and sealed first
    key_format recorded = key_format::unrecorded;  ///< what the file recorded of its keys before the add
};

/// Adds every line of `lines` to the filter file `path` (see the top of this file). Throws
/// bloomkit::error (key_error for a line that is not a key of the format; unfinished_update,
/// file_format_error for a damaged file) — the file is then as it was, unless the message says
/// otherwise.
add_report add_lines(const std::string& path, line_reader& lines, const add_settings& settings);

}  // namespace bloomkit::jobs
