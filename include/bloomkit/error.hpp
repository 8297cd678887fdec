// bloomkit/error.hpp — the exceptions bloomkit throws, and how its messages show numbers.
//
// Every error derives from bloomkit::error; each what() tells a user what is wrong and, where it
// can, what to do. The library itself never prints.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>

namespace bloomkit {

/// Base of every exception thrown by bloomkit.
class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A parameter outside its domain: n = 0, p outside (0, 1), NaN, a size overflowing 64 bits...
class invalid_argument : public error {
public:
    using error::error;
};

/// Filters that differ in layout, size, probes, hash or seed cannot be combined.
class incompatible_filters : public error {
public:
    using error::error;
};

/// A full cuckoo filter refused a key; nothing it held is lost.
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

/// A file is not a valid bloomkit filter; what() gives the offending values.
class file_format_error : public error {
public:
    /// A rejection for `reason`, explained by `what`.
    file_format_error(format_errc reason, const std::string& what) : error(what), reason_(reason) {}
    /// Which check the file failed.
    [[nodiscard]] format_errc reason() const noexcept { return reason_; }

private:
    format_errc reason_;
};

/// As messages show it: short when exact ("1e-300"), else every digit, so values never print alike.
inline std::string show_number(double value) {
    char text[32];
    for (const int digits : {6, 17}) {
        std::snprintf(text, sizeof text, "%.*g", digits, value);
        if (std::strtod(text, nullptr) == value) break;
    }
    return text;
}

/// A fraction as a percentage: `decimals` decimals when `fixed` ("12.34%"), else that many
/// significant digits ("0.1235%").
inline std::string show_percent(double fraction, int decimals = 4, bool fixed = false) {
    char text[48];
    std::snprintf(text, sizeof text, fixed ? "%.*f%%" : "%.*g%%", decimals, 100 * fraction);
    return text;
}

/// A size in bytes as people read it: "512 B", "1.50 MB" (powers of 1000).
inline std::string show_bytes(double bytes) {
    static constexpr const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    std::size_t unit = 0;
    for (; bytes >= 1000 && unit + 1 < std::size(units); ++unit) bytes /= 1000;
    char text[48];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.2f %s", bytes, units[unit]);
    return text;
}

/// A length of time as people read it, its two largest units: "1d 6h", "45m", "2.5s".
inline std::string show_duration(std::chrono::milliseconds length) {
    std::int64_t ms = length.count();
    if (ms < 0) return "-" + show_duration(std::chrono::milliseconds(-ms));
    if (ms < 60'000) return show_number(static_cast<double>(ms) / 1000) + "s";
    static constexpr std::int64_t units[] = {86'400'000, 3'600'000, 60'000, 1000, 1};
    static constexpr const char* names[] = {"d", "h", "m", "s", "ms"};
    std::string text;
    int shown = 0;
    for (std::size_t i = 0; i < std::size(units) && shown < 2; ++i) {
        if (ms < units[i] && shown == 0) continue;
        const std::int64_t count = ms / units[i];
        ms %= units[i];
        if (count > 0) text += (text.empty() ? "" : " ") + std::to_string(count) + names[i];
        ++shown;
    }
    return text;
}

/// A moment as ISO 8601 in UTC, to the second: "2026-12-07T19:00:00Z".
inline std::string show_time(std::chrono::system_clock::time_point t) {
    const auto seconds = std::chrono::floor<std::chrono::seconds>(t);
    const auto day = std::chrono::floor<std::chrono::days>(seconds);
    const std::chrono::year_month_day date(day);
    const std::chrono::hh_mm_ss clock(seconds - day);
    char text[40];
    std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02ld:%02ld:%02ldZ", static_cast<int>(date.year()),
                  static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                  static_cast<long>(clock.hours().count()), static_cast<long>(clock.minutes().count()),
                  static_cast<long>(clock.seconds().count()));
    return text;
}

}  // namespace bloomkit
