// Tests of ordered runs (jobs/spill/ordered_runs.hpp): the kept lines of parts found in hash
// order come out merged by their first position, whatever the number of runs, their lengths and
// the memory; lines of any bytes and length come back whole; a part that is the whole input is
// printed at once; the runs' files have no names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/hash.hpp"
#include "jobs/spill/line_table.hpp"
#include "jobs/spill/ordered_runs.hpp"
#include "temp_dir.hpp"

namespace {

using namespace bloomkit_test;
using bloomkit::jobs::spill::line_record;
using bloomkit::jobs::spill::line_table;
using bloomkit::jobs::spill::memory_budget;
using bloomkit::jobs::spill::ordered_runs;
using bloomkit::jobs::spill::table_entry;
using lines = std::vector<std::string>;

std::uint64_t hash_of(std::string_view text) { return bloomkit::hasher{}(text).low; }

bool holds_nothing(const fs::path& dir) { return fs::directory_iterator(dir) == fs::directory_iterator(); }

/// Adds the lines (text, position) to `runs` as one part: through a table, sorted by position,
/// as a job does. With `keep_every`, only the lines whose position is a multiple of it.
void add_part(ordered_runs& runs, line_table& table, const std::vector<std::pair<std::string, std::uint64_t>>& part,
              bool whole, std::uint64_t keep_every = 1) {
    table.clear();
    for (const auto& [text, position] : part) ASSERT_TRUE(table.add({hash_of(text), position, 1, 1, text}));
    runs.add(table.sorted_by_position([&](const table_entry& e) { return e.position % keep_every == 0; }), whole);
    table.clear();
}

TEST(OrderedRuns, RunsOfSeveralPartsComeOutMergedByPosition) {
    const temp_dir dir;
    for (const std::uint64_t memory : {std::uint64_t{64} << 10, std::uint64_t{1} << 20}) {
        for (const std::size_t parts : {std::size_t{1}, std::size_t{3}, std::size_t{40}}) {
            SCOPED_TRACE("memory " + std::to_string(memory) + ", " + std::to_string(parts) + " parts");
            // 6000 lines at positions 0, 3, 6..., dealt to the parts at random, as hashes would.
            std::mt19937_64 random(parts);
            std::vector<std::vector<std::pair<std::string, std::uint64_t>>> dealt(parts);
            std::map<std::uint64_t, std::string> expected;
            for (std::uint64_t i = 0; i < 6000; ++i) {
                const std::string text = "line " + std::to_string(random() % 1'000'000) + "." + std::to_string(i);
                dealt[random() % parts].emplace_back(text, 3 * i);
                if (i % 2 == 0) expected[3 * i] = text;  // keeps the even positions
            }
            for (auto& part : dealt) std::shuffle(part.begin(), part.end(), random);
            lines printed;
            ordered_runs runs(dir.path().string(), memory_budget(memory),
                              [&](std::string_view text) { printed.emplace_back(text); });
            line_table table(4 << 20);
            for (const auto& part : dealt) add_part(runs, table, part, false, 2);
            EXPECT_TRUE(printed.empty());  // nothing before finish()
            EXPECT_EQ(runs.size(), expected.size());
            EXPECT_TRUE(holds_nothing(dir.path()));
            runs.finish();
            lines wanted;
            for (const auto& [position, text] : expected) wanted.push_back(text);
            EXPECT_EQ(printed, wanted);
            EXPECT_TRUE(holds_nothing(dir.path()));
        }
    }
}

TEST(OrderedRuns, LinesOfAnyBytesAndLengthComeBackWhole) {
    const temp_dir dir;
    const std::string longest(200'000, 'x');  // longer than any merge buffer here
    const lines texts{"", std::string("\0", 1), std::string("a\0b", 3), "\xff\xfe", longest, "\n", "last"};
    lines printed;
    ordered_runs runs(dir.path().string(), memory_budget(64 << 10),
                      [&](std::string_view text) { printed.emplace_back(text); });
    line_table table(4 << 20);
    // Line i at position i, in part i % 3: each part's run holds every third line.
    for (std::size_t part = 0; part < 3; ++part) {
        std::vector<std::pair<std::string, std::uint64_t>> lines_of_part;
        for (std::size_t i = part; i < texts.size(); i += 3) lines_of_part.emplace_back(texts[i], i);
        add_part(runs, table, lines_of_part, false);
    }
    runs.finish();
    EXPECT_EQ(printed, texts);
}

TEST(OrderedRuns, ManySmallRunsAndEmptyParts) {
    const temp_dir dir;
    lines printed;
    ordered_runs runs(dir.path().string(), memory_budget(64 << 10),
                      [&](std::string_view text) { printed.emplace_back(text); });
    line_table table(1 << 20);
    add_part(runs, table, {}, false);  // a part with nothing kept makes no run
    std::vector<std::uint64_t> positions(600);
    std::iota(positions.begin(), positions.end(), 0);
    std::shuffle(positions.begin(), positions.end(), std::mt19937_64(5));
    for (std::size_t i = 0; i < positions.size(); i += 2)  // 300 runs of two lines
        add_part(runs, table,
                 {{std::to_string(positions[i]), positions[i]}, {std::to_string(positions[i + 1]), positions[i + 1]}},
                 false);
    add_part(runs, table, {{"not kept", 1001}}, false, 2);
    EXPECT_EQ(runs.size(), 600U);
    runs.finish();
    ASSERT_EQ(printed.size(), 600U);
    for (std::size_t i = 0; i < printed.size(); ++i) ASSERT_EQ(printed[i], std::to_string(i));
    EXPECT_TRUE(holds_nothing(dir.path()));
}

TEST(OrderedRuns, AWholePartIsPrintedAtOnce) {
    const temp_dir dir;
    lines printed;
    ordered_runs runs(dir.path().string(), memory_budget(1 << 20),
                      [&](std::string_view text) { printed.emplace_back(text); });
    line_table table(1 << 20);
    add_part(runs, table, {{"c", 30}, {"a", 10}, {"b", 20}, {"odd", 21}}, true, 10);
    EXPECT_EQ(printed, (lines{"a", "b", "c"}));  // before finish(), in order
    EXPECT_EQ(runs.size(), 3U);
    runs.finish();
    EXPECT_EQ(printed, (lines{"a", "b", "c"}));  // and nothing again
    EXPECT_TRUE(holds_nothing(dir.path()));
}

TEST(OrderedRuns, NothingAddedPrintsNothing) {
    const temp_dir dir;
    bool printed = false;
    ordered_runs runs(dir.path().string(), memory_budget(1 << 20), [&](std::string_view) { printed = true; });
    runs.finish();
    EXPECT_FALSE(printed);
    EXPECT_EQ(runs.size(), 0U);
}

}  // namespace
