// bloomkit/detail/stage_probe.hpp — a batch of keys hashed once and asked of several block Bloom
// filters that hash alike: the scalable filter's stages, the windowed filter's live generations. One digest
// per key serves every filter; each filter tests only the keys none before it held, by its
// layout's batch test (the same bits as contains_digest, several probes per SIMD step), with the
// cache lines of the keys ahead prefetched.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <vector>

#include "bloomkit/detail/bulk_pipeline.hpp"
#include "bloomkit/detail/word_access.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit::detail {

/// What stage_probe::mark_held leaves: held[i] says whether a filter holds key i; pending lists
/// the keys none holds, in order. Reused from batch to batch.
struct held_keys {
    std::vector<char> held;
    std::vector<std::uint32_t> pending;
};

/// Hashes up to `limit` keys from `first` on into `digests` (cleared first), advancing `first`:
/// a batch of keys hashed once for every filter that will be asked of them.
template <class It, class Sentinel>
void hash_batch(const hasher& h, It& first, Sentinel last, std::size_t limit, std::vector<digest>& digests) {
    digests.clear();
    h.template with_digest_of<std::iter_value_t<It>>([&](const auto& digest_of) {
        for (; digests.size() < limit && first != last; ++first) digests.push_back(digest_of(*first));
    });
}

/// Keys already hashed against `filters` (pointers to block Bloom filters), in the order given:
/// put the likeliest holder first.
template <class Filter>
void mark_held(std::span<const Filter* const> filters, std::span<const digest> digests, held_keys& out) {
    using layout_type = typename Filter::layout_type;
    constexpr std::size_t test_batch = 32;
    out.held.assign(digests.size(), 0);
    out.pending.resize(digests.size());
    for (std::size_t i = 0; i < digests.size(); ++i) out.pending[i] = static_cast<std::uint32_t>(i);
    std::uint32_t* const pending = out.pending.data();
    std::size_t count = digests.size();
    typename layout_type::probe probes[test_batch];
    for (const Filter* filter : filters) {
        if (count == 0) break;
        const layout_type layout(filter->geometry());
        const auto* words = filter->words().data();
        for (std::size_t j = 0; j < std::min(count, pipeline_distance); ++j)
            layout.prefetch(words, layout.locate(digests[pending[j]]));
        std::size_t still = 0;  // pending[0, still): not found so far; written behind the reads
        for (std::size_t begin = 0; begin < count; begin += test_batch) {
            const std::size_t n = std::min(test_batch, count - begin);
            for (std::size_t j = 0; j < n; ++j) {
                probes[j] = layout.locate(digests[pending[begin + j]]);
                if (begin + j + pipeline_distance < count)
                    layout.prefetch(words, layout.locate(digests[pending[begin + j + pipeline_distance]]));
            }
            std::size_t next = begin;  // the key the next answer is for
            auto take = [&](bool held) {
                const std::uint32_t key = pending[next++];
                out.held[key] = held ? 1 : 0;
                pending[still] = key;
                still += held ? 0 : 1;
            };
            layout.template test_batch<plain_access>(words, std::span(probes, n), take);
        }
        count = still;
    }
    out.pending.resize(count);
}

}  // namespace bloomkit::detail
