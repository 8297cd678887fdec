// tests/fuzz/fuzz_lines.cpp — libFuzzer target: any bytes as input lines (jobs/line_reader.hpp). The
// line reader must hand out exactly the lines of the input (checked against a plain reference
// split), whatever the bytes: empty and huge lines, CR LF, NUL, no final newline, and inputs
// that start with the filter signature (refused with an error, never read as lines). Inputs
// that start with the gzip or zstd magic are decompressed, not split: hostile ones must end in
// an error or in some lines, never in a crash (tests/cli/lines.sh checks the lines of real ones).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/io/header.hpp"
#include "jobs/line_reader.hpp"

namespace {

/// The lines of `text` by the definition in line_reader.hpp, the simple way.
std::vector<std::string> reference_lines(std::string_view text) {
    std::vector<std::string> lines;
    while (!text.empty()) {
        const std::size_t newline = text.find('\n');
        std::string_view line = text.substr(0, newline);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.emplace_back(line);
        if (newline == std::string_view::npos) break;
        text.remove_prefix(newline + 1);
    }
    return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const bool compressed = text.starts_with("\x1f\x8b") || text.starts_with("\x28\xb5\x2f\xfd");  // gzip, zstd
    static const int fd = ::memfd_create("fuzz-lines", 0);
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, data, size, 0) != static_cast<::ssize_t>(size)) std::abort();
    std::vector<std::string> got;
    try {
        bloomkit::jobs::line_reader reader({"/proc/self/fd/" + std::to_string(fd)});
        reader.read([&](std::span<const std::string_view> batch, const bloomkit::jobs::line_origin&) {
            got.insert(got.end(), batch.begin(), batch.end());
        });
    } catch (const bloomkit::error&) {
        // Only an input that starts with a filter's signature, or damaged compressed data, is refused.
        if (!compressed && !bloomkit::starts_with_magic(std::as_bytes(std::span(data, size)))) std::abort();
        return 0;
    }
    if (compressed) return 0;
    if (got != reference_lines(text)) std::abort();
    std::vector<std::string_view> split;
    bloomkit::jobs::split_lines(text, split);
    if (std::vector<std::string>(split.begin(), split.end()) != got) std::abort();
    return 0;
}
