// src/jobs/gzip_bytes.cpp — see gzip_bytes.hpp.
#include "jobs/gzip_bytes.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <string>

#include "bloomkit/error.hpp"

namespace bloomkit::jobs {

std::vector<std::byte> gzip_bytes(std::span<const std::byte> bytes) {
    z_stream z{};
    // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw error("cannot start gzip compression (zlib)");
    std::vector<std::byte> out(deflateBound(&z, static_cast<uLong>(std::min<std::size_t>(bytes.size(), ULONG_MAX))) +
                               64);
    std::size_t in_at = 0;
    int status = Z_OK;
    while (status != Z_STREAM_END) {
        const std::size_t in_step = std::min<std::size_t>(bytes.size() - in_at, UINT_MAX);
        z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(bytes.data() + in_at));
        z.avail_in = static_cast<uInt>(in_step);
        if (out.size() - z.total_out < 1 << 16) out.resize(out.size() * 2);
        z.next_out = reinterpret_cast<Bytef*>(out.data() + z.total_out);
        z.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - z.total_out, UINT_MAX));
        const bool last = in_at + in_step == bytes.size();
        status = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
        if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
            deflateEnd(&z);
            throw error("gzip compression failed (zlib " + std::to_string(status) + ")");
        }
        in_at += in_step - z.avail_in;
    }
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

std::vector<std::byte> gunzip_bytes(std::span<const std::byte> compressed, const std::string& name) {
    std::vector<std::byte> out(std::max<std::size_t>(compressed.size() * 4, 1 << 16));
    std::size_t in_at = 0, out_at = 0;
    while (in_at < compressed.size()) {  // one member per round
        z_stream z{};
        if (inflateInit2(&z, 15 + 16) != Z_OK) throw error("cannot start gzip decompression (zlib)");
        int status = Z_OK;
        while (status != Z_STREAM_END) {
            if (out.size() - out_at < 1 << 16) out.resize(out.size() * 2);
            z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(compressed.data() + in_at));
            z.avail_in = static_cast<uInt>(std::min<std::size_t>(compressed.size() - in_at, UINT_MAX));
            z.next_out = reinterpret_cast<Bytef*>(out.data() + out_at);
            z.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - out_at, UINT_MAX));
            const uInt in_before = z.avail_in, out_before = z.avail_out;
            status = inflate(&z, Z_NO_FLUSH);
            in_at += in_before - z.avail_in;
            out_at += out_before - z.avail_out;
            if (status == Z_STREAM_END) break;
            if (status != Z_OK && !(status == Z_BUF_ERROR && z.avail_out == 0)) {
                inflateEnd(&z);
                const bool cut_short = in_at == compressed.size();
                throw file_format_error(cut_short ? format_errc::truncated : format_errc::invalid_field,
                                        "'" + name + "': damaged gzip data" + (cut_short ? " (cut short)" : ""));
            }
        }
        inflateEnd(&z);
        // Zero bytes after the last member are padding, as gzip -d takes them.
        if (std::all_of(compressed.begin() + static_cast<std::ptrdiff_t>(in_at), compressed.end(),
                        [](std::byte b) { return b == std::byte{0}; }))
            break;
    }
    out.resize(out_at);
    return out;
}

}  // namespace bloomkit::jobs
