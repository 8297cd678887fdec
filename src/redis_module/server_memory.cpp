// src/redis_module/server_memory.cpp — see server_memory.hpp.
#include "redis_module/server_memory.hpp"

#include <cstdint>
#include <cstring>
#include <new>

#include "redis_module/module_api.hpp"

namespace bloomkit::redis_module {
namespace {

constexpr std::size_t alignment = 64;

}  // namespace

void* server_memory::allocate_zeroed(std::size_t bytes) {
    // The server's allocator aligns to at least 8 bytes, so rounding up past the start leaves 8 to
    // 64 bytes in front of the array: room for the pointer deallocate() must hand back.
    if (bytes > SIZE_MAX - alignment) throw std::bad_alloc();
    void* raw = api.calloc(1, bytes + alignment);
    if (raw == nullptr) throw std::bad_alloc();
    const auto address = reinterpret_cast<std::uintptr_t>(raw);
    auto* aligned = reinterpret_cast<unsigned char*>((address + alignment) & ~std::uintptr_t{alignment - 1});
    std::memcpy(aligned - sizeof raw, &raw, sizeof raw);
    return aligned;
}

void server_memory::deallocate(void* p, std::size_t) noexcept {
    void* raw = nullptr;
    std::memcpy(&raw, static_cast<unsigned char*>(p) - sizeof raw, sizeof raw);
    api.free(raw);
}

}  // namespace bloomkit::redis_module
