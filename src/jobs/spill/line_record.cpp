// src/jobs/spill/line_record.cpp — see line_record.hpp.
#include "jobs/spill/line_record.hpp"

#include <array>
#include <cstring>
#include <optional>

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

enum class varint_read : std::uint8_t { whole, cut_short, too_long };

/// Reads a varint into `value` from `next_byte()`, which gives the next byte, or nothing where
/// the bytes end.
template <class NextByte>
varint_read get_varint(NextByte next_byte, std::uint64_t& value) {
    value = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (shift > 63) return varint_read::too_long;
        const std::optional<std::uint8_t> byte = next_byte();
        if (!byte) return varint_read::cut_short;
        value |= std::uint64_t{*byte & 0x7fu} << shift;
        if ((*byte & 0x80) == 0) return varint_read::whole;
    }
}

/// The size of the record at the front of `bytes`, or 0 when `bytes` end before it does (or
/// a varint runs past 64 bits: next() reports that when it gets there).
std::size_t record_size(std::string_view bytes) noexcept {
    std::size_t at = 8;
    const auto next_byte = [&]() -> std::optional<std::uint8_t> {
        if (at >= bytes.size()) return std::nullopt;
        return static_cast<std::uint8_t>(bytes[at++]);
    };
    std::uint64_t text = 0;
    for (int field = 0; field < 4; ++field)  // the last field is the text's length
        if (get_varint(next_byte, text) != varint_read::whole) return 0;
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
    // take() throws where the file ends: every byte asked for is there.
    if (get_varint([this] { return std::optional<std::uint8_t>(static_cast<std::uint8_t>(*bytes_.take(1))); }, value) ==
        varint_read::too_long)
        throw error("a temporary file of the exact job is damaged (a number of more than 64 bits)");
    return value;
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
