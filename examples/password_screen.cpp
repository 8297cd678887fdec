// password_screen — screen candidate passwords against a list of weak ones, as a sign-up form
// would: a Bloom filter answers "definitely not on the list" (accept) or "probably on it"
// (reject, or confirm against the full list), in a fraction of the memory of a hash set.
//
//   password_screen [--fpr P] WORDLIST... [-- CANDIDATE...]
//
// (--fpp, the old spelling of --fpr, is still accepted with a warning, for one release.)
//
// Prints the memory of the filter against a std::unordered_set of the same words (measured
// with a counting allocator, not estimated), the verdict for each candidate, and the measured
// false-positive rate on a million random passwords against the target.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "bloomkit/bloomkit.hpp"

namespace {

/// Counts every byte a container allocates, so the hash set's real footprint is measured.
inline std::size_t allocated_bytes = 0;

template <class T>
struct counting_allocator {
    using value_type = T;
    counting_allocator() = default;
    template <class U>
    counting_allocator(const counting_allocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        allocated_bytes += n * sizeof(T);
        return std::allocator<T>().allocate(n);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        allocated_bytes -= n * sizeof(T);
        std::allocator<T>().deallocate(p, n);
    }
    friend bool operator==(const counting_allocator&, const counting_allocator&) = default;
};

using counted_string = std::basic_string<char, std::char_traits<char>, counting_allocator<char>>;
struct string_hash {
    std::size_t operator()(const counted_string& s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using counted_set =
    std::unordered_set<counted_string, string_hash, std::equal_to<>, counting_allocator<counted_string>>;

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string random_password(std::mt19937_64& rng) {
    static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!@#$%^&*";
    std::string password(10 + rng() % 6, ' ');
    for (char& c : password) c = alphabet[rng() % (sizeof(alphabet) - 1)];
    return password;
}

struct options {
    double fpr = 0.001;  // the filter's target false-positive rate
    std::vector<std::string> lists, candidates;
};

/// The command line: word lists, then after `--` the candidates to screen. Nothing when it
/// names no list (the usage has been printed).
std::optional<options> parse_options(int argc, char** argv) {
    options o;
    bool reading_candidates = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (reading_candidates) o.candidates.push_back(arg);
        else if (arg == "--") reading_candidates = true;
        else if (arg == "--fpr" && i + 1 < argc) o.fpr = std::stod(argv[++i]);
        else if (arg == "--fpp" && i + 1 < argc) {
            std::cerr << "password_screen: --fpp is deprecated, use --fpr\n";
            o.fpr = std::stod(argv[++i]);
        } else o.lists.push_back(arg);
    }
    if (o.lists.empty()) {
        std::cerr << "usage: password_screen [--fpr P] WORDLIST... [-- CANDIDATE...]\n";
        return std::nullopt;
    }
    return o;
}

/// The weak passwords: every line of every list, repeats included (the lists overlap; the set
/// dedups, and the filter does not mind). Nothing when a list cannot be opened.
std::optional<std::vector<std::string>> read_words(const std::vector<std::string>& lists) {
    std::vector<std::string> words;
    for (const std::string& path : lists) {
        std::ifstream in(path);
        if (!in) {
            std::cerr << "password_screen: cannot open " << path << "\n";
            return std::nullopt;
        }
        for (std::string line; std::getline(in, line);) words.push_back(line);
    }
    return words;
}

/// What the exact answer costs: the hash set of the words, and the bytes it allocated.
struct exact_set {
    counted_set words;
    std::size_t bytes;
    double seconds;
};

exact_set build_exact_set(const std::vector<std::string>& words) {
    const auto start = std::chrono::steady_clock::now();
    counted_set exact;
    for (const std::string& word : words) exact.emplace(word.begin(), word.end());
    const double seconds = seconds_since(start);
    const std::size_t bytes = allocated_bytes;
    return {std::move(exact), bytes, seconds};
}

struct timed_filter {
    bloomkit::bloom_filter filter;
    double seconds;
};

/// The filter is sized for the distinct words (the set's size), not for the lines: sizing for
/// the lines would spend memory on repeats, which set no new bits.
timed_filter build_filter(const std::vector<std::string>& words, std::size_t distinct, double fpr) {
    const auto start = std::chrono::steady_clock::now();
    bloomkit::bloom_filter filter(distinct, fpr);
    filter.insert(words.begin(), words.end());
    const double seconds = seconds_since(start);
    return {std::move(filter), seconds};
}

void print_memory(const options& o, const std::vector<std::string>& words, const exact_set& exact,
                  const bloomkit::bloom_filter& filter, double filter_seconds) {
    const std::size_t distinct = exact.words.size();
    std::printf("weak-password list: %zu lines, %zu distinct words from", words.size(), distinct);
    for (const std::string& path : o.lists) std::printf(" %s", path.c_str());
    std::printf("\n\n%-34s %14s %12s %10s\n", "", "memory", "bytes/word", "build");
    std::printf("%-34s %14zu %12.2f %8.0f ms\n", "std::unordered_set<std::string>", exact.bytes,
                static_cast<double>(exact.bytes) / distinct, 1e3 * exact.seconds);
    std::printf("%-34s %14llu %12.2f %8.0f ms\n",
                ("bloomkit::bloom_filter (p = " + std::to_string(o.fpr).substr(0, 6) + ")").c_str(),
                static_cast<unsigned long long>(filter.size_in_bytes()),
                static_cast<double>(filter.size_in_bytes()) / distinct, 1e3 * filter_seconds);
    std::printf("%-34s %13.1fx\n\n", "memory saved", static_cast<double>(exact.bytes) / filter.size_in_bytes());
}

/// Every word on the list must be rejected: a Bloom filter has no false negatives, so any word
/// it misses is a bug. Returns how many it missed.
std::size_t count_missed(const bloomkit::bloom_filter& filter, const std::vector<std::string>& words) {
    std::size_t missed = 0;
    for (const std::string& word : words) missed += filter.contains(word) ? 0 : 1;
    std::printf("words on the list reported absent (must be 0): %zu\n\n", missed);
    return missed;
}

/// What a sign-up form would do with each candidate: "definitely not" is final; "maybe" is
/// confirmed against the full list, which tells a listed word from a false positive.
void print_verdicts(const bloomkit::bloom_filter& filter, const counted_set& exact,
                    const std::vector<std::string>& candidates) {
    for (const std::string& candidate : candidates) {
        const bool maybe = filter.contains(candidate);
        const bool really = exact.contains(counted_string(candidate.begin(), candidate.end()));
        std::printf("  %-32s %s\n", ("\"" + candidate + "\"").c_str(),
                    !maybe   ? "accept: definitely not a listed weak password"
                    : really ? "reject: on the weak-password list"
                             : "false positive: the filter says maybe, the list says no");
    }
}

/// The false-positive rate, measured rather than trusted: a million random passwords that are
/// not on the list (a fixed seed, so every run asks the same ones), against the target and the
/// layout's model.
void print_measured_fpr(const bloomkit::bloom_filter& filter, const counted_set& exact, double fpr) {
    std::mt19937_64 rng(2026);
    std::size_t queries = 0, false_positives = 0;
    while (queries < 1'000'000) {
        const std::string password = random_password(rng);
        if (exact.contains(counted_string(password.begin(), password.end()))) continue;
        ++queries;
        false_positives += filter.contains(password) ? 1 : 0;
    }
    const double measured = static_cast<double>(false_positives) / static_cast<double>(queries);
    std::printf("\nfalse-positive rate on %zu random passwords: measured %.4f%%, target %.4f%% (model %.4f%%)\n",
                queries, 100 * measured, 100 * fpr,
                100 * bloomkit::expected_fpr(filter.layout(), exact.size(), filter.geometry()));
    std::printf("filter: %llu bits, %u probes per word, %.2f bits/word, estimated words %.0f\n",
                static_cast<unsigned long long>(filter.bit_count()), filter.hash_count(),
                static_cast<double>(filter.bit_count()) / exact.size(), filter.approximate_count());
}

}  // namespace

int main(int argc, char** argv) {
    const std::optional<options> o = parse_options(argc, argv);
    if (!o) return 2;
    const std::optional<std::vector<std::string>> words = read_words(o->lists);
    if (!words) return 2;

    const exact_set exact = build_exact_set(*words);
    const timed_filter built = build_filter(*words, exact.words.size(), o->fpr);
    const bloomkit::bloom_filter& filter = built.filter;
    print_memory(*o, *words, exact, filter, built.seconds);

    const std::size_t missed = count_missed(filter, *words);
    print_verdicts(filter, exact.words, o->candidates);
    print_measured_fpr(filter, exact.words, o->fpr);
    return missed == 0 ? 0 : 1;
}
