// bloomkit build [--kind K] [-n N] [-p P] [--layout L] [--bits B] [--arity A] [--seed S]
//                -o FILE|- [INPUT...|-] — a filter from lines; the kinds come from the registry
// (any_filter.hpp), the sizing from the library.
//
// Without -n the input is counted first (stdin is spooled to a temporary file so it can be read
// twice): the filter is sized for the lines it will hold, duplicates included, never guessed.
// A scalable filter needs no count: without -n it starts small and grows. A binary fuse filter
// is built from the complete set: every line is read first, then the filter.
#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "support/arguments.hpp"
#include "support/common_options.hpp"
#include "support/filter_files.hpp"
#include "support/filter_work.hpp"
#include "support/keys.hpp"
#include "support/writer_lock.hpp"

namespace bloomkit::cli {
namespace {

struct build_options {
    std::string keys;
    std::string fpr = "0.01";
    std::string kind = "bloom";
    std::string layout;
    std::string bits;  // empty: not given
    std::string arity;
    std::string seed = "0";
    std::string output;
    std::vector<std::string> inputs;
    std::string threads = "0";
    std::string key = "text";
    bool no_wait = false;
};

/// The initial capacity of a scalable filter built without -n: small enough to cost little,
/// large enough that a big input needs few stages.
constexpr std::uint64_t default_scalable_capacity = 100'000;

/// What `--kind ... --layout ... --bits ... --arity ...` asked for.
kind_request parse_kind_request(const build_options& options) {
    kind_request request{options.kind, {}, {}, {}};
    if (!options.layout.empty()) request.layout = parse_layout(options.layout);
    if (!options.bits.empty()) request.fingerprint_bits = parse_small_number("--bits", options.bits);
    if (!options.arity.empty()) request.arity = parse_small_number("--arity", options.arity);
    return request;
}

/// Lines in the inputs (a last line without '\n' counts).
std::uint64_t count_lines(line_reader& reader) {
    std::uint64_t lines = 0;
    std::vector<char> spare;  // one buffer for the whole pass, as line_reader::read does
    reader.read_blocks(
        [&](line_block&& block) {
            const std::string_view text = block.text();
            lines += static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n'));
            if (!text.empty() && text.back() != '\n') ++lines;
            spare = std::move(block.buffer);
        },
        [&] { return std::move(spare); });
    return lines;
}

/// The filter of type F the request asks for, holding every line of `inputs`.
template <class F>
any_filter build_filter(const kind_request& request, line_reader& lines, const build_options& options, double p,
                        filter_options hashing) {
    if constexpr (!insertable<F>) {
        // A static filter: every key first (the blocks own the bytes the views point into).
        const key_format format = parse_key_format(options.key);
        std::vector<line_block> blocks;
        std::vector<std::string_view> texts;
        std::vector<std::uint64_t> numbers;
        lines.read_blocks([&](line_block&& block) {
            const std::size_t first = texts.size();
            split_lines(block.text(), texts);
            if (format != key_format::text) {
                with_keys(std::span<const std::string_view>(texts).subspan(first), format, block.origin, [&](auto keyed) {
                    if constexpr (std::is_same_v<typename decltype(keyed)::value_type, std::uint64_t>)
                        numbers.insert(numbers.end(), keyed.begin(), keyed.end());
                });
            }
            blocks.push_back(std::move(block));
        });
        if (format == key_format::text) return F(texts, hashing);
        return F(numbers, hashing);
    } else {
        // Without -n the lines are counted first: inputs that are not regular files (stdin,
        // pipes, FIFOs) are spooled so they can be read twice.
        const bool grows = std::is_same_v<F, scalable_bloom_filter>;
        std::uint64_t n = grows ? default_scalable_capacity : 0;
        if (!options.keys.empty()) {
            n = parse_key_count("-n", options.keys);
        } else if (!grows) {
            lines.make_rereadable();
            n = count_lines(lines);
            lines.rewind();
            if (n == 0)
                throw invalid_argument("the input is empty: there is nothing to size the filter for (give -n to build "
                                       "an empty filter for that many keys)");
        }
        any_filter made = kind_traits<F>::make(n, p, request, hashing);
        insert_lines(made, lines, parse_key_format(options.key), parse_threads(options.threads));
        return made;
    }
}

int run_build(const build_options& options) {
    const kind_request request = parse_kind_request(options);
    const double p = parse_probability("-p", options.fpr);
    const filter_options hashing{.seed = parse_seed(options.seed)};
    const std::optional<writer_lock> lock = lock_output(options.output, options.no_wait);
    line_reader lines(options.inputs);  // a missing file is reported before anything else happens
    const any_filter filter = with_requested_type(request, p, [&](auto type) {
        return build_filter<typename decltype(type)::type>(request, lines, options, p, hashing);
    });
    write_filter(filter, options.output);  // atomic: on any failure no partial file is left behind
    warn_if_overfull(filter);
    return success;
}

}  // namespace

action build_command(CLI::App& command) {
    auto options = std::make_shared<build_options>();
    std::string kinds;
    for_each_filter_type([&](auto type) {
        const std::string_view kind = kind_traits<typename decltype(type)::type>::kind;
        if (kinds.find(kind) == std::string::npos) kinds += (kinds.empty() ? "" : ", ") + std::string(kind);
    });
    command.add_option("--kind", options->kind, "The kind of filter: " + kinds + " (bloomkit plan compares them)")
        ->capture_default_str();
    command.add_option("-n,--keys", options->keys,
                       "Keys the filter is sized for (e.g. 1e6); default: count the input (scalable: start at 100000 and grow)");
    command.add_option("-p,--fpr,--fpp", options->fpr, "Target false-positive rate at that many keys")->capture_default_str();
    command.add_option("--layout", options->layout, "For --kind bloom: block (default), classic or split-block");
    command.add_option("--bits", options->bits, "Fingerprint bits: cuckoo 8, 12 or 16; fuse 8 or 16 (default: from -p)");
    command.add_option("--arity", options->arity, "For --kind fuse: 3 (default) or 4 (smaller, slower to build)");
    command.add_option("--seed", options->seed, "Hash seed: a number, or 'random' against adversarial keys")
        ->capture_default_str();
    command.add_option("-o,--output", options->output, "Filter file to write (replaced atomically); '-' for stdout")->required();
    command.add_option("inputs", options->inputs, "Input files; '-' or none reads stdin");
    add_key_option(command, options->key);
    add_thread_option(command, options->threads);
    add_no_wait_option(command, options->no_wait);
    return [options] { return run_build(*options); };
}

}  // namespace bloomkit::cli
