// bloomkit add FILE [INPUT...|-] — adds lines to an existing filter, rewriting it atomically.
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "filters.hpp"

namespace bloomkit::cli {
namespace {

struct add_options {
    std::string filter;
    std::vector<std::string> inputs;
    unsigned threads = 0;
};

int run_add(const add_options& options) {
    line_reader lines(options.inputs);
    any_filter filter = load_any(options.filter);
    insert_lines(filter, lines, options.threads);
    save(filter, options.filter);
    warn_if_overfull(filter);
    return success;
}

}  // namespace

action add_add_command(CLI::App& app) {
    auto options = std::make_shared<add_options>();
    CLI::App* add = app.add_subcommand("add", "Add lines to an existing filter file");
    add->add_option("filter", options->filter, "Filter file (rewritten atomically)")->required();
    add->add_option("inputs", options->inputs, "Input files; '-' or none reads stdin");
    add->add_option("-t,--threads", options->threads, "Threads hashing and inserting (0: one per core)")
        ->capture_default_str();
    return [options] { return run_add(*options); };
}

}  // namespace bloomkit::cli
