// Binary fuse filters of the first slot hashing scheme (remix128), which the library reads but no
// longer builds: built here by the library's own builder under that scheme, as files of it were
// written, so that tests can check that such filters keep answering as built.
#pragma once

#include <ranges>

#include "bloomkit/binary_fuse_filter.hpp"

namespace bloomkit_test {

/// The filter of type Filter that the first scheme builds from `keys` with `options`.
template <class Filter, std::ranges::forward_range Keys>
Filter first_scheme_filter(const Keys& keys, bloomkit::filter_options options = {}) {
    namespace detail = bloomkit::detail;
    using scheme = detail::fuse_remix128;
    const bloomkit::hasher h(options.hash.value_or(bloomkit::default_hash_algorithm), options.seed);
    auto built = detail::build_fuse_array<typename Filter::fingerprint_type, Filter::arity(), scheme>(
        [&] { return detail::hash_all<scheme>(std::ranges::begin(keys), std::ranges::end(keys), h); }, options.seed);
    const bloomkit::binary_fuse_parameters parameters{
        Filter::arity(), Filter::fingerprint_bits(), built.keys, built.geometry, built.seed, scheme::hashing};
    return Filter(parameters, h, std::move(built.fingerprints));
}

}  // namespace bloomkit_test
