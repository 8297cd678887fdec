// src/jobs/filter/membership_lines.cpp — see membership_lines.hpp.
#include "jobs/filter/membership_lines.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include "jobs/digest_set.hpp"
#include "jobs/filter/line_filters.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/ordered_pipeline.hpp"
#include "jobs/progress.hpp"

namespace bloomkit::jobs {
namespace {

/// A block of streamed lines, hashed once, and the filter's answers for them.
struct hashed_answers {
    std::vector<digest> digests;
    answer_buffer answers;
};

}  // namespace

double wrongly_placed(std::uint64_t kept_right, std::uint64_t placed, double fpr) {
    if (!(fpr < 1)) return static_cast<double>(placed);
    return std::min(static_cast<double>(kept_right) * fpr / (1 - fpr), static_cast<double>(placed));
}

membership_report membership_lines(line_reader& held, line_reader& streamed, const membership_settings& settings,
                                   const std::function<void(std::string_view line)>& print) {
    const key_format keys = settings.hashing.keys;
    const build_settings of_held{settings.kind, settings.sizing, settings.hashing, settings.threads};
    const any_filter filter = with_requested_type(settings.kind, settings.sizing.choice_fpr(), [&](auto type) {
        return build_filter<typename decltype(type)::type>(held, of_held, filter_use::held_by_job);
    });
    membership_report report;
    report.fpr = current_fpr(filter);
    report.filter = header_of(filter);
    progress shown(settings.present ? "intersecting" : "subtracting", streamed.total_bytes());
    digest_set printed;  // of the lines printed, by the digests the filter was asked with
    std::uint64_t other = 0;
    std::vector<digest> wanted_digests;
    std::vector<char> first_time;
    const hasher& hash = hash_function(filter);
    for_each_block_in_order<hashed_answers>(
        streamed, settings.threads,
        [&](std::span<const std::string_view> batch, const line_origin& origin, hashed_answers& block) {
            block.digests.resize(batch.size());
            with_keys(batch, keys, origin, [&](auto keyed) {  // hashed once: the filter and the printed set both use it
                std::ranges::transform(keyed, block.digests.begin(), [&](const auto& key) { return hash(key); });
            });
            bloomkit::contains(filter, std::span<const digest>(block.digests), block.answers.resize(batch.size()));
        },
        [&](std::span<const std::string_view> batch, const line_origin&, const hashed_answers& block) {
            const std::span<const bool> answers = block.answers.answers();
            wanted_digests.clear();
            for (std::size_t i = 0; i < batch.size(); ++i)
                if (answers[i] == settings.present) wanted_digests.push_back(block.digests[i]);
            other += batch.size() - wanted_digests.size();
            report.lines_read += batch.size();
            if (!settings.all) {  // once per key: with integer keys, 007 is 7
                first_time.resize(wanted_digests.size());
                printed.insert(wanted_digests, first_time);
            }
            std::size_t wanted = 0;
            for (std::size_t i = 0; i < batch.size(); ++i) {
                if (answers[i] != settings.present) continue;
                if (settings.all || first_time[wanted] != 0) {
                    print(batch[i]);
                    ++report.lines_written;
                }
                ++wanted;
            }
            shown.update(streamed.bytes_read());
        });
    // intersect: lines not in the held input pass with probability fpr, and `other` counts those
    // that did not; subtract: lines not in it are held back with probability fpr, and the lines
    // written count those that were not. No more can be wrong than the lines the answer put on
    // the wrong side could be: all of them, when the filter answers "present" to everything.
    report.expected_wrong = settings.present ? wrongly_placed(other, report.lines_written, report.fpr)
                                             : wrongly_placed(report.lines_written, other, report.fpr);
    report.held_lines = held.lines_read();
    return report;
}

}  // namespace bloomkit::jobs
