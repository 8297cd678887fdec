// Tests of unnamed temporary files (jobs/temporary_file.hpp): made in $TMPDIR, readable and
// writable, with no name to leave behind; a $TMPDIR that cannot take one is named in the error.
#include <gtest/gtest.h>

#include <string>

#include "bloomkit/error.hpp"
#include "bloomkit/os/file.hpp"
#include "jobs/temporary_file.hpp"
#include "jobs_testing.hpp"

namespace {

using namespace bloomkit_test;

TEST(TemporaryFile, IsWrittenAndReadBackWithoutAName) {
    const temp_dir dir;
    const tmpdir_set tmp(dir.path());
    const bloomkit::os::file_descriptor file = bloomkit::jobs::unnamed_temporary_file();
    const std::string text = "spooled lines\n";
    bloomkit::os::write_all(file, "spool", text.data(), text.size());
    std::string back(text.size(), '\0');
    EXPECT_EQ(bloomkit::os::read_at(file, "spool", back.data(), back.size(), 0), text.size());
    EXPECT_EQ(back, text);
    EXPECT_TRUE(dir.entries().empty());
}

TEST(TemporaryFile, AMissingDirectoryIsNamed) {
    const temp_dir dir;
    const tmpdir_set tmp(dir / "missing");
    try {
        (void)bloomkit::jobs::unnamed_temporary_file();
        FAIL() << "made a file in a missing directory";
    } catch (const bloomkit::io_error& e) {
        EXPECT_NE(std::string(e.what()).find((dir / "missing").string()), std::string::npos) << e.what();
    }
}

}  // namespace
