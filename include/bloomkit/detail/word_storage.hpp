// bloomkit/detail/word_storage.hpp — the array of words a filter's bits live in: owned and
// zeroed, or a read-only view of a memory-mapped file.
//
// Owned arrays come from the installed filter_memory_resource (memory.hpp): 64-byte aligned, so a
// 512-bit block is one cache line, and by default large ones on huge pages taking memory only
// where keys land.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <span>

#include "bloomkit/error.hpp"
#include "bloomkit/memory.hpp"

namespace bloomkit::detail {

inline constexpr std::size_t cache_line = 64;

class zeroed_block {
public:
    zeroed_block() = default;
    /// `bytes` zeroed bytes from the installed filter_memory_resource.
    explicit zeroed_block(std::size_t bytes) : bytes_(bytes) {
        if (bytes == 0) return;
        source_ = get_filter_memory_resource();
        data_ = source_->allocate_zeroed(bytes);
    }
    zeroed_block(zeroed_block&& other) noexcept { swap(other); }
    zeroed_block& operator=(zeroed_block&& other) noexcept {
        zeroed_block(std::move(other)).swap(*this);
        return *this;
    }
    zeroed_block(const zeroed_block&) = delete;
    zeroed_block& operator=(const zeroed_block&) = delete;
    ~zeroed_block() {
        if (data_ != nullptr) source_->deallocate(data_, bytes_);
    }

    [[nodiscard]] void* data() const noexcept { return data_; }

    void swap(zeroed_block& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(bytes_, other.bytes_);
        std::swap(source_, other.source_);
    }

private:
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
    filter_memory_resource* source_ = nullptr;  // the one that gave data_
};

/// A filter's words: owned (mutable, deep-copied) or a view kept alive by `keepalive`
/// (read-only, copies share the view).
template <class Word>
class word_storage {
public:
    word_storage() = default;

    /// `count` zeroed words; throws std::bad_alloc.
    explicit word_storage(std::uint64_t count) : size_(count) {
        if (count > std::numeric_limits<std::size_t>::max() / sizeof(Word)) throw std::bad_alloc();
        owned_ = zeroed_block(static_cast<std::size_t>(count) * sizeof(Word));
        data_ = static_cast<Word*>(owned_.data());
    }

    /// Takes over a 64-byte aligned `block`: a loaded payload becomes storage without a copy.
    static word_storage adopt(zeroed_block block, std::uint64_t count) noexcept {
        word_storage storage;
        storage.owned_ = std::move(block);
        storage.data_ = static_cast<Word*>(storage.owned_.data());
        storage.size_ = count;
        return storage;
    }

    /// A read-only view of `count` words at `data`, valid while `keepalive` lives.
    static word_storage view(const Word* data, std::uint64_t count, std::shared_ptr<const void> keepalive) {
        word_storage storage;
        storage.data_ = const_cast<Word*>(data);  // never written: read_only() guards every writer
        storage.size_ = count;
        storage.keepalive_ = std::move(keepalive);
        return storage;
    }

    /// A writable view (an update in place); a copy of it owns its words.
    static word_storage writable_view(Word* data, std::uint64_t count, std::shared_ptr<const void> keepalive) {
        word_storage storage = view(data, count, std::move(keepalive));
        storage.writable_ = true;
        return storage;
    }

    word_storage(const word_storage& other) : size_(other.size_), keepalive_(other.keepalive_) {
        if (other.read_only()) {
            data_ = other.data_;
        } else {
            *this = word_storage(other.size_);
            std::copy_n(other.data_, size_, data_);
        }
    }
    word_storage& operator=(const word_storage& other) {
        if (this != &other) *this = word_storage(other);
        return *this;
    }
    word_storage(word_storage&& other) noexcept { swap(other); }
    word_storage& operator=(word_storage&& other) noexcept {
        word_storage(std::move(other)).swap(*this);
        return *this;
    }
    ~word_storage() = default;

    [[nodiscard]] bool read_only() const noexcept { return keepalive_ != nullptr && !writable_; }
    [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
    [[nodiscard]] const Word* data() const noexcept { return data_; }
    [[nodiscard]] Word* mutable_data() const {
        if (read_only()) [[unlikely]]
            refuse_to_modify();
        return data_;
    }
    /// Unguarded: for a writer that found read_only() false, which stays so.
    [[nodiscard]] Word* unguarded_data() const noexcept { return data_; }
    [[nodiscard]] std::span<const Word> words() const noexcept { return {data_, static_cast<std::size_t>(size_)}; }

    void swap(word_storage& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
        owned_.swap(other.owned_);
        keepalive_.swap(other.keepalive_);
        std::swap(writable_, other.writable_);
    }

private:
    // Out of line, so mutable_data() on every insert's path stays small enough to inline.
    [[noreturn, gnu::cold, gnu::noinline]] static void refuse_to_modify() {
        throw read_only_filter("this filter is a read-only view of a memory-mapped file; load() it to modify it");
    }

    Word* data_ = nullptr;
    std::uint64_t size_ = 0;
    zeroed_block owned_;
    std::shared_ptr<const void> keepalive_;
    bool writable_ = false;  // a view that may be written (never owned)
};

}  // namespace bloomkit::detail
