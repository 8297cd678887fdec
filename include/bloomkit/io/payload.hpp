// bloomkit/io/payload.hpp — a filter's payload in the bkf format, in both directions: the bytes
// a codec reads a filter's words from (payload_source) and the sink it writes them to
// (payload_sink). Payloads are little-endian whatever the machine (docs/FORMAT.md); both ends
// convert, so codecs see native words.
//
// Writing makes one pass over the filter's words. Each piece is first copied to a staging
// buffer, then checksummed (by chunks, io/chunks.hpp) and written from there, so the checksums
// cover exactly the bytes written even while other threads insert into the filter
// (insert(key, concurrent)): every word is read once, atomically, and a word that changes after
// its copy simply is not in this file. A key inserted during the save may or may not be in it;
// the file always loads.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "bloomkit/detail/word_storage.hpp"
#include "bloomkit/hash/endian.hpp"
#include "bloomkit/io/chunks.hpp"

namespace bloomkit::detail {

/// The payload of a filter being read: from memory the reader owns (a file read, a buffer or a
/// stream copied in) or from a mapped file. Hands its words to the filter being assembled:
/// adopted without a copy where it can, viewed in place when mapped.
class payload_source {
public:
    /// An owned payload (64-byte aligned, as zeroed_block is).
    payload_source(zeroed_block owned, std::uint64_t size) : owned_(std::move(owned)), size_(size) {
        data_ = static_cast<const std::byte*>(owned_.data());
    }
    /// A mapped payload, kept alive by `keepalive`.
    payload_source(const std::byte* data, std::uint64_t size, std::shared_ptr<const void> keepalive)
        : data_(data), size_(size), keepalive_(std::move(keepalive)) {}

    [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_, static_cast<std::size_t>(size_)}; }

    /// `count` little-endian words at `offset` bytes into the payload (64-byte aligned), in the
    /// machine's byte order.
    template <class Word>
    word_storage<Word> words(std::uint64_t offset, std::uint64_t count) {
        word_storage<Word> words = raw_words<Word>(offset, count);
        if constexpr (std::endian::native != std::endian::little && sizeof(Word) > 1)
            if (!words.read_only())
                for (Word *w = const_cast<Word*>(words.data()), *end = w + words.size(); w != end; ++w)
                    *w = little_endian(*w);
        return words;
    }

private:
    template <class Word>
    word_storage<Word> raw_words(std::uint64_t offset, std::uint64_t count) {
        const auto* first = reinterpret_cast<const Word*>(data_ + offset);
        if (keepalive_) return word_storage<Word>::view(first, count, keepalive_);
        if (offset == 0 && count * sizeof(Word) == size_ && owned_.data() != nullptr) {
            data_ = nullptr;
            return word_storage<Word>::adopt(std::move(owned_), count);  // the whole payload: no copy
        }
        word_storage<Word> copy(count);
        std::copy_n(first, count, const_cast<Word*>(copy.data()));
        return copy;
    }

    zeroed_block owned_;
    const std::byte* data_ = nullptr;
    std::uint64_t size_ = 0;
    std::shared_ptr<const void> keepalive_;
};

/// Where a codec writes a payload, piece by piece in order: words (converted to little-endian)
/// and raw bytes (tables the codec already encoded). Forwards every byte to `write` exactly
/// once and checksums exactly what it forwarded, chunk by chunk.
class payload_sink {
public:
    using writer = std::function<void(std::span<const std::byte>)>;

    payload_sink(writer write, std::uint32_t chunk_shift)
        : write_(std::move(write)), checksums_(std::make_unique<chunk_checksums>(chunk_shift)) {}

    /// The words, snapshotted a chunk at a time (see the top of this file). 32- and 64-bit
    /// words (the kinds that can change while being saved) are read with relaxed atomic loads,
    /// a plain load on x86-64 and AArch64; narrower ones (a static filter's fingerprints) are
    /// copied.
    template <class Word>
    void words(std::span<const Word> words) {
        static_assert(std::is_unsigned_v<Word>);
        constexpr std::size_t per_chunk = staging_bytes / sizeof(Word);
        staging_.resize(staging_bytes);
        auto* staged = reinterpret_cast<Word*>(staging_.data());
        for (std::size_t done = 0; done < words.size(); done += per_chunk) {
            const std::size_t count = std::min(per_chunk, words.size() - done);
            const Word* from = words.data() + done;
            if constexpr (sizeof(Word) >= 4) {
                for (std::size_t i = 0; i < count; ++i)
                    staged[i] = little_endian(
                        std::atomic_ref<Word>(const_cast<Word&>(from[i])).load(std::memory_order_relaxed));
            } else {
                std::copy_n(from, count, staged);
                if constexpr (std::endian::native != std::endian::little && sizeof(Word) > 1)
                    for (std::size_t i = 0; i < count; ++i) staged[i] = little_endian(staged[i]);
            }
            bytes(std::span<const std::byte>(staging_.data(), count * sizeof(Word)));
        }
    }

    /// Bytes already in their final form.
    void bytes(std::span<const std::byte> piece) {
        if (piece.empty()) return;
        checksums_->update(piece);
        write_(piece);
        size_ += piece.size();
    }

    /// `count` zero bytes (padding to a 64-byte boundary).
    void zeros(std::size_t count) {
        static constexpr std::byte none[64] = {};
        for (; count > 0; count -= std::min(count, sizeof none))
            bytes(std::span<const std::byte>(none, std::min(count, sizeof none)));
    }

    /// The chunk table of everything written (io/chunks.hpp); call once, at the end.
    [[nodiscard]] std::vector<std::byte> chunk_table() { return checksums_->table(); }
    [[nodiscard]] std::uint64_t size() const noexcept { return size_; }

private:
    static constexpr std::size_t staging_bytes = std::size_t{1} << 16;

    writer write_;
    std::unique_ptr<chunk_checksums> checksums_;  // on the heap: XXH3's state wants 64-byte alignment
    std::vector<std::byte> staging_;
    std::uint64_t size_ = 0;
};

}  // namespace bloomkit::detail
