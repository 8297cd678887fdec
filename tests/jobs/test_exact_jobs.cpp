// Tests of the exact jobs (jobs/spill/exact_jobs.hpp) on files, against plain in-memory answers:
// dedup in order of first appearance, the lines seen once or repeated, the k most frequent (ties
// by bytes), the lines two inputs share or not (with and without the pruning filter); keys as
// text or as u64, i64 and u32 numbers printed in canonical decimal (u32 also in bitmaps, when
// the memory holds them). In 1 MiB of memory, so that inputs of about a megabyte spill, on 1 and
// 2 threads, which must print the same; and nothing left in the temporary directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "bloomkit/hash.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/line_reader.hpp"
#include "jobs/spill/exact_jobs.hpp"
#include "jobs_testing.hpp"

namespace {

using namespace bloomkit_test;
using bloomkit::key_format;
using bloomkit::jobs::line_reader;
using bloomkit::jobs::spill::exact_report;
using bloomkit::jobs::spill::exact_settings;
using lines = std::vector<std::string>;
using counted = std::vector<std::pair<std::uint64_t, std::string>>;

constexpr std::uint64_t small_memory = 1 << 20;
constexpr std::uint64_t bitmap_memory = std::uint64_t{1} << 30;  // two bitmaps of every u32

// ---------------------------------------------------------------------------------------------
// Inputs, settings and the jobs' outputs

/// A directory for the inputs, and in it one for the jobs' temporary files.
class job_dir {
public:
    job_dir() { fs::create_directory(spill()); }
    [[nodiscard]] fs::path spill() const { return dir_ / "spill"; }

    /// Writes `content` one per line to a file named `name`; returns its path.
    [[nodiscard]] std::string input(const std::string& name, const lines& content) const {
        std::string text;
        for (const std::string& line : content) text.append(line).push_back('\n');
        write_file(dir_ / name, text);
        return (dir_ / name).string();
    }

    /// Writes `text` as it is to a file named `name`; returns its path.
    [[nodiscard]] std::string raw_input(const std::string& name, std::string_view text) const {
        write_file(dir_ / name, text);
        return (dir_ / name).string();
    }

    [[nodiscard]] bool spill_is_empty() const { return fs::directory_iterator(spill()) == fs::directory_iterator(); }

private:
    temp_dir dir_;
};

exact_settings settings_of(const job_dir& dir, unsigned threads, key_format keys = key_format::text,
                           std::uint64_t memory = small_memory, bool prune = true) {
    exact_settings settings;
    settings.limits = {dir.spill().string(), memory, threads};
    settings.keys = keys;
    settings.prune = prune;
    return settings;
}

struct printed {
    lines out;
    exact_report report;
};

printed dedup(const std::string& path, const exact_settings& settings) {
    printed p;
    line_reader input({path});
    p.report =
        bloomkit::jobs::spill::distinct_in_order(input, settings, [&](std::string_view l) { p.out.emplace_back(l); });
    return p;
}

printed once(const std::string& path, const exact_settings& settings, bool repeated) {
    printed p;
    line_reader input({path});
    p.report = bloomkit::jobs::spill::lines_seen_once(input, settings, repeated,
                                                      [&](std::string_view l) { p.out.emplace_back(l); });
    return p;
}

std::pair<counted, exact_report> top(const std::string& path, const exact_settings& settings, std::uint64_t k) {
    counted out;
    line_reader input({path});
    const exact_report report = bloomkit::jobs::spill::most_frequent(
        input, settings, k, [&](std::uint64_t count, std::string_view l) { out.emplace_back(count, l); });
    return {out, report};
}

printed shared(const std::string& first_path, const std::string& second_path, const exact_settings& settings,
               bool present) {
    printed p;
    line_reader first({first_path}), second({second_path});
    p.report = bloomkit::jobs::spill::shared_lines(first, second, settings, present,
                                                   [&](std::string_view l) { p.out.emplace_back(l); });
    return p;
}

// ---------------------------------------------------------------------------------------------
// The answers, in memory

lines ref_dedup(const lines& in) {
    std::unordered_set<std::string> seen;
    lines out;
    for (const std::string& line : in)
        if (seen.insert(line).second) out.push_back(line);
    return out;
}

std::unordered_map<std::string, std::uint64_t> counts_of(const lines& in) {
    std::unordered_map<std::string, std::uint64_t> counts;
    for (const std::string& line : in) ++counts[line];
    return counts;
}

lines ref_once(const lines& in, bool repeated) {
    const auto counts = counts_of(in);
    lines out;
    for (const std::string& line : ref_dedup(in))
        if ((counts.at(line) > 1) == repeated) out.push_back(line);
    return out;
}

counted ref_top(const lines& in, std::uint64_t k) {
    counted all;
    for (const auto& [line, count] : counts_of(in)) all.emplace_back(count, line);
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;  // std::string: bytes as unsigned
    });
    if (all.size() > k) all.resize(k);
    return all;
}

/// present: the distinct lines of `second` in `first`, in `second`'s order; else the distinct
/// lines of `first` not in `second`, in `first`'s order.
lines ref_shared(const lines& first, const lines& second, bool present) {
    const std::unordered_set<std::string> in_first(first.begin(), first.end()), in_second(second.begin(), second.end());
    lines out;
    for (const std::string& line : ref_dedup(present ? second : first))
        if ((present ? in_first.contains(line) : !in_second.contains(line))) out.push_back(line);
    return out;
}

/// Numbers as the jobs print them: canonical decimal.
lines canonical(const lines& in, key_format keys) {
    lines out;
    for (const std::string& line : in) {
        const std::uint64_t value = bloomkit::jobs::parse_key_number(line, keys, {}, 0);
        out.push_back(keys == key_format::i64 ? std::to_string(static_cast<std::int64_t>(value))
                                              : std::to_string(value));
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Generated inputs

/// `count` lines drawn from `distinct` (the first of them empty, the others of up to ~30 bytes,
/// NUL and bytes above 0x7f among them), a few often; `salt` makes a second input's own lines.
lines random_lines(std::uint64_t count, std::uint64_t distinct, std::uint64_t seed, const std::string& salt = "") {
    std::mt19937_64 random(seed);
    lines pool{""};
    for (std::uint64_t i = 1; i < distinct; ++i) {
        std::string line(random() % 24, 'a');
        for (char& c : line)
            c = random() % 16 == 0 ? (random() % 2 == 0 ? '\0' : '\xe9') : static_cast<char>('a' + random() % 3);
        pool.push_back(line + salt + std::to_string(i));
    }
    lines out(count);
    for (std::string& line : out) line = pool[random() % 4 == 0 ? random() % 30 : random() % distinct];
    return out;
}

/// `count` numbers below `range`, some written with leading zeros, some negative (i64).
lines random_numbers(std::uint64_t count, std::uint64_t range, std::uint64_t seed, key_format keys) {
    std::mt19937_64 random(seed);
    lines out(count);
    for (std::string& line : out) {
        const std::uint64_t value = random() % range;
        line = (random() % 5 == 0 ? "00" : "") + std::to_string(value);
        if (keys == key_format::i64 && random() % 2 == 0) line = "-" + line;
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Text keys

TEST(ExactJobs, DedupKeepsFirstAppearancesInOrder) {
    const job_dir dir;
    const lines in = random_lines(60'000, 30'000, 1);
    const std::string path = dir.input("in.txt", in);
    const lines expected = ref_dedup(in);
    for (const unsigned threads : {1u, 2u}) {
        SCOPED_TRACE(std::to_string(threads) + " threads");
        const printed p = dedup(path, settings_of(dir, threads));
        EXPECT_TRUE(p.out == expected) << p.out.size() << " lines printed, " << expected.size() << " expected";
        EXPECT_EQ(p.report.lines_read, in.size());
        EXPECT_EQ(p.report.lines_written, expected.size());
        EXPECT_EQ(p.report.distinct, expected.size());
        EXPECT_GT(p.report.spill.spills, 0U);  // the premise: it did not fit in 1 MiB
        EXPECT_GT(p.report.spill.bytes_spilled, 0U);
        EXPECT_TRUE(dir.spill_is_empty());
    }
}

TEST(ExactJobs, ASmallInputIsAnsweredInMemory) {
    const job_dir dir;
    const lines in{"b", "", "a", "b", std::string("n\0l", 3), "", "a", "\xff", "c"};
    const std::string path = dir.input("in.txt", in);
    for (const unsigned threads : {1u, 2u}) {
        const printed p = dedup(path, settings_of(dir, threads));
        EXPECT_EQ(p.out, (lines{"b", "", "a", std::string("n\0l", 3), "\xff", "c"}));
        EXPECT_EQ(p.report.spill.spills, 0U);
        EXPECT_EQ(p.report.spill.levels, 0U);
        EXPECT_EQ(once(path, settings_of(dir, threads), false).out, (lines{std::string("n\0l", 3), "\xff", "c"}));
        EXPECT_EQ(once(path, settings_of(dir, threads), true).out, (lines{"b", "", "a"}));
    }
    // Lines as the reader makes them: CR LF is a newline, a last line needs none.
    const std::string crlf = dir.raw_input("crlf.txt", "x\r\ny\nx\ny\r\nz");
    EXPECT_EQ(dedup(crlf, settings_of(dir, 1)).out, (lines{"x", "y", "z"}));
    // No lines at all.
    const std::string empty = dir.input("empty.txt", {});
    EXPECT_TRUE(dedup(empty, settings_of(dir, 1)).out.empty());
    EXPECT_TRUE(top(empty, settings_of(dir, 1), 5).first.empty());
}

TEST(ExactJobs, OnceAndRepeated) {
    const job_dir dir;
    const lines in = random_lines(60'000, 35'000, 2);
    const std::string path = dir.input("in.txt", in);
    for (const bool repeated : {false, true}) {
        const lines expected = ref_once(in, repeated);
        ASSERT_GT(expected.size(), 1000U);
        for (const unsigned threads : {1u, 2u}) {
            SCOPED_TRACE(std::to_string(threads) + " threads, repeated " + std::to_string(repeated));
            const printed p = once(path, settings_of(dir, threads), repeated);
            EXPECT_TRUE(p.out == expected) << p.out.size() << " lines printed, " << expected.size() << " expected";
            EXPECT_EQ(p.report.lines_read, in.size());
            EXPECT_EQ(p.report.lines_written, expected.size());
            EXPECT_GT(p.report.spill.spills, 0U);
            EXPECT_TRUE(dir.spill_is_empty());
        }
    }
}

TEST(ExactJobs, TopKByCountThenBytes) {
    const job_dir dir;
    const lines in = random_lines(60'000, 30'000, 3);
    const std::string path = dir.input("in.txt", in);
    const std::uint64_t distinct = counts_of(in).size();
    for (const std::uint64_t k : {std::uint64_t{1}, std::uint64_t{40}, distinct + 10}) {
        const counted expected = ref_top(in, k);
        for (const unsigned threads : {1u, 2u}) {
            SCOPED_TRACE("k " + std::to_string(k) + ", " + std::to_string(threads) + " threads");
            const auto [out, report] = top(path, settings_of(dir, threads), k);
            EXPECT_TRUE(out == expected) << out.size() << " lines printed, " << expected.size() << " expected";
            EXPECT_EQ(report.lines_read, in.size());
            EXPECT_EQ(report.lines_written, expected.size());
            EXPECT_EQ(report.distinct, distinct);
            EXPECT_GT(report.spill.spills, 0U);
            EXPECT_TRUE(dir.spill_is_empty());
        }
    }
}

TEST(ExactJobs, TopKTiesGoByBytesAsUnsigned) {
    const job_dir dir;
    const std::string path =
        dir.input("in.txt", {"b", "\xff", "a", "z", "b", "a", "\xff", "z", "z", "", "", "B", "B", "c"});
    EXPECT_EQ(top(path, settings_of(dir, 1), 4).first, (counted{{3, "z"}, {2, ""}, {2, "B"}, {2, "a"}}));
    EXPECT_EQ(top(path, settings_of(dir, 2), 100).first,
              (counted{{3, "z"}, {2, ""}, {2, "B"}, {2, "a"}, {2, "b"}, {2, "\xff"}, {1, "c"}}));
}

// k = 0: nothing to print (the command refuses -k 0; the function answers it).
TEST(ExactJobs, TopZeroPrintsNothing) {
    const job_dir dir;
    const std::string path = dir.input("in.txt", {"a", "b", "a"});
    const auto [out, report] = top(path, settings_of(dir, 1), 0);
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(report.lines_written, 0U);
}

// In 1 MiB, after 20,000 short lines, a line of 700,000 bytes is printed (the cleared table's
// grown index gives way to it).
TEST(ExactJobs, ALongLineAfterManyShortOnesIsPrinted) {
    const job_dir dir;
    lines in;
    for (int i = 0; i < 20'000; ++i) in.push_back("k" + std::to_string(i));
    in.push_back(std::string(700'000, 'L'));
    in.emplace_back("after");
    const std::string path = dir.input("in.txt", in);
    const printed p = dedup(path, settings_of(dir, 1));
    EXPECT_EQ(p.out.size(), in.size());
    EXPECT_TRUE(p.out == in) << "the line of 700,000 bytes is lost";
}

void expect_shared(const job_dir& dir, const lines& first, const lines& second, bool spilled,
                   std::initializer_list<bool> which) {
    const std::string a = dir.input("a.txt", first), b = dir.input("b.txt", second);
    for (const bool present : which) {
        const lines expected = ref_shared(first, second, present);
        ASSERT_GT(expected.size(), 100U);
        for (const bool prune : {true, false}) {
            for (const unsigned threads : {1u, 2u}) {
                SCOPED_TRACE(std::string(present ? "intersect" : "subtract") +
                             (prune ? ", pruned, " : ", not pruned, ") + std::to_string(threads) + " threads");
                const printed p =
                    shared(a, b, settings_of(dir, threads, key_format::text, small_memory, prune), present);
                EXPECT_TRUE(p.out == expected) << p.out.size() << " lines printed, " << expected.size() << " expected";
                EXPECT_EQ(p.report.lines_read, first.size() + second.size());
                EXPECT_EQ(p.report.lines_written, expected.size());
                if (spilled) {
                    EXPECT_GT(p.report.spill.spills, 0U);
                    EXPECT_EQ(p.report.filter_bytes > 0, prune);
                    if (prune) {  // most of the second's own lines
                        EXPECT_GT(p.report.pruned, 0U);
                    }
                } else {
                    EXPECT_EQ(p.report.spill.spills, 0U);
                    EXPECT_EQ(p.report.filter_bytes, 0U);
                    EXPECT_GT(p.report.pruned, 0U);  // the table said no
                }
                EXPECT_TRUE(dir.spill_is_empty());
            }
        }
    }
}

/// Two inputs larger than the table; the second draws half its lines from the first's.
std::pair<lines, lines> large_inputs() {
    const lines first = random_lines(70'000, 40'000, 4);
    lines second = random_lines(40'000, 20'000, 5, "/b");
    const lines from_first = random_lines(20'000, 40'000, 4);  // the same pool: the same lines
    for (std::size_t i = 0; i < from_first.size(); ++i) second[2 * i] = from_first[i];
    return {first, second};
}

TEST(ExactJobs, IntersectOfInputsLargerThanTheMemory) {
    const job_dir dir;
    const auto [first, second] = large_inputs();
    expect_shared(dir, first, second, true, {true});
}

TEST(ExactJobs, SubtractOfInputsLargerThanTheMemory) {
    const job_dir dir;
    const auto [first, second] = large_inputs();
    expect_shared(dir, first, second, true, {false});
}

TEST(ExactJobs, SharedLinesWhenTheFirstFitsInMemory) {
    const job_dir dir;
    const lines first = random_lines(3'000, 2'000, 6);
    lines second = random_lines(40'000, 20'000, 7, "/b");
    for (std::size_t i = 0; i < 2'000; ++i) second[7 * i] = first[i];
    expect_shared(dir, first, second, false, {true, false});
}

// ---------------------------------------------------------------------------------------------
// Integer keys

TEST(ExactJobs, NumbersArePrintedInCanonicalDecimal) {
    const job_dir dir;
    const std::string u64 = dir.input("u64.txt", {"007", "7", "0", "00", "18446744073709551615", "42", "042", "1"});
    EXPECT_EQ(dedup(u64, settings_of(dir, 1, key_format::u64)).out,
              (lines{"7", "0", "18446744073709551615", "42", "1"}));
    EXPECT_EQ(once(u64, settings_of(dir, 1, key_format::u64), false).out, (lines{"18446744073709551615", "1"}));
    EXPECT_EQ(once(u64, settings_of(dir, 2, key_format::u64), true).out, (lines{"7", "0", "42"}));
    // Ties by the printed number's bytes: "0" < "42" < "7".
    EXPECT_EQ(top(u64, settings_of(dir, 1, key_format::u64), 4).first,
              (counted{{2, "0"}, {2, "42"}, {2, "7"}, {1, "1"}}));

    const std::string i64 =
        dir.input("i64.txt", {"-5", "-005", "5", "0", "-0", "9223372036854775807", "-9223372036854775808", "-1"});
    EXPECT_EQ(dedup(i64, settings_of(dir, 1, key_format::i64)).out,
              (lines{"-5", "5", "0", "9223372036854775807", "-9223372036854775808", "-1"}));
    EXPECT_EQ(top(i64, settings_of(dir, 2, key_format::i64), 3).first, (counted{{2, "-5"}, {2, "0"}, {1, "-1"}}));

    for (const std::uint64_t memory : {small_memory, bitmap_memory}) {  // the table, or bitmaps
        SCOPED_TRACE("memory " + std::to_string(memory));
        const std::string u32 = dir.input("u32.txt", {"4294967295", "0004294967295", "1", "01", "2", "0"});
        const printed d = dedup(u32, settings_of(dir, 1, key_format::u32, memory));
        EXPECT_EQ(d.out, (lines{"4294967295", "1", "2", "0"}));
        EXPECT_EQ(d.report.bitmap_bytes > 0, memory == bitmap_memory);
        const printed singles = once(u32, settings_of(dir, 1, key_format::u32, memory), false);
        EXPECT_EQ(singles.out, (lines{"2", "0"}));
        EXPECT_EQ(singles.report.distinct, 4U);  // counted in bitmaps too
        EXPECT_EQ(once(u32, settings_of(dir, 2, key_format::u32, memory), true).out, (lines{"4294967295", "1"}));
        const std::string other = dir.input("other.txt", {"3", "000", "1", "4294967295", "3"});
        EXPECT_EQ(shared(u32, other, settings_of(dir, 1, key_format::u32, memory), true).out,
                  (lines{"0", "1", "4294967295"}));  // in the second's order
        EXPECT_EQ(shared(u32, other, settings_of(dir, 1, key_format::u32, memory), false).out, (lines{"2"}));
    }
    // Another way to write a key is the same key in every job.
    const std::string a = dir.input("a.txt", {"07", "8", "-0"}), b = dir.input("b.txt", {"0", "7", "9"});
    EXPECT_EQ(shared(a, b, settings_of(dir, 1, key_format::i64), true).out, (lines{"0", "7"}));
    EXPECT_EQ(shared(a, b, settings_of(dir, 1, key_format::i64), false).out, (lines{"8"}));
}

/// Many numbers, in every job, spilled (and for u32 in bitmaps too), against the answers over
/// their canonical decimal text.
void expect_numbers(key_format keys) {
    const job_dir dir;
    {
        const lines in = random_numbers(40'000, 20'000, 8, keys);
        const lines keys_in = canonical(in, keys);
        const std::string path = dir.input("numbers.txt", in);
        const lines expected = ref_dedup(keys_in);
        const printed one = dedup(path, settings_of(dir, 1, keys));
        EXPECT_TRUE(one.out == expected) << one.out.size() << " lines printed, " << expected.size() << " expected";
        EXPECT_GT(one.report.spill.spills, 0U);
        EXPECT_TRUE(dedup(path, settings_of(dir, 2, keys)).out == expected);
        EXPECT_TRUE(once(path, settings_of(dir, 2, keys), false).out == ref_once(keys_in, false));
        EXPECT_TRUE(top(path, settings_of(dir, 2, keys), 25).first == ref_top(keys_in, 25));
        if (keys == key_format::u32) {  // in bitmaps, the same
            EXPECT_TRUE(dedup(path, settings_of(dir, 2, keys, bitmap_memory)).out == expected);
            EXPECT_TRUE(once(path, settings_of(dir, 1, keys, bitmap_memory), true).out == ref_once(keys_in, true));
        }
        const lines second = random_numbers(20'000, 40'000, 9, keys);
        const std::string second_path = dir.input("second.txt", second);
        const lines second_keys = canonical(second, keys);
        for (const bool present : {true, false})
            EXPECT_TRUE(shared(path, second_path, settings_of(dir, 2, keys), present).out ==
                        ref_shared(keys_in, second_keys, present))
                << present;
        EXPECT_TRUE(dir.spill_is_empty());
    }
}

TEST(ExactJobs, ManyU64NumbersSpillAndComeBackTheSame) { expect_numbers(key_format::u64); }
TEST(ExactJobs, ManyI64NumbersSpillAndComeBackTheSame) { expect_numbers(key_format::i64); }
TEST(ExactJobs, ManyU32NumbersSpillAndComeBackTheSame) { expect_numbers(key_format::u32); }

TEST(ExactJobs, ALineThatIsNotANumberStopsTheJob) {
    const job_dir dir;
    lines in = random_numbers(20'000, 1'000'000, 10, key_format::u64);
    in[15'000] = "12x";
    const std::string path = dir.input("in.txt", in);
    for (const unsigned threads : {1u, 2u}) {
        EXPECT_THROW(dedup(path, settings_of(dir, threads, key_format::u64)), bloomkit::jobs::not_a_number);
        EXPECT_THROW(dedup(path, settings_of(dir, threads, key_format::u32, bitmap_memory)),
                     bloomkit::jobs::not_a_number);
        EXPECT_TRUE(dir.spill_is_empty());
    }
}

}  // namespace
