// src/jobs/spill/integer_bitmap.cpp — see integer_bitmap.hpp.
#include "jobs/spill/integer_bitmap.hpp"

#include <sys/mman.h>

#include <new>

namespace bloomkit::jobs::spill {

integer_bitmap::integer_bitmap() {
    void* at = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (at == MAP_FAILED) throw std::bad_alloc();
    words_ = static_cast<std::uint64_t*>(at);
}

integer_bitmap::~integer_bitmap() { ::munmap(words_, bytes); }

}  // namespace bloomkit::jobs::spill
