// bloomkit check FILE [INPUT...|-] [--absent] [--count] — which lines may be in the filter.
//
// Prints the lines that may be present (or, with --absent, those certainly absent), or with
// --count only the totals. Exits 0 when at least one line was selected, 1 when none, 2 on error.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "bloomkit/error.hpp"
#include "command.hpp"
#include "filters.hpp"

namespace bloomkit::cli {
namespace {

struct check_options {
    std::string filter;
    std::vector<std::string> inputs;
    bool absent = false;
    bool count = false;
    bool no_verify = false;
};

/// Collects output lines and writes them to stdout in large blocks: never a write per line.
/// The owner calls flush() at the end; what a failed run leaves unflushed is dropped.
class buffered_stdout {
public:
    void line(std::string_view text) {
        buffer_.append(text);
        buffer_.push_back('\n');
        if (buffer_.size() >= (std::size_t{1} << 20)) flush();
    }
    void flush() {
        const std::size_t size = buffer_.size();
        const std::size_t written = size == 0 ? 0 : std::fwrite(buffer_.data(), 1, size, stdout);
        buffer_.clear();
        if (written != size) throw error("cannot write to standard output");
    }

private:
    std::string buffer_;
};

int run_check(const check_options& options) {
    line_reader lines(options.inputs);
    const mapped_filter<any_filter> mapped = map_any(options.filter);
    if (!options.no_verify) mapped.verify();

    std::uint64_t present = 0, absent = 0;
    std::vector<char> answers;
    buffered_stdout out;
    progress shown("checking");
    std::visit(
        [&](const auto& filter) {
            lines.read([&](std::span<const std::string_view> batch) {
                answers.resize(batch.size());
                filter.contains(batch.begin(), batch.end(), answers.begin());
                for (std::size_t i = 0; i < batch.size(); ++i) {
                    const bool maybe = answers[i] != 0;
                    (maybe ? present : absent) += 1;
                    if (!options.count && maybe != options.absent) out.line(batch[i]);
                }
                shown.update(lines.bytes_read());
            });
        },
        mapped.filter());
    if (options.count) out.line(fmt::format("present\t{}\nabsent\t{}", present, absent));
    out.flush();
    return (options.absent ? absent : present) > 0 ? found : nothing_found;
}

}  // namespace

action add_check_command(CLI::App& app) {
    auto options = std::make_shared<check_options>();
    CLI::App* check = app.add_subcommand("check", "Print the lines that may be in the filter");
    check->add_option("filter", options->filter, "Filter file")->required();
    check->add_option("inputs", options->inputs, "Input files; '-' or none reads stdin");
    check->add_flag("--absent", options->absent, "Print the lines certainly NOT in the filter instead");
    check->add_flag("--count", options->count, "Print only the totals: present and absent lines");
    check->add_flag("--no-verify", options->no_verify,
                    "Skip the payload checksum (instant start on a huge filter; corruption goes unnoticed)");
    return [options] { return run_check(*options); };
}

}  // namespace bloomkit::cli
