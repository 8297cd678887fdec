// bloomkit/memory.hpp — where filters get their bit arrays, for a program that must own that
// choice. By default an array of 2 MiB or more is mapped for huge pages (os/huge_pages.hpp) and a
// smaller one comes from aligned operator new. A program whose memory someone else accounts for
// installs its own source: bloomkit's Redis module takes every filter from RedisModule_Calloc, so
// that Redis counts filters toward used_memory and maxmemory as it counts its own values.
//
// The hook follows std::pmr::set_default_resource: process-wide, meant to be set once before
// filters are made, and each array remembers the source that gave it, so a later change never
// frees memory through the wrong one. It is not a std::pmr::memory_resource because a filter wants
// zeroed memory, which calloc and mmap give without touching a page; memset on a gigabyte would.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstring>
#include <new>

#include "bloomkit/os/huge_pages.hpp"

namespace bloomkit {

/// A source of filters' bit arrays.
class filter_memory_resource {
public:
    filter_memory_resource() = default;
    filter_memory_resource(const filter_memory_resource&) = delete;
    filter_memory_resource& operator=(const filter_memory_resource&) = delete;
    virtual ~filter_memory_resource() = default;

    /// `bytes` (more than 0) of zeroed memory, 64-byte aligned. Throws std::bad_alloc.
    [[nodiscard]] virtual void* allocate_zeroed(std::size_t bytes) = 0;
    /// Returns what allocate_zeroed(bytes) gave.
    virtual void deallocate(void* p, std::size_t bytes) noexcept = 0;
};

/// The built-in source: huge pages from 2 MiB on (taking memory only where keys land), aligned
/// operator new below.
[[nodiscard]] inline filter_memory_resource* default_filter_memory_resource() noexcept {
    struct built_in final : filter_memory_resource {
        void* allocate_zeroed(std::size_t bytes) override {
            if (bytes >= os::huge_page_bytes) return os::map_huge_pages(bytes);
            void* p = ::operator new (bytes, std::align_val_t{64});
            return std::memset(p, 0, bytes);
        }
        void deallocate(void* p, std::size_t bytes) noexcept override {
            if (bytes >= os::huge_page_bytes) os::unmap_huge_pages(p, bytes);
            else ::operator delete (p, std::align_val_t{64});
        }
    };
    static built_in resource;
    return &resource;
}

namespace memory_detail {
inline std::atomic<filter_memory_resource*>& installed() noexcept {
    static std::atomic<filter_memory_resource*> resource{default_filter_memory_resource()};
    return resource;
}
}  // namespace memory_detail

/// Makes `resource` the source of every filter array allocated from now on (nullptr: the built-in
/// one) and returns the previous source. `resource` must outlive every array it gives.
inline filter_memory_resource* set_filter_memory_resource(filter_memory_resource* resource) noexcept {
    return memory_detail::installed().exchange(resource != nullptr ? resource : default_filter_memory_resource());
}

/// The source new filter arrays come from.
[[nodiscard]] inline filter_memory_resource* get_filter_memory_resource() noexcept {
    return memory_detail::installed().load(std::memory_order_acquire);
}

}  // namespace bloomkit
