// src/cli/support/messages.cpp — see messages.hpp.
#include "messages.hpp"

#include <fmt/format.h>

#include "bloomkit/error.hpp"
#include "bloomkit/kind_request.hpp"
#include "bloomkit/os/writer_lock.hpp"
#include "jobs/filter/dedup_lines.hpp"
#include "jobs/filter/line_filters.hpp"
#include "jobs/filter/remove_lines.hpp"
#include "jobs/filter/sizing.hpp"
#include "jobs/line_keys.hpp"
#include "jobs/line_reader.hpp"
#include "jobs/spill/distinct_lines.hpp"
#include "jobs/spill/exact_jobs.hpp"
#include "jobs/threads_unavailable.hpp"
#include "support/keys.hpp"

namespace bloomkit::cli {
namespace {

/// The option a part of a kind request is given by.
std::string_view option_of(invalid_request::part part) {
    switch (part) {
        case invalid_request::part::kind: return "--kind";
        case invalid_request::part::layout: return "--layout";
        case invalid_request::part::fingerprint_bits: return "--bits";
        case invalid_request::part::arity: return "--arity";
        case invalid_request::part::window: return "--window";
        case invalid_request::part::generations: return "--generations";
    }
    return "--kind";
}

/// The kinds whose capabilities satisfy `wanted`, as --kind takes one: "counting|cuckoo".
template <class Wanted>
std::string kinds_joined(Wanted wanted) {
    return fmt::format("{}", fmt::join(kinds_that(wanted), "|"));
}

}  // namespace

std::string command_message(const std::exception& e) {
    if (const auto* request = dynamic_cast<const invalid_request*>(&e))  // the library names the part
        return std::string(option_of(request->which())) + ": " + e.what();
    // The library says what an interrupted update needs; the command, how to give it that.
    if (const auto* format = dynamic_cast<const file_format_error*>(&e);
        format && format->reason() == format_errc::interrupted_update)
        return std::string(e.what()) + " (bloomkit add FILE < /dev/null)";
    if (dynamic_cast<const key_format_mismatch*>(&e) != nullptr || dynamic_cast<const unrecorded_key_format*>(&e))
        return key_format_message(dynamic_cast<const key_error&>(e));
    if (const auto* number = dynamic_cast<const jobs::not_a_number*>(&e))
        return number->explained_by("a filter of " + std::string(to_string(number->format())) + " keys");
    if (dynamic_cast<const jobs::empty_input*>(&e) != nullptr)
        return std::string(e.what()) + " (give -n to build an empty filter for that many keys)";
    if (const auto* full = dynamic_cast<const jobs::lines_do_not_fit*>(&e))
        return std::string(e.what()) + "; build it for more keys (-n)" +
               (full->keeps_copies()
                    ? ". It stores a line each time it comes (so that remove can undo each add): if the input repeats "
                      "lines already in the filter, remove them first (sort -u, or bloomkit check --absent), or use a "
                      "filter that counts them (--kind " +
                          kinds_joined([](const kind_capabilities& can) { return can.counts && !can.fills; }) + ")"
                    : "");
    if (dynamic_cast<const jobs::sized_by_its_keys*>(&e) != nullptr) return std::string(e.what()) + " (--memory)";
    if (dynamic_cast<const jobs::static_filter*>(&e) != nullptr)
        return std::string(e.what()) + " (bloomkit build --kind " +
               kinds_joined([](const kind_capabilities& can) { return !can.inserts; }) + ")";
    if (const auto* sizing = dynamic_cast<const jobs::dedup_sizing_error*>(&e)) {
        switch (sizing->why()) {
            case jobs::dedup_sizing_error::reason::unsized:
                return std::string(e.what()) + " (give -n or --memory, or use a filter that grows: --kind " +
                       kinds_joined([](const kind_capabilities& can) { return can.grows; }) + ", no -n)";
            case jobs::dedup_sizing_error::reason::budget_for_growing:
                return "--memory needs a filter of fixed size: use --kind bloom";
            case jobs::dedup_sizing_error::reason::unsized_window: break;
        }
        return std::string(e.what()) + " (-n, or --memory with -p)";
    }
    if (dynamic_cast<const jobs::cannot_remove*>(&e) != nullptr)
        return std::string(e.what()) + " (bloomkit build --kind " +
               kinds_joined([](const kind_capabilities& can) { return can.removes; }) + ")";
    if (dynamic_cast<const os::file_busy*>(&e) != nullptr) return std::string(e.what()) + " (--no-wait: not waiting)";
    if (dynamic_cast<const jobs::filter_file_as_lines*>(&e) != nullptr)
        return std::string(e.what()) + ": to combine filters, use bloomkit merge";
    if (dynamic_cast<const jobs::threads_unavailable*>(&e) != nullptr)
        return std::string(e.what()) + ": use fewer (-t)";
    if (dynamic_cast<const jobs::spill::not_enough_space*>(&e) != nullptr)
        return std::string(e.what()) + " (--tmpdir DIR puts it on another disk; a larger --memory spills less)";
    if (dynamic_cast<const jobs::spill::line_exceeds_memory*>(&e) != nullptr)
        return std::string(e.what()) + " (--memory)";
    // Filters of different sizes or seeds are most often two builds that each sized the filter
    // for its own input (no -n): the remedy is to build them alike.
    if (dynamic_cast<const incompatible_filters*>(&e) != nullptr)
        return std::string(e.what()) +
               ": filters combine when built alike — the same --kind, -n and -p (not each counted from its own "
               "input) and the same --seed";
    return e.what();
}

}  // namespace bloomkit::cli
