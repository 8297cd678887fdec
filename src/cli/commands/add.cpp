// bloomkit add FILE [INPUT...|-] — adds lines to an existing filter, replacing it atomically,
// under the writer lock (support/writer_lock.hpp): two adds at once both land.
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "support/common_options.hpp"
#include "support/keys.hpp"
#include "support/filter_files.hpp"
#include "support/filter_work.hpp"
#include "support/writer_lock.hpp"

namespace bloomkit::cli {
namespace {

struct add_options {
    std::string filter;
    std::vector<std::string> inputs;
    std::string threads = "0";
    std::string key = "text";
    bool no_wait = false;
};

int run_add(const add_options& options) {
    line_reader lines(options.inputs);
    const writer_lock lock(options.filter, options.no_wait);
    any_filter filter = load<any_filter>(options.filter);
    insert_lines(filter, lines, parse_key_format(options.key), parse_threads(options.threads));
    write_filter(filter, options.filter);
    warn_if_overfull(filter);
    return success;
}

}  // namespace

action add_command(CLI::App& command) {
    auto options = std::make_shared<add_options>();
    command.add_option("filter", options->filter, "Filter file (replaced atomically)")->required();
    command.add_option("inputs", options->inputs, "Input files; '-' or none reads stdin");
    add_key_option(command, options->key);
    add_thread_option(command, options->threads);
    add_no_wait_option(command, options->no_wait);
    return [options] { return run_add(*options); };
}

}  // namespace bloomkit::cli
