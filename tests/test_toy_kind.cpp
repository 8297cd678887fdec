// tests/test_toy_kind.cpp — a kind is its header, its codec and its line in a registry, and
// nothing else names it (docs/ARCHITECTURE.md, "Adding a kind"). The proof: a toy kind — a
// one-probe bit array, the k = 1 Bloom filter — written here in full, with a registry of its own
// (any_filter's first type and the toy), goes through what the library does with any kind:
// choosing it from a request, sizing it by memory, its bkf bytes, files and maps, what its
// header says.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bloomkit/bloomkit.hpp"

namespace toy {

using bloomkit::digest;
using bloomkit::filter_options;
using bloomkit::hashable_key;
using bloomkit::kind_plan;
using bloomkit::kind_request;
using bloomkit::sizing_target;

/// The header: the filter and its kind_traits.
class bit_filter : public bloomkit::detail::filter_api<bit_filter> {
    using api = bloomkit::detail::filter_api<bit_filter>;

public:
    bit_filter(std::uint64_t bits, const bloomkit::hasher& h, sizing_target target = {},
               std::vector<std::uint64_t> words = {}, std::uint64_t inserted = 0)
        : api(h, target), bits_(bits), words_(std::move(words)), inserted_(inserted) {
        if (bits_ == 0 || bits_ % 64 != 0) throw bloomkit::invalid_argument("a toy filter has whole 64-bit words");
        if (words_.empty()) words_.assign(bits_ / 64, 0);
    }
    /// Sized for n keys at p: m = n / -ln(1 - p) bits, one probe each.
    bit_filter(std::uint64_t n, double p, filter_options o)
        : bit_filter(bits_for(static_cast<double>(n), p),
                     bloomkit::hasher(o.hash.value_or(bloomkit::default_hash_algorithm), o.seed), {n, p}) {}

    static std::uint64_t bits_for(double n, double p) {
        return static_cast<std::uint64_t>(std::ceil(n / -std::log1p(-p) / 64)) * 64;
    }

    template <hashable_key Key>
    bool insert(const Key& key) {
        record_first_keys<Key>();
        const auto [word, bit] = locate(hasher_(key));
        const bool fresh = (words_[word] & bit) == 0;
        words_[word] |= bit;
        ++inserted_;
        return fresh;
    }
    using api::contains;
    template <hashable_key Key>
    [[nodiscard]] bool contains(const Key& key) const {
        const auto [word, bit] = locate(hasher_(key));
        return (words_[word] & bit) != 0;
    }
    template <class It, class Sentinel, class Use>
    Use for_each_answer(It first, Sentinel last, Use use) const {
        for (; first != last; ++first) use(contains(*first));
        return use;
    }
    [[nodiscard]] std::uint64_t inserted_count() const noexcept { return inserted_; }
    [[nodiscard]] std::uint64_t bit_count() const noexcept { return bits_; }
    [[nodiscard]] std::uint64_t size_in_bytes() const noexcept { return bits_ / 8; }
    [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return words_; }

private:
    [[nodiscard]] std::pair<std::size_t, std::uint64_t> locate(const digest& d) const {
        const std::uint64_t at = d.low % bits_;
        return {static_cast<std::size_t>(at / 64), std::uint64_t{1} << (at % 64)};
    }

    std::uint64_t bits_;
    std::vector<std::uint64_t> words_;
    std::uint64_t inserted_;
};

}  // namespace toy

template <>
struct bloomkit::kind_traits<toy::bit_filter> {
    static constexpr std::string_view word = "toy";
    static constexpr std::string_view summary = "one probe per key";
    static constexpr request_options accepted_options{};
    static std::string name() { return "toy filter"; }
    static kind_request request() { return {std::string(word), {}, {}, {}, {}, {}}; }
    static bool accepts(const kind_request& r, double) { return r.kind == word; }
    static kind_plan plan(double n, double p, const kind_request& = {}) {
        return {toy::bit_filter::bits_for(n, p) / 8, p, 1, 0};
    }
    static toy::bit_filter make(std::uint64_t n, double p, const kind_request&, filter_options o) { return {n, p, o}; }
};

/// The codec: its kind code, its one header parameter, its payload.
template <>
struct bloomkit::file_codec<toy::bit_filter> {
    struct parameters {
        std::uint64_t bits = 0;
        friend bool operator==(const parameters&, const parameters&) = default;
    };
    static constexpr filter_kind kind{200};

    static bool holds(const file_header& h) noexcept { return h.kind == kind; }
    static std::uint64_t read_parameters(const detail::header_bytes& b, file_header& h, const std::string& where) {
        const parameters p{b.get<std::uint64_t>(detail::header_field::parameter64)};
        if (p.bits == 0 || p.bits % 64 != 0) detail::reject_field(where, "a toy filter has whole 64-bit words");
        detail::check_reserved(b, detail::header_field::extra, where);
        h.parameters = p;
        return p.bits / 8;
    }
    static double approximate_count(const file_header& h) { return static_cast<double>(h.inserted_count); }
    static double current_fpr(const file_header& h) {
        const double m = static_cast<double>(kind_parameters<toy::bit_filter>(h).bits);
        return -std::expm1(-static_cast<double>(h.inserted_count) / m);
    }
    static std::vector<filter_fact> facts(const toy::bit_filter& f, const file_header&) {
        return {{"kind", "toy filter", "bits", f.bit_count(), {}, {}}};
    }
    static void describe(const toy::bit_filter& f, file_header& h) {
        detail::describe_common(f, h);
        h.parameters = parameters{f.bit_count()};
        h.inserted_count = f.inserted_count();
        h.payload_size = f.size_in_bytes();
    }
    static void write_parameters(const file_header& h, detail::header_bytes& b) {
        b.set<std::uint64_t>(detail::header_field::parameter64, kind_parameters<toy::bit_filter>(h).bits);
    }
    static void write_payload(const toy::bit_filter& f, detail::payload_sink& sink) { sink.words(f.words()); }
    static toy::bit_filter assemble(const file_header& h, detail::payload_source& payload) {
        const std::uint64_t bits = kind_parameters<toy::bit_filter>(h).bits;
        const auto stored = payload.words<std::uint64_t>(0, bits / 64);
        return {bits, detail::hasher_of(h), detail::sizing_of(h),
                std::vector<std::uint64_t>(stored.data(), stored.data() + stored.size()), h.inserted_count};
    }
};

namespace {

using bloomkit::any_filter;
using toy::bit_filter;

/// The registry line: the library's first type, and the toy.
using toy_registry = std::variant<bloomkit::block_bloom_filter, bit_filter>;

bit_filter filled(std::uint64_t keys) {
    bit_filter f(keys, 0.05, {});
    for (std::uint64_t i = 0; i < keys; ++i) f.insert("toy key " + std::to_string(i));
    return f;
}

void expect_every_key(const bit_filter& f, std::uint64_t keys) {
    for (std::uint64_t i = 0; i < keys; ++i) ASSERT_TRUE(f.contains("toy key " + std::to_string(i))) << i;
}

TEST(ToyKind, CapabilitiesAreReadOffItsApi) {
    constexpr bloomkit::kind_capabilities can = bloomkit::capabilities_of<bit_filter>();
    EXPECT_TRUE(can.inserts);
    EXPECT_FALSE(can.removes || can.merges || can.concurrent || can.grows || can.fills);
    EXPECT_EQ(bloomkit::kinds_that<toy_registry>(&bloomkit::kind_capabilities::inserts),
              (std::vector<std::string_view>{"bloom", "toy"}));
}

TEST(ToyKind, ARequestChoosesIt) {
    const auto words = bloomkit::with_requested_type<toy_registry>({"toy", {}, {}, {}, {}, {}}, 0.01, [](auto type) {
        return bloomkit::kind_traits<typename decltype(type)::type>::word;
    });
    EXPECT_EQ(words, "toy");
    try {
        (void)bloomkit::with_requested_type<toy_registry>({"none", {}, {}, {}, {}, {}}, 0.01, [](auto) { return 0; });
        FAIL() << "an unknown kind was chosen";
    } catch (const bloomkit::invalid_request& e) {
        EXPECT_STREQ(e.what(), "unknown kind 'none': choose bloom, toy");
    }
    try {
        (void)bloomkit::with_requested_type<toy_registry>({"toy", bloomkit::bloom_layout::classic, {}, {}, {}, {}},
                                                          0.01, [](auto) { return 0; });
        FAIL() << "the toy took a layout";
    } catch (const bloomkit::invalid_request& e) {
        EXPECT_EQ(e.which(), bloomkit::invalid_request::part::layout);
        EXPECT_STREQ(e.what(), "a layout is chosen for kind 'bloom' only, not for kind 'toy'");
    }
}

TEST(ToyKind, SizedByMemory) {
    const double p = bloomkit::fpr_for_memory<bit_filter>(1000, 8192);
    EXPECT_LE(bit_filter::bits_for(1000, p) / 8, 8192U);
    EXPECT_GE(bloomkit::keys_for_memory<bit_filter>(0.05, 8192), 1U);
}

TEST(ToyKind, BytesRoundTripWithoutLosingAKey) {
    const bit_filter f = filled(500);
    const std::vector<std::byte> bytes = bloomkit::to_bytes(f);
    const bit_filter copy = bloomkit::from_bytes<bit_filter>(bytes);
    expect_every_key(copy, 500);
    EXPECT_TRUE(std::ranges::equal(copy.words(), f.words()));
    EXPECT_EQ(copy.recorded_key_format(), bloomkit::key_format::text);

    const toy_registry any = bloomkit::from_bytes<toy_registry>(bytes);
    ASSERT_TRUE(std::holds_alternative<bit_filter>(any));
    const bloomkit::file_header h = bloomkit::read_header<toy_registry>(bytes);
    EXPECT_EQ(bloomkit::kind_parameters<bit_filter>(h).bits, f.bit_count());
    EXPECT_EQ(bloomkit::file_codec<bit_filter>::facts(f, h).at(0).text, "toy filter");

    // A reader of the library's own registry does not know the kind, and says so.
    EXPECT_THROW((void)bloomkit::from_bytes<any_filter>(bytes), bloomkit::file_format_error);
    // A reader of the toy's registry tells a Bloom filter from a toy one.
    try {
        (void)bloomkit::from_bytes<bit_filter>(bloomkit::to_bytes(bloomkit::block_bloom_filter(100, 0.01)));
        FAIL() << "a Bloom filter read as a toy";
    } catch (const bloomkit::file_format_error& e) {
        EXPECT_EQ(e.reason(), bloomkit::format_errc::wrong_kind);
        EXPECT_NE(std::string(e.what()).find("not a toy filter"), std::string::npos) << e.what();
    }
}

TEST(ToyKind, FilesSaveLoadAndMap) {
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("bloomkit-toy-" + std::to_string(::getpid()) + ".bkf");
    const bit_filter f = filled(300);
    bloomkit::save(f, path);
    expect_every_key(bloomkit::load<bit_filter>(path), 300);
    const auto mapped = bloomkit::map<bit_filter>(path);
    expect_every_key(mapped.filter(), 300);
    EXPECT_EQ(mapped.header().inserted_count, 300U);
    std::filesystem::remove(path);
}

}  // namespace
