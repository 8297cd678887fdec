// src/jobs/filter/sizing.hpp — how the filter jobs size a filter: a number of keys and a
// false-positive rate, or a memory budget with one of them, or a budget alone for the input's
// count of lines. The command reads the request from -n, -p and --memory; any other caller fills
// it in.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit::jobs {

/// Thrown when a filter is to be sized for its input's lines and the input has none: there is
/// nothing to size it for.
class empty_input : public invalid_argument {
public:
    empty_input() : invalid_argument("the input is empty: there is nothing to size the filter for") {}
};

/// What a filter is sized by: any two of keys, rate and memory at most; the default rate when
/// no rate is given.
struct sizing_request {
    std::optional<std::uint64_t> keys{};
    std::optional<double> fpr{};
    std::optional<std::uint64_t> memory{};
    double default_fpr = 0.01;

    /// The target rate a kind is chosen by (binary fuse fingerprints): the rate asked, else the
    /// default.
    [[nodiscard]] double choice_fpr() const noexcept { return fpr.value_or(default_fpr); }
    /// Whether the input must be counted to size the filter.
    [[nodiscard]] bool needs_count() const noexcept { return !keys && !(fpr && memory); }
};

/// The initial capacity of a filter that grows, sized by nothing: small enough to cost little,
/// large enough that a big input needs few stages.
inline constexpr std::uint64_t default_growing_capacity = 100'000;

/// The keys and rate a filter of type F is sized for. `count` counts the input's lines, when
/// the request needs it. Throws empty_input when they are needed and there are none.
template <class F>
std::pair<std::uint64_t, double> resolve_sizing(const sizing_request& r, const kind_request& kind,
                                                const std::function<std::uint64_t()>& count) {
    std::uint64_t n = r.keys ? *r.keys : 0;
    if (r.memory && r.fpr && !r.keys) n = keys_for_memory<F>(*r.fpr, *r.memory, kind);
    if (r.needs_count()) n = count();
    if (n == 0) throw empty_input();
    const double p = r.memory && !r.fpr ? fpr_for_memory<F>(static_cast<double>(n), *r.memory, kind) : r.choice_fpr();
    return {n, p};
}

}  // namespace bloomkit::jobs
