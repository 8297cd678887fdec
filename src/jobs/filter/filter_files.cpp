// src/jobs/filter/filter_files.cpp — see filter_files.hpp.
#include "jobs/filter/filter_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <istream>
#include <optional>
#include <ostream>
#include <span>
#include <system_error>
#include <vector>

#include "bloomkit/os/file.hpp"
#include "jobs/fd_stream.hpp"
#include "jobs/filter/build_lines.hpp"
#include "jobs/gzip_bytes.hpp"
#include "jobs/signals.hpp"

namespace bloomkit::jobs {
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

std::string name_of(const std::string& path) { return is_standard_stream(path) ? "standard input" : path; }

/// Whether the filter must be read as bkf: the format says so, or is told from the first bytes.
bool read_as_bkf(const filter_reading& reading, bool bkf_signature) {
    if (reading.format != "auto") {
        if (!io::known_format(reading.format))
            throw invalid_argument("unknown format '" + reading.format + "': choose auto, " + io::format_words());
        return reading.format == io::bkf_format::word;
    }
    return bkf_signature;
}

/// The filter in the rest of `in`, read whole: ungzipped when it is gzip (DCSO's --gzip files),
/// then in the format `reading` names or its bytes tell.
filter_read read_whole(std::istream& in, const std::string& name, const filter_reading& reading) {
    std::vector<std::byte> bytes;
    std::vector<char> piece(std::size_t{1} << 20);
    while (in.read(piece.data(), static_cast<std::streamsize>(piece.size())) || in.gcount() > 0)
        bytes.insert(bytes.end(), reinterpret_cast<const std::byte*>(piece.data()),
                     reinterpret_cast<const std::byte*>(piece.data()) + in.gcount());
    if (in.bad()) throw io_error("cannot read " + name, std::make_error_code(std::io_errc::stream));
    const bool gzip = io::dcso::is_gzip(bytes);
    if (gzip) bytes = gunzip_bytes(bytes, name);
    std::optional<std::string_view> format;
    if (reading.format != "auto") format = reading.format;
    return {io::read_any(bytes, format, reading.keys, name), gzip};
}

/// The filter `path` names, read as a stream: a bkf filter as it comes, any other read whole.
filter_read stream_filter(const std::string& path, const filter_reading& reading) {
    const std::string name = name_of(path);
    int fd = STDIN_FILENO;
    os::file_descriptor opened;
    if (!is_standard_stream(path)) {
        opened = os::open_for_reading(path);
        fd = opened.get();
    }
    fd_streambuf buffer(fd);
    std::istream in(&buffer);
    try {
        const bool signature = in.peek() == std::istream::traits_type::to_int_type(char(file_magic[0]));
        if (read_as_bkf(reading, signature)) return {{load<any_filter>(in, name), io::bkf_format::word, {}}, false};
        return read_whole(in, name, reading);
    } catch (const io_error&) {
        stream_failed("cannot read", name, buffer.error());
    }
}

/// Whether the regular file `path` starts with the bkf signature.
bool has_bkf_signature(const std::string& path) {
    const os::file_descriptor file = os::open_for_reading(path);
    std::array<std::byte, file_magic.size()> first{};
    const std::size_t got = os::read_at(file, path, first.data(), first.size(), 0);
    return starts_with_magic(std::span(first.data(), got));
}

}  // namespace

bool stored_as_bkf(const std::string& path, const filter_reading& reading) {
    return !read_as_stream(path) && read_as_bkf(reading, has_bkf_signature(path));
}

filter_read read_filter_contents(const std::string& path, const filter_reading& reading) {
    filter_read read = !read_as_stream(path) && read_as_bkf(reading, has_bkf_signature(path))
                           ? filter_read{{load<any_filter>(path), io::bkf_format::word, {}}, false}
                           : stream_filter(path, reading);
    set_time(read.contents.filter, reading.now);
    return read;
}

any_filter read_filter(const std::string& path, const filter_reading& reading) {
    return std::move(read_filter_contents(path, reading).contents.filter);
}

namespace {

/// Whether `path` is a sparse file. Reading a hole of one through a memory map can fail (tmpfs
/// allocates a page even to read one, and raises SIGBUS when it is full), where read() cannot.
bool sparse(const std::string& path) {
    const os::file_descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    return file.get() >= 0 && os::has_holes(file, os::file_size(file, path));
}

}  // namespace

filter_input::filter_input(const std::string& path, const filter_reading& reading) : name_(name_of(path)) {
    if (read_as_stream(path) || !read_as_bkf(reading, has_bkf_signature(path))) {
        filter_read read = stream_filter(path, reading);
        loaded_.emplace(std::move(read.contents.filter));
        header_ = header_of(*loaded_);
        format_ = read.contents.format;
        attached_ = std::move(read.contents.attached);
        gzip_ = read.gzip;
    } else if (sparse(path)) {
        loaded_.emplace(load<any_filter>(path));
        header_ = header_of(*loaded_);
    } else {
        set_mapped_file(path);
        mapped_.emplace(map<any_filter>(path));
        header_ = mapped_->header();
    }
    set_time(mapped_ ? mapped_->filter() : *loaded_, reading.now);
}

void filter_input::require_unchanged() const {
    if (mapped_ && mapped_->changed())
        throw error("'" + name_ +
                    "' changed while it was being read (it was written in place by another program): the "
                    "answers cannot be trusted; run again");
}

os::writer_lock lock_filter_file(const std::string& path, const lock_policy& policy,
                                 os::writer_lock::missing if_missing) {
    os::writer_lock lock(path, policy.wait ? os::writer_lock::if_held::wait : os::writer_lock::if_held::fail,
                         if_missing, policy.waiting);
    try {
        os::remove_stale_temporaries(path);
    } catch (const std::exception&) {  // best effort: what the write itself says of the path is the message
    }
    return lock;
}

void save_keeping_lock(os::writer_lock& lock, const any_filter& filter, const std::string& path) {
    os::file_descriptor replacement;
    save(filter, path, [&](int descriptor) { replacement = os::writer_lock::lock_replacement(descriptor, path); });
    lock.keep(std::move(replacement));
}

void refuse_input_as_output(const line_reader& lines, const std::string& output) {
    if (is_standard_stream(output)) return;
    if (const std::string input = lines.input_at(output); !input.empty())
        throw invalid_argument("'" + output + "' is both an input and the filter to write" +
                               (input != output ? " (as '" + input + "')" : std::string()) +
                               ": writing it would destroy the lines being read; name another file");
}

namespace {

/// Writes `bytes` to `path` atomically, or to standard output for "-".
void write_bytes(std::span<const std::byte> bytes, const std::string& path) {
    if (!is_standard_stream(path)) {
        os::replace_file(
            path, [&](const os::file_descriptor& file) { os::write_all(file, path, bytes.data(), bytes.size()); });
        return;
    }
    fd_streambuf buffer(STDOUT_FILENO);
    std::ostream out(&buffer);
    if (!out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())) ||
        !out.flush())
        stream_failed("cannot write to", "standard output", buffer.error());
}

}  // namespace

void write_filter(const any_filter& filter, const std::string& path, const filter_writing& writing) {
    if (writing.format != io::bkf_format::word || writing.gzip) {
        std::vector<std::byte> bytes = io::write_as(writing.format, filter, writing.attached);
        write_bytes(writing.gzip ? gzip_bytes(bytes) : bytes, path);
        return;
    }
    if (!is_standard_stream(path)) {
        save(filter, path, [](int) {});  // the command holds the writer lock (file_locking.hpp)
        return;
    }
    fd_streambuf buffer(STDOUT_FILENO);
    std::ostream out(&buffer);
    try {
        save(filter, out);
    } catch (const io_error&) {
        stream_failed("cannot write to", "standard output", buffer.error());
    }
}

}  // namespace bloomkit::jobs
