// bloomkit/os/huge_pages.hpp — large allocations straight from the kernel, marked for transparent
// huge pages: big filters' arrays and a binary fuse build's temporaries (public for benchmarks
// that give other filters the same pages). 2 MiB pages cut TLB misses (a 1 GB filter is 512 of
// them, not 262,144) and first-touch page faults, which on 4 KiB pages cost several times the
// writes themselves (docs/design/performance.md, "Builds"). MADV_HUGEPAGE is a hint; pages come
// zeroed, and only the ones written take memory.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <limits>
#include <new>
#include <vector>

namespace bloomkit::os {

/// From this size on, allocations are mapped: one huge page.
inline constexpr std::size_t huge_page_bytes = std::size_t{1} << 21;

/// `bytes` of zeroed memory mapped for huge pages. Throws std::bad_alloc.
[[nodiscard]] inline void* map_huge_pages(std::size_t bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    ::madvise(p, bytes, MADV_HUGEPAGE);  // a hint; ignored where THP is off
#endif
    return p;
}

/// Returns memory that map_huge_pages(bytes) gave.
inline void unmap_huge_pages(void* p, std::size_t bytes) noexcept { ::munmap(p, bytes); }

/// Maps arrays of huge_page_bytes and more; smaller ones come from operator new.
template <class T>
struct huge_page_allocator {
    using value_type = T;  ///< what it allocates

    huge_page_allocator() noexcept = default;
    /// Stateless: any instance frees what any other allocated.
    template <class U>
    huge_page_allocator(const huge_page_allocator<U>&) noexcept {}

    /// Throws std::bad_alloc, or std::bad_array_new_length when n * sizeof(T) overflows.
    [[nodiscard]] T* allocate(std::size_t n) {
        if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
        const std::size_t bytes = n * sizeof(T);
        if (bytes >= huge_page_bytes) return static_cast<T*>(map_huge_pages(bytes));
        return static_cast<T*>(::operator new (bytes, std::align_val_t{alignof(T)}));
    }

    /// Frees what allocate(n) returned (unsized delete: Clang declares the sized one only under
    /// -fsized-deallocation).
    void deallocate(T* p, std::size_t n) noexcept {
        const std::size_t bytes = n * sizeof(T);
        if (bytes >= huge_page_bytes) unmap_huge_pages(p, bytes);
        else ::operator delete (p, std::align_val_t{alignof(T)});
    }

    /// Always equal: stateless.
    friend bool operator==(const huge_page_allocator&, const huge_page_allocator&) noexcept { return true; }
};

/// A vector whose large buffers are on huge pages.
template <class T>
using huge_page_vector = std::vector<T, huge_page_allocator<T>>;

}  // namespace bloomkit::os
