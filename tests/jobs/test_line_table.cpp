// Tests of the line table (jobs/spill/line_table.hpp): records of one line fold (counts add, the
// position is the smallest, tags OR), lines are told apart by their bytes (empty, NUL, one hash
// shared), for_each() in the order entries were made, the budget (add() refuses a new line when
// it is reached, changing nothing, and arena and index never pass it), could_hold(), clear() and
// release() for reuse, sorted_by_position(), long lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/hash.hpp"
#include "jobs/spill/line_table.hpp"

namespace {

using bloomkit::jobs::spill::line_record;
using bloomkit::jobs::spill::line_table;
using bloomkit::jobs::spill::no_position;
using bloomkit::jobs::spill::table_entry;

std::uint64_t hash_of(std::string_view text) { return bloomkit::hasher{}(text).low; }

line_record record_of(std::string_view text, std::uint64_t position, std::uint64_t count = 1, std::uint8_t tags = 1) {
    return {hash_of(text), position, count, tags, text};
}

/// The texts of the entries, in for_each() order.
std::vector<std::string> texts_of(const line_table& table) {
    std::vector<std::string> texts;
    table.for_each([&](const table_entry& entry) { texts.emplace_back(entry.text()); });
    return texts;
}

/// The index a table that was never cleared has after `entries` new lines: the fewest slots, a
/// power of two from 1024, that keep it at most 70% full (it doubles only when it must).
std::uint64_t index_bytes_for(std::uint64_t entries) {
    if (entries == 0) return 0;
    std::uint64_t slots = 1024;
    while (entries * 10 > slots * 7) slots *= 2;
    return slots * 8;
}

TEST(LineTable, RecordsOfOneLineFold) {
    line_table table(1 << 20);
    ASSERT_TRUE(table.add(record_of("a", 5, 1, 1)));
    ASSERT_TRUE(table.add(record_of("b", 4, 1, 1)));
    ASSERT_TRUE(table.add(record_of("a", 3, 2, 2)));
    ASSERT_TRUE(table.add(record_of("a", 9, 4, 4)));
    EXPECT_EQ(table.size(), 2U);
    const table_entry* a = table.find(hash_of("a"), "a");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->count, 7U);
    EXPECT_EQ(a->position, 3U);
    EXPECT_EQ(a->tags, 7U);
    EXPECT_EQ(a->text(), "a");
    EXPECT_EQ(a->hash, hash_of("a"));
    const table_entry* b = table.find(hash_of("b"), "b");
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->count, 1U);
    EXPECT_EQ(b->position, 4U);
    EXPECT_EQ(b->tags, 1U);
    const line_record r = a->record();
    EXPECT_EQ(r.hash, hash_of("a"));
    EXPECT_EQ(r.position, 3U);
    EXPECT_EQ(r.count, 7U);
    EXPECT_EQ(r.tags, 7U);
    EXPECT_EQ(r.text, "a");
}

TEST(LineTable, NoPositionIsLaterThanAnyAndCountsStopAtTheLargest) {
    line_table table(1 << 20);
    constexpr auto largest = std::numeric_limits<std::uint64_t>::max();
    ASSERT_TRUE(table.add(record_of("x", no_position, largest - 1, 2)));
    EXPECT_EQ(table.find(hash_of("x"), "x")->position, no_position);
    ASSERT_TRUE(table.add(record_of("x", 12, 5, 1)));  // takes the position; the count cannot wrap
    ASSERT_TRUE(table.add(record_of("x", no_position, 1, 0)));
    const table_entry* x = table.find(hash_of("x"), "x");
    EXPECT_EQ(x->position, 12U);
    EXPECT_EQ(x->count, largest);
    EXPECT_EQ(x->tags, 3U);
}

TEST(LineTable, FindWantsTheHashAndTheBytes) {
    line_table table(1 << 20);
    EXPECT_EQ(table.find(hash_of("a"), "a"), nullptr);  // an empty table, no index yet
    ASSERT_TRUE(table.add(record_of("a", 0)));
    EXPECT_NE(table.find(hash_of("a"), "a"), nullptr);
    EXPECT_EQ(table.find(hash_of("a") + 1, "a"), nullptr);
    EXPECT_EQ(table.find(hash_of("a") ^ (std::uint64_t{1} << 40), "a"), nullptr);  // another tag in the slot
    EXPECT_EQ(table.find(hash_of("a"), "b"), nullptr);
    EXPECT_EQ(table.find(hash_of("b"), "b"), nullptr);
}

TEST(LineTable, LinesSharingAHashStayApart) {
    // Empty, NUL bytes and prefixes, all under one hash: only the bytes tell them apart.
    const std::vector<std::string> texts{
        "",        std::string(1, '\0'), std::string(2, '\0'), std::string("a\0b", 3), "a", std::string("a\0", 2), "ab",
        "\xff\x80"};
    line_table table(1 << 20);
    for (std::size_t i = 0; i < texts.size(); ++i)
        ASSERT_TRUE(table.add({42, i, i + 1, static_cast<std::uint8_t>(1u << (i % 8)), texts[i]}));
    for (std::size_t i = 0; i < texts.size(); ++i)  // again: each folds into its own entry
        ASSERT_TRUE(table.add({42, 100 + i, 1, 0, texts[i]}));
    EXPECT_EQ(table.size(), texts.size());
    EXPECT_EQ(texts_of(table), texts);
    for (std::size_t i = 0; i < texts.size(); ++i) {
        const table_entry* entry = table.find(42, texts[i]);
        ASSERT_NE(entry, nullptr) << i;
        EXPECT_EQ(entry->text(), texts[i]);
        EXPECT_EQ(entry->count, i + 2);
        EXPECT_EQ(entry->position, i);
        EXPECT_EQ(entry->tags, 1u << (i % 8));
    }
    // Many lines on a few hashes, with the same upper half (the slot's tag) and low bits.
    line_table crowded(1 << 20);
    for (int i = 0; i < 3000; ++i) {
        const std::string text = "line " + std::to_string(i);
        ASSERT_TRUE(crowded.add({std::uint64_t{0xabcd} << 32 | static_cast<std::uint64_t>(i % 3), 0, 1, 1, text}));
    }
    EXPECT_EQ(crowded.size(), 3000U);
    for (int i = 0; i < 3000; ++i) {
        const std::string text = "line " + std::to_string(i);
        ASSERT_NE(crowded.find(std::uint64_t{0xabcd} << 32 | static_cast<std::uint64_t>(i % 3), text), nullptr) << i;
        ASSERT_EQ(crowded.find(std::uint64_t{0xabcd} << 32 | static_cast<std::uint64_t>((i + 1) % 3), text), nullptr);
    }
}

TEST(LineTable, ForEachVisitsEntriesInTheOrderTheyWereMade) {
    line_table table(4 << 20);
    std::vector<std::string> made;
    std::mt19937_64 random(7);
    for (int i = 0; i < 5000; ++i) {  // past the first index: it is rebuilt, the arena is not
        std::string text(random() % 50, 'a' + static_cast<char>(i % 26));
        text += std::to_string(i);
        made.push_back(text);
        ASSERT_TRUE(table.add(record_of(made.back(), static_cast<std::uint64_t>(5000 - i))));
        if (i % 3 == 0) {  // folds
            ASSERT_TRUE(table.add(record_of(made[static_cast<std::size_t>(i) / 2], 0)));
        }
    }
    EXPECT_EQ(texts_of(table), made);
    for (const std::string& text : made) ASSERT_NE(table.find(hash_of(text), text), nullptr) << text;
}

TEST(LineTable, ANewLineIsRefusedAtTheBudgetAndNothingChanges) {
    for (const std::uint64_t budget :
         {std::uint64_t{20'000}, std::uint64_t{64} << 10, std::uint64_t{100'000}, std::uint64_t{1} << 20}) {
        for (const std::size_t length : {std::size_t{0}, std::size_t{8}, std::size_t{13}, std::size_t{100}}) {
            SCOPED_TRACE("budget " + std::to_string(budget) + ", lines of " + std::to_string(length) + "+ bytes");
            line_table table(budget);
            std::vector<std::string> held;
            std::uint64_t arena = 0;
            for (;;) {
                // Numbers filled up to `length` bytes with dots; with no length, an empty line first.
                std::string text = length == 0 && held.empty() ? std::string() : std::to_string(held.size());
                if (text.size() < length) text.resize(length, '.');
                if (!table.add(record_of(text, held.size()))) {
                    EXPECT_EQ(table.size(), held.size());  // nothing changed
                    EXPECT_EQ(table.find(hash_of(text), text), nullptr);
                    break;
                }
                held.push_back(text);
                arena += line_table::entry_bytes(text.size());
                ASSERT_LE(arena + index_bytes_for(held.size()), budget);
            }
            ASSERT_FALSE(held.empty());
            EXPECT_LE(arena + index_bytes_for(held.size()), budget);
            EXPECT_EQ(table.size(), held.size());
            EXPECT_EQ(texts_of(table), held);
            // Full as it is, a line it holds still folds.
            ASSERT_TRUE(table.add(record_of(held.front(), 0, 5, 2)));
            EXPECT_EQ(table.find(hash_of(held.front()), held.front())->count, 6U);
            EXPECT_EQ(table.size(), held.size());
            // And the memory was used, not wasted: at least a third of it holds entries.
            EXPECT_GE(arena * 3, budget);
        }
    }
}

TEST(LineTable, CouldHoldIsWhatAnEmptyTableHolds) {
    constexpr std::uint64_t first_index = 2 * 1024 * 8;  // the first index, as it is made beside the last
    EXPECT_EQ(line_table::entry_bytes(0), 32U);
    EXPECT_EQ(line_table::entry_bytes(1), 40U);
    EXPECT_EQ(line_table::entry_bytes(8), 40U);
    EXPECT_EQ(line_table::entry_bytes(9), 48U);
    EXPECT_FALSE(line_table(first_index).could_hold(0));
    for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{70'000}}) {
        const std::uint64_t just = line_table::entry_bytes(size) + first_index;
        EXPECT_TRUE(line_table(just).could_hold(size)) << size;
        EXPECT_FALSE(line_table(just - 1).could_hold(size)) << size;
        EXPECT_FALSE(line_table(just).could_hold(size + 8)) << size;
        line_table table(just);
        const std::string text(size, 'q');
        ASSERT_TRUE(table.add(record_of(text, 1))) << size;  // what could_hold() promises
        EXPECT_EQ(table.find(hash_of(text), text)->text(), text);
    }
}

// could_hold() promises what an empty table holds; a cleared table whose index grew for many
// short lines keeps the promise (the index starts small again for a long first line). Here:
// 11,000 short lines grow the index to 16,384 slots (128 KiB) in a budget of 786,432 bytes; then
// a line of 700,000 bytes.
TEST(LineTable, AClearedTableHoldsWhatCouldHoldPromises) {
    line_table table(786'432);
    for (int i = 0; i < 11'000; ++i) ASSERT_TRUE(table.add(record_of("k" + std::to_string(i), i)));
    table.clear();
    const std::string longest(700'000, 'L');
    ASSERT_TRUE(table.could_hold(longest.size()));
    EXPECT_TRUE(table.add(record_of(longest, 0)));
}

TEST(LineTable, ClearAndReleaseEmptyTheTableForReuse) {
    line_table table(1 << 20);
    const auto fill = [&](const std::string& prefix, int lines) {
        for (int i = 0; i < lines; ++i) ASSERT_TRUE(table.add(record_of(prefix + std::to_string(i), i)));
    };
    fill("first ", 4000);
    EXPECT_EQ(table.size(), 4000U);
    table.clear();
    EXPECT_TRUE(table.empty());
    EXPECT_EQ(table.size(), 0U);
    EXPECT_TRUE(texts_of(table).empty());
    EXPECT_EQ(table.find(hash_of("first 7"), "first 7"), nullptr);
    fill("second ", 4000);
    EXPECT_EQ(table.size(), 4000U);
    EXPECT_EQ(table.find(hash_of("first 7"), "first 7"), nullptr);
    ASSERT_NE(table.find(hash_of("second 7"), "second 7"), nullptr);
    EXPECT_EQ(table.find(hash_of("second 7"), "second 7")->count, 1U);
    table.release();
    EXPECT_TRUE(table.empty());
    EXPECT_TRUE(texts_of(table).empty());
    EXPECT_EQ(table.find(hash_of("second 7"), "second 7"), nullptr);
    fill("third ", 4000);
    EXPECT_EQ(table.size(), 4000U);
    ASSERT_NE(table.find(hash_of("third 3999"), "third 3999"), nullptr);
    EXPECT_EQ(table.find(hash_of("third 3999"), "third 3999")->position, 3999U);
    // A table filled to its budget, cleared, fills to the same lines again.
    line_table small(64 << 10);
    std::uint64_t held = 0;
    while (small.add(record_of("k" + std::to_string(held), held))) ++held;
    for (int round = 0; round < 3; ++round) {
        small.clear();
        for (std::uint64_t i = 0; i < held; ++i) ASSERT_TRUE(small.add(record_of("k" + std::to_string(i), i)));
        EXPECT_FALSE(small.add(record_of("k" + std::to_string(held), held)));
        EXPECT_EQ(small.size(), held);
    }
}

TEST(LineTable, SortedByPositionKeepsWhatItIsAskedToByPosition) {
    EXPECT_TRUE(line_table(1 << 20).sorted_by_position([](const table_entry&) { return true; }).empty());
    line_table table(1 << 20);
    std::vector<std::uint64_t> positions(3000);
    std::iota(positions.begin(), positions.end(), 0);
    std::shuffle(positions.begin(), positions.end(), std::mt19937_64(3));
    std::map<std::uint64_t, std::string> kept;  // by position
    for (std::size_t i = 0; i < positions.size(); ++i) {
        const std::string text = "line " + std::to_string(i);
        ASSERT_TRUE(table.add(record_of(text, positions[i] * 2 + 10)));
        if (i % 4 == 0) {
            ASSERT_TRUE(table.add(record_of(text, positions[i] * 2 + 1)));  // earlier, and a count of 2
            kept[positions[i] * 2 + 1] = text;
        }
    }
    ASSERT_TRUE(table.add(record_of("never placed", no_position, 1)));
    ASSERT_TRUE(table.add(record_of("never placed", no_position, 1)));
    kept[no_position] = "never placed";
    const auto order = table.sorted_by_position([](const table_entry& entry) { return entry.count > 1; });
    ASSERT_EQ(order.size(), kept.size());
    auto expected = kept.begin();
    for (const table_entry* entry : order) {
        EXPECT_EQ(entry->position, expected->first);
        EXPECT_EQ(entry->text(), expected->second);
        ++expected;
    }
    // Then the table is cleared, and works as new (the order was kept in its index).
    table.clear();
    for (int i = 0; i < 3000; ++i) ASSERT_TRUE(table.add(record_of("again " + std::to_string(i), i)));
    for (int i = 0; i < 3000; ++i) {
        const std::string text = "again " + std::to_string(i);
        ASSERT_NE(table.find(hash_of(text), text), nullptr) << i;
    }
    EXPECT_EQ(table.find(hash_of("line 0"), "line 0"), nullptr);
}

TEST(LineTable, LongLinesAreHeldWhole) {
    line_table table(8 << 20);
    std::string longest(3 << 20, 'x');
    longest[12345] = '\0';
    longest.back() = 'y';
    const std::string other(100'000, 'z');
    ASSERT_TRUE(table.add(record_of(longest, 7)));
    ASSERT_TRUE(table.add(record_of("short", 8)));
    ASSERT_TRUE(table.add(record_of(other, 9)));
    ASSERT_TRUE(table.add(record_of(longest, 1)));
    EXPECT_EQ(texts_of(table), (std::vector<std::string>{longest, "short", other}));
    const table_entry* entry = table.find(hash_of(longest), longest);
    ASSERT_NE(entry, nullptr);
    EXPECT_EQ(entry->count, 2U);
    EXPECT_EQ(entry->position, 1U);
    EXPECT_EQ(entry->text(), longest);
    std::string near = longest;
    near[near.size() / 2] = 'w';
    EXPECT_EQ(table.find(hash_of(longest), near), nullptr);
    // A line longer than the budget is refused, and the table goes on.
    line_table small(64 << 10);
    EXPECT_FALSE(small.could_hold(64 << 10));
    EXPECT_FALSE(small.add(record_of(std::string(64 << 10, 'l'), 0)));
    EXPECT_TRUE(small.empty());
    EXPECT_TRUE(small.add(record_of("fits", 1)));
}

}  // namespace
