// bloomkit merge -o OUT F1 F2... [--intersection] — one filter from several: the union of their
// keys (a key any of them holds, the new one holds), or with --intersection the keys all of them
// hold (Bloom filters: every key inserted into all of them is still found; the FPR may be above
// that of a filter built from the true intersection).
//
// The filters must be alike: the same kind, size, number of probes, hash algorithm and seed;
// the first difference is named. Cuckoo and binary fuse filters cannot be merged (their union is
// not their contents': rebuild from the keys). OUT is written like build's -o: atomically, under
// the writer lock, '-' for standard output.
#include <fmt/core.h>

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "bloomkit/bulk.hpp"
#include "commands/commands.hpp"
#include "jobs/filter/filter_files.hpp"
#include "support/common_options.hpp"
#include "support/file_locking.hpp"
#include "support/summary.hpp"

namespace bloomkit::cli {
namespace {

struct merge_options {
    std::vector<std::string> filters;
    filter_reading reading;
    std::string to;  // empty: the first filter's format
    std::string output;
    bool intersection = false;
    bool json = false;
    bool no_wait = false;
};

/// Merges `other` into `result`: the same type, or an error naming both.
void merge_into(any_filter& result, const any_filter& other, const merge_options& options, const std::string& name) {
    if (result.index() != other.index())
        throw incompatible_filters(fmt::format("cannot merge '{}' ({}) into '{}' ({}): different kinds of filter", name,
                                               filter_name(header_of(other)), options.filters.front(),
                                               filter_name(header_of(result))));
    const kind_capabilities can = capabilities(result);
    if (options.intersection && !can.intersects)
        throw error(fmt::format("{}s have no intersection: only Bloom filters do", kind_name(result)));
    if (!options.intersection && !can.merges)
        throw error(
            fmt::format("{}s cannot be merged: a slot holds one fingerprint, and where it sits depends on the order "
                        "of the inserts; rebuild one filter from all the keys",
                        kind_name(result)));
    if (options.intersection) bloomkit::intersect(result, other);
    else bloomkit::merge(result, other);
}

int run_merge(const merge_options& options) {
    if (options.filters.size() < 2) throw invalid_argument("merge takes at least two filters");
    if (std::ranges::count(options.filters, "-") > 1)
        throw invalid_argument("only one of the filters can come from standard input");
    const std::optional<os::writer_lock> lock = lock_output(options.output, options.no_wait);
    jobs::filter_read first = jobs::read_filter_contents(options.filters.front(), options.reading.parsed());
    any_filter& result = first.contents.filter;
    for (std::size_t i = 1; i < options.filters.size(); ++i) {
        try {
            merge_into(result, jobs::read_filter(options.filters[i], options.reading.parsed()), options,
                       options.filters[i]);
        } catch (const incompatible_filters& e) {
            throw incompatible_filters(
                fmt::format("'{}' and '{}': {}", options.filters.front(), options.filters[i], e.what()));
        }
    }
    jobs::filter_writing writing = first.as_stored();  // a Guava or DCSO merge stays one (DCSO: the first's data)
    if (!options.to.empty() && options.to != writing.format) writing = {options.to, false, {}};
    jobs::write_filter(result, options.output, writing);
    if (!job_summary::wanted(options.json)) return success;
    job_summary summary("merge");
    summary.text("file", options.output)
        .text("format", writing.format)
        .count("filters", options.filters.size(), "filters");
    describe_filter(summary, header_of(result), "keys", "bytes").print(options.json, options.output == "-");
    return success;
}

}  // namespace

action merge_command(CLI::App& command) {
    auto options = std::make_shared<merge_options>();
    command.add_option("-o,--output", options->output, "Filter file to write (replaced atomically); '-' for stdout")
        ->required();
    command.add_option("filters", options->filters, "The filters to merge (files, or '-' for one from stdin)")
        ->required()
        ->type_name("FILE");
    command.add_flag("--intersection", options->intersection, "Keep the keys every filter holds (Bloom filters only)");
    add_filter_reading_options(command, options->reading);
    command.add_option("--to", options->to, "The format to write: bkf, guava or dcso (default: the first filter's)")
        ->type_name("FORMAT");
    command.add_flag("--json", options->json, "Print the summary as JSON (on stdout; on stderr with -o -)");
    add_no_wait_option(command, options->no_wait);
    command.footer(
        "Examples:\n"
        "  bloomkit merge -o all.bkf shard-*.bkf                    # filters built in parallel, then joined\n"
        "  bloomkit merge --intersection -o both.bkf a.bkf b.bkf    # keys in both (Bloom filters)\n"
        "  bloomkit merge -o all.bloom day1.bloom day2.bloom        # DCSO bloom files, as `bloom join` does");
    return [options] { return run_merge(*options); };
}

}  // namespace bloomkit::cli
