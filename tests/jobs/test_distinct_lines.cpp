// Tests of the engine of the exact jobs (jobs/spill/distinct_lines.hpp), against a std::map of
// the same records: in memory that holds a small part of the lines, so that they are spilled and
// partitioned again, every line comes out in exactly one part with its count, first position and
// tags; a line repeated a million times costs one record per spill; many lines on one hash; a
// line too long for the memory; spill files without names. And the records' way to disk and back
// (jobs/spill/line_record.hpp, spill_file.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "jobs/spill/distinct_lines.hpp"
#include "jobs/spill/line_record.hpp"
#include "jobs/spill/spill_file.hpp"
#include "temp_dir.hpp"

namespace {

using namespace bloomkit_test;
using bloomkit::jobs::spill::distinct_lines;
using bloomkit::jobs::spill::line_exceeds_memory;
using bloomkit::jobs::spill::line_record;
using bloomkit::jobs::spill::line_table;
using bloomkit::jobs::spill::no_position;
using bloomkit::jobs::spill::record_reader;
using bloomkit::jobs::spill::spill_file;
using bloomkit::jobs::spill::spill_limits;
using bloomkit::jobs::spill::table_entry;

std::uint64_t hash_of(std::string_view text) { return bloomkit::hasher{}(text).low; }

/// What is known of a line once its records are folded.
struct folded {
    std::uint64_t count = 0;
    std::uint64_t position = no_position;
    unsigned tags = 0;
    friend bool operator==(const folded&, const folded&) = default;
};

std::ostream& operator<<(std::ostream& out, const folded& f) {
    return out << "{count " << f.count << ", position " << f.position << ", tags " << f.tags << "}";
}

using reference = std::map<std::string, folded>;

void fold(reference& into, const line_record& record) {
    folded& f = into[std::string(record.text)];
    f.count += record.count;
    f.position = std::min(f.position, record.position);
    f.tags |= record.tags;
}

/// Every line of every part, each checked to be in one part only.
reference all_parts(distinct_lines& lines, std::uint64_t* parts = nullptr) {
    reference seen;
    std::uint64_t visits = 0;
    lines.for_each_part([&](line_table& part) {
        ++visits;
        EXPECT_FALSE(part.empty());
        part.for_each([&](const table_entry& entry) {
            const auto [at, made] =
                seen.emplace(std::string(entry.text()), folded{entry.count, entry.position, entry.tags});
            EXPECT_TRUE(made) << "a line in two parts: '" << entry.text() << "'";
            EXPECT_EQ(entry.hash, hash_of(entry.text()));
        });
    });
    EXPECT_EQ(visits, lines.statistics().parts);
    if (parts != nullptr) *parts = visits;
    return seen;
}

/// A random line: 0 to 40 bytes, any of them ('\0' and '\n' included: they are bytes here).
std::string random_line(std::mt19937_64& random) {
    std::string line(random() % 41, '\0');
    for (char& c : line) c = static_cast<char>(random() % 4 == 0 ? random() % 256 : 'a' + random() % 3);
    return line;
}

/// `count` records drawn from `distinct` random lines, skewed (a few lines often), at positions
/// 0, 1, 2..., with one tag of three.
std::vector<std::pair<std::string, line_record>> random_records(std::uint64_t count, std::uint64_t distinct,
                                                                std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<std::string> pool;
    for (std::uint64_t i = 0; i < distinct; ++i) pool.push_back(random_line(random) + std::to_string(i));
    std::vector<std::pair<std::string, line_record>> records(count);
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t pick = random() % 8 == 0 ? random() % 20 : random() % distinct;
        records[i].first = pool[pick];
        records[i].second = {
            hash_of(pool[pick]), i, 1 + random() % 3, static_cast<std::uint8_t>(1u << (random() % 3)), {}};
    }
    return records;
}

/// Folds the records into a distinct_lines and into the reference; returns the reference.
reference add_all(distinct_lines& lines, const std::vector<std::pair<std::string, line_record>>& records) {
    reference expected;
    for (const auto& [text, r] : records) {
        line_record record = r;
        record.text = text;
        lines.add(record);
        fold(expected, record);
    }
    return expected;
}

/// The names of the files open in `dir` (an unnamed file shows as '/dir/#123 (deleted)').
std::uint64_t files_open_in(const fs::path& dir) {
    std::uint64_t open = 0;
    for (const auto& fd : fs::directory_iterator("/proc/self/fd")) {
        std::error_code failed;
        const fs::path target = fs::read_symlink(fd.path(), failed);
        if (!failed && target.string().starts_with(dir.string() + "/")) ++open;
    }
    return open;
}

bool holds_nothing(const fs::path& dir) { return fs::directory_iterator(dir) == fs::directory_iterator(); }

TEST(DistinctLines, WhatFitsStaysInMemoryAsOnePart) {
    const temp_dir dir;
    distinct_lines lines({dir.path().string(), 1 << 20}, 0);
    const auto records = random_records(5000, 300, 1);
    const reference expected = add_all(lines, records);
    EXPECT_FALSE(lines.spilled());
    EXPECT_EQ(lines.table().size(), expected.size());
    std::uint64_t parts = 0;
    EXPECT_EQ(all_parts(lines, &parts), expected);
    EXPECT_EQ(parts, 1U);
    EXPECT_EQ(lines.statistics().spills, 0U);
    EXPECT_EQ(lines.statistics().bytes_spilled, 0U);
    EXPECT_EQ(lines.statistics().levels, 0U);
    EXPECT_TRUE(holds_nothing(dir.path()));
}

TEST(DistinctLines, NothingAddedIsOneEmptyPart) {
    const temp_dir dir;
    distinct_lines lines({dir.path().string(), 1 << 20}, 0);
    std::uint64_t visits = 0;
    lines.for_each_part([&](line_table& part) {
        ++visits;
        EXPECT_TRUE(part.empty());
    });
    EXPECT_EQ(visits, 1U);
}

TEST(DistinctLines, SpilledLinesComeBackFoldedOnceEach) {
    // Memory for a few thousand lines against tens of thousands; the input's size guessed well,
    // not at all, or far too small (so that the first partitions do not fit and are split again).
    // Folded back by one thread, or by three at once (each with a third of the table).
    struct run {
        std::uint64_t memory, input_bytes, count, distinct;
        unsigned threads;
    };
    for (const run r : {run{1 << 20, 700'000, 40'000, 25'000, 1}, run{1 << 20, 0, 40'000, 25'000, 1},
                        run{256 << 10, 1, 30'000, 12'000, 1}, run{64 << 10, 0, 12'000, 6'000, 1},
                        run{1 << 20, 700'000, 40'000, 25'000, 3}, run{256 << 10, 1, 30'000, 12'000, 3}}) {
        SCOPED_TRACE("memory " + std::to_string(r.memory) + ", input_bytes " + std::to_string(r.input_bytes) +
                     ", threads " + std::to_string(r.threads));
        const temp_dir dir;
        distinct_lines lines({dir.path().string(), r.memory, r.threads}, r.input_bytes);
        const reference expected = add_all(lines, random_records(r.count, r.distinct, r.memory + r.input_bytes));
        EXPECT_TRUE(lines.spilled());
        std::uint64_t parts = 0;
        const reference got = all_parts(lines, &parts);
        EXPECT_EQ(got.size(), expected.size());
        EXPECT_TRUE(got == expected);
        for (const auto& [text, f] : expected) {
            const auto it = got.find(text);
            if (it == got.end()) {
                ADD_FAILURE() << "missing: '" << text << "'";
                break;
            }
            if (it->second != f) {
                ADD_FAILURE() << "'" << text << "': " << it->second << ", expected " << f;
                break;
            }
        }
        const auto& statistics = lines.statistics();
        EXPECT_GE(statistics.spills, 2U);
        EXPECT_GT(statistics.bytes_spilled, 0U);
        EXPECT_GE(statistics.levels, 1U);
        EXPECT_GT(parts, 1U);
        if (r.input_bytes == 1 || r.memory == 64 << 10) {  // split again
            EXPECT_GE(statistics.levels, 2U);
        }
        EXPECT_TRUE(holds_nothing(dir.path()));
    }
}

TEST(DistinctLines, ALineRepeatedAMillionTimesIsOneRecordPerSpill) {
    const temp_dir dir;
    distinct_lines lines({dir.path().string(), 256 << 10}, 0);
    const std::string hot = "the hot line";
    const std::uint64_t hot_hash = hash_of(hot);
    std::vector<std::string> cold;
    for (int i = 0; i < 20'000; ++i) cold.push_back("cold line " + std::to_string(i));
    std::uint64_t position = 0, cold_bytes = 0;
    for (std::uint64_t i = 0; i < 1'000'000; ++i) {
        lines.add({hot_hash, position++, 1, 1, hot});
        if (i % 50 == 0) {
            const std::string& line = cold[i / 50];
            lines.add({hash_of(line), position++, 1, 2, line});
            cold_bytes += line.size();
        }
    }
    ASSERT_TRUE(lines.spilled());
    const reference got = all_parts(lines);
    ASSERT_EQ(got.size(), cold.size() + 1);
    EXPECT_EQ(got.at(hot), (folded{1'000'000, 0, 1}));
    EXPECT_EQ(got.at(cold[7]), (folded{1, 7 * 51 + 1, 2}));
    const auto& statistics = lines.statistics();
    // On disk, every cold line once per level it goes through, the hot line once per spill: a
    // record is at most 16 bytes beside its text here (positions and counts below 2^21).
    EXPECT_GE(statistics.spills, 2U);
    EXPECT_LE(statistics.bytes_spilled,
              statistics.levels * (cold_bytes + 16 * cold.size()) + statistics.spills * (16 + hot.size()));
    EXPECT_LT(statistics.bytes_spilled, std::uint64_t{2} << 20);  // not the ~20 MB of a record per occurrence
}

TEST(DistinctLines, LinesSharingAHashMeetInOnePart) {
    const temp_dir dir;
    distinct_lines lines({dir.path().string(), 256 << 10}, 0);
    reference expected;
    std::map<std::string, std::uint64_t> hashes;
    for (std::uint64_t i = 0; i < 12'000; ++i) {
        const std::string text = "shared " + std::to_string(i % 6000);
        const std::uint64_t hash = hash_of(std::to_string(i % 16));  // 16 hashes for 6000 lines
        const line_record record{hash, i, 1, static_cast<std::uint8_t>(i % 2 + 1), text};
        lines.add(record);
        fold(expected, record);
        hashes[text] = hash;
    }
    ASSERT_TRUE(lines.spilled());
    reference got;
    lines.for_each_part([&](line_table& part) {
        part.for_each([&](const table_entry& entry) {
            EXPECT_EQ(entry.hash, hashes.at(std::string(entry.text())));
            EXPECT_TRUE(got.emplace(std::string(entry.text()), folded{entry.count, entry.position, entry.tags}).second);
        });
    });
    EXPECT_TRUE(got == expected);
}

TEST(DistinctLines, TooManyLinesOnOneHashIsAnErrorNotALoop) {
    const temp_dir dir;
    distinct_lines lines({dir.path().string(), 64 << 10}, 0);
    for (int i = 0; i < 3000; ++i)
        lines.add({12345, static_cast<std::uint64_t>(i), 1, 1, "same hash " + std::to_string(i)});
    try {
        lines.for_each_part([](line_table&) {});
        FAIL() << "3000 lines on one hash were split into parts of 64 KiB";
    } catch (const bloomkit::error& e) {
        EXPECT_NE(std::string(e.what()).find("64-bit hash"), std::string::npos) << e.what();
    }
}

TEST(DistinctLines, ALineLongerThanTheMemoryAllowsIsRefusedSayingWhatWouldDo) {
    const temp_dir dir;
    const std::uint64_t memory = 64 << 10;
    distinct_lines lines({dir.path().string(), memory}, 0);
    lines.add({hash_of("short"), 0, 1, 1, "short"});
    const std::string longest(40 << 10, 'L');
    std::uint64_t enough = 0;
    try {
        lines.add({hash_of(longest), 1, 1, 1, longest});
        FAIL() << "a line of 40 KiB was taken in 64 KiB";
    } catch (const line_exceeds_memory& e) {
        EXPECT_EQ(e.line_bytes(), longest.size());
        // "... give it at least N bytes" (no std::regex: GCC 12 warns inside it under ASan).
        const std::string message = e.what();
        const std::size_t at = message.find("at least ");
        ASSERT_NE(at, std::string::npos) << message;
        enough = std::stoull(message.substr(at + 9));
        EXPECT_EQ(enough, e.needed());
        EXPECT_NE(message.find(std::to_string(memory)), std::string::npos) << message;
    }
    EXPECT_GT(enough, memory);
    // The memory the message names holds it, and the lines around it.
    distinct_lines roomy({dir.path().string(), enough}, 0);
    roomy.add({hash_of("short"), 0, 1, 1, "short"});
    roomy.add({hash_of(longest), 1, 1, 1, longest});
    roomy.add({hash_of(longest), 2, 1, 2, longest});
    const reference got = all_parts(roomy);
    EXPECT_EQ(got.size(), 2U);
    EXPECT_EQ(got.at(longest), (folded{2, 1, 3}));
}

TEST(DistinctLines, SpillFilesHaveNoNames) {
    const temp_dir dir;
    distinct_lines lines({dir.path().string(), 64 << 10}, 0);
    const reference expected = add_all(lines, random_records(10'000, 5'000, 9));
    ASSERT_TRUE(lines.spilled());
    EXPECT_TRUE(holds_nothing(dir.path()));
    EXPECT_GT(files_open_in(dir.path()), 0U);  // the partitions are there, unnamed
    bool checked = false;
    reference got;
    lines.for_each_part([&](line_table& part) {
        if (!checked) {
            EXPECT_TRUE(holds_nothing(dir.path()));
            EXPECT_GT(files_open_in(dir.path()), 0U);
            checked = true;
        }
        part.for_each([&](const table_entry& e) { got[std::string(e.text())] = {e.count, e.position, e.tags}; });
    });
    EXPECT_TRUE(got == expected);
    EXPECT_TRUE(holds_nothing(dir.path()));
    EXPECT_EQ(files_open_in(dir.path()), 0U);  // and gone once read
}

// A cleared table may hold an index grown for many short lines; a long line that could_hold()
// accepts must still find room (the index starts small again), whether it comes in add() or
// when its part is read back in solve(). Here: 1 MiB of memory (a table of 786,432 bytes),
// 20,000 short lines (an index of 16,384 slots, 128 KiB), and a line of 700,000 bytes.
// With several threads, a solver's share of the table must hold it too: fewer solvers fold the
// parts back then, and the answer does not depend on -t.
TEST(DistinctLines, ALongLineAfterManyShortOnesIsKept) {
    const std::string longest(700'000, 'L');
    for (const unsigned threads : {1u, 2u, 8u})
        for (const bool long_first : {false, true}) {  // lost by add(), or when its part is read back by solve()
            SCOPED_TRACE(long_first ? "the long line first" : "the long line after the short ones");
            SCOPED_TRACE("threads " + std::to_string(threads));
            const temp_dir dir;
            distinct_lines lines({dir.path().string(), 1 << 20, threads}, 0);
            if (long_first) lines.add({hash_of(longest), 20'000, 1, 1, longest});
            for (int i = 0; i < 20'000; ++i) {
                const std::string text = "k" + std::to_string(i);
                lines.add({hash_of(text), static_cast<std::uint64_t>(i), 1, 1, text});
            }
            ASSERT_TRUE(lines.table().could_hold(longest.size()));
            if (!long_first) lines.add({hash_of(longest), 20'000, 1, 1, longest});
            lines.add({hash_of("after"), 20'001, 1, 1, "after"});
            const reference got = all_parts(lines);
            EXPECT_EQ(got.size(), 20'002U);
            EXPECT_TRUE(got.contains("after"));
            EXPECT_TRUE(got.contains(longest)) << "the line of 700,000 bytes is lost";
        }
}

TEST(LineRecord, RecordsComeBackFromASpillFileAsWritten) {
    const temp_dir dir;
    spill_file file(dir.path().string(), 4096);
    const std::string longest(100'000, 'x');  // longer than the buffers: the reader's grows
    const std::vector<line_record> written{
        {0, 0, 1, 0, ""},
        {~std::uint64_t{0}, no_position, std::numeric_limits<std::uint64_t>::max(), 255, std::string_view("a\0b", 3)},
        {0x0123456789abcdef, 127, 128, 1, "edge of a varint"},
        {42, no_position - 1, 16384, 2, longest},
        {7, 5, 3, 4, "\n\r\xff"},
    };
    for (int round = 0; round < 50; ++round)
        for (const line_record& r : written) bloomkit::jobs::spill::write_record(file, r);
    file.finish_writing();
    EXPECT_TRUE(holds_nothing(dir.path()));
    for (const std::size_t buffer : {std::size_t{1}, std::size_t{4096}, std::size_t{1} << 20}) {
        record_reader reader(file, buffer);
        line_record r;
        for (int round = 0; round < 50; ++round) {
            for (const line_record& w : written) {
                ASSERT_TRUE(reader.next(r));
                ASSERT_EQ(r.hash, w.hash);
                ASSERT_EQ(r.position, w.position);
                ASSERT_EQ(r.count, w.count);
                ASSERT_EQ(r.tags, w.tags);
                ASSERT_EQ(r.text, w.text);
            }
        }
        EXPECT_FALSE(reader.next(r));
    }
}

TEST(LineRecord, ANumberOfMoreThan64BitsIsDamageNotAValue) {
    // A record whose second field runs on for 11 bytes of continuation: next() names the
    // damage, and the scan ahead stops before it instead of reading past it.
    const temp_dir dir;
    spill_file file(dir.path().string(), 4096);
    bloomkit::jobs::spill::write_record(file, {1, 0, 1, 0, "fine"});
    const std::string damaged = std::string(8, '\x02') + std::string(11, '\xff') + std::string(1, '\x01');
    file.append(damaged.data(), damaged.size());
    file.finish_writing();
    record_reader reader(file, 4096);
    line_record r;
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.text, "fine");
    EXPECT_FALSE(reader.hash_ahead(1).has_value());
    try {
        (void)reader.next(r);
        ADD_FAILURE() << "expected the damage to be named";
    } catch (const bloomkit::error& e) {
        EXPECT_NE(std::string(e.what()).find("more than 64 bits"), std::string::npos) << e.what();
    }
}

TEST(LineRecord, TheHashAheadIsThatOfTheRecordItNames) {
    // Folding prefetches by the hash a few records on: whatever the buffer holds, that hash is
    // the named record's or nothing, and asking never disturbs what next() gives.
    const temp_dir dir;
    spill_file file(dir.path().string(), 4096);
    std::vector<std::string> texts;
    for (int i = 0; i < 3000; ++i) texts.push_back(std::string(static_cast<std::size_t>(i * 37 % 300), 'a' + i % 26));
    texts[1500] = std::string(50'000, 'z');  // longer than the smaller buffers
    for (std::size_t i = 0; i < texts.size(); ++i)
        bloomkit::jobs::spill::write_record(file, {i * 0x9e3779b97f4a7c15ULL, i, i + 1, 1, texts[i]});
    file.finish_writing();
    for (const std::size_t buffer : {std::size_t{64}, std::size_t{4096}, std::size_t{1} << 20})
        for (const std::size_t distance : {std::size_t{0}, std::size_t{1}, std::size_t{8}}) {
            record_reader reader(file, buffer);
            line_record r;
            std::size_t answered = 0;
            for (std::size_t i = 0; i < texts.size(); ++i) {
                ASSERT_TRUE(reader.next(r));
                ASSERT_EQ(r.position, i);
                ASSERT_EQ(r.text, texts[i]);
                if (const auto ahead = reader.hash_ahead(distance)) {
                    ASSERT_LT(i + 1 + distance, texts.size());
                    ASSERT_EQ(*ahead, (i + 1 + distance) * 0x9e3779b97f4a7c15ULL) << i << " " << distance;
                    ++answered;
                }
            }
            EXPECT_FALSE(reader.next(r));
            if (buffer == std::size_t{1} << 20) {  // holds hundreds of records: nearly every one is answered
                EXPECT_GT(answered, texts.size() / 2) << "distance " << distance;
            }
        }
}

}  // namespace
