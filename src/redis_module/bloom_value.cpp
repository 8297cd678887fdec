// src/redis_module/bloom_value.cpp — see bloom_value.hpp.
#include "redis_module/bloom_value.hpp"

#include <cstdio>
#include <string>
#include <type_traits>

#include "bloomkit/io/any_codec.hpp"
#include "bloomkit/keys.hpp"
#include "bloomkit/sizing/bloom.hpp"
#include "redis_module/item_keys.hpp"
#include "redis_module/module_error.hpp"

namespace bloomkit::redis_module {
namespace {

constexpr const char* not_loaded =
    "ERR the filter is still being restored: BF.LOADCHUNK has not received all its chunks";

std::uint64_t planned_bytes(std::uint64_t capacity, double fpr) {
    return plan_bloom(bloom_layout::block, static_cast<double>(capacity), fpr).geometry.bits / 8;
}

std::string over_limit(std::uint64_t bytes, std::uint64_t max_bytes) {
    return "ERR the filter would take " + std::to_string(bytes) + " bytes, more than the " + std::to_string(max_bytes) +
           " a filter may (module argument MAX_FILTER_BYTES)";
}

/// A scaling filter's first stage is sized for half the error (the rest is for the stages to come).
bloom_filters make_filter(const bloom_request& request, std::uint64_t max_bytes) {
    const double first_fpr = request.expansion == 0 ? request.error_rate : request.error_rate / 2;
    if (const std::uint64_t bytes = planned_bytes(request.capacity, first_fpr); bytes > max_bytes)
        throw module_error(over_limit(bytes, max_bytes));
    if (request.expansion == 0)
        return block_bloom_filter(request.capacity, request.error_rate, {.keys = key_format::text});
    return scalable_bloom_filter(request.capacity, request.error_rate,
                                 {.growth = static_cast<double>(request.expansion), .keys = key_format::text});
}

/// A key no stage holds, arriving when the last stage is full, opens the next: refused first if
/// the filter would then pass `max_bytes`.
template <class Key>
void require_room_to_grow(const scalable_bloom_filter& f, const Key& key, std::uint64_t max_bytes) {
    const auto& last = f.stages().back();
    if (last.inserted_count() < last.expected_keys() || f.contains(key)) return;
    const scalable_stage_plan next = f.planned_stage(f.stage_count());
    const std::uint64_t bytes = f.size_in_bytes() + planned_bytes(next.capacity, next.fpr);
    if (bytes > max_bytes) throw module_error(over_limit(bytes, max_bytes));
}

}  // namespace

bloom_value::bloom_value(const bloom_request& request, std::uint64_t max_bytes)
    : state_(make_filter(request, max_bytes)) {}

bool bloom_value::add(std::string_view item, std::uint64_t max_bytes) {
    const bool added = std::visit(
        [&](auto& f) {
            return with_item_key(f.recorded_key_format(), item, [&](const auto& key) {
                using F = std::remove_cvref_t<decltype(f)>;
                if constexpr (std::is_same_v<F, scalable_bloom_filter>) {
                    require_room_to_grow(f, key, max_bytes);
                    return f.insert(key);
                } else {
                    if (f.contains(key)) return false;
                    if (f.expected_keys() != 0 && f.inserted_count() >= f.expected_keys())
                        throw module_error("ERR non scaling filter is full");
                    f.insert(key);
                    return true;
                }
            });
        },
        filter_or_throw());
    if (added) ++writes_;
    return added;
}

bool bloom_value::contains(std::string_view item) const {
    return std::visit(
        [&](const auto& f) {
            return with_item_key(f.recorded_key_format(), item, [&](const auto& key) { return f.contains(key); });
        },
        filter_or_throw());
}

std::uint64_t bloom_value::capacity() const {
    return std::visit(
        [](const auto& f) -> std::uint64_t {
            if constexpr (std::is_same_v<std::remove_cvref_t<decltype(f)>, scalable_bloom_filter>) {
                std::uint64_t sum = 0;
                for (const auto& stage : f.stages()) sum += stage.expected_keys();
                return sum;
            } else {
                return f.expected_keys();
            }
        },
        filter_or_throw());
}

std::uint64_t bloom_value::items() const {
    return std::visit([](const auto& f) -> std::uint64_t { return f.inserted_count(); }, filter_or_throw());
}

std::uint64_t bloom_value::filter_count() const {
    if (const auto* f = std::get_if<scalable_bloom_filter>(&filter_or_throw())) return f->stage_count();
    return 1;
}

std::optional<std::uint64_t> bloom_value::expansion() const {
    if (const auto* f = std::get_if<scalable_bloom_filter>(&filter_or_throw()))
        return static_cast<std::uint64_t>(f->growth());
    return std::nullopt;
}

std::vector<std::string> bloom_value::debug_lines() const {
    std::vector<std::string> lines{"size:" + std::to_string(items())};
    const auto describe = [&](const auto& stage) {
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, "%g", stage.target_fpr());
        lines.push_back("bytes:" + std::to_string(stage.size_in_bytes()) + " bits:" +
                        std::to_string(stage.geometry().bits) + " hashes:" + std::to_string(stage.geometry().hashes) +
                        " hashwidth:64 capacity:" + std::to_string(stage.expected_keys()) +
                        " size:" + std::to_string(stage.inserted_count()) + " ratio:" + ratio);
    };
    std::visit(
        [&](const auto& f) {
            if constexpr (std::is_same_v<std::remove_cvref_t<decltype(f)>, scalable_bloom_filter>) {
                for (const auto& stage : f.stages()) describe(stage);
            } else {
                describe(f);
            }
        },
        filter_or_throw());
    return lines;
}

std::uint64_t bloom_value::memory_bytes() const {
    if (const restore* r = restoring()) return sizeof *this + r->memory_bytes();
    return sizeof *this + std::visit([](const auto& f) -> std::uint64_t { return f.size_in_bytes(); }, *filter());
}

std::uint64_t bloom_value::dump_size(std::span<const std::byte> first_chunk) {
    try {
        return read_header_prefix<bloom_filters>(first_chunk, "the dump's first chunk").file_size();
    } catch (const file_format_error& e) {
        throw module_error(std::string("ERR received bad data: ") + e.what());
    }
}

void bloom_value::finish_restore() {
    const restore* r = restoring();
    try {
        bloom_filters loaded = from_bytes<bloom_filters>(r->bytes(), "the chunks of BF.LOADCHUNK");
        state_ = std::move(loaded);
        ++writes_;
    } catch (const file_format_error& e) {
        throw module_error(std::string("ERR received bad data: ") + e.what());
    }
}

std::uint64_t bloom_value::file_size() const {
    return std::visit([](const auto& f) { return header_of(f).file_size(); }, filter_or_throw());
}

bkf_writer bloom_value::writer() const {
    if (const restore* r = restoring())
        return [r](std::ostream& out) {
            out.write(reinterpret_cast<const char*>(r->bytes().data()),
                      static_cast<std::streamsize>(r->bytes().size()));
        };
    return [f = filter()](std::ostream& out) { std::visit([&](const auto& filter) { save(filter, out); }, *f); };
}

const bloom_filters& bloom_value::filter_or_throw() const {
    if (const bloom_filters* f = filter()) return *f;
    throw module_error(not_loaded);
}

bloom_filters& bloom_value::filter_or_throw() {
    if (auto* f = std::get_if<bloom_filters>(&state_)) return *f;
    throw module_error(not_loaded);
}

}  // namespace bloomkit::redis_module
