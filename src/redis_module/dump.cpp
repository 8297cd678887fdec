// src/redis_module/dump.cpp — see dump.hpp.
#include "redis_module/dump.hpp"

#include <algorithm>
#include <streambuf>

namespace bloomkit::redis_module {
namespace {

// An iterator is 63 bits (a positive long long): the offset in the low 44 (16 TiB, past any
// filter a server holds), the stamp above.
constexpr unsigned offset_bits = 44;
constexpr std::uint64_t offset_mask = (std::uint64_t{1} << offset_bits) - 1;
constexpr std::uint64_t stamp_mask = (std::uint64_t{1} << (63 - offset_bits)) - 1;

/// A stream buffer that hands what is written to `take(offset, bytes)`, as it comes.
class forwarding_buffer : public std::streambuf {
public:
    using taker = std::function<void(std::uint64_t offset, std::span<const std::byte>)>;
    explicit forwarding_buffer(taker take) : take_(std::move(take)) {}

protected:
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        take_(written_, std::as_bytes(std::span<const char>(s, static_cast<std::size_t>(n))));
        written_ += static_cast<std::uint64_t>(n);
        return n;
    }
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        const char byte = traits_type::to_char_type(c);
        xsputn(&byte, 1);
        return c;
    }

private:
    taker take_;
    std::uint64_t written_ = 0;
};

/// Thrown to stop a write once the slice asked for is complete.
struct slice_complete {};

void write_through(const bkf_writer& write, const forwarding_buffer::taker& take) {
    forwarding_buffer buffer(take);
    std::ostream out(&buffer);
    out.exceptions(std::ios::badbit);  // the taker's exceptions reach the caller
    write(out);
    out.flush();
}

}  // namespace

long long to_iterator(const dump_cursor& cursor) noexcept {
    return static_cast<long long>(((cursor.stamp & stamp_mask) << offset_bits) | (cursor.offset & offset_mask));
}

std::optional<dump_cursor> from_iterator(long long iterator) noexcept {
    if (iterator <= 0) return std::nullopt;
    const auto bits = static_cast<std::uint64_t>(iterator);
    const dump_cursor cursor{bits & offset_mask, bits >> offset_bits};
    if (cursor.offset == 0) return std::nullopt;
    return cursor;
}

std::uint64_t stamp_of(std::uint64_t writes) noexcept { return writes & stamp_mask; }

std::vector<std::byte> slice(const bkf_writer& write, std::uint64_t offset, std::uint64_t length) {
    std::vector<std::byte> out;
    const std::uint64_t end = offset + length;
    try {
        write_through(write, [&](std::uint64_t at, std::span<const std::byte> bytes) {
            const std::uint64_t from = std::max(at, offset), to = std::min(at + bytes.size(), end);
            if (from < to) out.insert(out.end(), bytes.begin() + (from - at), bytes.begin() + (to - at));
            if (at + bytes.size() >= end) throw slice_complete{};
        });
    } catch (const slice_complete&) {}
    return out;
}

void for_each_piece(const bkf_writer& write, std::uint64_t piece,
                    const std::function<void(std::uint64_t, std::span<const std::byte>)>& use) {
    std::vector<std::byte> pending;
    std::uint64_t pending_at = 0;
    write_through(write, [&](std::uint64_t at, std::span<const std::byte> bytes) {
        while (!bytes.empty()) {
            if (pending.empty()) pending_at = at;
            const std::size_t take =
                static_cast<std::size_t>(std::min<std::uint64_t>(piece - pending.size(), bytes.size()));
            pending.insert(pending.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(take));
            bytes = bytes.subspan(take);
            at += take;
            if (pending.size() == piece) {
                use(pending_at, pending);
                pending.clear();
            }
        }
    });
    if (!pending.empty()) use(pending_at, pending);
}

}  // namespace bloomkit::redis_module
