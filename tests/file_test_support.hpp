// tests/file_test_support.hpp — what the file-format tests share: a temporary directory per
// test, raw file bytes with little-endian field access, and readable rejection reasons.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit {
// Lets GoogleTest print a rejection reason by name.
inline void PrintTo(format_errc reason, std::ostream* os) {
    switch (reason) {
        case format_errc::bad_magic: *os << "bad_magic"; return;
        case format_errc::unsupported_version: *os << "unsupported_version"; return;
        case format_errc::truncated: *os << "truncated"; return;
        case format_errc::header_checksum: *os << "header_checksum"; return;
        case format_errc::payload_checksum: *os << "payload_checksum"; return;
        case format_errc::invalid_field: *os << "invalid_field"; return;
        case format_errc::wrong_kind: *os << "wrong_kind"; return;
    }
    *os << "format_errc(" << static_cast<int>(reason) << ")";
}
}  // namespace bloomkit

namespace bloomkit_test {

namespace fs = std::filesystem;
using bytes = std::vector<unsigned char>;

/// A fresh directory per test, removed with everything in it when the test ends.
class temp_dir {
public:
    temp_dir() {
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = std::string("bloomkit-") + ::testing::internal::GetArgvs().front().substr(
                                                          ::testing::internal::GetArgvs().front().find_last_of('/') + 1) +
                           "-" + test->test_suite_name() + "-" + test->name() + "-" + std::to_string(::getpid());
        std::ranges::replace(name, '/', '_');
        path_ = fs::path(::testing::TempDir()) / name;
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
    ~temp_dir() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }

    [[nodiscard]] const fs::path& path() const { return path_; }
    fs::path operator/(std::string_view name) const { return path_ / name; }

    /// Every name in the directory, sorted.
    [[nodiscard]] std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(path_)) names.push_back(entry.path().filename().string());
        std::ranges::sort(names);
        return names;
    }

private:
    fs::path path_;
};

inline bytes read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const fs::path& path, const bytes& data) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    ASSERT_TRUE(out.flush()) << "cannot write " << path;
}

inline void put_le(bytes& data, std::size_t offset, std::uint64_t value, std::size_t width) {
    for (std::size_t i = 0; i < width; ++i) data.at(offset + i) = static_cast<unsigned char>(value >> (8 * i));
}

inline std::uint64_t get_le(const bytes& data, std::size_t offset, std::size_t width) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < width; ++i) value |= std::uint64_t{data.at(offset + i)} << (8 * i);
    return value;
}

/// Recomputes the header checksum, as a forger would: XXH3-64 of bytes 0..119, little-endian at 120.
inline void reseal(bytes& data) {
    constexpr std::size_t header_checksum = 120;
    put_le(data, header_checksum, XXH3_64bits(data.data(), header_checksum), 8);
}

inline ::testing::AssertionResult mentions(std::string_view text, std::string_view part) {
    if (text.find(part) != std::string_view::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << text << "\" does not mention \"" << part << "\"";
}

}  // namespace bloomkit_test
