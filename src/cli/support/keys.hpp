// src/cli/support/keys.hpp — the option that says what a line means as a key (--key text, u64,
// i64 or u32; the lines are parsed by jobs/line_keys.hpp), so that `--key u64` finds what a C++ or
// Python program inserted as the integer 7, whatever its type.
//
// A filter records the format it was built with (bloomkit/keys.hpp, in its file's header and in
// a Redis filter's metadata), and every command that reads lines against a filter reads them in
// that format: `build --key u64` then `check` finds the numbers, and refuses a line the format
// cannot hold (-1 for u64). A --key that contradicts the record is refused (text against
// integers). A filter that records nothing (written by an older bloomkit) is read as --key says,
// text by default, and a warning says so when the lines look like numbers; adding to one that
// holds keys takes a --key, which it then records.
#pragma once

#include <CLI/CLI.hpp>

#include <span>
#include <string>
#include <string_view>

#include "bloomkit/hash.hpp"

namespace bloomkit::cli {

using bloomkit::key_format;

/// "text", "u64", "i64" or "u32".
key_format parse_key_format(const std::string& text);

/// --key text|u64|i64|u32; left empty when not given (then the filter's record decides).
void add_key_option(CLI::App& command, std::string& format);

/// The format of the keys of a filter about to be built: --key, or text.
key_format key_format_to_build(const std::string& option);

/// The format to read lines in against a filter that records `recorded`, named `filter` in
/// messages (bloomkit::key_format_to_read): the record, whose range the filter holds; --key for
/// a filter that records none; else text. Throws invalid_argument when --key contradicts the
/// record (text against integers).
key_format key_format_for(key_format recorded, const std::string& option, std::string_view filter);

/// --key as the library's rules take it (keys.hpp): unrecorded when not given.
key_format asked_key_format(const std::string& option);

/// The command's wording of a key error of the library: a contradiction of a filter's record, or
/// an unrecorded filter that holds keys, said in terms of --key.
std::string key_format_message(const key_error& e);

/// The format to add lines in to a filter (bloomkit::key_format_to_write): as key_format_for,
/// but a filter that records none and `holds_keys` already takes only a --key said (a guess
/// would add keys nobody finds). The caller records what it returns on such a filter.
key_format key_format_to_add(key_format recorded, const std::string& option, std::string_view filter, bool holds_keys);

/// Says on stderr, when a filter of integer keys is written in a format that cannot record that
/// (a Guava stream of `funnel`), with which options its readers read it: --key for a filter of
/// Java longs (the funnel they imply), --funnel int for one of Java ints.
void note_unrecorded_keys(std::string_view format, key_format keys, guava_funnel funnel);

/// Watches the first lines read against a filter that records no key format, and warns once
/// on stderr when they all look like decimal numbers while they are read as text: the filter
/// may have been built with --key u64 (by an older bloomkit that did not record it).
class unrecorded_format_warning {
public:
    /// Watches only when the filter records nothing and --key was not given.
    unrecorded_format_warning(key_format recorded, const std::string& option, std::string filter);

    /// Looks at a batch of lines (the first batch decides; later calls cost a branch).
    void look(std::span<const std::string_view> lines);

private:
    bool watching_;
    std::string filter_;
};

}  // namespace bloomkit::cli
