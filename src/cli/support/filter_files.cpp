// src/cli/support/filter_files.cpp — see filter_files.hpp.
#include "filter_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <istream>
#include <ostream>
#include <system_error>

#include "bloomkit/os/file.hpp"
#include "jobs/fd_stream.hpp"
#include "jobs/signals.hpp"

namespace bloomkit::cli {
namespace {

/// Whether `path` must be read as a stream: standard input, or anything but a regular file
/// (a pipe, a FIFO, /dev/stdin, a process substitution), which cannot be mapped.
bool read_as_stream(const std::string& path) {
    if (is_standard_stream(path)) return true;
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode);
}

[[noreturn]] void stream_failed(const char* what, const std::string& name, int err) {
    throw io_error(std::string(what) + " " + name, std::error_code(err != 0 ? err : EIO, std::generic_category()));
}

}  // namespace

namespace {

/// The filter `path` names, read as a stream.
any_filter stream_filter(const std::string& path, const std::string& name) {
    int fd = STDIN_FILENO;
    os::file_descriptor opened;
    if (!is_standard_stream(path)) {
        opened = os::open_for_reading(path);
        fd = opened.get();
    }
    jobs::fd_streambuf buffer(fd);
    std::istream in(&buffer);
    try {
        return load<any_filter>(in, name);
    } catch (const io_error&) {
        stream_failed("cannot read", name, buffer.error());
    }
}

}  // namespace

any_filter read_filter(const std::string& path) {
    if (!read_as_stream(path)) return load<any_filter>(path);
    return stream_filter(path, is_standard_stream(path) ? "standard input" : path);
}

namespace {

/// Whether `path` is a sparse file. Reading a hole of one through a memory map can fail (tmpfs
/// allocates a page even to read one, and raises SIGBUS when it is full), where read() cannot.
bool sparse(const std::string& path) {
    const os::file_descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    return file.get() >= 0 && os::has_holes(file, os::file_size(file, path));
}

}  // namespace

filter_input::filter_input(const std::string& path) : name_(is_standard_stream(path) ? "standard input" : path) {
    if (!read_as_stream(path) && sparse(path)) {
        loaded_.emplace(load<any_filter>(path));
        header_ = header_of(*loaded_);
        return;
    }
    if (!read_as_stream(path)) {
        jobs::set_mapped_file(path);
        mapped_.emplace(map<any_filter>(path));
        header_ = mapped_->header();
        return;
    }
    loaded_.emplace(stream_filter(path, name_));
    header_ = header_of(*loaded_);
}

void filter_input::require_unchanged() const {
    if (mapped_ && mapped_->changed())
        throw error("'" + name_ +
                    "' changed while it was being read (it was written in place by another program): the "
                    "answers cannot be trusted; run again");
}

void refuse_input_as_output(const jobs::line_reader& lines, const std::string& output) {
    if (is_standard_stream(output)) return;
    if (const std::string input = lines.input_at(output); !input.empty())
        throw invalid_argument("'" + output + "' is both an input and the filter to write" +
                               (input != output ? " (as '" + input + "')" : std::string()) +
                               ": writing it would destroy the lines being read; name another file");
}

void write_filter(const any_filter& filter, const std::string& path) {
    if (!is_standard_stream(path)) {
        save(filter, path);
        return;
    }
    jobs::fd_streambuf buffer(STDOUT_FILENO);
    std::ostream out(&buffer);
    try {
        save(filter, out);
    } catch (const io_error&) {
        stream_failed("cannot write to", "standard output", buffer.error());
    }
}

}  // namespace bloomkit::cli
