// tests/fuzz/fuzz_arguments.cpp — libFuzzer target: any text given to the command's number and
// option parsers (-n, -p, --memory, --checkpoint, --seed, --bits, -t, --layout, --key) and to the
// line parser of --key u64|i64 (which reads input lines, hostile or not). Each returns a value in
// its domain or throws bloomkit::error with a message that quotes the text; nothing else may happen.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "bloomkit/error.hpp"
#include "jobs/line_keys.hpp"
#include "support/arguments.hpp"
#include "support/keys.hpp"

namespace {

template <class Parse>
void parse(Parse parse_text) {
    try {
        parse_text();
    } catch (const bloomkit::error&) {}
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    using namespace bloomkit::cli;
    parse([&] {
        if (parse_key_count("-n", text) == 0) std::abort();
    });
    parse([&] {
        const double p = parse_probability("-p", text);
        if (!(p > 0 && p < 1)) std::abort();
    });
    parse([&] {
        if (text != "random") (void)parse_seed(text);
    });
    parse([&] { (void)parse_small_number("--bits", text); });
    parse([&] {
        const unsigned threads = parse_threads(text);
        if (threads == 0 || threads > max_threads()) std::abort();
    });
    parse([&] { (void)bloomkit::parse_bloom_layout(text); });
    parse([&] {
        if (parse_size("--memory", text) == 0) std::abort();
    });
    parse([&] {
        const double seconds = parse_seconds("--checkpoint", text);
        if (!(seconds > 0) || !std::isfinite(seconds)) std::abort();
    });
    parse([&] { (void)parse_key_format(text); });

    // --key u64 / i64: a line that is a number of the format, or an error naming the line. A
    // line both formats take is a number from 0 to 2^63 - 1: the same value either way.
    const std::string input = "fuzz.txt";
    const bloomkit::jobs::line_origin origin{&input, 1};
    bool unsigned_ok = false;
    bool signed_ok = false;
    std::uint64_t unsigned_value = 0;
    std::uint64_t signed_value = 0;
    parse([&] {
        unsigned_value = bloomkit::jobs::parse_key_number(text, key_format::u64, origin, 0);
        unsigned_ok = true;
    });
    parse([&] {
        signed_value = bloomkit::jobs::parse_key_number(text, key_format::i64, origin, 0);
        signed_ok = true;
    });
    if (unsigned_ok && signed_ok && unsigned_value != signed_value) std::abort();
    if (unsigned_ok && (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)) std::abort();
    return 0;
}
