// Binary fuse filters of the slot hashing schemes the library reads but no longer builds from
// native hashes — remix128 (the first scheme) and remix64 — built here by the library's own
// builder under that scheme, as files of it were written, so that tests can check that such
// filters keep answering as built.
#pragma once

#include <ranges>

#include "bloomkit/binary_fuse_filter.hpp"

namespace bloomkit_test {

/// The filter of type Filter that `Scheme` (detail::fuse_remix128 or fuse_remix64) builds from
/// `keys` with `options`.
template <class Filter, class Scheme, std::ranges::forward_range Keys>
Filter scheme_filter(const Keys& keys, bloomkit::filter_options options = {}) {
    namespace detail = bloomkit::detail;
    const bloomkit::hasher h(options.hash.value_or(bloomkit::default_hash_algorithm), options.seed);
    auto built = detail::build_fuse_array<typename Filter::fingerprint_type, Filter::arity(), Scheme>(
        [&] { return detail::hash_all<Scheme>(std::ranges::begin(keys), std::ranges::end(keys), h); }, options.seed);
    const bloomkit::binary_fuse_parameters parameters{
        Filter::arity(), Filter::fingerprint_bits(), built.keys, built.geometry, built.seed, Scheme::hashing};
    return Filter(parameters, h, std::move(built.fingerprints));
}

/// The filter of the first scheme (remix128).
template <class Filter, std::ranges::forward_range Keys>
Filter first_scheme_filter(const Keys& keys, bloomkit::filter_options options = {}) {
    return scheme_filter<Filter, bloomkit::detail::fuse_remix128>(keys, options);
}

/// The filter of slot hashing 1 (remix64) from a native hash.
template <class Filter, std::ranges::forward_range Keys>
Filter remix64_filter(const Keys& keys, bloomkit::filter_options options = {}) {
    return scheme_filter<Filter, bloomkit::detail::fuse_remix64>(keys, options);
}

}  // namespace bloomkit_test
