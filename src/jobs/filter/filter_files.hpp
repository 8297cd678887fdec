// src/jobs/filter/filter_files.hpp — "open whatever filter this path holds", once for every face
// (the command, the jobs, the Python bindings): a path, or '-' for standard input / output. A regular file is mapped
// (opening costs nothing however large it is); standard input, a pipe, a FIFO or a device is read as a stream; a filter
// written to
// '-' goes to standard output, anything else replaces its file atomically.
//
// Filters of the foreign formats bloomkit speaks — Guava streams, DCSO bloom files, gzipped or
// not — are told by their bytes (formats.hpp; a reader may name the format) and read whole into
// memory, their keys read as the reader says (io::read_options); a bkf file is mapped.
//
// A mapped file changed in place under a reader (by another tool: bloomkit's own writers
// replace files by rename) is caught: truncation raises SIGBUS, whose handler names the file
// (jobs/signals.hpp), and any other change is found by require_unchanged() once the work is done.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/formats.hpp"
#include "jobs/line_reader.hpp"

namespace bloomkit::jobs {

/// How a filter file is read: its format ("auto": told by its bytes), and for a file that cannot
/// record it (a Guava stream, a DCSO file) what its keys are and the funnel its writer used.
struct filter_reading {
    std::string format = "auto";
    io::read_options keys{};
    /// The time a filter that forgets goes by (a replay of old logs; the command's --now);
    /// unset: the system clock.
    std::optional<std::chrono::system_clock::time_point> now{};
};

/// How a filter file is written: its format and whether it is gzipped (DCSO's --gzip files),
/// and the data a DCSO file carries after its bits.
struct filter_writing {
    std::string format = "bkf";
    bool gzip = false;
    std::vector<std::byte> attached;
};

/// A filter read whole, with how it was stored: what a command that rewrites it in its own
/// format (merge, add, convert) keeps.
struct filter_read {
    io::filter_contents contents;
    bool gzip = false;
    /// What writing it back as it was takes.
    [[nodiscard]] filter_writing as_stored() const { return {std::string(contents.format), gzip, contents.attached}; }
};

/// A filter opened for reading.
class filter_input {
public:
    /// Opens `path` ("-": standard input). Throws bloomkit::error (io_error, file_format_error)
    /// naming the path when it cannot be read or is not a valid filter.
    explicit filter_input(const std::string& path, const filter_reading& reading = {});

    [[nodiscard]] const any_filter& filter() const noexcept { return mapped_ ? mapped_->filter() : *loaded_; }
    [[nodiscard]] const file_header& header() const noexcept { return header_; }
    /// How messages name it: the path, or "standard input".
    [[nodiscard]] const std::string& name() const noexcept { return name_; }
    /// The format it is in ("bkf", "guava", "dcso"), and what a DCSO file carries after its bits.
    [[nodiscard]] std::string_view format() const noexcept { return format_; }
    [[nodiscard]] const std::vector<std::byte>& attached() const noexcept { return attached_; }
    [[nodiscard]] bool gzipped() const noexcept { return gzip_; }
    /// Whether the file records what its keys are (a bkf file of format version 3): a Guava
    /// stream or a DCSO file holds what its reader says (--key, --funnel).
    [[nodiscard]] bool records_keys() const noexcept { return format_ == io::bkf_format::word; }

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
    std::string_view format_ = io::bkf_format::word;
    std::vector<std::byte> attached_;
    bool gzip_ = false;
};

/// How a job takes the writer lock of the filter file it changes (bloomkit/os/writer_lock.hpp).
struct lock_policy {
    /// Wait for another writer (true), or refuse at once (os::file_busy).
    bool wait = true;
    /// Called once the wait has lasted a second, to say why nothing happens.
    std::function<void()> waiting{};
};

/// Locks the filter file `path` for writing, as `policy` says; then removes what a writer killed
/// between naming its finished file and renaming it left beside it (under the lock, no other
/// writer is in that step). `if_missing` as os::writer_lock takes it.
os::writer_lock lock_filter_file(const std::string& path, const lock_policy& policy,
                                 os::writer_lock::missing if_missing = os::writer_lock::missing::leave);

/// Saves `filter` to the path `lock` holds and keeps the lock: the new file is locked before it
/// replaces the old one (a job that saves again and again: dedup's state).
void save_keeping_lock(os::writer_lock& lock, const any_filter& filter, const std::string& path);

/// Whether `path` names standard input/output ("-").
[[nodiscard]] inline bool is_standard_stream(const std::string& path) noexcept { return path == "-"; }

/// Whether the file `path` is a bkf file (--format bkf, or told by its first bytes): one that
/// is mapped and updated in place, where the foreign formats are read whole and rewritten.
bool stored_as_bkf(const std::string& path, const filter_reading& reading);

/// The filter at `path`, in memory (owned: it can be changed): a file read whole, or standard
/// input ("-"), a pipe or a FIFO read as a stream.
any_filter read_filter(const std::string& path, const filter_reading& reading = {});
/// The same, with the format it was in (and a DCSO file's attached data).
filter_read read_filter_contents(const std::string& path, const filter_reading& reading = {});

/// Writes `filter` to `path` in the format `writing` names: atomically replacing the file, or to
/// standard output for "-". Throws invalid_argument, saying why, when the format cannot hold the
/// filter (a block filter as a Guava stream).
void write_filter(const any_filter& filter, const std::string& path, const filter_writing& writing = {});

/// Throws invalid_argument when `output`, a file a job is about to write, is one of the files
/// `lines` reads: no job destroys one of its own inputs.
void refuse_input_as_output(const line_reader& lines, const std::string& output);

}  // namespace bloomkit::jobs
