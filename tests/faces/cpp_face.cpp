// tests/faces/cpp_face.cpp — the C++ face of the cross-face key tests (test_faces.py): a program
// that does what a C++ user of bloomkit does with keys read from outside, by keys.hpp's rules,
// and inserts and queries them as typed C++ keys — std::string for text, std::uint64_t for u64,
// std::int64_t for i64, std::uint32_t for u32 — so that the other faces are checked against
// what the C++ library itself hashes for each type.
//
//     faces_cpp add FILE [--key F] [--layout block|split-block] [-n N] [-p P]  < keys
//     faces_cpp check FILE [--key F]                                           < keys
//
// One key per line, less one trailing '\r' (as the command reads lines). `add` creates FILE
// when it is absent (a filter of format F, text when not said; split block hashes by XXH64, as
// Parquet does) or loads it and adds to it, then saves it; `check` prints 1 or 0 per line. A
// --key that contradicts the file's record, or a line that is no key of the format, is an error:
// a message on stderr naming the line, exit 2, and the file unchanged.
#include <bloomkit/any_filter.hpp>
#include <bloomkit/bloom_filter.hpp>
#include <bloomkit/file.hpp>
#include <bloomkit/keys.hpp>

#include <cstdint>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace {

struct arguments {
    std::string command;
    std::filesystem::path file;
    bloomkit::key_format asked = bloomkit::key_format::unrecorded;
    bool split_block = false;
    std::uint64_t expected_keys = 1000;
    double fpr = 0.01;
};

struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

arguments parse_arguments(int argc, char** argv) {
    if (argc < 3) throw usage_error("usage: faces_cpp add|check FILE [--key F] [--layout L] [-n N] [-p P]");
    arguments a{.command = argv[1], .file = argv[2]};
    if (a.command != "add" && a.command != "check") throw usage_error("no command '" + a.command + "'");
    for (int i = 3; i < argc; i += 2) {
        const std::string_view option = argv[i];
        if (i + 1 >= argc) throw usage_error(std::string(option) + " needs a value");
        const std::string value = argv[i + 1];
        if (option == "--key") {
            const std::optional<bloomkit::key_format> format = bloomkit::key_format_named(value);
            if (!format) throw usage_error("--key " + value + " is no key format");
            a.asked = *format;
        } else if (option == "--layout") {
            if (value != "block" && value != "split-block") throw usage_error("--layout " + value + " is unknown");
            a.split_block = value == "split-block";
        } else if (option == "-n") {
            a.expected_keys = std::stoull(value);
        } else if (option == "-p") {
            a.fpr = std::stod(value);
        } else {
            throw usage_error("unknown option " + std::string(option));
        }
    }
    return a;
}

std::vector<std::string> read_lines(std::istream& in) {
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(std::move(line));
    }
    return lines;
}

/// The integer a line spells as a key of `format`, or a key_error naming the line and why: out
/// of the format's range (keys.hpp's message), or no number of the format at all.
bloomkit::key_integer integer_of(const std::string& line, std::size_t number, bloomkit::key_format format) {
    if (const auto value = bloomkit::parse_integer_key(line, format)) return *value;
    const std::string where = "line " + std::to_string(number) + " '" + line + "': ";
    if (const auto value = bloomkit::parse_integer_key(line, bloomkit::key_format::unrecorded)) {
        try {
            bloomkit::require_key(format, *value);
        } catch (const bloomkit::key_error& e) {
            throw bloomkit::key_error(where + e.what());
        }
    }
    throw bloomkit::key_error(where + "not a number of a " + std::string(bloomkit::to_string(format)) + " key");
}

/// The lines as the typed C++ keys of `format`.
using typed_keys = std::variant<std::vector<std::string>, std::vector<std::uint64_t>, std::vector<std::int64_t>,
                                std::vector<std::uint32_t>>;

typed_keys keys_of(std::vector<std::string> lines, bloomkit::key_format format) {
    using bloomkit::key_format;
    if (format == key_format::text) return lines;
    auto convert = [&]<class Key>(std::vector<Key> keys) -> typed_keys {
        keys.reserve(lines.size());
        for (std::size_t i = 0; i < lines.size(); ++i)
            keys.push_back(static_cast<Key>(integer_of(lines[i], i + 1, format).bits));
        return keys;
    };
    switch (format) {
        case key_format::u64: return convert(std::vector<std::uint64_t>{});
        case key_format::i64: return convert(std::vector<std::int64_t>{});
        default: return convert(std::vector<std::uint32_t>{});
    }
}

bloomkit::any_filter new_filter(const arguments& a, bloomkit::key_format format) {
    if (a.split_block)
        return bloomkit::split_block_bloom_filter(a.expected_keys, a.fpr,
                                                  {.hash = bloomkit::hash_algorithm::xxh64, .keys = format});
    return bloomkit::bloom_filter(a.expected_keys, a.fpr, {.keys = format});
}

/// Runs `use(filter)` on the Bloom filter `f` holds; other kinds are not this program's.
template <class Use>
void with_bloom_filter(bloomkit::any_filter& f, Use use) {
    std::visit(
        [&](auto& filter) {
            using F = std::remove_cvref_t<decltype(filter)>;
            if constexpr (std::is_same_v<F, bloomkit::bloom_filter> ||
                          std::is_same_v<F, bloomkit::split_block_bloom_filter>) {
                use(filter);
            } else {
                throw bloomkit::invalid_argument("faces_cpp takes block and split-block Bloom filters only");
            }
        },
        f);
}

int add(const arguments& a) {
    std::vector<std::string> lines = read_lines(std::cin);
    const bool exists = std::filesystem::exists(a.file);
    bloomkit::any_filter f =
        exists ? bloomkit::load<bloomkit::any_filter>(a.file)
               : new_filter(a, a.asked == bloomkit::key_format::unrecorded ? bloomkit::key_format::text : a.asked);
    const bloomkit::key_format format =
        bloomkit::key_format_to_write(bloomkit::recorded_key_format(f), a.asked, bloomkit::inserted_count(f) > 0);
    const typed_keys keys = keys_of(std::move(lines), format);  // every line checked before any change
    with_bloom_filter(f, [&](auto& filter) {
        if (filter.recorded_key_format() == bloomkit::key_format::unrecorded) filter.record_key_format(format);
        std::visit([&](const auto& typed) { filter.insert(typed.begin(), typed.end()); }, keys);
    });
    bloomkit::save(f, a.file);
    return 0;
}

int check(const arguments& a) {
    std::vector<std::string> lines = read_lines(std::cin);
    bloomkit::any_filter f = bloomkit::load<bloomkit::any_filter>(a.file);
    const bloomkit::key_format format = bloomkit::key_format_to_read(bloomkit::recorded_key_format(f), a.asked);
    const typed_keys keys = keys_of(std::move(lines), format);
    std::vector<bool> found;
    with_bloom_filter(f, [&](const auto& filter) {
        std::visit([&](const auto& typed) { filter.contains(typed.begin(), typed.end(), std::back_inserter(found)); },
                   keys);
    });
    for (const bool answer : found) std::cout << (answer ? "1\n" : "0\n");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const arguments a = parse_arguments(argc, argv);
        return a.command == "add" ? add(a) : check(a);
    } catch (const std::exception& e) {
        std::cerr << "faces_cpp: " << e.what() << '\n';
        return 2;
    }
}
