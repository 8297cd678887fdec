// peer_bench — bloomkit beside the libraries its speed is judged against, Boost.Bloom and
// fastfilter_cpp, in one program, on the same keys, in one run. Prints one Markdown table
// (docs/BENCHMARKS.md, "Against the peers").
//
//   peer_bench [--int 1e7,1e8] [--url 1e7] [--sample 1e7] [--rounds 3]
//              [--only block,boost,split-block,fastfilter-block,fuse8,fastfilter-fuse8]
//
// The pairs: bloomkit's block filter and Boost's filter<std::uint64_t, 1, fast_multiblock64<8>>
// (512-bit blocks, 8 probes, one cache line a key); bloomkit's split block and fastfilter's
// SimdBlockFilterFixed (256-bit buckets, one bit in each 32-bit word); bloomkit's
// binary_fuse8_filter and fastfilter's BinaryFuse8 single header. Bloom filters are sized for
// 1% by their own libraries, fuse filters have their natural 2^-8. --int lists the sizes of the
// random 64-bit key sets, --url those of the ~60-byte URL-like ones (block and Boost only:
// fastfilter takes keys already hashed); 0 skips either.
//
// What makes the comparison fair:
//  - every structure gets the same keys in the same order (workload.hpp's streams);
//  - every structure's memory is mapped as bloomkit maps its own (mmap + MADV_HUGEPAGE: 2 MiB
//    pages where the system gives them): Boost's through its allocator parameter, fastfilter's
//    by sending the malloc, calloc, posix_memalign and free of its headers to that mapping.
//    Each row says how much of the structure is on 2 MiB pages: with the peers on 4 KiB pages
//    a 100M-key comparison measures the TLB, not the filters;
//  - inserts go into a new, empty filter whose pages are already touched (Boost and fastfilter
//    zero their arrays in their constructors; bloomkit's comes zeroed from mmap and is cleared
//    once), so no row pays the first touch of its memory;
//  - single calls are timed in the plain loop a user writes, each library's loop in a function
//    of its own; lookups a chunk of keys at a time, as bloomkit_bench times them;
//  - bulk inserts and builds get all n keys in one call, as a bulk API is meant to be called:
//    fastfilter's AddAll partitions the whole batch, and a call per chunk would charge it its
//    staging buffer over and over;
//  - the memory floor of each structure (random 64-byte reads over a buffer of its size, on
//    the same pages) is measured between its lookups, in the same run;
//  - each build starts on memory the system has just had in use: before it, untimed, as many
//    bytes as a build needs are mapped, touched and unmapped (warm_memory_for_build). A VM
//    whose balloon reports freed memory to its host (virtio-balloon free page reporting, on in
//    the EPYC VMs) gives back what was freed seconds before, and touching it again is slow:
//    without the warm-up, whichever build came first after the Bloom filters' rounds paid ~40
//    ns a key more at 100M keys, and the one after it reused the first's memory
//    (docs/BENCHMARKS.md, "EPYC Zen 5");
//  - rounds interleave the structures, so a drift of the machine's speed lands on all of them;
//    every figure is the median of the rounds.
// Every answer is checked before a time is reported: every inserted key found, bulk and single
// lookups agreeing, and bulk and single inserts building the same filter where a library can
// compare two filters.

// The peers' headers use names they do not include, and need their C library headers seen
// before the allocation macros below.
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef __x86_64__
#include <x86intrin.h>
#endif

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <hashutil.h>
#include <boost/bloom.hpp>

#include "bloomkit/bloomkit.hpp"
#include "comma_list.hpp"
#include "measure.hpp"
#include "workload.hpp"

/// The C allocations of fastfilter's headers, mapped as bloomkit maps its arrays and the
/// temporaries of its fuse build (os/huge_pages.hpp) from one huge page on, and taken from
/// the C library below that.
namespace peer_memory {

inline std::map<void*, std::size_t> mapped;  // what free() must unmap, by address
inline void* last_mapped = nullptr;          // the array of the filter just constructed

inline void* map(std::size_t bytes) noexcept {
    try {
        void* p = bloomkit::os::map_huge_pages(bytes);
        mapped.emplace(p, bytes);
        last_mapped = p;
        return p;
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}

inline void* allocate(std::size_t bytes) noexcept {
    return bytes >= bloomkit::os::huge_page_bytes ? map(bytes) : std::malloc(bytes);
}

inline void* allocate_zeroed(std::size_t count, std::size_t size) noexcept {
    if (size != 0 && count > SIZE_MAX / size) return nullptr;
    // Mapped pages come zeroed, as glibc's calloc relies on for its own mapped chunks.
    return count * size >= bloomkit::os::huge_page_bytes ? map(count * size) : std::calloc(count, size);
}

inline int allocate_aligned(void** out, std::size_t alignment, std::size_t bytes) noexcept {
    if (bytes < bloomkit::os::huge_page_bytes) return ::posix_memalign(out, alignment, bytes);
    *out = map(bytes);  // page-aligned, more than any alignment asked for here
    return *out != nullptr ? 0 : ENOMEM;
}

inline void release(void* p) noexcept {
    const auto at = mapped.find(p);
    if (at == mapped.end()) return std::free(p);
    bloomkit::os::unmap_huge_pages(p, at->second);
    mapped.erase(at);
}

}  // namespace peer_memory

using std::vector;  // fastfilter's headers name it unqualified
#define malloc(bytes) peer_memory::allocate(bytes)
#define calloc(count, size) peer_memory::allocate_zeroed(count, size)
#define posix_memalign(out, alignment, bytes) peer_memory::allocate_aligned(out, alignment, bytes)
#define free(p) peer_memory::release(p)
#include <bloom/simd-block-fixed-fpp.h>
#include <xorfilter/binaryfusefilter_singleheader.h>
#undef malloc
#undef calloc
#undef posix_memalign
#undef free

#ifndef BLOOMKIT_PEER_FLAGS
#define BLOOMKIT_PEER_FLAGS "(unknown)"
#endif

namespace {

using bench::chunk_keys;
using bench::clock_type;
using bench::count_found;
using bench::keep;
using bench::key_set;
using bench::make_chunk;
using bench::make_mixed_chunk;
using bench::timed_over_chunks;

[[noreturn]] void wrong(const std::string& what) {
    std::fprintf(stderr, "peer_bench: WRONG ANSWER: %s\n", what.c_str());
    std::exit(1);
}

// --- Memory --------------------------------------------------------------------------------

/// Bytes of [data, data + bytes) on 2 MiB pages, page by page: one 4 KiB page of each aligned
/// 2 MiB is looked up in /proc/self/pagemap (its frame) and /proc/kpageflags (whether that frame
/// is part of a transparent huge page). Per structure, where the process's AnonHugePages would
/// count its neighbours too (adjacent mappings merge). Nothing where the kernel does not tell
/// (the frames need root).
std::optional<std::uint64_t> huge_bytes_of(const void* data, std::uint64_t bytes) {
    constexpr std::uint64_t huge = std::uint64_t{1} << 21, small = 4096, thp_flag = std::uint64_t{1} << 22;
    if (data == nullptr) return 0;  // an array too small to be mapped
    const int pagemap = ::open("/proc/self/pagemap", O_RDONLY), frames = ::open("/proc/kpageflags", O_RDONLY);
    std::optional<std::uint64_t> total;
    if (pagemap >= 0 && frames >= 0) {
        const auto begin = reinterpret_cast<std::uintptr_t>(data);
        total = 0;
        for (std::uintptr_t at = (begin + huge - 1) / huge * huge; at + huge <= begin + bytes; at += huge) {
            std::uint64_t entry = 0, flags = 0;
            if (::pread(pagemap, &entry, sizeof entry, static_cast<off_t>(at / small * sizeof entry)) != sizeof entry) {
                total.reset();
                break;
            }
            if ((entry >> 63) == 0) continue;  // not in memory
            const std::uint64_t frame = entry & ((std::uint64_t{1} << 55) - 1);
            if (frame == 0 ||
                ::pread(frames, &flags, sizeof flags, static_cast<off_t>(frame * sizeof flags)) != sizeof flags) {
                total.reset();
                break;
            }
            if (flags & thp_flag) *total += huge;
        }
    }
    if (pagemap >= 0) ::close(pagemap);
    if (frames >= 0) ::close(frames);
    return total;
}

/// A std::allocator for Boost's filter: bloomkit's own, so both arrays are mapped alike.
using boost_allocator = bloomkit::os::huge_page_allocator<unsigned char>;

// --- The structures ------------------------------------------------------------------------

enum class operation { insert, bulk_insert, build, lookup, bulk_lookup };
constexpr std::array all_operations = {operation::insert, operation::bulk_insert, operation::build, operation::lookup,
                                       operation::bulk_lookup};

const char* name_of(operation op) {
    switch (op) {
        case operation::insert: return "insert";
        case operation::bulk_insert: return "insert (bulk)";
        case operation::build: return "build";
        case operation::lookup: return "lookup";
        case operation::bulk_lookup: return "lookup (bulk)";
    }
    return "?";
}

/// The loop a user writes over single inserts, in a function of its own (as bench::count_found
/// for lookups).
template <class Key, class Insert>
[[gnu::noinline]] void insert_each(const Insert& insert, const std::vector<Key>& keys) {
    for (const Key& key : keys) insert(key);
}

/// One library's filter, as the bench drives it: a virtual call per chunk of keys or per whole
/// key set, never per key (each per-key loop is a direct, inlined call).
template <class Key>
class contender {
public:
    /// `group`: the structures a peer is compared with ("bloom" or "fuse").
    contender(std::string name, std::string group, bool peer)
        : name_(std::move(name)), group_(std::move(group)), peer_(peer) {}
    virtual ~contender() = default;
    contender(const contender&) = delete;
    contender& operator=(const contender&) = delete;

    [[nodiscard]] const std::string& name() const { return name_; }
    [[nodiscard]] const std::string& group() const { return group_; }
    [[nodiscard]] bool peer() const { return peer_; }

    [[nodiscard]] virtual bool has(operation op) const = 0;
    /// Untimed, before an insert or a build: a dynamic filter is replaced by a new, empty one with
    /// its pages touched (the one it replaces kept until drop_previous()); a static one dropped.
    virtual void prepare() = 0;
    virtual void insert(const std::vector<Key>& chunk) = 0;
    virtual void insert_bulk(const std::vector<Key>& keys) = 0;
    virtual void build(const std::vector<Key>& keys) = 0;
    /// How many keys of `chunk` the filter answers "maybe" for, by single calls.
    [[nodiscard]] virtual std::uint64_t lookup(const std::vector<Key>& chunk) const = 0;
    /// The bulk call's answers for `chunk`, one byte each.
    virtual void lookup_bulk(const std::vector<Key>& chunk, std::uint8_t* answers) const = 0;
    /// Whether the filter equals the one prepare() replaced; nothing where the library cannot
    /// compare two filters.
    [[nodiscard]] virtual std::optional<bool> same_as_previous() const { return std::nullopt; }
    virtual void drop_previous() {}
    [[nodiscard]] virtual std::uint64_t bytes() const = 0;
    [[nodiscard]] virtual const void* memory() const = 0;

private:
    std::string name_, group_;
    bool peer_;
};

/// bloomkit's block or split-block filter.
template <class Filter, class Key>
class bloomkit_bloom final : public contender<Key> {
public:
    bloomkit_bloom(std::string name, std::uint64_t n, double fpr)
        : contender<Key>(std::move(name), "bloom", false), n_(n), fpr_(fpr) {}

    bool has(operation op) const override { return op != operation::build; }
    void prepare() override {
        previous_ = std::move(filter_);
        filter_ = std::make_unique<Filter>(n_, fpr_);
        filter_->clear();
    }
    void insert(const std::vector<Key>& chunk) override {
        Filter& f = *filter_;
        insert_each<Key>([&f](const Key& key) { f.insert(key); }, chunk);
    }
    void insert_bulk(const std::vector<Key>& keys) override { filter_->insert(keys.begin(), keys.end()); }
    void build(const std::vector<Key>&) override {}
    std::uint64_t lookup(const std::vector<Key>& chunk) const override {
        const Filter& f = *filter_;
        return count_found<Key>([&f](const Key& key) { return f.contains(key); }, chunk);
    }
    void lookup_bulk(const std::vector<Key>& chunk, std::uint8_t* answers) const override {
        filter_->contains(chunk.begin(), chunk.end(), answers);
    }
    std::optional<bool> same_as_previous() const override { return previous_ && *previous_ == *filter_; }
    void drop_previous() override { previous_.reset(); }
    std::uint64_t bytes() const override { return filter_->size_in_bytes(); }
    const void* memory() const override { return filter_->words().data(); }

private:
    std::uint64_t n_;
    double fpr_;
    std::unique_ptr<Filter> filter_, previous_;
};

/// Boost.Bloom's filter<Key, 1, fast_multiblock64<8>>, sized by Boost for (n, fpr).
template <class Key>
class boost_bloom final : public contender<Key> {
    using filter_type =
        boost::bloom::filter<Key, 1, boost::bloom::fast_multiblock64<8>, 0, boost::hash<Key>, boost_allocator>;

public:
    boost_bloom(std::uint64_t n, double fpr)
        : contender<Key>("Boost fast_multiblock64<8>", "bloom", true), n_(n), fpr_(fpr) {}

    bool has(operation op) const override { return op != operation::build; }
    void prepare() override {
        previous_ = std::move(filter_);
        filter_ = std::make_unique<filter_type>(n_, fpr_);
    }
    void insert(const std::vector<Key>& chunk) override {
        filter_type& f = *filter_;
        insert_each<Key>([&f](const Key& key) { f.insert(key); }, chunk);
    }
    void insert_bulk(const std::vector<Key>& keys) override { filter_->insert(keys.begin(), keys.end()); }
    void build(const std::vector<Key>&) override {}
    std::uint64_t lookup(const std::vector<Key>& chunk) const override {
        const filter_type& f = *filter_;
        return count_found<Key>([&f](const Key& key) { return f.may_contain(key); }, chunk);
    }
    void lookup_bulk(const std::vector<Key>& chunk, std::uint8_t* answers) const override {
        filter_->may_contain(chunk.begin(), chunk.end(), [&answers](const Key&, bool found) { *answers++ = found; });
    }
    std::optional<bool> same_as_previous() const override { return previous_ && *previous_ == *filter_; }
    void drop_previous() override { previous_.reset(); }
    std::uint64_t bytes() const override { return filter_->capacity() / CHAR_BIT; }
    const void* memory() const override { return filter_->array().data(); }

private:
    std::uint64_t n_;
    double fpr_;
    std::unique_ptr<filter_type> filter_, previous_;
};

#ifdef __AVX2__
/// fastfilter's SimdBlockFilterFixed: its constructor's argument is the number of keys (it
/// makes n/24 buckets of 256 bits, ~10.7 bits a key, for its 1%). Its hash is seeded at random
/// per filter, so two filters cannot be compared.
class fastfilter_block final : public contender<std::uint64_t> {
    using filter_type = SimdBlockFilterFixed<>;

public:
    explicit fastfilter_block(std::uint64_t n)
        : contender<std::uint64_t>("fastfilter SimdBlockFilterFixed", "bloom", true), n_(n) {}

    bool has(operation op) const override { return op != operation::build && op != operation::bulk_lookup; }
    void prepare() override {
        filter_.reset();
        peer_memory::last_mapped = nullptr;
        filter_ = std::make_unique<filter_type>(static_cast<int>(n_));
        memory_ = peer_memory::last_mapped;  // nothing where the array is too small to be mapped
    }
    void insert(const std::vector<std::uint64_t>& chunk) override {
        filter_type& f = *filter_;
        insert_each<std::uint64_t>([&f](std::uint64_t key) { f.Add(key); }, chunk);
    }
    void insert_bulk(const std::vector<std::uint64_t>& keys) override { filter_->AddAll(keys.data(), 0, keys.size()); }
    void build(const std::vector<std::uint64_t>&) override {}
    std::uint64_t lookup(const std::vector<std::uint64_t>& chunk) const override {
        const filter_type& f = *filter_;
        return count_found<std::uint64_t>([&f](std::uint64_t key) { return f.Find(key); }, chunk);
    }
    void lookup_bulk(const std::vector<std::uint64_t>&, std::uint8_t*) const override {}
    std::uint64_t bytes() const override { return filter_->SizeInBytes(); }
    const void* memory() const override { return memory_; }

private:
    std::uint64_t n_;
    std::unique_ptr<filter_type> filter_;
    const void* memory_ = nullptr;
};
#endif

/// bloomkit's binary_fuse8_filter, built from all keys at once.
template <class Key>
class bloomkit_fuse final : public contender<Key> {
public:
    bloomkit_fuse() : contender<Key>("bloomkit fuse8", "fuse", false) {}

    bool has(operation op) const override {
        return op == operation::build || op == operation::lookup || op == operation::bulk_lookup;
    }
    void prepare() override { filter_.reset(); }
    void insert(const std::vector<Key>&) override {}
    void insert_bulk(const std::vector<Key>&) override {}
    void build(const std::vector<Key>& keys) override {
        filter_ = std::make_unique<bloomkit::binary_fuse8_filter>(keys);
    }
    std::uint64_t lookup(const std::vector<Key>& chunk) const override {
        const bloomkit::binary_fuse8_filter& f = *filter_;
        return count_found<Key>([&f](const Key& key) { return f.contains(key); }, chunk);
    }
    void lookup_bulk(const std::vector<Key>& chunk, std::uint8_t* answers) const override {
        filter_->contains(chunk.begin(), chunk.end(), answers);
    }
    std::uint64_t bytes() const override { return filter_->size_in_bytes(); }
    const void* memory() const override { return filter_->fingerprints().data(); }

private:
    std::unique_ptr<bloomkit::binary_fuse8_filter> filter_;
};

/// fastfilter's BinaryFuse8 single header (binary_fuse8_allocate, _populate, _contain), timed
/// from the allocation on, as bloomkit's constructor allocates its array too.
class fastfilter_fuse final : public contender<std::uint64_t> {
public:
    fastfilter_fuse() : contender<std::uint64_t>("fastfilter BinaryFuse8", "fuse", true) {}
    ~fastfilter_fuse() override { prepare(); }

    bool has(operation op) const override { return op == operation::build || op == operation::lookup; }
    void prepare() override {
        if (built_) binary_fuse8_free(&filter_);
        built_ = false;
    }
    void insert(const std::vector<std::uint64_t>&) override {}
    void insert_bulk(const std::vector<std::uint64_t>&) override {}
    /// populate() sorts its input only if it holds duplicates, which these keys never do.
    void build(const std::vector<std::uint64_t>& keys) override {
        const auto size = static_cast<std::uint32_t>(keys.size());
        built_ = binary_fuse8_allocate(size, &filter_);
        if (!built_ || !binary_fuse8_populate(const_cast<std::uint64_t*>(keys.data()), size, &filter_))
            wrong("fastfilter BinaryFuse8: construction failed");
    }
    std::uint64_t lookup(const std::vector<std::uint64_t>& chunk) const override {
        const binary_fuse8_t* f = &filter_;
        return count_found<std::uint64_t>([f](std::uint64_t key) { return binary_fuse8_contain(key, f); }, chunk);
    }
    void lookup_bulk(const std::vector<std::uint64_t>&, std::uint8_t*) const override {}
    std::uint64_t bytes() const override { return filter_.ArrayLength; }
    const void* memory() const override { return filter_.Fingerprints; }

private:
    binary_fuse8_t filter_{};
    bool built_ = false;
};

// --- Measurement ---------------------------------------------------------------------------

struct workload {
    std::uint64_t n, sample;
    int rounds;
};

struct row {
    std::string keys, structure, group, operation;
    bool peer;
    double ns, floor_ns, bits_per_key, fpr;
    std::uint64_t bytes;
    std::optional<std::uint64_t> huge;
    std::optional<double> build_memory;  // the peak of a build (its last round), bytes per key
    std::string best_peer;               // filled in by compare_with_peers()
    double vs_best_peer = 0;
};

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

/// ns per key of one call over all `count` keys.
template <class Op>
double timed_once(std::uint64_t count, Op op) {
    const auto start = clock_type::now();
    op();
    return bench::nanoseconds_since(start) / static_cast<double>(count);
}

std::string load_average() {
    std::ifstream loadavg("/proc/loadavg");
    std::string one, five, fifteen;
    loadavg >> one >> five >> fifteen;
    return one + " " + five + " " + fifteen;
}

/// A field of /proc/self/status in bytes ("VmRSS", "VmHWM").
std::uint64_t status_bytes(const std::string& field) {
    std::ifstream status("/proc/self/status");
    std::string name;
    std::uint64_t kilobytes = 0;
    while (status >> name) {
        if (name == field + ":" && status >> kilobytes) return kilobytes * 1024;
        status.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    return 0;
}

/// The most memory `op` had the process hold beyond what it held before, in bytes: the peak
/// resident size is reset first (clear_refs 5, Linux 4.0 on), so each build is measured alone.
/// Its temporaries and the structure it leaves both count; the keys it is given do not.
template <class Op>
std::optional<std::uint64_t> peak_memory_of(Op op) {
    const std::uint64_t before = status_bytes("VmRSS");
    const bool reset = static_cast<bool>(std::ofstream("/proc/self/clear_refs") << "5");
    op();
    const std::uint64_t peak = status_bytes("VmHWM");
    if (!reset || peak < before) return std::nullopt;
    return peak - before;
}

std::optional<double> per_key(std::optional<std::uint64_t> bytes, std::uint64_t keys) {
    if (!bytes) return std::nullopt;
    return static_cast<double>(*bytes) / static_cast<double>(keys);
}

/// Bytes a key that a build is given warm (warm_memory_for_build): more than either library's
/// temporaries and array (~19 and ~22 bytes a key).
constexpr std::uint64_t build_bytes_per_key = 24;

/// Maps, touches and unmaps `bytes`, so that the build after it finds memory the system has
/// just had in use (see "What makes the comparison fair" above).
void warm_memory_for_build(std::uint64_t bytes) {
    if (bytes < bloomkit::os::huge_page_bytes) return;
    const auto size = static_cast<std::size_t>(bytes);
    void* p = bloomkit::os::map_huge_pages(size);
    std::memset(p, 1, size);
    bloomkit::os::unmap_huge_pages(p, size);
}

/// Times every operation of every contender `w.rounds` times, the contenders interleaved within
/// a round; returns one row per contender and operation, with its median.
template <class Key>
std::vector<row> measure(const workload& w, std::vector<std::unique_ptr<contender<Key>>>& contenders) {
    using times = std::map<operation, std::vector<double>>;
    std::vector<times> timed(contenders.size());
    std::vector<std::vector<double>> floors(contenders.size());
    std::vector<std::optional<std::uint64_t>> build_memory(contenders.size());
    const std::vector<Key> keys = make_chunk<Key>(key_set::present, 0, w.n);
    const auto inserted = [&](std::uint64_t first, std::uint64_t count) {
        return std::vector<Key>(keys.begin() + static_cast<std::ptrdiff_t>(first),
                                keys.begin() + static_cast<std::ptrdiff_t>(first + count));
    };
    const auto mixed = [&](std::uint64_t first, std::uint64_t count) {
        return make_mixed_chunk<Key>(w.n, first, count);
    };

    for (int round = 0; round < w.rounds; ++round) {
        std::fprintf(stderr, "peer_bench: inserts and builds, round %d, load %s\n", round + 1, load_average().c_str());
        for (std::size_t i = 0; i < contenders.size(); ++i) {
            contender<Key>& c = *contenders[i];
            if (c.has(operation::insert)) {
                c.prepare();
                timed[i][operation::insert].push_back(
                    timed_over_chunks<Key>(w.n, inserted, [&](const std::vector<Key>& chunk) { c.insert(chunk); }));
            }
            if (c.has(operation::bulk_insert)) {
                c.prepare();
                timed[i][operation::bulk_insert].push_back(timed_once(w.n, [&] { c.insert_bulk(keys); }));
                if (c.same_as_previous() == false)
                    wrong(c.name() + ": bulk and single inserts built different filters");
                c.drop_previous();
            }
            if (c.has(operation::build)) {
                c.prepare();
                warm_memory_for_build(build_bytes_per_key * w.n);
                build_memory[i] = peak_memory_of(
                    [&] { timed[i][operation::build].push_back(timed_once(w.n, [&] { c.build(keys); })); });
            }
        }
    }

    // Every inserted key must be found, bulk and single lookups must agree, and every round must
    // see the same answers.
    std::vector<std::uint8_t> answers(chunk_keys);
    const auto count_bulk = [&](const contender<Key>& c, const std::vector<Key>& chunk) {
        c.lookup_bulk(chunk, answers.data());
        std::uint64_t found = 0;
        for (std::size_t k = 0; k < chunk.size(); ++k) found += answers[k];
        return found;
    };
    for (const auto& c : contenders) {
        std::uint64_t found = 0;
        for (std::uint64_t first = 0; first < w.n; first += chunk_keys) {
            const std::vector<Key> chunk = inserted(first, std::min(chunk_keys, w.n - first));
            found += c->has(operation::bulk_lookup) ? count_bulk(*c, chunk) : c->lookup(chunk);
        }
        if (found != w.n) wrong(c->name() + ": an inserted key was not found");
    }
    std::vector<std::optional<std::uint64_t>> mixed_found(contenders.size());
    for (int round = 0; round < w.rounds; ++round) {
        std::fprintf(stderr, "peer_bench: lookups, round %d, load %s\n", round + 1, load_average().c_str());
        for (std::size_t i = 0; i < contenders.size(); ++i) {
            const contender<Key>& c = *contenders[i];
            double huge = 0;
            floors[i].push_back(bench::memory_floor_ns(c.bytes(), w.sample, huge));
            std::uint64_t found = 0;
            timed[i][operation::lookup].push_back(timed_over_chunks<Key>(w.sample, mixed, [&](const auto& chunk) {
                found += c.lookup(chunk);
                keep(found);
            }));
            if (mixed_found[i].value_or(found) != found) wrong(c.name() + ": lookups changed between rounds");
            mixed_found[i] = found;
            if (!c.has(operation::bulk_lookup)) continue;
            std::uint64_t bulk_found = 0;
            timed[i][operation::bulk_lookup].push_back(timed_over_chunks<Key>(w.sample, mixed, [&](const auto& chunk) {
                bulk_found += count_bulk(c, chunk);
                keep(bulk_found);
            }));
            if (bulk_found != found) wrong(c.name() + ": bulk and single lookups disagree");
        }
    }

    std::vector<row> rows;
    const std::uint64_t absent_keys = std::max<std::uint64_t>(w.sample, 1'000'000);
    for (std::size_t i = 0; i < contenders.size(); ++i) {
        const contender<Key>& c = *contenders[i];
        std::uint64_t false_positives = 0;
        for (std::uint64_t first = 0; first < absent_keys; first += chunk_keys)
            false_positives +=
                c.lookup(make_chunk<Key>(key_set::absent, first, std::min(chunk_keys, absent_keys - first)));
        const double fpr = static_cast<double>(false_positives) / static_cast<double>(absent_keys);
        const double bits_per_key = 8.0 * static_cast<double>(c.bytes()) / static_cast<double>(w.n);
        const std::optional<std::uint64_t> huge = huge_bytes_of(c.memory(), c.bytes());
        for (const operation op : all_operations)
            if (c.has(op))
                rows.push_back({"", c.name(), c.group(), name_of(op), c.peer(), median(timed[i][op]), median(floors[i]),
                                bits_per_key, fpr, c.bytes(), huge,
                                op == operation::build ? per_key(build_memory[i], w.n) : std::nullopt, "", 0});
    }
    return rows;
}

/// Each row against the fastest peer of its group doing the same operation on the same keys.
void compare_with_peers(std::vector<row>& rows) {
    for (row& r : rows) {
        const row* best = nullptr;
        for (const row& p : rows)
            if (p.peer && p.keys == r.keys && p.group == r.group && p.operation == r.operation &&
                (!best || p.ns < best->ns))
                best = &p;
        if (best) {
            r.best_peer = best->structure.substr(0, best->structure.find(' '));
            r.vs_best_peer = r.ns / best->ns;
        }
    }
}

// --- The run -------------------------------------------------------------------------------

struct settings {
    std::vector<double> int_sizes = {1e7, 1e8}, url_sizes = {1e7};
    double sample = 1e7;
    int rounds = 3;
    std::vector<std::string> only;

    [[nodiscard]] bool measures(const std::string& name) const {
        return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
    }
};

template <class Key>
std::vector<std::unique_ptr<contender<Key>>> contenders_for(const settings& s, std::uint64_t n) {
    constexpr double fpr = 0.01;
    std::vector<std::unique_ptr<contender<Key>>> all;
    if (s.measures("block"))
        all.push_back(std::make_unique<bloomkit_bloom<bloomkit::block_bloom_filter, Key>>("bloomkit block", n, fpr));
    if (s.measures("boost")) all.push_back(std::make_unique<boost_bloom<Key>>(n, fpr));
    if constexpr (std::is_same_v<Key, std::uint64_t>) {
        if (s.measures("split-block"))
            all.push_back(std::make_unique<bloomkit_bloom<bloomkit::split_block_bloom_filter, Key>>(
                "bloomkit split-block", n, fpr));
#ifdef __AVX2__
        if (s.measures("fastfilter-block")) all.push_back(std::make_unique<fastfilter_block>(n));
#endif
        if (s.measures("fuse8")) all.push_back(std::make_unique<bloomkit_fuse<Key>>());
        if (s.measures("fastfilter-fuse8")) all.push_back(std::make_unique<fastfilter_fuse>());
    }
    return all;
}

std::string megabytes(std::uint64_t bytes) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f", static_cast<double>(bytes) / 1e6);
    return buffer;
}

/// One table for the whole run, a row per key set, structure and operation.
void print_table(const std::vector<row>& rows) {
    std::printf(
        "| keys | structure | operation | ns/key | floor (ns) | vs floor | vs best peer | bits/key | measured FPR | on "
        "2 MiB pages | build's peak memory (bytes/key) |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const row& r : rows) {
        char vs_peer[48] = "—", fpr[32], huge[48] = "?", build_memory[32] = "—";
        if (!r.best_peer.empty())
            std::snprintf(vs_peer, sizeof vs_peer, "%.2fx (%s)", r.vs_best_peer, r.best_peer.c_str());
        std::snprintf(fpr, sizeof fpr, "%.4f%%", 100 * r.fpr);
        if (r.huge)
            std::snprintf(huge, sizeof huge, "%s of %s MB", megabytes(*r.huge).c_str(), megabytes(r.bytes).c_str());
        if (r.build_memory) std::snprintf(build_memory, sizeof build_memory, "%.1f", *r.build_memory);
        std::printf("| %s | %s | %s | %.2f | %.2f | %.2fx | %s | %.2f | %s | %s | %s |\n", r.keys.c_str(),
                    r.structure.c_str(), r.operation.c_str(), r.ns, r.floor_ns, r.ns / r.floor_ns, vs_peer,
                    r.bits_per_key, fpr, huge, build_memory);
    }
}

/// Measures one key set; appends its rows, and its load averages (before, after) to `loads`.
template <class Key>
void run(const settings& s, std::uint64_t n, bool url, std::vector<row>& rows, std::string& loads) {
    const workload w{n, static_cast<std::uint64_t>(s.sample), s.rounds};
    char keys[48];
    std::snprintf(keys, sizeof keys, "%gM %s", static_cast<double>(n) / 1e6, url ? "URL" : "int");
    std::fprintf(stderr, "peer_bench: %s keys ...\n", keys);
    const std::string before = load_average();
    auto contenders = contenders_for<Key>(s, n);
    if (contenders.empty()) return;
    std::vector<row> measured = measure<Key>(w, contenders);
    for (row& r : measured) r.keys = keys;
    compare_with_peers(measured);
    rows.insert(rows.end(), measured.begin(), measured.end());
    loads += std::string(loads.empty() ? "" : "; ") + keys + " " + before + " before, " + load_average() + " after";
}

std::string transparent_huge_pages() {
    std::ifstream setting("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    std::getline(setting, line);
    return line.empty() ? "unknown" : line;
}

std::vector<double> sizes(const std::string& list) {
    std::vector<double> values;
    for (const std::string& item : names(list))
        if (!item.empty() && std::stod(item) > 0) values.push_back(std::stod(item));
    return values;
}

std::optional<settings> parse_settings(int argc, char** argv) {
    settings s;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--int" && has_value) s.int_sizes = sizes(argv[++i]);
        else if (arg == "--url" && has_value) s.url_sizes = sizes(argv[++i]);
        else if (arg == "--sample" && has_value) s.sample = std::stod(argv[++i]);
        else if (arg == "--rounds" && has_value) s.rounds = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--only" && has_value) s.only = names(argv[++i]);
        else {
            std::fprintf(
                stderr,
                "usage: peer_bench [--int 1e7,1e8] [--url 1e7] [--sample 1e7] [--rounds 3]\n"
                "                  [--only block,boost,split-block,fastfilter-block,fuse8,fastfilter-fuse8]\n");
            return std::nullopt;
        }
    }
    return s;
}

const char* yes(bool value) { return value ? "yes" : "no"; }

}  // namespace

int main(int argc, char** argv) {
    const std::optional<settings> s = parse_settings(argc, argv);
    if (!s) return 2;
#ifdef __AVX2__
    constexpr bool avx2 = true;
#else
    constexpr bool avx2 = false;
#endif
#ifdef __AVX512F__
    constexpr bool avx512 = true;
#else
    constexpr bool avx512 = false;
#endif
    std::printf(
        "CPU: %s, %u threads; built with %s (AVX2 %s, AVX-512F %s); bloomkit's SIMD level: %s (supported: %s); "
        "transparent huge pages: %s; compiler: %s\n",
        bench::cpu_model().c_str(), std::max(1U, std::thread::hardware_concurrency()), BLOOMKIT_PEER_FLAGS, yes(avx2),
        yes(avx512), std::string(to_string(bloomkit::active_simd_level())).c_str(),
        std::string(to_string(bloomkit::supported_simd_level())).c_str(), transparent_huge_pages().c_str(),
        __VERSION__);
    if (!avx2) std::printf("(fastfilter's SimdBlockFilterFixed needs AVX2: left out)\n");
    std::vector<row> rows;
    std::string loads;
    for (const double n : s->int_sizes) run<std::uint64_t>(*s, static_cast<std::uint64_t>(n), false, rows, loads);
    for (const double n : s->url_sizes) run<std::string>(*s, static_cast<std::uint64_t>(n), true, rows, loads);
    std::printf(
        "Keys: \"int\" random 64-bit integers, \"URL\" ~60-byte URL-like strings. Bloom filters sized for 1%%, binary "
        "fuse at 2^-8. Lookups: %gM keys, half present, in random order, single and bulk alike; inserts and builds: "
        "the n keys. Median of %d rounds. \"vs floor\": over random 64-byte reads of a buffer of the structure's "
        "size, on the same pages. \"vs best peer\": over the fastest peer doing the same on the same keys (Boost "
        "or fastfilter for the Bloom filters, fastfilter for the fuse filters); below 1.00x bloomkit is faster. Load "
        "average (1, 5, 15 min): %s.\n\n",
        s->sample / 1e6, s->rounds, loads.c_str());
    print_table(rows);
    return 0;
}
