// tests/temp_dir.hpp — a fresh directory per test, named after the program and the test, removed
// with everything in it when the test ends: the files the tests write never meet another run's.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace bloomkit_test {

namespace fs = std::filesystem;

/// A fresh directory per test, removed with everything in it when the test ends.
class temp_dir {
public:
    temp_dir() {
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = std::string("bloomkit-") +
                           ::testing::internal::GetArgvs().front().substr(
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

}  // namespace bloomkit_test
