// src/cli/support/filter_build.hpp — making a filter from lines, as `build` does and as the jobs
// that hold a filter of one input (intersect, subtract) do: sized by -n, -p and --memory
// (sizing_options.hpp), counting the lines first when the size depends on them (an input that
// is not a regular file is spooled to be read twice), or, for a static filter, from all the
// keys at once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/line_reader.hpp"
#include "jobs/progress.hpp"
#include "support/filter_work.hpp"
#include "support/keys.hpp"
#include "support/sizing_options.hpp"

namespace bloomkit::cli {

/// The initial capacity of a scalable filter built without -n: small enough to cost little,
/// large enough that a big input needs few stages.
inline constexpr std::uint64_t default_scalable_capacity = 100'000;

/// Lines in the inputs (a last line without '\n' counts), each checked as a key of `format` as
/// it is counted, so that a bad line stops the job at once; the inputs are then read again from
/// their start (copied first where they cannot be: line_reader::read_and_keep).
inline std::uint64_t count_lines(jobs::line_reader& reader, key_format format) {
    jobs::progress shown("counting lines", reader.total_bytes(), jobs::data_output::none);  // no line is printed yet
    std::uint64_t lines = 0;
    std::vector<std::string_view> split;
    reader.read_and_keep([&](jobs::line_block&& block) {
        const std::string_view text = block.text();
        lines += jobs::count_newlines(text);
        if (!text.empty() && text.back() != '\n') ++lines;
        if (is_integer(format)) {
            split.clear();
            jobs::split_lines(text, split);
            jobs::with_keys(std::span<const std::string_view>(split), format, block.origin, [](auto) {});
        }
        shown.update(reader.bytes_read());
    });
    return lines;
}

/// The keys of every line of `lines` (a static filter is built from them all at once).
struct all_keys {
    std::vector<jobs::line_block> blocks;  // own the bytes the views point into
    std::vector<std::string_view> texts;
    std::vector<std::uint64_t> numbers;
};

inline all_keys read_all_keys(jobs::line_reader& lines, key_format format) {
    all_keys keys;
    lines.read_blocks([&](jobs::line_block&& block) {
        const std::size_t first = keys.texts.size();
        jobs::split_lines(block.text(), keys.texts);
        if (format != key_format::text) {
            jobs::with_keys(std::span<const std::string_view>(keys.texts).subspan(first), format, block.origin,
                            [&](auto keyed) {
                                if constexpr (std::is_same_v<typename decltype(keyed)::value_type, std::uint64_t>)
                                    keys.numbers.insert(keys.numbers.end(), keyed.begin(), keyed.end());
                            });
        }
        keys.blocks.push_back(std::move(block));
    });
    return keys;
}

/// What a filter is built for. One that is saved may later have lines removed (a cuckoo filter
/// then keeps a copy of a line each time it comes: filter_work.hpp), and is refused for an
/// input with no lines (a filter of nothing is a mistake). One a job holds while it streams
/// another input (intersect, subtract) is only queried: a cuckoo filter keeps a line once, and
/// an empty input makes a filter for one key, which answers "absent" for every line.
enum class filter_use { saved, held_by_job };

/// The filter of type F the request asks for, holding every line of `lines`.
template <class F>
any_filter build_filter(const kind_request& request, jobs::line_reader& lines, key_format format,
                        const sizing_request& sizing, filter_options hashing, unsigned threads,
                        filter_use use = filter_use::saved) {
    if constexpr (!inserting_filter<F>) {
        if (sizing.memory)
            throw invalid_argument("--memory does not apply to a binary fuse filter: it is sized by its keys");
        const all_keys keys = read_all_keys(lines, format);
        if (format == key_format::text) return F(keys.texts, hashing);
        return F(keys.numbers, hashing);
    } else {
        // Counting, when the size depends on it: inputs that are not regular files (stdin,
        // pipes, FIFOs) are spooled first so they can be read twice. A scalable filter grows,
        // so it starts at a modest capacity instead.
        sizing_request r = sizing;
        if (capabilities_of<F>().grows && r.needs_count() && !r.memory) r.keys = default_scalable_capacity;
        const auto [n, p] = resolve_sizing<F>(r, request, [&] {
            const std::uint64_t counted = count_lines(lines, format);
            return use == filter_use::held_by_job ? std::max<std::uint64_t>(counted, 1) : counted;
        });
        any_filter made = kind_traits<F>::make(n, p, request, hashing);
        insert_lines(made, lines, format, threads, use == filter_use::held_by_job ? repeats::once : repeats::distinct);
        return made;
    }
}

}  // namespace bloomkit::cli
