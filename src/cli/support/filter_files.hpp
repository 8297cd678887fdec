// src/cli/support/filter_files.hpp — the filters the command reads and writes: a path, or '-'
// for standard input / output. A regular file is mapped (opening costs nothing however large
// it is); standard input, a pipe, a FIFO or a device is read as a stream; a filter written to
// '-' goes to standard output, anything else replaces its file atomically.
//
// A mapped file changed in place under a reader (by another tool: bloomkit's own writers
// replace files by rename) is caught: truncation raises SIGBUS, whose handler names the file
// (jobs/signals.hpp), and any other change is found by require_unchanged() once the work is done.
#pragma once

#include <optional>
#include <string>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/file.hpp"
#include "jobs/line_reader.hpp"

namespace bloomkit::cli {

/// A filter opened for reading.
class filter_input {
public:
    /// Opens `path` ("-": standard input). Throws bloomkit::error (io_error, file_format_error)
    /// naming the path when it cannot be read or is not a valid filter.
    explicit filter_input(const std::string& path);

    [[nodiscard]] const any_filter& filter() const noexcept { return mapped_ ? mapped_->filter() : *loaded_; }
    [[nodiscard]] const file_header& header() const noexcept { return header_; }
    /// How messages name it: the path, or "standard input".
    [[nodiscard]] const std::string& name() const noexcept { return name_; }

    /// Checks the payload checksum (a stream's was checked as it was read).
    void verify() const {
        if (mapped_) mapped_->verify();
    }

    /// Throws bloomkit::error "FILE changed while it was being read" if the mapped file was
    /// written or truncated in place since it was opened: the answers given meanwhile cannot
    /// be trusted. (A file replaced by a rename is fine: the map keeps the old one.)
    void require_unchanged() const;

private:
    std::string name_;
    std::optional<mapped_filter<any_filter>> mapped_;
    std::optional<any_filter> loaded_;
    file_header header_;
};

/// Whether `path` names standard input/output ("-").
[[nodiscard]] inline bool is_standard_stream(const std::string& path) noexcept { return path == "-"; }

/// The filter at `path`, in memory (owned: it can be changed): a file read whole, or standard
/// input ("-"), a pipe or a FIFO read as a stream.
any_filter read_filter(const std::string& path);

/// Writes `filter` to `path`: atomically replacing the file, or to standard output for "-".
void write_filter(const any_filter& filter, const std::string& path);

/// Throws invalid_argument when `output`, a file the command is about to write, is one of the
/// files `lines` reads: no command destroys one of its own inputs.
void refuse_input_as_output(const jobs::line_reader& lines, const std::string& output);

}  // namespace bloomkit::cli
