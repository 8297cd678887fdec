// src/redis_module/cuckoo_value.cpp — see cuckoo_value.hpp.
#include "redis_module/cuckoo_value.hpp"

#include <array>
#include <string>

#include "bloomkit/io/bkf.hpp"
#include "bloomkit/io/cuckoo_codec.hpp"
#include "redis_module/item_keys.hpp"
#include "redis_module/module_error.hpp"

namespace bloomkit::redis_module {
namespace {

constexpr const char* not_loaded =
    "ERR the filter is still being restored: CF.LOADCHUNK has not received all its chunks";

// The dump's preamble: the magic, then little-endian 64-bit fields, then zeros to 64 bytes.
constexpr std::size_t preamble_bytes = 64;
constexpr std::array<char, 8> preamble_magic = {'b', 'k', 'f', 'C', 'F', 'c', 'h', '1'};
enum preamble_field { dump_bytes = 1, filter_count_field, expansion_field, fingerprint_bits_field, deleted_field };

std::uint64_t field(std::span<const std::byte> preamble, int index) {
    std::uint64_t value = 0;
    for (int i = 7; i >= 0; --i) value = value << 8 | std::to_integer<std::uint64_t>(preamble[index * 8 + i]);
    return value;
}

void put_field(std::array<std::byte, preamble_bytes>& preamble, int index, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) preamble[index * 8 + i] = static_cast<std::byte>(value >> (8 * i));
}

/// The fingerprint bits whose FPR is at most RedisBloom's for that bucket size.
std::uint32_t fingerprint_bits_for(std::uint64_t bucket_size) { return bucket_size < 4 ? 12 : 8; }

/// A power of two at least `expansion` (RedisBloom rounds it so); 0 stays 0.
std::uint64_t rounded_expansion(std::uint64_t expansion) {
    if (expansion == 0) return 0;
    std::uint64_t power = 1;
    while (power < expansion) power <<= 1;
    return power;
}

/// Buckets to hold `capacity` keys at the load a walk reaches.
std::uint64_t buckets_for(std::uint64_t capacity) {
    const double buckets = static_cast<double>(capacity) / (cuckoo_bucket_size * cuckoo_max_load);
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(buckets)));
}

std::uint64_t table_bytes(cuckoo_geometry g) { return cuckoo_word_count(g) * sizeof(std::uint64_t); }

std::string over_limit(std::uint64_t bytes, std::uint64_t max_bytes) {
    return "ERR the filter would take " + std::to_string(bytes) + " bytes, more than the " + std::to_string(max_bytes) +
           " a filter may (module argument MAX_FILTER_BYTES)";
}

}  // namespace

cuckoo_value::cuckoo_value(const cuckoo_request& request, std::uint64_t max_bytes)
    : state_(new_chain(request, max_bytes)) {}

cuckoo_value::chain cuckoo_value::new_chain(const cuckoo_request& request, std::uint64_t max_bytes) {
    chain c;
    c.expansion = rounded_expansion(request.expansion);
    c.fingerprint_bits = fingerprint_bits_for(request.bucket_size);
    const cuckoo_geometry g{buckets_for(request.capacity), static_cast<std::uint32_t>(c.fingerprint_bits)};
    if (table_bytes(g) > max_bytes) throw module_error(over_limit(table_bytes(g), max_bytes));
    c.filters.emplace_back(g, filter_options{.keys = key_format::text});
    return c;
}

bool cuckoo_value::open_filter(chain& c, std::uint64_t max_bytes) {
    if (c.expansion == 0) {
        why_full_ = "Filter is full";
        return false;
    }
    if (c.filters.size() >= max_filters) {
        why_full_ = "Maximum expansions reached";
        return false;
    }
    const cuckoo_geometry last = c.filters.back().geometry();
    const cuckoo_geometry next{last.buckets * c.expansion, last.fingerprint_bits};
    const std::uint64_t bytes = memory_bytes() + table_bytes(next);
    if (next.buckets / c.expansion != last.buckets || bytes > max_bytes) {
        why_full_ = over_limit(bytes, max_bytes);
        return false;
    }
    c.filters.emplace_back(next, filter_options{.keys = c.filters.front().recorded_key_format()});
    return true;
}

cuckoo_added cuckoo_value::add(std::string_view item, bool only_new, std::uint64_t max_bytes) {
    chain& c = chain_or_throw();
    return with_item_key(c.filters.front().recorded_key_format(), item, [&](const auto& key) {
        if (only_new && contains(item)) return cuckoo_added::exists;
        // Newest first: the others filled before it opened, though deletes may have made room.
        for (auto f = c.filters.rbegin(); f != c.filters.rend(); ++f)
            if (f->try_insert(key) == cuckoo_insert_status::stored) {
                ++writes_;
                return cuckoo_added::added;
            }
        if (!open_filter(c, max_bytes)) return cuckoo_added::full;
        if (c.filters.back().try_insert(key) != cuckoo_insert_status::stored) {
            why_full_ = "Filter is full";
            return cuckoo_added::full;
        }
        ++writes_;
        return cuckoo_added::added;
    });
}

bool cuckoo_value::contains(std::string_view item) const {
    const chain& c = chain_or_throw();
    return with_item_key(c.filters.front().recorded_key_format(), item, [&](const auto& key) {
        for (const cuckoo_filter& f : c.filters)
            if (f.contains(key)) return true;
        return false;
    });
}

std::uint64_t cuckoo_value::count(std::string_view item) const {
    const chain& c = chain_or_throw();
    return with_item_key(c.filters.front().recorded_key_format(), item, [&](const auto& key) {
        std::uint64_t copies = 0;
        for (const cuckoo_filter& f : c.filters) copies += f.count(key);
        return copies;
    });
}

bool cuckoo_value::remove(std::string_view item) {
    chain& c = chain_or_throw();
    const bool removed = with_item_key(c.filters.front().recorded_key_format(), item, [&](const auto& key) {
        cuckoo_filter* holder = nullptr;
        for (cuckoo_filter& f : c.filters) {
            if (!f.contains(key)) continue;
            if (holder != nullptr) return false;  // two filters match: which copy is the item's is unknown
            holder = &f;
        }
        return holder != nullptr && holder->remove(key);
    });
    if (removed) ++c.deleted, ++writes_;
    return removed;
}

std::uint64_t cuckoo_value::items() const {
    std::uint64_t sum = 0;
    for (const cuckoo_filter& f : chain_or_throw().filters) sum += f.size();
    return sum;
}

std::uint64_t cuckoo_value::deleted() const { return chain_or_throw().deleted; }
std::uint64_t cuckoo_value::first_buckets() const { return chain_or_throw().filters.front().bucket_count(); }
std::uint64_t cuckoo_value::filter_count() const { return chain_or_throw().filters.size(); }
std::uint64_t cuckoo_value::expansion() const { return chain_or_throw().expansion; }

std::uint64_t cuckoo_value::memory_bytes() const {
    if (const restore* r = restoring()) return sizeof *this + r->memory_bytes();
    std::uint64_t sum = sizeof *this;
    for (const cuckoo_filter& f : std::get<chain>(state_).filters) sum += sizeof f + f.size_in_bytes();
    return sum;
}

std::uint64_t cuckoo_value::file_size() const {
    std::uint64_t size = preamble_bytes;
    for (const cuckoo_filter& f : chain_or_throw().filters) size += header_of(f).file_size();
    return size;
}

bkf_writer cuckoo_value::writer() const {
    if (const restore* r = restoring())
        return [r](std::ostream& out) {
            out.write(reinterpret_cast<const char*>(r->bytes().data()),
                      static_cast<std::streamsize>(r->bytes().size()));
        };
    return [this](std::ostream& out) {
        const chain& c = std::get<chain>(state_);
        std::array<std::byte, preamble_bytes> preamble{};
        for (std::size_t i = 0; i < preamble_magic.size(); ++i) preamble[i] = static_cast<std::byte>(preamble_magic[i]);
        put_field(preamble, dump_bytes, file_size());
        put_field(preamble, filter_count_field, c.filters.size());
        put_field(preamble, expansion_field, c.expansion);
        put_field(preamble, fingerprint_bits_field, c.fingerprint_bits);
        put_field(preamble, deleted_field, c.deleted);
        out.write(reinterpret_cast<const char*>(preamble.data()), preamble_bytes);
        for (const cuckoo_filter& f : c.filters) save(f, out);
    };
}

std::uint64_t cuckoo_value::dump_size(std::span<const std::byte> first_chunk) {
    if (first_chunk.size() < preamble_bytes ||
        !std::equal(preamble_magic.begin(), preamble_magic.end(), first_chunk.begin(),
                    [](char a, std::byte b) { return static_cast<std::byte>(a) == b; }))
        throw module_error("ERR received bad data: the first chunk does not start a CF.SCANDUMP dump");
    const std::uint64_t size = field(first_chunk, dump_bytes);
    if (size < preamble_bytes) throw module_error("ERR received bad data: the dump's size is impossible");
    return size;
}

void cuckoo_value::finish_restore() {
    const std::span<const std::byte> bytes = restoring()->bytes();
    const auto bad = [](const std::string& why) { return module_error("ERR received bad data: " + why); };
    chain c;
    const std::uint64_t count = field(bytes, filter_count_field);
    c.expansion = field(bytes, expansion_field);
    c.fingerprint_bits = field(bytes, fingerprint_bits_field);
    c.deleted = field(bytes, deleted_field);
    if (count == 0 || count > max_filters) throw bad("the dump holds " + std::to_string(count) + " filters");
    std::uint64_t at = preamble_bytes;
    try {
        for (std::uint64_t i = 0; i < count; ++i) {
            const file_header h =
                read_header_prefix<registry_for<cuckoo_filter>>(bytes.subspan(at), "the dump's filter");
            if (h.file_size() > bytes.size() - at) throw bad("the dump ends inside its filter " + std::to_string(i));
            c.filters.push_back(from_bytes<cuckoo_filter>(bytes.subspan(at, h.file_size()), "the dump's filter"));
            at += h.file_size();
        }
    } catch (const file_format_error& e) {
        throw bad(e.what());
    }
    if (at != bytes.size()) throw bad("bytes follow the dump's last filter");
    state_ = std::move(c);
    ++writes_;
}

const cuckoo_value::chain& cuckoo_value::chain_or_throw() const {
    if (const chain* c = std::get_if<chain>(&state_)) return *c;
    throw module_error(not_loaded);
}

cuckoo_value::chain& cuckoo_value::chain_or_throw() {
    if (chain* c = std::get_if<chain>(&state_)) return *c;
    throw module_error(not_loaded);
}

}  // namespace bloomkit::redis_module
