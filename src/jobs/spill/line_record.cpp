// src/jobs/spill/line_record.cpp — see line_record.hpp.
#include "jobs/spill/line_record.hpp"

#include <array>
#include <cstring>

#include "bloomkit/error.hpp"

namespace bloomkit::jobs::spill {
namespace {

// LEB128: seven bits a byte, low first, the top bit set on every byte but the last.
std::size_t put_varint(std::uint8_t* at, std::uint64_t value) noexcept {
    std::size_t n = 0;
    while (value >= 0x80) {
        at[n++] = static_cast<std::uint8_t>(value | 0x80);
        value >>= 7;
    }
    at[n++] = static_cast<std::uint8_t>(value);
    return n;
}

/// The size of the record at the front of `bytes`, or 0 when `bytes` end before it does (or
/// a varint runs past 64 bits: next() reports that when it gets there).
std::size_t record_size(std::string_view bytes) noexcept {
    std::size_t at = 8;
    std::uint64_t text = 0;
    for (int field = 0; field < 4; ++field) {
        std::uint64_t value = 0;
        for (unsigned shift = 0;; shift += 7) {
            if (at >= bytes.size() || shift > 63) return 0;
            const auto byte = static_cast<std::uint8_t>(bytes[at++]);
            value |= std::uint64_t{byte & 0x7fu} << shift;
            if ((byte & 0x80) == 0) break;
        }
        text = value;  // the last field is the text's length
    }
    return text <= bytes.size() - at ? at + static_cast<std::size_t>(text) : 0;
}

}  // namespace

void write_record(spill_file& file, const line_record& record) {
    std::array<std::uint8_t, 8 + 4 * 10> head{};
    store_le64(reinterpret_cast<char*>(head.data()), record.hash);
    std::size_t size = 8;
    size += put_varint(head.data() + size, record.position + 1);  // no_position wraps to 0
    size += put_varint(head.data() + size, record.count);
    size += put_varint(head.data() + size, record.tags);
    size += put_varint(head.data() + size, record.text.size());
    file.append(head.data(), size);
    file.append(record.text.data(), record.text.size());
}

std::uint64_t record_reader::varint() {
    std::uint64_t value = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (shift > 63) throw error("a temporary file of the exact job is damaged (a number of more than 64 bits)");
        const auto byte = static_cast<std::uint8_t>(*bytes_.take(1));
        value |= std::uint64_t{byte & 0x7fu} << shift;
        if ((byte & 0x80) == 0) return value;
    }
}

bool record_reader::next(line_record& record) {
    if (bytes_.at_end()) return false;
    const std::uint64_t before = bytes_.consumed();
    record.hash = load_le64(bytes_.take(8));
    record.position = varint() - 1;
    record.count = varint();
    record.tags = static_cast<std::uint8_t>(varint());
    const std::uint64_t size = varint();
    record.text = std::string_view(bytes_.take(static_cast<std::size_t>(size)), static_cast<std::size_t>(size));
    const auto taken = static_cast<std::size_t>(bytes_.consumed() - before);
    if (ahead_records_ > 0) {  // the record hash_ahead() reached is one nearer, as many bytes nearer
        ahead_offset_ -= taken;
        --ahead_records_;
    } else {
        ahead_offset_ = 0;
    }
    return true;
}

std::optional<std::uint64_t> record_reader::hash_ahead(std::size_t distance) noexcept {
    const std::string_view held = bytes_.buffered();
    while (ahead_records_ < distance) {
        const std::size_t size = record_size(held.substr(ahead_offset_));
        if (size == 0) return std::nullopt;
        ahead_offset_ += size;
        ++ahead_records_;
    }
    if (held.size() - ahead_offset_ < 8) return std::nullopt;
    return load_le64(held.data() + ahead_offset_);
}

}  // namespace bloomkit::jobs::spill
