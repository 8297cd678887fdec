// bloomkit/kinds.hpp — the registry: the one list of filter types, what each can do, and choosing
// one from a request.
//
// A kind is its header (the filter and its kind_traits: its word, name, plan, how a request
// picks it; kind_request.hpp), its codec (io/*_codec.hpp: how it is stored, and what its header
// parameters say), and its line here: the codec's include and the type in any_filter. Nothing
// else names it. any_filter, the variant over the types, is everything bloomkit knows how to
// make, store, open, plan and bind, in the order `bloomkit plan` shows them. What a type can do
// is read off its API (kind_capabilities), never stated twice.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/io/binary_fuse_codec.hpp"
#include "bloomkit/io/bloom_codec.hpp"
#include "bloomkit/io/counting_bloom_codec.hpp"
#include "bloomkit/io/cuckoo_codec.hpp"
#include "bloomkit/io/scalable_bloom_codec.hpp"
#include "bloomkit/io/windowed_bloom_codec.hpp"
#include "bloomkit/kind_request.hpp"
#include "bloomkit/sizing/by_memory.hpp"

namespace bloomkit {

/// Every filter type, the default first: the registry.
using any_filter =
    std::variant<block_bloom_filter, classic_bloom_filter, split_block_bloom_filter, counting_bloom_filter,
                 cuckoo_filter, scalable_bloom_filter, windowed_filter, binary_fuse8_filter, binary_fuse16_filter,
                 binary_fuse8_4wise_filter, binary_fuse16_4wise_filter, guava_bloom_filter, guava_mitz32_bloom_filter,
                 dcso_bloom_filter>;

/// A registry: a std::variant over filter types. Every function below that walks the registry
/// takes one as its first template argument, any_filter unless told, so that a type list of
/// its own (a test's, a program's extra kind) is walked the same way.
template <class Registry>
concept filter_registry = requires {
    std::variant_size<Registry>::value;
};

/// Calls visit(std::type_identity<F>{}) for every type F of the registry, in order.
template <filter_registry Registry = any_filter, class Visit>
constexpr void for_each_filter_type(Visit&& visit) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (visit(std::type_identity<std::variant_alternative_t<I, Registry>>{}), ...);
    }
    (std::make_index_sequence<std::variant_size_v<Registry>>{});
}

/// The registry of Registry's types and F: Registry itself when it holds F.
template <filter_registry Registry, class F>
struct registry_with;
/// registry_with for a std::variant.
template <class... T, class F>
struct registry_with<std::variant<T...>, F> {
    /// The registry with F.
    using type = std::conditional_t<(std::is_same_v<T, F> || ...), std::variant<T...>, std::variant<T..., F>>;
};

/// The registry a read for a Target walks: Target when it is one, else any_filter with Target.
template <class Target>
using registry_for = typename std::conditional_t<filter_registry<Target>, std::type_identity<Target>,
                                                 registry_with<any_filter, Target>>::type;

// --- What a kind can do, read off its API ------------------------------------------------------

/// Takes keys after it is made (all but the binary fuse filters, built once from their keys).
template <class F>
concept inserting_filter = requires(F& f, std::string_view key) {
    f.insert(key);
};
/// Removes keys (counting Bloom, cuckoo).
template <class F>
concept removing_filter = requires(F& f, std::string_view key) {
    f.remove(key);
};
/// Tells how many times a key is in it (counting Bloom, cuckoo).
template <class F>
concept counting_filter = requires(const F& f, std::string_view key) {
    { f.count(key) } -> std::convertible_to<std::uint64_t>;
};
/// Has a fixed capacity and can refuse a key (cuckoo): try_insert(key) returns a status whose
/// `stored` means the key went in as a new copy and `full` that the table could not take it.
template <class F>
concept refusing_filter = requires(F& f, std::string_view key) {
    { f.try_insert(key) == decltype(f.try_insert(key))::stored } -> std::convertible_to<bool>;
    { f.try_insert(key) == decltype(f.try_insert(key))::full } -> std::convertible_to<bool>;
};

/// Takes keys and answers lookups from several threads at once (the Bloom filters: atomic OR and
/// atomic loads on their words): insert(key, concurrent), contains(key, concurrent).
template <class F>
concept concurrent_filter = requires(F& f, const F& g, std::string_view key) {
    f.insert(key, concurrent);
    g.contains(key, concurrent);
};
/// Forgets keys as time passes (windowed): advance(t) moves it to time t.
template <class F>
concept forgetting_filter = requires(F& f, typename F::time_point t) {
    f.advance(t);
};
/// Takes the union of another of the same parameters (Bloom, counting Bloom, scalable).
template <class F>
concept merging_filter = requires(F& a, const F& b) {
    a |= b;
};
/// Takes the intersection of another of the same parameters (Bloom).
template <class F>
concept intersecting_filter = requires(F& a, const F& b) {
    a &= b;
};

/// What a filter type can do beyond answering lookups.
struct kind_capabilities {
    bool inserts = false;           ///< takes keys after it is made
    bool removes = false;           ///< removes keys
    bool counts = false;            ///< counts a key's copies
    bool merges = false;            ///< union (|=)
    bool intersects = false;        ///< intersection (&=)
    bool updates_in_place = false;  ///< its file takes keys in place (file_update.hpp): its operations only set bits
    bool grows = false;             ///< has no capacity: grows as keys come
    bool forgets = false;           ///< forgets keys as time passes (forgetting_filter)
    bool concurrent = false;        ///< inserts and lookups from several threads at once (concurrent_filter)
    bool fills = false;             ///< refuses a key it has no room for (refusing_filter): full, not a set
    /// Every ability equal.
    friend constexpr bool operator==(const kind_capabilities&, const kind_capabilities&) = default;
};

/// What F can do.
template <class F>
[[nodiscard]] constexpr kind_capabilities capabilities_of() noexcept {
    kind_capabilities can;
    can.inserts = inserting_filter<F>;
    can.removes = removing_filter<F>;
    can.counts = counting_filter<F>;
    can.merges = merging_filter<F>;
    can.intersects = intersecting_filter<F>;
    can.concurrent = concurrent_filter<F>;
    can.fills = refusing_filter<F>;
    can.forgets = forgetting_filter<F>;
    if constexpr (requires { kind_traits<F>::updates_in_place; })
        can.updates_in_place = kind_traits<F>::updates_in_place;
    if constexpr (requires { kind_traits<F>::grows; }) can.grows = kind_traits<F>::grows;
    return can;
}

/// What the filter `filter` holds can do.
[[nodiscard]] inline kind_capabilities capabilities(const any_filter& filter) noexcept {
    return std::visit([](const auto& f) { return capabilities_of<std::decay_t<decltype(f)>>(); }, filter);
}

/// The words of the kinds some type of which has capabilities that satisfy `wanted` (a
/// predicate on kind_capabilities), once each, in the registry's order.
template <filter_registry Registry = any_filter, std::predicate<kind_capabilities> Wanted>
[[nodiscard]] std::vector<std::string_view> kinds_that(Wanted wanted) {
    std::vector<std::string_view> words;
    for_each_filter_type<Registry>([&](auto type) {
        using F = typename decltype(type)::type;
        if (wanted(capabilities_of<F>()) && std::find(words.begin(), words.end(), kind_traits<F>::word) == words.end())
            words.push_back(kind_traits<F>::word);
    });
    return words;
}

/// The words of the kinds some type of which can do `ability`: kinds_that(&kind_capabilities::removes)
/// is {counting, cuckoo}.
template <filter_registry Registry = any_filter>
[[nodiscard]] std::vector<std::string_view> kinds_that(bool kind_capabilities::*ability) {
    return kinds_that<Registry>([ability](const kind_capabilities& can) { return can.*ability; });
}

/// How messages name the filter `filter` holds ("block Bloom filter").
[[nodiscard]] inline std::string kind_name(const any_filter& filter) {
    return std::visit([](const auto& f) { return kind_traits<std::decay_t<decltype(f)>>::name(); }, filter);
}

// --- Choosing a type ---------------------------------------------------------------------------

namespace detail {

/// "kind 'x'", "kinds 'x' and 'y'": the kinds of the registry that take the request option
/// `option`, for a message.
template <filter_registry Registry>
std::string kinds_taking(bool request_options::*option) {
    std::vector<std::string_view> words;
    for_each_filter_type<Registry>([&](auto type) {
        using traits = kind_traits<typename decltype(type)::type>;
        if (traits::accepted_options.*option && std::find(words.begin(), words.end(), traits::word) == words.end())
            words.push_back(traits::word);
    });
    std::string list;
    for (std::size_t i = 0; i < words.size(); ++i)
        list += (i == 0 ? "'" : i + 1 == words.size() ? " and '" : ", '") + std::string(words[i]) + "'";
    return (words.size() == 1 ? "kind " : "kinds ") + list;
}

/// Throws invalid_request when `r` sets an option that `takes` lacks, naming the kinds that take it.
template <filter_registry Registry>
void require_options(const kind_request& r, request_options takes) {
    using part = invalid_request::part;
    const auto check = [&](bool set, bool request_options::*option, part which, std::string_view what) {
        if (set && !(takes.*option))
            throw invalid_request(which, std::string(what) + " is chosen for " + kinds_taking<Registry>(option) +
                                             " only, not for kind '" + r.kind + "'");
    };
    check(r.layout.has_value(), &request_options::layout, part::layout, "a layout");
    check(r.fingerprint_bits.has_value(), &request_options::fingerprint_bits, part::fingerprint_bits,
          "a number of fingerprint bits");
    check(r.arity.has_value(), &request_options::arity, part::arity, "an arity");
    check(r.window.has_value(), &request_options::window, part::window, "a window");
    check(r.generations.has_value(), &request_options::generations, part::generations, "a number of generations");
}

}  // namespace detail

/// Calls visit(std::type_identity<F>{}) for the type a request selects at target FPR p, and
/// returns what it returns. Throws invalid_request for an unknown kind, an option the kind does
/// not take or a value it does not allow, naming the choices.
template <filter_registry Registry = any_filter, class Visit>
auto with_requested_type(const kind_request& r, double p, Visit&& visit) {
    using result = decltype(visit(std::type_identity<block_bloom_filter>{}));
    std::optional<std::conditional_t<std::is_void_v<result>, bool, result>> made;
    bool known = false;
    std::string kinds;
    for_each_filter_type<Registry>([&](auto type) {
        using traits = kind_traits<typename decltype(type)::type>;
        if (kinds.find(traits::word) == std::string::npos)
            kinds += (kinds.empty() ? "" : ", ") + std::string(traits::word);
        if (r.kind != traits::word) return;
        if (!known) detail::require_options<Registry>(r, traits::accepted_options);
        known = true;
        if (made || !traits::accepts(r, p)) return;
        if constexpr (std::is_void_v<result>) visit(type), made = true;
        else made.emplace(visit(type));
    });
    if (!known) throw invalid_request(invalid_request::part::kind, "unknown kind '" + r.kind + "': choose " + kinds);
    if (!made) throw invalid_request(invalid_request::part::kind, "no " + r.kind + " filter matches these options");
    if constexpr (!std::is_void_v<result>) return std::move(*made);
}

// --- Sizing by memory, for each kind (sizing/by_memory.hpp) -------------------------------------

/// The lowest target FPR at which a filter of type F for `n` keys fits in `bytes`. Throws
/// invalid_argument when even p = 1/2 does not fit.
template <class F>
[[nodiscard]] double fpr_for_memory(double n, std::uint64_t bytes, const kind_request& request = {}) {
    return fpr_for_memory(
        bytes, [&](double p) { return kind_traits<F>::plan(n, p, request).bytes; },
        "a " + kind_traits<F>::name() + " for " + show_number(n) + " keys");
}

/// The most keys a filter of type F at target FPR p can be sized for within `bytes`. Throws
/// invalid_argument when not even one key fits.
template <class F>
[[nodiscard]] std::uint64_t keys_for_memory(double p, std::uint64_t bytes, const kind_request& request = {}) {
    return keys_for_memory(
        bytes, [&](double n) { return kind_traits<F>::plan(n, p, request).bytes; },
        "a " + kind_traits<F>::name() + " at p = " + show_number(p));
}

}  // namespace bloomkit
