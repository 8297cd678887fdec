// Tests of the line reader (jobs/line_reader.hpp) on real files and pipes: what a line is (CR LF,
// empty lines, NUL, lines longer than a block, a last line without '\n'), where each comes from,
// a filter file refused as input, input_at(), and read_and_keep() on a pipe.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "jobs/line_reader.hpp"
#include "jobs_testing.hpp"

namespace {

using namespace bloomkit_test;
using bloomkit::jobs::line_block;
using bloomkit::jobs::line_origin;
using bloomkit::jobs::line_reader;
using lines = std::vector<std::string>;

TEST(LineReader, ALineEndsAtNewlineLessOneCarriageReturn) {
    const temp_dir dir;
    EXPECT_EQ(lines_of_file(dir, "a\r\nb\nc\r\r\n"), (lines{"a", "b", "c\r"}));
    EXPECT_EQ(lines_of_file(dir, "a\rb\n\r\n"), (lines{"a\rb", ""}));
}

TEST(LineReader, EmptyLinesAreKeysAndAnEmptyInputHasNone) {
    const temp_dir dir;
    EXPECT_EQ(lines_of_file(dir, "\n\nx\n\n"), (lines{"", "", "x", ""}));
    EXPECT_EQ(lines_of_file(dir, ""), lines{});
}

TEST(LineReader, NulAndHighBytesArePartOfALine) {
    const temp_dir dir;
    const std::string line("a\0b\xff\x80", 5);
    EXPECT_EQ(lines_of_file(dir, line + "\n"), lines{line});
}

TEST(LineReader, ALastLineWithoutNewlineIsALine) {
    const temp_dir dir;
    EXPECT_EQ(lines_of_file(dir, "a\nb"), (lines{"a", "b"}));
    EXPECT_EQ(lines_of_file(dir, "only"), lines{"only"});
}

TEST(LineReader, ALineLongerThanABlockIsReadWhole) {
    const temp_dir dir;
    const std::string longest(9 << 20, 'x');  // past the largest block (4 MiB): the buffer grows
    EXPECT_EQ(lines_of_file(dir, "first\n" + longest + "\nlast"), (lines{"first", longest, "last"}));
}

TEST(LineReader, BlocksHoldWholeLinesNumberedFromOneInEachInput) {
    const temp_dir dir;
    const std::string text = numbered_lines(300'000);  // ~2 MB: blocks of 64 KiB, then larger
    write_file(dir / "a.txt", text);
    write_file(dir / "b.txt", "x\ny\n");
    line_reader reader({(dir / "a.txt").string(), (dir / "b.txt").string()});
    std::uint64_t blocks = 0, next_a = 1;
    lines from_b;
    reader.read_blocks([&](line_block&& block) {
        ++blocks;
        ASSERT_FALSE(block.text().empty());
        ASSERT_EQ(block.text().back(), '\n');
        std::vector<std::string_view> split;
        bloomkit::jobs::split_lines(block.text(), split);
        if (*block.origin.input == (dir / "b.txt").string()) {
            EXPECT_EQ(block.origin.first_line, 1U);
            from_b.insert(from_b.end(), split.begin(), split.end());
            return;
        }
        ASSERT_EQ(block.origin.first_line, next_a);
        for (const std::string_view line : split) ASSERT_EQ(line, std::to_string(next_a++));
    });
    EXPECT_EQ(next_a, 300'001U);
    EXPECT_EQ(from_b, (lines{"x", "y"}));
    EXPECT_GT(blocks, 4U);
    EXPECT_EQ(reader.bytes_read(), text.size() + 4);
    EXPECT_EQ(reader.total_bytes(), text.size() + 4);
    EXPECT_EQ(reader.lines_read(), 300'002U);
}

TEST(LineReader, LinesReadCountALastLineWithoutNewlineAndStartAgainOnRewind) {
    const temp_dir dir;
    write_file(dir / "a.txt", "a\n\nb");  // shorter than a filter's signature: handed over at the end
    write_file(dir / "b.txt", numbered_lines(1000) + "tail");
    line_reader reader({(dir / "a.txt").string(), (dir / "b.txt").string()});
    EXPECT_EQ(reader.lines_read(), 0U);
    all_lines(reader);
    EXPECT_EQ(reader.lines_read(), 3U + 1001U);
    reader.rewind();
    EXPECT_EQ(reader.lines_read(), 0U);
    all_lines(reader);
    EXPECT_EQ(reader.lines_read(), 1004U);
}

TEST(LineReader, SplitLinesAndCountNewlinesAgree) {
    std::string text;
    for (int i = 0; i < 1000; ++i) text += std::string(static_cast<std::size_t>(i % 7), 'k') + "\n";
    std::vector<std::string_view> split;
    const std::string with_tail = text + "tail";  // the views point into it: it must outlive them
    bloomkit::jobs::split_lines(with_tail, split);
    EXPECT_EQ(split.size(), 1001U);
    EXPECT_EQ(split.back(), "tail");
    EXPECT_EQ(bloomkit::jobs::count_newlines(text), 1000U);
}

TEST(LineReader, AMissingFileOrADirectoryIsReportedWhenTheReaderIsMade) {
    const temp_dir dir;
    EXPECT_THROW(line_reader({(dir / "missing.txt").string()}), bloomkit::io_error);
    EXPECT_THROW(line_reader({dir.path().string()}), bloomkit::io_error);
}

TEST(LineReader, AFilterFileIsRefusedAsLines) {
    const temp_dir dir;
    const std::string path = (dir / "f.bkf").string();
    bloomkit::save(bloomkit::block_bloom_filter(100, 0.01), path);
    line_reader reader({path});
    try {
        all_lines(reader);
        FAIL() << "a filter file was read as lines";
    } catch (const bloomkit::jobs::filter_file_as_lines& e) {
        EXPECT_EQ(e.input(), path);
        EXPECT_EQ(std::string(e.what()), "'" + path + "' is a bloomkit filter file, not lines of keys");
    }
}

TEST(LineReader, APrefixOfTheSignatureIsALine) {
    const temp_dir dir;
    EXPECT_EQ(lines_of_file(dir,
                            "\x89"
                            "BLM"),
              lines{"\x89"
                    "BLM"});
    EXPECT_EQ(lines_of_file(dir,
                            "\x89"
                            "BLM\n42\n"),
              (lines{"\x89"
                     "BLM",
                     "42"}));
}

TEST(LineReader, InputAtNamesTheInputThatIsTheSameFileWhateverThePath) {
    const temp_dir dir;
    write_file(dir / "keys.txt", "k\n");
    write_file(dir / "other.txt", "o\n");
    fs::create_symlink(dir / "keys.txt", dir / "link.txt");
    const line_reader reader({(dir / "keys.txt").string()});
    EXPECT_EQ(reader.input_at((dir / "link.txt").string()), (dir / "keys.txt").string());
    EXPECT_EQ(reader.input_at((dir / "keys.txt").string()), (dir / "keys.txt").string());
    EXPECT_EQ(reader.input_at((dir / "other.txt").string()), "");
    EXPECT_EQ(reader.input_at((dir / "new.bkf").string()), "");
}

TEST(LineReader, ReadAndKeepMakesAPipeReadableTwice) {
    const temp_dir dir;
    const std::string text = numbered_lines(50'000);  // more than a pipe holds: a writer thread
    pipe_ends pipe;
    line_reader reader({pipe.read_path()});
    EXPECT_EQ(reader.total_bytes(), 0U);  // a pipe's size is not known
    std::jthread writer([&] {
        pipe.put(text);
        pipe.close_write();
    });
    std::uint64_t seen = 0;
    reader.read_and_keep([&](line_block&& block) { seen += bloomkit::jobs::count_newlines(block.text()); });
    writer.join();
    EXPECT_EQ(seen, 50'000U);
    EXPECT_EQ(reader.total_bytes(), text.size());  // the copy is a regular file
    const lines again = all_lines(reader);
    ASSERT_EQ(again.size(), 50'000U);
    EXPECT_EQ(again.front(), "1");
    EXPECT_EQ(again.back(), "50000");
}

TEST(LineReader, RewindReadsRegularFilesAgain) {
    const temp_dir dir;
    write_file(dir / "a.txt", "1\n2\n");
    line_reader reader({(dir / "a.txt").string()});
    EXPECT_EQ(all_lines(reader), (lines{"1", "2"}));
    reader.rewind();
    EXPECT_EQ(all_lines(reader), (lines{"1", "2"}));
}

}  // namespace
