// src/jobs/line_reader.hpp — reads keys, one per line, from files or stdin, in large
// blocks and without copying lines: a batch is a list of views into the read buffer.
//
// A line is everything up to '\n', less one trailing '\r' (files from Windows). Lines may be
// empty, hold NUL or non-UTF-8 bytes, or be longer than the buffer (which then grows to hold
// them): every line is a key. A last line without '\n' is a line too.
//
// Two ways to consume the input: read() splits the lines on the calling thread and hands out
// batches of views; read_blocks() hands out whole blocks of complete lines (owned, movable to
// another thread), which split_lines() turns into views wherever the work is done.
//
// Every input is checked when the reader is made (a missing file is reported before any work
// is done) but opened only when its turn comes, and a file is closed once read: a job over
// thousands of files holds one open at a time. A FIFO or device is opened exactly once (opened
// twice, a FIFO would wait for a second writer that never comes). An input that must be read
// twice (counted, then inserted) is read through read_and_keep() first: one that is not a
// regular file — stdin, a pipe, a FIFO, a device — is copied to an unnamed temporary file as it
// is read; a regular file is simply opened again. An input that starts with the filter file
// signature is refused (filter_file_as_lines): a filter given where lines are expected would
// otherwise be read as lines. Inputs compressed with gzip or zstd are decompressed as they are
// read (input_source.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "bloomkit/error.hpp"
#include "jobs/input_source.hpp"

namespace bloomkit::jobs {

/// Thrown for an input that is a bloomkit filter file, given where lines of keys were expected.
class filter_file_as_lines : public error {
public:
    explicit filter_file_as_lines(const std::string& input)
        : error("'" + input + "' is a bloomkit filter file, not lines of keys"), input_(input) {}
    /// The input's name, as messages give it.
    [[nodiscard]] const std::string& input() const noexcept { return input_; }

private:
    std::string input_;
};

/// Where a run of lines comes from, for messages about one of them: its input, and the number
/// of its first line there (from 1).
struct line_origin {
    const std::string* input = nullptr;
    std::uint64_t first_line = 1;
};

/// A run of complete lines read from one input, owning its bytes.
struct line_block {
    std::vector<char> buffer;
    std::size_t size = 0;  // bytes of buffer holding the lines
    line_origin origin;
    [[nodiscard]] std::string_view text() const noexcept { return {buffer.data(), size}; }
};

/// Appends a view of every line of `text` (lines of a line_block) to `lines`.
void split_lines(std::string_view text, std::vector<std::string_view>& lines);

/// How many '\n' `text` holds.
std::uint64_t count_newlines(std::string_view text) noexcept;

class line_reader {
public:
    using batch_handler = std::function<void(std::span<const std::string_view> lines, const line_origin& origin)>;
    using block_handler = std::function<void(line_block&& block)>;

    /// Checks every input now ("-" or no inputs at all means stdin), so that a missing or
    /// unreadable file is reported before any work is done. Throws bloomkit::io_error.
    explicit line_reader(const std::vector<std::string>& inputs);

    /// The name of the input that is the file `path` names (the same file, whatever the path),
    /// or "" if none is: a job must not replace a file it reads lines from.
    [[nodiscard]] std::string input_at(const std::string& path) const;

    /// Reads every input once, handing each block of whole lines to `see` (to count them, and
    /// check them as they come: a bad line is reported at once, not once a pipe ends), and
    /// makes every input readable again from its start: an input that is not a regular file is
    /// copied as it is read, as lines (decompressed), to an unnamed temporary file in
    /// `scratch_directory` ($TMPDIR, or /tmp, when it is empty).
    void read_and_keep(const block_handler& see, const std::string& scratch_directory = {});

    /// Back to the start of every input (after read_and_keep(), or when all are regular files).
    void rewind();
    ~line_reader();
    line_reader(const line_reader&) = delete;
    line_reader& operator=(const line_reader&) = delete;

    /// Calls `handle` with consecutive batches of lines, and where they come from, until every
    /// input is read. The views are valid only during the call. While an input has nothing to
    /// read, `idle`'s work is done (on this thread, between two calls of `handle`) whenever it
    /// falls due.
    void read(const batch_handler& handle, const idle_work& idle = {});

    /// Calls `handle` with consecutive blocks of whole lines. `recycle`, if given, supplies the
    /// buffer for the next block (e.g. one a worker has finished with); it may return an empty
    /// vector, and a new one is allocated. `idle`: as read()'s.
    void read_blocks(const block_handler& handle, const std::function<std::vector<char>()>& recycle = {},
                     const idle_work& idle = {});

    /// Bytes read so far from the inputs as they are stored (compressed bytes of a compressed
    /// input), and their total when every input is a regular file (0 when it is not known).
    [[nodiscard]] std::uint64_t bytes_read() const noexcept;
    [[nodiscard]] std::uint64_t total_bytes() const noexcept { return total_; }

    /// Lines handed over since the reading started or was rewound (a last line without '\n'
    /// counts). Asked once the reading is done: the reading thread alone counts them.
    [[nodiscard]] std::uint64_t lines_read() const noexcept { return lines_read_; }

private:
    struct input {
        std::string name;
        int fd = -1;           // -1 until its turn comes (and again once a file is read)
        bool owned = false;    // closed by the reader (not stdin)
        bool regular = false;  // a regular file: opened again to be read again
        dev_t device = 0;      // what it is, for input_at()
        ino_t inode = 0;
        // Made once, and never replaced while the reader lives: another thread asks it for its
        // count of bytes read (progress) while the reading thread opens and closes inputs.
        std::unique_ptr<input_source> source;
    };
    void open(input& in);
    void close(input& in);
    void read_one(input& in, const block_handler& handle, const std::function<std::vector<char>()>& recycle,
                  const idle_work& idle);
    void measure_total();

    std::vector<input> inputs_;
    std::uint64_t total_ = 0;
    std::uint64_t lines_read_ = 0;
};

}  // namespace bloomkit::jobs
