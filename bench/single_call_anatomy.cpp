// single_call_anatomy — where the time of a single block-filter lookup goes, one layer at a time.
//
//   single_call_anatomy [--n 1e8] [--sample 1e7] [--rounds 3]
//
// Single-key lookups of absent 8-byte keys in a block filter of n keys at 1%, in the loop a user
// writes (`found += contains(key)`), measured as a stack of loops each adding one layer of what
// contains() does, over the same filter memory and keys:
//
//   1. the memory floor: reads whose addresses are computed before the clock starts;
//   2. + hashing: the filter's hash as a program calls it (hasher: the default, xxh3_mum) and
//      the block's index (block_layout::locate), then one 8-byte read of the block — the least
//      any filter with this hash can do;
//   3. + the SIMD kernel, inlined: the whole lookup with nothing else, as a build for this CPU
//      could compile it if it knew the filter's hash and k (the layout's one-step test,
//      block_layout::test_step_avx512 where the CPU has AVX-512, else test_step_avx2);
//   4. + a call: the same, the kernel behind a function call, as code built for baseline x86-64
//      must reach a kernel compiled for a newer CPU's intrinsics;
//   5. contains(): the library's, which also reads the filter's hash algorithm, k and the SIMD
//      level in use, and chooses — in this baseline build, the AVX2 step as inline assembly
//      for k ≤ 8 (layouts/block.hpp), so it is layer 3's kernel without the target attribute.
//
// An out-of-order core overlaps consecutive lookups' misses only as far as its window of
// instructions reaches, so each layer's instructions cost time even though the loop is
// waiting for memory (docs/design/performance.md, "Why a single call costs its instructions").
// Rounds interleave the rows, so a drift of the machine's speed lands on all of them; each row
// is its median.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "measure.hpp"

namespace {

using bench::clock_type;
using bench::splitmix64;

/// What the hand-written layers need of the filter: its memory and block count, its hash
/// function and its layout (which holds the kernel's multipliers).
struct lookup_parts {
    const std::uint64_t* words;
    std::uint64_t blocks;
    bloomkit::hasher hash;
    bloomkit::block_layout layout;
};

/// Where a key lands, as the filter finds it: the filter's hash (the default, xxh3_mum), then
/// the block (multiply-high of the digest's high half) and the 32 bits that pick the key's bits
/// in it.
struct located {
    const std::uint64_t* block;
    std::uint32_t pattern;
};
[[gnu::always_inline]] inline located locate(const lookup_parts& p, std::uint64_t key) {
    const auto at = p.layout.locate(p.hash(key));
    return {p.words + at.block * 8, at.pattern};
}

[[gnu::noinline]] std::uint64_t floor_loop(const lookup_parts& p, const std::vector<std::uint64_t>& lines) {
    std::uint64_t sum = 0;
    for (const std::uint64_t line : lines) sum += p.words[line * 8] & 1;
    return sum;
}

[[gnu::noinline]] std::uint64_t hash_and_read(const lookup_parts& p, const std::vector<std::uint64_t>& keys) {
    std::uint64_t sum = 0;
    for (const std::uint64_t key : keys) {
        const located at = locate(p, key);
        sum += (at.block[0] >> (at.pattern & 63)) & 1;
    }
    return sum;
}

#ifdef BLOOMKIT_X86_SIMD
__attribute__((target("avx512f"), noinline)) std::uint64_t kernel_inlined_avx512(
    const lookup_parts& p, const std::vector<std::uint64_t>& keys) {
    std::uint64_t found = 0;
    for (const std::uint64_t key : keys) {
        const located at = locate(p, key);
        found += p.layout.test_step_avx512(at.block, at.pattern) ? 1 : 0;
    }
    return found;
}

__attribute__((target("avx2"), noinline)) std::uint64_t kernel_inlined_avx2(const lookup_parts& p,
                                                                            const std::vector<std::uint64_t>& keys) {
    std::uint64_t found = 0;
    for (const std::uint64_t key : keys) {
        const located at = locate(p, key);
        found += p.layout.test_step_avx2(at.block, at.pattern) ? 1 : 0;
    }
    return found;
}

/// The layout's step behind a call, as a loop built for baseline x86-64 reaches a kernel built
/// for a newer CPU: the compiler cannot inline it.
__attribute__((target("avx512f"), noinline)) bool step_called_avx512(const lookup_parts& p, located at) {
    return p.layout.test_step_avx512(at.block, at.pattern);
}
__attribute__((target("avx2"), noinline)) bool step_called_avx2(const lookup_parts& p, located at) {
    return p.layout.test_step_avx2(at.block, at.pattern);
}

/// Layer 4 in a baseline loop: the compiler cannot inline a kernel built for a newer CPU. The
/// parts are read through `p` on every key, as contains() reads its filter's fields: left to
/// itself the compiler keeps them in stack slots across the call, and reloading those after
/// every call slows this loop by an artefact no user's loop over contains() has
/// (docs/design/performance.md, "Artefacts of measurement").
template <bool Avx512>
[[gnu::noinline]] std::uint64_t kernel_called(const lookup_parts& p, const std::vector<std::uint64_t>& keys) {
    std::uint64_t found = 0;
    for (const std::uint64_t key : keys) {
        asm volatile("" : : "r"(&p) : "memory");
        const located at = locate(p, key);
        found += (Avx512 ? step_called_avx512(p, at) : step_called_avx2(p, at)) ? 1 : 0;
    }
    return found;
}
#endif

[[gnu::noinline]] std::uint64_t library_contains(const bloomkit::block_bloom_filter& filter,
                                                 const std::vector<std::uint64_t>& keys) {
    std::uint64_t found = 0;
    for (const std::uint64_t key : keys) found += filter.contains(key) ? 1 : 0;
    return found;
}

struct layer {
    std::string name;
    std::vector<double> ns;  // one per round
    std::uint64_t answer = 0;
};

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

struct settings {
    double n = 1e8, sample = 1e7;  // keys in the filter, lookups timed per layer and round
    int rounds = 3;
};

/// The command line; nothing when it is not understood (the usage has been printed).
std::optional<settings> parse_settings(int argc, char** argv) {
    settings s;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 < argc && arg == "--n") s.n = std::stod(argv[++i]);
        else if (i + 1 < argc && arg == "--sample") s.sample = std::stod(argv[++i]);
        else if (i + 1 < argc && arg == "--rounds") s.rounds = std::max(1, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: single_call_anatomy [--n 1e8] [--sample 1e7] [--rounds 3]\n");
            return std::nullopt;
        }
    }
    return s;
}

/// A block filter of `keys_held` keys at 1%: the even-numbered keys of the stream, inserted a
/// chunk at a time (the odd ones are the absent keys looked up).
bloomkit::block_bloom_filter filled_filter(std::uint64_t keys_held) {
    bloomkit::block_bloom_filter filter(keys_held, 0.01);
    std::vector<std::uint64_t> chunk(1 << 20);
    for (std::uint64_t done = 0; done < keys_held; done += chunk.size()) {
        chunk.resize(std::min<std::uint64_t>(chunk.size(), keys_held - done));
        for (std::uint64_t i = 0; i < chunk.size(); ++i) chunk[i] = splitmix64(2 * (done + i));
        filter.insert(chunk.begin(), chunk.end());
    }
    return filter;
}

/// The layers this CPU can run: without SIMD there is no kernel to inline or call.
std::vector<layer> layers_for(bloomkit::simd_level level) {
    const bool avx512 = level == bloomkit::simd_level::avx512;
    std::vector<layer> layers = {{"1. memory floor: the reads alone", {}, 0},
                                 {"2. + hash and block index, one 8-byte read", {}, 0},
                                 {avx512 ? "3. + the AVX-512 kernel, inlined" : "3. + the AVX2 kernel, inlined", {}, 0},
                                 {"4. + a call to the kernel", {}, 0},
                                 {"5. contains(), as the library is built", {}, 0}};
    if (level == bloomkit::simd_level::scalar) layers.erase(layers.begin() + 2, layers.begin() + 4);
    return layers;
}

/// Runs one layer's loop over a chunk; returns how many keys it found. The layer is named by
/// the digit its name starts with.
std::uint64_t run_layer(const layer& l, const lookup_parts& parts, const bloomkit::block_bloom_filter& filter,
                        const std::vector<std::uint64_t>& keys, const std::vector<std::uint64_t>& lines, bool avx512) {
    if (l.name[0] == '1') return floor_loop(parts, lines);
    if (l.name[0] == '2') return hash_and_read(parts, keys);
#ifdef BLOOMKIT_X86_SIMD
    if (l.name[0] == '3') return avx512 ? kernel_inlined_avx512(parts, keys) : kernel_inlined_avx2(parts, keys);
    if (l.name[0] == '4') return avx512 ? kernel_called<true>(parts, keys) : kernel_called<false>(parts, keys);
#endif
    (void)avx512;
    return library_contains(filter, keys);
}

/// Times every layer `rounds` times, the layers interleaved within a round so that a drift of
/// the machine's speed lands on all of them. Keys (never inserted) and the floor's lines come a
/// chunk at a time, made just before the chunk is timed, as in bloomkit_bench: a 10M-entry
/// array streamed from memory alongside the lookups would slow every row
/// (docs/design/performance.md, "Artefacts of measurement").
void time_layers(std::vector<layer>& layers, const lookup_parts& parts, const bloomkit::block_bloom_filter& filter,
                 std::uint64_t lookups, int rounds, bool avx512) {
    std::vector<std::uint64_t> keys(1 << 20), lines(keys.size());
    for (int round = 0; round < rounds; ++round) {
        for (layer& l : layers) {
            double ns = 0;
            l.answer = 0;
            for (std::uint64_t done = 0; done < lookups; done += keys.size()) {
                keys.resize(std::min<std::uint64_t>(keys.size(), lookups - done));
                lines.resize(keys.size());
                for (std::size_t i = 0; i < keys.size(); ++i) {
                    keys[i] = splitmix64(2 * (done + i) + 1);
                    lines[i] = splitmix64((done + i) ^ 0x5eed) % parts.blocks;
                }
                const auto start = clock_type::now();
                l.answer += run_layer(l, parts, filter, keys, lines, avx512);
                ns += bench::nanoseconds_since(start);
            }
            l.ns.push_back(ns / static_cast<double>(lookups));
        }
    }
}

/// Layers 3 to 5 answer the same question and must agree: a fast layer that answers wrongly
/// would measure nothing.
bool layers_agree(const std::vector<layer>& layers) {
    for (const layer& l : layers)
        if (l.name[0] >= '3' && l.answer != layers.back().answer) {
            std::fprintf(stderr, "single_call_anatomy: WRONG ANSWER: '%s' disagrees with contains()\n", l.name.c_str());
            return false;
        }
    return true;
}

void print_layers(const std::vector<layer>& layers, const settings& s, const bloomkit::block_bloom_filter& filter,
                  std::uint64_t lookups, bloomkit::simd_level level) {
    const double floor_ns = median(layers[0].ns);
    std::printf(
        "Single lookups of absent 8-byte keys, block filter of %.0fM keys at 1%% (k = %u, %.0f MB, %.0f MB of the "
        "process on 2 MiB pages), "
        "%zu lookups, median of %d rounds, SIMD level %s:\n\n",
        s.n / 1e6, filter.hash_count(), static_cast<double>(filter.size_in_bytes()) / 1e6,
        static_cast<double>(bench::huge_page_bytes()) / 1e6, static_cast<std::size_t>(lookups), s.rounds,
        std::string(to_string(level)).c_str());
    std::printf("| layer | ns/lookup | vs floor | added by the layer |\n|---|---:|---:|---:|\n");
    double previous = 0;
    for (const layer& l : layers) {
        const double ns = median(l.ns);
        std::printf("| %s | %.2f | %.2fx | %+.2f |\n", l.name.c_str(), ns, ns / floor_ns,
                    previous == 0 ? 0.0 : ns - previous);
        previous = ns;
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::optional<settings> s = parse_settings(argc, argv);
    if (!s) return 2;
    const bloomkit::block_bloom_filter filter = filled_filter(static_cast<std::uint64_t>(s->n));
    const auto lookups = static_cast<std::uint64_t>(s->sample);
    const bloomkit::block_layout layout(filter.geometry());
    const lookup_parts parts{filter.words().data(), filter.size_in_bytes() / 64, filter.hash_function(), layout};
    if (bloomkit::integer_hashing_of(filter.hash_function().algorithm()) != bloomkit::hash_algorithm::xxh3_mum ||
        filter.hash_count() > 8) {
        std::fprintf(stderr, "single_call_anatomy: expects the default hash and k <= 8\n");
        return 1;
    }

    const bloomkit::simd_level level = bloomkit::active_simd_level();
    std::vector<layer> layers = layers_for(level);
    time_layers(layers, parts, filter, lookups, s->rounds, level == bloomkit::simd_level::avx512);
    if (!layers_agree(layers)) return 1;
    print_layers(layers, *s, filter, lookups, level);
    return 0;
}
