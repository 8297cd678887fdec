// instruction_count — the instructions one call executes, counted, not timed.
//
//   instruction_count KIND OPERATION CALLS
//     KIND       block | split-block | classic | counting | cuckoo | scalable | fuse8 | hash
//     OPERATION  contains | insert | contains-bulk | loop   (hash: u64 | string8 | string60)
//
// Builds a filter of 1M random 8-byte keys, then makes CALLS calls over 2^20 prepared keys, in
// the loop a user writes: `found += filter.contains(key)`. bench/instructions.sh runs it under
// valgrind's instruction counter twice — with CALLS and with 0 — and divides the difference by
// CALLS, so the build and the key generation cancel out; OPERATION "loop" is the same loop with
// no call in it, to say what the loop itself costs. A count does not vary with the machine's
// load or clock, so it shows what a change of code did where a timing would drown it in noise
// (docs/design/performance.md, "Why a single call costs its instructions"). Valgrind's virtual
// CPU has AVX2 and no AVX-512, so the counts are of the AVX2 kernels.
//
// Built with BLOOMKIT_COUNT_PEERS (instruction_count_peers, where the peers folder is: as
// peer_bench, -mavx2 -mbmi2), it counts the peers' calls the same way, in the same loop:
//     KIND       boost (Boost.Bloom filter<std::uint64_t, 1, fast_multiblock64<8>>)
//                | fastfilter-block (fastfilter_cpp's SimdBlockFilterFixed)
//                | fastfilter-fuse8 (fastfilter_cpp's BinaryFuse8)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "measure.hpp"

#ifdef BLOOMKIT_COUNT_PEERS
#include <boost/bloom.hpp>
using std::vector;  // fastfilter's headers name it unqualified
#include <bloom/simd-block-fixed-fpp.h>
#include <xorfilter/binaryfusefilter_singleheader.h>
#endif

namespace {

using bench::splitmix64;

constexpr std::uint64_t filter_keys = 1'000'000;
constexpr std::size_t prepared_keys = std::size_t{1} << 20;

[[noreturn]] void usage() {
    std::fprintf(stderr,
                 "usage: instruction_count block|split-block|classic|counting|cuckoo|scalable|fuse8 "
                 "contains|insert|contains-bulk|loop CALLS\n"
                 "       instruction_count hash u64|string8|string60 CALLS\n");
    std::exit(2);
}

std::vector<std::uint64_t> keys(std::uint64_t salt, std::size_t count) {
    std::vector<std::uint64_t> out(count);
    for (std::size_t i = 0; i < count; ++i) out[i] = splitmix64(i * 2 + salt);
    return out;
}

/// CALLS calls of `call(key)` over the prepared keys, cycling; the sum of the answers. The inner
/// loop keeps its bounds in registers (an opaque call in it must not make the compiler reload
/// them), so it adds what a user's loop adds: a load, an add, an increment and a branch.
template <class Key, class Call>
std::uint64_t loop(const std::vector<Key>& prepared, std::uint64_t calls, Call call) {
    std::uint64_t found = 0;
    for (std::uint64_t done = 0; done < calls;) {
        const Key* const keys = prepared.data();
        const std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(prepared.size(), calls - done));
        for (std::size_t i = 0; i < count; ++i) found += call(keys[i]);
        done += count;
    }
    return found;
}

template <class Filter>
std::uint64_t run_filter(std::string_view operation, std::uint64_t calls, Filter& filter) {
    const std::vector<std::uint64_t> prepared = keys(0, prepared_keys);
    if (operation == "contains")
        return loop(prepared, calls, [&](std::uint64_t key) { return filter.contains(key) ? 1U : 0U; });
    if (operation == "loop")  // the key passes through an empty asm: a compiler would vectorise `key & 1`
        return loop(prepared, calls, [](std::uint64_t key) {
            asm("" : "+r"(key));
            return key & 1;
        });
    if (operation == "contains-bulk") {
        std::uint64_t found = 0;
        for (std::uint64_t done = 0; done < calls; done += prepared.size()) {
            const auto end =
                prepared.begin() + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(prepared.size(), calls - done));
            found += filter.count_contained(prepared.begin(), end);
        }
        return found;
    }
    if (operation == "insert") {
        if constexpr (requires { filter.insert(std::uint64_t{}); })
            return loop(prepared, calls, [&](std::uint64_t key) { return filter.insert(key) ? 1U : 0U; });
    }
    usage();
}

/// A filter of the kind, holding filter_keys keys (none of the prepared ones: lookups of
/// absent keys, which run every probe; an insert of a new key alike).
template <class Filter>
std::uint64_t run_kind(std::string_view operation, std::uint64_t calls) {
    const std::vector<std::uint64_t> held = keys(1, filter_keys);
    if constexpr (std::is_same_v<Filter, bloomkit::binary_fuse8_filter>) {
        Filter filter(held);
        return run_filter(operation, calls, filter);
    } else {
        Filter filter(filter_keys + (operation == "insert" ? calls : 0), 0.01);
        if (const auto added = filter.insert(held.begin(), held.end());
            std::is_same_v<Filter, bloomkit::cuckoo_filter> && added != held.size()) {
            std::fprintf(stderr, "instruction_count: the cuckoo filter refused a key\n");
            return 0;
        }
        return run_filter(operation, calls, filter);
    }
}

#ifdef BLOOMKIT_COUNT_PEERS
/// A peer's single calls in the loop: `contains(key)` or `insert(key)`, as `operation` says;
/// nothing for another operation.
template <class Contains, class Insert>
std::optional<std::uint64_t> single_calls(std::string_view operation, const std::vector<std::uint64_t>& prepared,
                                          std::uint64_t calls, Contains contains, Insert insert) {
    if (operation == "contains")
        return loop(prepared, calls, [&](std::uint64_t key) { return contains(key) ? 1U : 0U; });
    if (operation == "insert")
        return loop(prepared, calls, [&](std::uint64_t key) {
            insert(key);
            return 1U;
        });
    return std::nullopt;
}

/// A peer's filter of filter_keys keys, counted in the same loops as bloomkit's: `contains`
/// and `insert` call its single-key functions, `contains-bulk` Boost's bulk may_contain.
std::uint64_t run_peer(std::string_view kind, std::string_view operation, std::uint64_t calls) {
    const std::vector<std::uint64_t> held = keys(1, filter_keys);
    const std::vector<std::uint64_t> prepared = keys(0, prepared_keys);
    const std::uint64_t capacity = filter_keys + (operation == "insert" ? calls : 0);
    if (kind == "boost") {
        boost::bloom::filter<std::uint64_t, 1, boost::bloom::fast_multiblock64<8>> filter(capacity, 0.01);
        filter.insert(held.begin(), held.end());
        const auto single = single_calls(
            operation, prepared, calls, [&](std::uint64_t key) { return filter.may_contain(key); },
            [&](std::uint64_t key) { filter.insert(key); });
        if (single) return *single;
        if (operation == "contains-bulk") {
            std::uint64_t found = 0;
            for (std::uint64_t done = 0; done < calls; done += prepared.size()) {
                const auto end = prepared.begin() +
                                 static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(prepared.size(), calls - done));
                filter.may_contain(prepared.begin(), end, [&found](std::uint64_t, bool in) { found += in; });
            }
            return found;
        }
#ifdef __AVX2__  // fastfilter has no SimdBlockFilterFixed without AVX2
    } else if (kind == "fastfilter-block") {
        SimdBlockFilterFixed<> filter(static_cast<int>(capacity));
        for (const std::uint64_t key : held) filter.Add(key);
        const auto single = single_calls(
            operation, prepared, calls, [&](std::uint64_t key) { return filter.Find(key); },
            [&](std::uint64_t key) { filter.Add(key); });
        if (single) return *single;
#endif
    } else if (kind == "fastfilter-fuse8" && operation == "contains") {
        binary_fuse8_t filter{};
        std::vector<std::uint64_t> input = held;
        if (!binary_fuse8_allocate(static_cast<std::uint32_t>(input.size()), &filter) ||
            !binary_fuse8_populate(input.data(), static_cast<std::uint32_t>(input.size()), &filter)) {
            std::fprintf(stderr, "instruction_count: fastfilter's BinaryFuse8 could not be built\n");
            std::exit(1);
        }
        const std::uint64_t found =
            loop(prepared, calls, [&](std::uint64_t key) { return binary_fuse8_contain(key, &filter) ? 1U : 0U; });
        binary_fuse8_free(&filter);
        return found;
    }
    usage();
}
#endif

std::uint64_t run_hash(std::string_view key_type, std::uint64_t calls) {
    // A seed the compiler cannot see, as in a filter: otherwise it folds the secrets into
    // constants and counts instructions no real call executes.
    volatile std::uint64_t opaque_seed = bloomkit::default_seed;
    const bloomkit::hasher hash(bloomkit::default_hash_algorithm, opaque_seed);
    const std::vector<std::uint64_t> integers = keys(0, prepared_keys);
    if (key_type == "u64") return loop(integers, calls, [&](std::uint64_t key) { return hash(key).low; });
    const std::size_t length = key_type == "string8" ? 8 : key_type == "string60" ? 60 : 0;
    if (length == 0) usage();
    std::vector<std::string> strings;
    strings.reserve(prepared_keys / 16);
    for (std::size_t i = 0; i < prepared_keys / 16; ++i) {
        std::string s = std::to_string(integers[i]);
        s.resize(length, 'x');
        strings.push_back(std::move(s));
    }
    return loop(strings, calls, [&](const std::string& key) { return hash(key).low; });
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) usage();
    const std::string_view kind = argv[1], operation = argv[2];
    const std::uint64_t calls = std::strtoull(argv[3], nullptr, 10);
    std::uint64_t result = 0;
    if (kind == "block") result = run_kind<bloomkit::block_bloom_filter>(operation, calls);
    else if (kind == "split-block") result = run_kind<bloomkit::split_block_bloom_filter>(operation, calls);
    else if (kind == "classic") result = run_kind<bloomkit::classic_bloom_filter>(operation, calls);
    else if (kind == "counting") result = run_kind<bloomkit::counting_bloom_filter>(operation, calls);
    else if (kind == "cuckoo") result = run_kind<bloomkit::cuckoo_filter>(operation, calls);
    else if (kind == "scalable") result = run_kind<bloomkit::scalable_bloom_filter>(operation, calls);
    else if (kind == "fuse8") result = run_kind<bloomkit::binary_fuse8_filter>(operation, calls);
    else if (kind == "hash") result = run_hash(operation, calls);
#ifdef BLOOMKIT_COUNT_PEERS
    else if (kind == "boost" || kind == "fastfilter-block" || kind == "fastfilter-fuse8")
        result = run_peer(kind, operation, calls);
#endif
    else usage();
    std::printf("%llu\n", static_cast<unsigned long long>(result));  // the answers, so no call is optimised away
    return 0;
}
