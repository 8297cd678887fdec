// src/jobs/gzip_bytes.hpp — whole buffers to and from gzip (RFC 1952), for the filter files some
// programs keep compressed (DCSO's `bloom --gzip`). Lines of compressed input are input_source's.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace bloomkit::jobs {

/// `bytes` as one gzip member (zlib's default level). Throws bloomkit::error if zlib fails.
std::vector<std::byte> gzip_bytes(std::span<const std::byte> bytes);

/// The bytes the gzip data `compressed` holds (its members one after another, as gzip -d
/// reads them). Throws file_format_error naming `name` for damaged or cut-short data.
std::vector<std::byte> gunzip_bytes(std::span<const std::byte> compressed, const std::string& name);

}  // namespace bloomkit::jobs
