// tests/fuzz/fuzz_arguments.cpp — libFuzzer target: any text given to the command's number and
// option parsers (-n, -p, --seed, --bits, -t, --layout). Each returns a value in its domain or
// throws bloomkit::error with a message that quotes the text; nothing else may happen.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "bloomkit/error.hpp"
#include "support/arguments.hpp"

namespace {

template <class Parse>
void parse(Parse parse_text) {
    try {
        parse_text();
    } catch (const bloomkit::error&) {
    }
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
    parse([&] { (void)parse_layout(text); });
    return 0;
}
