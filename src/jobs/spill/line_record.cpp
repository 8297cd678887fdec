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
    record.hash = load_le64(bytes_.take(8));
    record.position = varint() - 1;
    record.count = varint();
    record.tags = static_cast<std::uint8_t>(varint());
    const std::uint64_t size = varint();
    record.text = std::string_view(bytes_.take(static_cast<std::size_t>(size)), static_cast<std::size_t>(size));
    return true;
}

}  // namespace bloomkit::jobs::spill
