// tests/fuzz/fuzz_bkf.cpp — libFuzzer target: any bytes given to the filter readers: bkf as a
// byte buffer, a stream and a mapped file, and every format of formats.hpp (Guava streams, DCSO
// files) as bytes and streams. Each either opens a filter or throws bloomkit::error; nothing may
// crash, read out of bounds, allocate what a header announces beyond the input, or misbehave
// (ASan, UBSan). A filter that opens must answer queries, and survive a save and a reload
// unchanged, in bkf and in its own format.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/formats.hpp"

namespace {

void exercise(const bloomkit::any_filter& filter) {
    static constexpr std::string_view probes[] = {"", "a", "key-1", "https://example.org/"};
    std::visit(
        [](const auto& f) {
            for (const std::string_view key : probes) (void)f.contains(key);
            bool answers[4];
            f.contains(std::begin(probes), std::end(probes), answers);
            for (std::size_t i = 0; i < 4; ++i)
                if (answers[i] != f.contains(probes[i])) std::abort();  // bulk and single must agree
        },
        filter);
    const std::vector<std::byte> saved = bloomkit::to_bytes(filter);
    if (bloomkit::to_bytes(bloomkit::from_bytes<bloomkit::any_filter>(saved)) != saved) std::abort();
}

/// A file holding `bytes`, in memory, for map().
std::string memory_file(std::span<const std::byte> bytes) {
    static const int fd = ::memfd_create("fuzz-bkf", 0);
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, bytes.data(), bytes.size(), 0) != static_cast<::ssize_t>(bytes.size()))
        std::abort();
    return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    try {
        exercise(bloomkit::from_bytes<bloomkit::any_filter>(bytes));
    } catch (const bloomkit::error&) {}
    try {
        std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
        exercise(bloomkit::load<bloomkit::any_filter>(in));
    } catch (const bloomkit::error&) {}
    try {
        const auto mapped = bloomkit::map<bloomkit::any_filter>(memory_file(bytes));
        exercise(mapped.filter());
        mapped.verify();
    } catch (const bloomkit::error&) {}
    for (const std::string_view format : {"guava", "dcso"}) {
        try {
            const bloomkit::io::filter_contents opened = bloomkit::io::read_any(bytes, format);
            exercise(opened.filter);
            // What is written reads back as the same filter (DCSO's flags are written as 1, as
            // DCSO's bloom writes them, so the input itself may differ there).
            const std::vector<std::byte> written = bloomkit::io::write_as(format, opened.filter, opened.attached);
            if (bloomkit::io::write_as(format, bloomkit::io::read_any(written, format).filter, opened.attached) !=
                written)
                std::abort();
        } catch (const bloomkit::error&) {}
    }
    try {
        std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
        exercise(bloomkit::io::guava::load(in));
    } catch (const bloomkit::error&) {}
    return 0;
}
