// bloomkit remove FILE [INPUT...|-] — removes lines from a counting Bloom or cuckoo filter,
// rewriting it atomically. Exits 0 when at least one line was removed, 1 when none was there.
//
// A counting filter refuses lines it certainly does not hold (checked removal); a cuckoo
// filter removes a matching fingerprint if it finds one. Either way, removing a line that was
// never added but happens to test present (a false positive) takes away part of another key:
// remove only what you added.
#include <fmt/core.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "command.hpp"
#include "filters.hpp"

namespace bloomkit::cli {
namespace {

struct remove_options {
    std::string filter;
    std::vector<std::string> inputs;
};

int run_remove(const remove_options& options) {
    line_reader lines(options.inputs);
    any_filter filter = load_any(options.filter);
    std::uint64_t removed = 0, missing = 0;
    std::visit(
        [&](auto& f) {
            using F = std::decay_t<decltype(f)>;
            if constexpr (!removable<F>) {
                throw error(fmt::format("'{}' holds a {}, which cannot remove keys: only counting Bloom and cuckoo "
                                        "filters can (bloomkit build --kind counting|cuckoo)",
                                        options.filter, kind_name<F>()));
            } else {
                lines.read([&](std::span<const std::string_view> batch) {
                    for (const std::string_view line : batch) (f.remove(line) ? removed : missing) += 1;
                });
            }
        },
        filter);
    if (removed > 0) save(filter, options.filter);
    fmt::print(stderr, "bloomkit: removed {} line{}; {} not in the filter\n", removed, removed == 1 ? "" : "s", missing);
    return removed > 0 ? success : nothing_found;
}

}  // namespace

action add_remove_command(CLI::App& app) {
    auto options = std::make_shared<remove_options>();
    CLI::App* remove = app.add_subcommand("remove", "Remove lines from a counting Bloom or cuckoo filter file");
    remove->add_option("filter", options->filter, "Filter file (rewritten atomically)")->required();
    remove->add_option("inputs", options->inputs, "Input files; '-' or none reads stdin");
    return [options] { return run_remove(*options); };
}

}  // namespace bloomkit::cli
