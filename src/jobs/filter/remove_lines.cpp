// src/jobs/filter/remove_lines.cpp — see remove_lines.hpp.
#include "jobs/filter/remove_lines.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <span>
#include <string_view>

#include "bloomkit/file.hpp"
#include "jobs/filter/line_filters.hpp"
#include "jobs/line_keys.hpp"

namespace bloomkit::jobs {
namespace {

/// Refused lines named in the report, at most.
constexpr std::size_t named_lines = 5;

void refuse(remove_report& done, std::string_view line, const line_origin& origin, std::size_t index) {
    ++done.refused;
    if (done.first_refused.size() < named_lines)
        done.first_refused.push_back(
            fmt::format("line {} of '{}': '{}'", origin.first_line + index,
                        origin.input != nullptr ? *origin.input : std::string("input"),
                        line.size() > 40 ? std::string(line.substr(0, 40)) + "..." : std::string(line)));
}

/// Removes batches of keys from a filter (all or nothing per batch, unless partial), recording
/// what was refused. Once a line was refused without partial, nothing will be saved: the
/// remaining lines are only checked, to name the refused ones.
struct batch_remover {
    any_filter& filter;
    bool partial;
    remove_report& done;

    template <class Key>
    void operator()(std::span<const Key> keys, std::span<const std::string_view> lines, const line_origin& origin) {
        thread_local answer_buffer answers;
        const bool checking = !partial && done.refused > 0;  // nothing will be saved: only name what is refused
        if (partial || checking) {                           // key by key
            const std::span<bool> held = answers.resize(keys.size());
            if (checking) bloomkit::contains(filter, keys, held);
            for (std::size_t i = 0; i < keys.size(); ++i) {
                const bool gone = checking ? held[i] : bloomkit::remove(filter, keys.subspan(i, 1)) == 1;
                if (gone && !checking) ++done.removed;
                if (!gone) refuse(done, lines[i], origin, i);
            }
            return;
        }
        const std::size_t at = bloomkit::remove(filter, keys);  // all of the batch, or none of it
        if (at == keys.size()) {
            done.removed += at;
            return;
        }
        refuse(done, lines[at], origin, at);
        (*this)(keys.subspan(at + 1), lines.subspan(at + 1), {origin.input, origin.first_line + at + 1});
    }
};

}  // namespace

cannot_remove::cannot_remove(const std::string& path, const std::string& kind)
    : error(fmt::format("'{}' holds a {}, which cannot remove keys: the kinds that can are {}", path, kind,
                        fmt::join(kinds_that(&kind_capabilities::removes), ", "))) {}

remove_report remove_lines(const std::string& path, line_reader& lines, const remove_settings& settings) {
    const os::writer_lock lock = lock_filter_file(path, settings.lock);
    any_filter filter = load<any_filter>(path);
    const key_format keys = key_format_to_read(recorded_key_format(filter), settings.keys, path);
    if (!capabilities(filter).removes) throw cannot_remove(path, kind_name(filter));
    remove_report done;
    batch_remover remove_keys{filter, settings.partial, done};
    lines.read([&](std::span<const std::string_view> batch, const line_origin& origin) {
        with_keys(batch, keys, origin, [&](auto keyed) { remove_keys(keyed, batch, origin); });
    });
    if (done.removed > 0 && (done.refused == 0 || settings.partial)) write_filter(filter, path);
    return done;
}

}  // namespace bloomkit::jobs
