// src/jobs/spill/spill_file.cpp — see spill_file.hpp.
#include "jobs/spill/spill_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "jobs/temporary_file.hpp"

namespace bloomkit::jobs::spill {
namespace {

const std::string spilled = "a temporary file of the exact job in";

}  // namespace

spill_file::spill_file(const std::string& directory, std::size_t buffer_size)
    : directory_(directory),
      file_(unnamed_temporary_file(directory)),
      buffer_size_(std::max<std::size_t>(buffer_size, 1)) {}

void spill_file::append(const void* data, std::size_t size) {
    const char* bytes = static_cast<const char*>(data);
    size_ += size;
    if (buffer_.size() + size > buffer_size_) {
        flush();
        if (size >= buffer_size_) {  // a piece larger than the buffer goes straight out
            write_out(bytes, size);
            return;
        }
    }
    if (buffer_.capacity() < buffer_size_) buffer_.reserve(buffer_size_);
    buffer_.insert(buffer_.end(), bytes, bytes + size);
}

void spill_file::flush() {
    write_out(buffer_.data(), buffer_.size());
    buffer_.clear();
}

void spill_file::write_out(const char* bytes, std::size_t size) {
    if (size == 0) return;
    try {
        os::write_all(file_, directory_, bytes, size);
    } catch (const io_error& e) {
        throw io_error("cannot write " + spilled + " '" + directory_ + "'", e.code());
    }
}

void spill_file::finish_writing() {
    flush();
    std::vector<char>().swap(buffer_);
}

std::size_t spill_file::read_at(std::uint64_t offset, char* into, std::size_t size) const {
    return os::read_at(file_, directory_, into, size, offset);
}

spill_reader::spill_reader(const spill_file& file, std::size_t buffer_size)
    : file_(file), buffer_size_(std::max<std::size_t>(buffer_size, 64)) {}

void spill_reader::fill(std::size_t need) {
    if (end_ - begin_ >= need) return;
    if (begin_ > 0) {  // keep the bytes not taken at the front
        std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
    }
    const std::size_t wanted = std::max(need, buffer_size_);
    if (buffer_.size() < wanted) buffer_.resize(wanted);
    if (buffer_.size() > buffer_size_ && need <= buffer_size_ && end_ <= buffer_size_) {
        buffer_.resize(buffer_size_);  // a long piece is past: give its room back
        buffer_.shrink_to_fit();
    }
    while (end_ < need) {
        const std::size_t got = file_.read_at(offset_, buffer_.data() + end_, buffer_.size() - end_);
        if (got == 0) os::throw_io("cannot read back " + spilled, file_.directory(), EIO);
        end_ += got;
        offset_ += got;
    }
}

const char* spill_reader::take(std::size_t size) {
    fill(size);
    const char* at = buffer_.data() + begin_;
    begin_ += size;
    consumed_ += size;
    return at;
}

unsigned char spill_reader::peek() {
    fill(1);
    return static_cast<unsigned char>(buffer_[begin_]);
}

}  // namespace bloomkit::jobs::spill
