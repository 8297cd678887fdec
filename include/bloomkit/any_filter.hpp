// bloomkit/any_filter.hpp — the one list of filter kinds, and a filter whose kind is known only
// at run time.
//
// any_filter is a std::variant over every filter type bloomkit has. Everything that must know
// all kinds derives from it: opening a file of any kind (load<any_filter>, map<any_filter>),
// the command's `plan`, `build --kind` and `info`, and the bindings. A new kind is added here
// once — an alternative of the variant and its kind_traits entry — and the compiler points at
// whatever does not handle it yet.
//
//     bloomkit::any_filter f = bloomkit::load<bloomkit::any_filter>("seen.bkf");
//     std::visit([](const auto& filter) { ... }, f);
//
// visit_kind(header, make) chooses code by the kind a file's header describes, before (or
// instead of) opening the filter.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/binary_fuse_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/io/bkf.hpp"
#include "bloomkit/options.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit {

/// Every filter type, the default first; the order in which `bloomkit plan` lists them.
using any_filter = std::variant<block_bloom_filter, classic_bloom_filter, split_block_bloom_filter, counting_bloom_filter,
                                cuckoo_filter, scalable_bloom_filter, binary_fuse8_filter, binary_fuse16_filter,
                                binary_fuse8_4wise_filter, binary_fuse16_4wise_filter>;

/// Calls visit(std::type_identity<F>{}) for every alternative F of any_filter, in order.
template <class Visit>
constexpr void for_each_filter_type(Visit&& visit) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (visit(std::type_identity<std::variant_alternative_t<I, any_filter>>{}), ...);
    }(std::make_index_sequence<std::variant_size_v<any_filter>>{});
}

// --- The registry's entries ---------------------------------------------------------------

/// A kind as a user asks for it: `build --kind fuse --bits 16 --arity 4`. Unset fields take the
/// kind's defaults (a block layout; fingerprint bits chosen from the target FPR; 3-wise).
struct kind_request {
    std::string kind = "bloom";
    std::optional<bloom_layout> layout;
    std::optional<std::uint32_t> fingerprint_bits;
    std::optional<std::uint32_t> arity;
};

/// What a filter type costs for (n, p), in the terms every kind shares.
struct kind_plan {
    std::uint64_t bytes = 0;
    double fpr = 0;                     ///< modelled at n keys
    std::uint32_t hashes = 0;           ///< probes per key (Bloom kinds), else 0
    std::uint32_t fingerprint_bits = 0; ///< cuckoo and binary fuse, else 0
};

/// What the registry knows of each filter type:
///   kind           the word `build --kind` takes
///   flags()        the whole request that selects this type ("fuse --bits 16 --arity 4")
///   abilities      what it can do beyond lookups ("adds, deletes", "static", ...)
///   summary        why one would choose it
///   accepts(r, p)  whether request r, at target p, selects this type (throws invalid_argument
///                  for a value the kind does not take)
///   plan(n, p, r)  its cost for n keys at p (throws invalid_argument when it cannot)
///   make(n, p, r, options)   an empty filter sized for (n, p), for the kinds that are not
///                  built from their keys
template <class Filter>
struct kind_traits;

namespace detail {

/// Throws unless a request for `kind` sets only the options `kind` takes.
inline void require_options(const kind_request& r, bool layout, bool bits, bool arity) {
    const auto refuse = [&](std::string_view option, std::string_view kinds) {
        throw invalid_argument("--" + std::string(option) + " applies to " + std::string(kinds) + " only, not to --kind " + r.kind);
    };
    if (r.layout && !layout) refuse("layout", "--kind bloom");
    if (r.fingerprint_bits && !bits) refuse("bits (fingerprint bits)", "--kind cuckoo and --kind fuse");
    if (r.arity && !arity) refuse("arity", "--kind fuse");
}

}  // namespace detail

template <class Layout>
struct kind_traits<basic_bloom_filter<Layout>> {
    static constexpr std::string_view kind = "bloom";
    static constexpr std::string_view abilities = "adds";
    static constexpr std::string_view summary = Layout::id == bloom_layout::block     ? "one cache line per key (the default)"
                                                : Layout::id == bloom_layout::classic ? "fewest bits of the Bloom filters, k cache lines per key"
                                                                                      : "Apache Parquet compatible";
    static std::string flags() {
        return Layout::id == bloom_layout::block ? "bloom" : "bloom --layout " + std::string(to_string(Layout::id));
    }
    static bool accepts(const kind_request& r, double) {
        detail::require_options(r, true, false, false);
        return r.kind == kind && r.layout.value_or(bloom_layout::block) == Layout::id;
    }
    static kind_plan plan(double n, double p, const kind_request& = {}) {
        const bloom_plan plan = plan_bloom(Layout::id, n, p);
        return {plan.bytes(), plan.fpr, plan.geometry.hashes, 0};
    }
    static basic_bloom_filter<Layout> make(std::uint64_t n, double p, const kind_request&, filter_options options) {
        return {n, p, options};
    }
};

template <>
struct kind_traits<counting_bloom_filter> {
    static constexpr std::string_view kind = "counting";
    static constexpr std::string_view abilities = "adds, deletes";
    static constexpr std::string_view summary = "4-bit counters, one cache line per key";
    static std::string flags() { return "counting"; }
    static bool accepts(const kind_request& r, double) {
        detail::require_options(r, false, false, false);
        return r.kind == kind;
    }
    static kind_plan plan(double n, double p, const kind_request& = {}) {
        const counting_plan plan = plan_counting_bloom(n, p);
        return {plan.bytes(), plan.fpr, plan.geometry.hashes, 0};
    }
    static counting_bloom_filter make(std::uint64_t n, double p, const kind_request&, filter_options options) {
        return {n, p, options};
    }
};

template <>
struct kind_traits<cuckoo_filter> {
    static constexpr std::string_view kind = "cuckoo";
    static constexpr std::string_view abilities = "adds, deletes";
    static constexpr std::string_view summary = "full at ~95% load; beats Bloom below ~0.4%";
    static std::string flags() { return "cuckoo"; }
    static bool accepts(const kind_request& r, double) {
        detail::require_options(r, false, true, false);
        if (r.kind != kind) return false;
        if (r.fingerprint_bits && *r.fingerprint_bits != 8 && *r.fingerprint_bits != 12 && *r.fingerprint_bits != 16)
            throw invalid_argument("--bits for a cuckoo filter is 8, 12 or 16, not " + std::to_string(*r.fingerprint_bits));
        return true;
    }
    static kind_plan plan(double n, double p, const kind_request& r = {}) {
        const cuckoo_plan plan = plan_cuckoo(n, p, r.fingerprint_bits.value_or(0));
        return {plan.bytes(), plan.fpr, 0, plan.geometry.fingerprint_bits};
    }
    static cuckoo_filter make(std::uint64_t n, double p, const kind_request& r, filter_options options) {
        if (!r.fingerprint_bits) return {n, p, options};
        return cuckoo_filter(plan_cuckoo(static_cast<double>(n), p, *r.fingerprint_bits).geometry, options);
    }
};

template <>
struct kind_traits<scalable_bloom_filter> {
    static constexpr std::string_view kind = "scalable";
    static constexpr std::string_view abilities = "adds, grows";
    static constexpr std::string_view summary = "if n is a guess: stages of 2x keys at p/2, p/4, ...";
    static std::string flags() { return "scalable"; }
    static bool accepts(const kind_request& r, double) {
        detail::require_options(r, false, false, false);
        return r.kind == kind;
    }
    /// Holding n keys from an initial capacity of n: the first stage only.
    static kind_plan plan(double n, double p, const kind_request& = {}) {
        const scalable_options defaults;
        const scalable_plan plan = plan_scalable_bloom(
            n, {static_cast<std::uint64_t>(n), p, defaults.growth, defaults.tightening});
        const auto stage_bytes = [&](std::size_t i) -> std::uint64_t { return plan.geometries[i].bits / 8; };
        return {detail::scalable_payload_size(plan.geometries.size(), stage_bytes), plan.fpr, plan.geometries.front().hashes, 0};
    }
    static scalable_bloom_filter make(std::uint64_t n, double p, const kind_request&, filter_options options) {
        return {n, p, {.seed = options.seed, .hash = options.hash, .keys = options.keys}};
    }
};

template <class Fingerprint, unsigned Arity>
struct kind_traits<basic_binary_fuse_filter<Fingerprint, Arity>> {
    static constexpr std::uint32_t bits = 8 * sizeof(Fingerprint);
    static constexpr std::string_view kind = "fuse";
    static constexpr std::string_view abilities = "static";
    static constexpr std::string_view summary = "built once from the complete set, ~1.08-1.13x the floor";
    static std::string flags() {
        return std::string("fuse") + (bits == 16 ? " --bits 16" : "") + (Arity == 4 ? " --arity 4" : "");
    }
    static bool accepts(const kind_request& r, double p) {
        detail::require_options(r, false, true, true);
        if (r.kind != kind) return false;
        if (r.fingerprint_bits && *r.fingerprint_bits != 8 && *r.fingerprint_bits != 16)
            throw invalid_argument("--bits for a binary fuse filter is 8 or 16, not " + std::to_string(*r.fingerprint_bits));
        if (r.arity && *r.arity != 3 && *r.arity != 4)
            throw invalid_argument("--arity is 3 or 4, not " + std::to_string(*r.arity));
        const std::uint32_t wanted = r.fingerprint_bits ? *r.fingerprint_bits : binary_fuse_fingerprint_bits_for(p);
        return wanted == bits && r.arity.value_or(3) == Arity;
    }
    static kind_plan plan(double n, double p, const kind_request& = {}) {
        const binary_fuse_plan plan = plan_binary_fuse(Arity, n, p, bits);
        if (plan.fpr > p)
            throw invalid_argument(std::string("reaches at best p = 1/") + (bits == 8 ? "256" : "65536") + " (" +
                                   std::to_string(bits) + "-bit fingerprints)");
        return {plan.bytes(), plan.fpr, 0, bits};
    }
};

/// Calls visit(std::type_identity<F>{}) for the type a request selects at target FPR p, and
/// returns what it returns. Throws invalid_argument for an unknown kind or an option the kind
/// does not take, naming the choices.
template <class Visit>
auto with_requested_type(const kind_request& r, double p, Visit&& visit) {
    using result = decltype(visit(std::type_identity<block_bloom_filter>{}));
    std::optional<std::conditional_t<std::is_void_v<result>, bool, result>> made;
    bool known = false;
    std::string kinds;
    for_each_filter_type([&](auto type) {
        using traits = kind_traits<typename decltype(type)::type>;
        if (kinds.find(traits::kind) == std::string::npos) kinds += (kinds.empty() ? "" : ", ") + std::string(traits::kind);
        if (r.kind != traits::kind) return;
        known = true;
        if (made || !traits::accepts(r, p)) return;
        if constexpr (std::is_void_v<result>) visit(type), made = true;
        else made.emplace(visit(type));
    });
    if (!known) throw invalid_argument("unknown kind '" + r.kind + "': choose " + kinds);
    if (!made) throw invalid_argument("no " + r.kind + " filter matches these options");
    if constexpr (!std::is_void_v<result>) return std::move(*made);
}

// --- Sizing by memory: the plans searched ----------------------------------------------------

/// The lowest target FPR at which a filter of type F for `n` keys fits in `bytes`, to a relative
/// precision of 0.1% (a bisection of log p over F's plans, which grow as p shrinks). Throws
/// invalid_argument when even p = 1/2 does not fit.
template <class F>
[[nodiscard]] double fpr_for_memory(double n, std::uint64_t bytes, const kind_request& request = {}) {
    const auto fits = [&](double p) {
        try {
            return kind_traits<F>::plan(n, p, request).bytes <= bytes;
        } catch (const invalid_argument&) {
            return false;  // out of this kind's reach
        }
    };
    double loose = 0.5, tight = 1e-15;
    if (!fits(loose))
        throw invalid_argument("a " + kind_traits<F>::flags() + " filter for " + show_number(n) + " keys does not fit in " +
                               std::to_string(bytes) + " bytes at any useful false-positive rate");
    if (fits(tight)) return tight;
    while (std::log(loose / tight) > 1e-3) {  // loose fits, tight does not
        const double middle = std::sqrt(loose * tight);
        (fits(middle) ? loose : tight) = middle;
    }
    return loose;
}

/// The most keys a filter of type F at target FPR p can be sized for within `bytes` (a
/// bisection over F's plans, which grow with n). Throws invalid_argument when not even one key
/// fits.
template <class F>
[[nodiscard]] std::uint64_t keys_for_memory(double p, std::uint64_t bytes, const kind_request& request = {}) {
    const auto fits = [&](double n) {
        try {
            return kind_traits<F>::plan(n, p, request).bytes <= bytes;
        } catch (const invalid_argument&) {
            return false;
        }
    };
    if (!fits(1))
        throw invalid_argument("not even one key fits a " + kind_traits<F>::flags() + " filter of " + std::to_string(bytes) +
                               " bytes at p = " + show_number(p));
    double low = 1, high = 2;
    while (fits(high) && high < 0x1p62) low = high, high *= 2;
    while (high - low > 1) {
        const double middle = std::floor((low + high) / 2);
        (fits(middle) ? low : high) = middle;
    }
    return static_cast<std::uint64_t>(low);
}

// --- Opening a filter of any kind --------------------------------------------------------

/// Calls make(std::type_identity<F>) with F the alternative of any_filter that the header
/// describes, and returns what make returns: code chosen by the kind of a file of which only
/// the header has been read (to update a Bloom filter file in place, say, and rewrite others).
template <class Make>
auto visit_kind(const file_header& h, Make make) {
    using result = decltype(make(std::type_identity<block_bloom_filter>{}));
    std::optional<result> made;
    for_each_filter_type([&](auto type) {
        if (!made && file_codec<typename decltype(type)::type>::holds(h)) made.emplace(make(type));
    });
    if (!made) throw error("no filter type for this header");  // decode_header admits only known kinds
    return std::move(*made);
}

/// The codec of "whatever kind the header says": load<any_filter>, from_bytes<any_filter> and
/// map<any_filter> open a filter of any kind.
template <>
struct file_codec<any_filter> {
    static bool holds(const file_header&) noexcept { return true; }
    static std::string name() { return "bloomkit filter"; }
    static any_filter assemble(const file_header& h, detail::payload_source& payload) {
        return visit_kind(h, [&](auto type) { return any_filter(file_codec<typename decltype(type)::type>::assemble(h, payload)); });
    }
};

/// What the keys of whichever filter `filter` holds are, as it records them.
inline key_format recorded_key_format(const any_filter& filter) noexcept {
    return std::visit([](const auto& f) { return f.recorded_key_format(); }, filter);
}

/// header_of(), to_bytes() and save() of whichever filter `filter` holds.
inline file_header header_of(const any_filter& filter) {
    return std::visit([](const auto& f) { return header_of(f); }, filter);
}
inline std::vector<std::byte> to_bytes(const any_filter& filter) {
    return std::visit([](const auto& f) { return to_bytes(f); }, filter);
}
inline void save(const any_filter& filter, std::ostream& out) {
    std::visit([&](const auto& f) { save(f, out); }, filter);
}

}  // namespace bloomkit
