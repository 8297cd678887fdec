// bloomkit/error.hpp — the exceptions bloomkit throws, and how its messages show numbers.
//
// Every error the library reports derives from bloomkit::error, so a caller can catch the one
// type and print what(): each message is written to tell a user what is wrong and, where it
// can, what to do about it. The library itself never prints.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <system_error>

namespace bloomkit {

/// Base of every exception thrown by bloomkit.
class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A parameter is outside its domain: n = 0, p outside (0, 1), NaN, k = 0, a size that
/// overflows 64 bits, an unknown layout name...
class invalid_argument : public error {
public:
    using error::error;
};

/// Two filters cannot be combined (union, intersection, comparison of contents) because they
/// differ in layout, size, number of probes, hash algorithm or seed.
class incompatible_filters : public error {
public:
    using error::error;
};

/// A filter of fixed capacity cannot take a key: a cuckoo filter whose two buckets for the key
/// and whose stash are full. Nothing it held is lost; the key is not in it.
class filter_full : public error {
public:
    using error::error;
};

/// A mutating call on a filter whose bits are a read-only view of a memory-mapped file.
class read_only_filter : public error {
public:
    using error::error;
};

/// The operating system refused a file operation (open, read, write, fsync, rename, mmap).
class io_error : public error {
public:
    /// `what` failed for the reason `code` gives; the message ends with the code's own.
    io_error(const std::string& what, std::error_code code) : error(what + ": " + code.message()), code_(code) {}
    /// What the operating system reported (errno as a std::error_code).
    [[nodiscard]] std::error_code code() const noexcept { return code_; }

private:
    std::error_code code_;
};

/// Why a file was rejected by load() / map() / verify().
enum class format_errc : std::uint8_t {
    bad_magic = 1,        ///< not a bloomkit file at all
    unsupported_version,  ///< written by a newer bloomkit (or an unknown older one)
    truncated,            ///< shorter than its header says
    header_checksum,      ///< the header's bytes do not match its checksum
    payload_checksum,     ///< the filter's bits do not match their checksum
    invalid_field,        ///< a header field is impossible or inconsistent with the others
    wrong_kind,           ///< a valid file of another filter kind than the one asked for
    interrupted_update,   ///< an update in place was interrupted: every key the file held before
                          ///< is still there, but its checksums cannot vouch for the rest
};

/// A file is not a valid bloomkit filter. reason() says which check failed; what() says it
/// in words, with the offending values.
class file_format_error : public error {
public:
    /// A rejection for `reason`, explained by `what`.
    file_format_error(format_errc reason, const std::string& what) : error(what), reason_(reason) {}
    /// Which check the file failed.
    [[nodiscard]] format_errc reason() const noexcept { return reason_; }

private:
    format_errc reason_;
};

/// A number as bloomkit's messages show it: short when that is exact ("0.01", "1e-300"), else
/// every digit, so two values that differ never print alike (std::to_string would print
/// 1e-300 as "0.000000"). Public so that programs on the library word numbers as it does.
inline std::string show_number(double value) {
    char text[32];
    for (const int digits : {6, 17}) {
        std::snprintf(text, sizeof text, "%.*g", digits, value);
        if (std::strtod(text, nullptr) == value) break;
    }
    return text;
}

}  // namespace bloomkit
