// bloomkit convert IN -o OUT --to bkf|guava|dcso — the same filter in another format: a Guava
// stream or a DCSO bloom file into bkf (checksummed, mapped, updatable in place; the Guava
// funnel recorded) and back. A conversion happens only where it is exact: a Guava or DCSO
// program places a key's bits itself, so only its own filters convert to its format, and a
// filter of another kind or hashing is refused with the reason (rebuild it from the keys).
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>

#include "commands/commands.hpp"
#include "jobs/filter/filter_files.hpp"
#include "support/common_options.hpp"
#include "support/file_locking.hpp"
#include "support/keys.hpp"
#include "support/summary.hpp"

namespace bloomkit::cli {
namespace {

struct convert_options {
    std::string input;
    filter_reading reading;
    std::string to;
    std::string output;
    bool gzip = false;
    bool json = false;
    bool no_wait = false;
};

int run_convert(const convert_options& options) {
    if (!io::known_format(options.to))
        throw invalid_argument("unknown format '" + options.to + "': choose " + io::format_words());
    const std::optional<os::writer_lock> lock = lock_output(options.output, options.no_wait);
    jobs::filter_read read = jobs::read_filter_contents(options.input, options.reading.parsed());
    const io::filter_contents& in = read.contents;
    if (std::string why = io::refusal(options.to, in.filter); !why.empty())
        throw invalid_argument("cannot convert '" + options.input + "' to " + options.to + ": " + why);
    // A file that cannot record its keys becomes one that records a guess: only what is said.
    if (options.to == io::bkf_format::word && in.format != io::bkf_format::word &&
        recorded_key_format(in.filter) == key_format::unrecorded && holds_keys(in.filter))
        throw invalid_argument("'" + options.input + "' does not record what its keys are (a " +
                               std::string(in.format) +
                               " file cannot), and a bkf file records it: say it with --key text, u64, i64 or u32, "
                               "or name the Java side's --funnel");
    const bool keeps_data = io::facts_of_format(options.to).keeps_attached_data;
    if (!in.attached.empty() && !keeps_data)
        fmt::print(stderr,
                   "bloomkit: note: the {} bytes of data attached to '{}' are DCSO's; a {} file does not keep "
                   "them\n",
                   in.attached.size(), options.input, options.to);
    jobs::write_filter(in.filter, options.output,
                       {options.to, options.gzip, keeps_data ? in.attached : std::vector<std::byte>{}});
    note_unrecorded_keys(options.to, recorded_key_format(in.filter), hash_function(in.filter).funnel());
    if (!job_summary::wanted(options.json)) return success;
    job_summary summary("convert");
    summary.text("file", options.output)
        .text("from_format", std::string(in.format), job_summary::in_line::yes)
        .text("format", options.to, job_summary::in_line::yes);
    describe_filter(summary, header_of(in.filter), {}, "bytes").print(options.json, options.output == "-");
    return success;
}

}  // namespace

action convert_command(CLI::App& command) {
    auto options = std::make_shared<convert_options>();
    command.add_option("input", options->input, "Filter file to convert; '-' reads it from stdin")
        ->required()
        ->type_name("FILE");
    command.add_option("--to", options->to, "The format to write: bkf, guava or dcso")->required()->type_name("FORMAT");
    command.add_option("-o,--output", options->output, "Filter file to write (replaced atomically); '-' for stdout")
        ->required();
    add_filter_reading_options(command, options->reading);
    command.add_flag("--gzip", options->gzip, "Gzip the file written (as `bloom --gzip` does)");
    command.add_flag("--json", options->json, "Print the summary as JSON (on stdout; on stderr with -o -)");
    add_no_wait_option(command, options->no_wait);
    command.footer(
        "Examples:\n"
        "  bloomkit convert --funnel long ids.guava --to bkf -o ids.bkf   # a Java service's filter, mapped and "
        "checksummed\n"
        "  bloomkit convert ids.bkf --to guava -o ids.guava               # back, for BloomFilter.readFrom\n"
        "  bloomkit convert hashlookup.bloom --to bkf -o hashlookup.bkf   # CIRCL's DCSO filter, opened in no time");
    return [options] { return run_convert(*options); };
}

}  // namespace bloomkit::cli
