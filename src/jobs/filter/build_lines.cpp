// src/jobs/filter/build_lines.cpp — see build_lines.hpp.
#include "jobs/filter/build_lines.hpp"

#include "jobs/filter/line_filters.hpp"

namespace bloomkit::jobs {

any_filter build_from_lines(line_reader& lines, const build_settings& settings) {
    return with_requested_type(settings.kind, settings.sizing.choice_fpr(),
                               [&](auto type) { return build_filter<typename decltype(type)::type>(lines, settings); });
}

}  // namespace bloomkit::jobs
