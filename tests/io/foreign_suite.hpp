// foreign_suite.hpp — what the tests of the foreign formats (test_guava.cpp, test_dcso.cpp)
// share: bytes from hex, hex from bytes, and why a reader refuses some bytes.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/error.hpp"

namespace bloomkit_test {

inline std::vector<std::byte> from_hex(std::string_view hex) {
    std::vector<std::byte> out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
        out.push_back(static_cast<std::byte>(std::stoul(std::string(hex.substr(i, 2)), nullptr, 16)));
    return out;
}

inline std::string to_hex(std::span<const std::byte> bytes) {
    std::string hex;
    char two[3];
    for (const std::byte b : bytes) std::snprintf(two, sizeof two, "%02x", std::to_integer<unsigned>(b)), hex += two;
    return hex;
}

/// The reason read(bytes) refuses `bytes` with; a test failure if it accepts them.
template <class Read>
bloomkit::format_errc refusal_reason(Read read, const std::vector<std::byte>& bytes) {
    try {
        (void)read(bytes);
    } catch (const bloomkit::file_format_error& e) {
        return e.reason();
    }
    ADD_FAILURE() << "accepted " << to_hex(bytes);
    return bloomkit::format_errc::bad_magic;
}

}  // namespace bloomkit_test
