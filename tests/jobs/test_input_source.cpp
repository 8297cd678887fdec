// Tests of input sources (jobs/input_source.hpp) on real files and pipes: plain bytes as they are,
// gzip (several members, zero padding after the last) and zstd (several frames) decompressed,
// damaged compressed data refused with a message naming the input, a short first line on a
// pipe handed out at once, and idle work done while (and only while) the input has nothing to read.
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>

#include "bloomkit/error.hpp"
#include "bloomkit/os/file.hpp"
#include "jobs/input_source.hpp"
#include "jobs_testing.hpp"

namespace {

using namespace bloomkit_test;
using bloomkit::jobs::compression;
using bloomkit::jobs::idle_work;
using bloomkit::jobs::input_source;
using clock = std::chrono::steady_clock;

std::string gzipped(std::string_view text) {
    z_stream z{};
    if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("deflateInit2");
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 32, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int status = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (status != Z_STREAM_END) throw std::runtime_error("deflate");
    return out;
}

std::string zstd_compressed(std::string_view text) {
    std::string out(ZSTD_compressBound(text.size()), '\0');
    const std::size_t size = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3);
    if (ZSTD_isError(size)) throw std::runtime_error("ZSTD_compress");
    out.resize(size);
    return out;
}

/// Everything `source` gives, read in pieces of `piece` bytes, doing `idle`'s work while it waits.
std::string read_all(input_source& source, std::size_t piece = 4096, const idle_work& idle = {}) {
    std::string text, buffer(piece, '\0');
    while (const std::size_t got = source.read(buffer.data(), buffer.size(), idle)) text.append(buffer.data(), got);
    return text;
}

/// What an input_source makes of a file holding `stored`, and the compression it found.
std::pair<std::string, compression> decoded(const temp_dir& dir, std::string_view stored) {
    write_file(dir / "input", stored);
    const bloomkit::os::file_descriptor file = bloomkit::os::open_for_reading(dir / "input");
    input_source source(file.get(), "input");
    std::string text = read_all(source);
    return {text, source.kind()};
}

/// The message of the error that reading a file holding `stored` throws.
std::string refusal(const temp_dir& dir, std::string_view stored) {
    try {
        decoded(dir, stored);
    } catch (const bloomkit::error& e) {
        return e.what();
    }
    return "(read without an error)";
}

const std::string text = numbered_lines(20'000);

TEST(InputSource, PlainBytesAreReadAsTheyAre) {
    const temp_dir dir;
    EXPECT_EQ(decoded(dir, text), std::make_pair(text, compression::none));
    EXPECT_EQ(decoded(dir, ""), std::make_pair(std::string(), compression::none));
    EXPECT_EQ(decoded(dir, "\x1f"), std::make_pair(std::string("\x1f"), compression::none));  // half a signature
}

TEST(InputSource, GzipMembersAreReadOneAfterAnother) {
    const temp_dir dir;
    EXPECT_EQ(decoded(dir, gzipped(text)), std::make_pair(text, compression::gzip));
    EXPECT_EQ(decoded(dir, gzipped("a\n") + gzipped("") + gzipped("b\n")).first, "a\nb\n");
}

TEST(InputSource, ZeroPaddingAfterTheLastGzipMemberIsIgnored) {
    const temp_dir dir;
    EXPECT_EQ(decoded(dir, gzipped("a\n") + std::string(1000, '\0')).first, "a\n");
    EXPECT_EQ(refusal(dir, gzipped("a\n") + std::string(10, '\0') + "x"),
              "'input' is damaged gzip data: bytes other than zero padding after its last member");
}

TEST(InputSource, ZstdFramesAreReadOneAfterAnother) {
    const temp_dir dir;
    EXPECT_EQ(decoded(dir, zstd_compressed(text)), std::make_pair(text, compression::zstd));
    EXPECT_EQ(decoded(dir, zstd_compressed("a\n") + zstd_compressed("b\n")).first, "a\nb\n");
}

TEST(InputSource, DamagedDataIsRefusedNamingTheInput) {
    const temp_dir dir;
    const std::string gz = gzipped(text), zst = zstd_compressed(text);
    EXPECT_EQ(refusal(dir, gz.substr(0, gz.size() / 2)),
              "'input' is damaged gzip data: the input ends inside a gzip member");
    EXPECT_EQ(refusal(dir, zst.substr(0, zst.size() / 2)),
              "'input' is damaged zstd data: the input ends inside a zstd frame");
    std::string flipped = gz;
    flipped[gz.size() - 6] ^= 0x55;  // the trailer's CRC-32
    EXPECT_EQ(refusal(dir, flipped).rfind("'input' is damaged gzip data: ", 0), 0U) << refusal(dir, flipped);
    flipped = zst;
    flipped[4] ^= 0x08;  // the frame header's reserved bit
    EXPECT_EQ(refusal(dir, flipped).rfind("'input' is damaged zstd data: ", 0), 0U) << refusal(dir, flipped);
}

TEST(InputSource, RawBytesCountWhatWasReadAsStoredAndRewindStartsOver) {
    const temp_dir dir;
    const std::string gz = gzipped(text);
    write_file(dir / "input.gz", gz);
    const bloomkit::os::file_descriptor file = bloomkit::os::open_for_reading(dir / "input.gz");
    input_source source(file.get(), "input.gz");
    EXPECT_EQ(read_all(source), text);
    EXPECT_EQ(source.raw_bytes(), gz.size());
    source.rewind();
    EXPECT_EQ(source.raw_bytes(), 0U);
    EXPECT_EQ(read_all(source, 7), text);
}

TEST(InputSource, AShortFirstLineOnAPipeIsNotHeldBack) {
    pipe_ends pipe;
    pipe.put("4\n");  // the writer stays: waiting for a signature's 4 bytes would wait for ever
    input_source source(pipe.read.get(), "pipe");
    char buffer[64];
    EXPECT_EQ(std::string(buffer, source.read(buffer, sizeof buffer)), "4\n");
    pipe.put("2\n");
    pipe.close_write();
    EXPECT_EQ(read_all(source), "2\n");
}

TEST(InputSource, IdleWorkIsDoneWhileAPipeIsQuietInsideACompressedMember) {
    const std::string gz = gzipped(text);
    const std::size_t half = gz.size() / 2;  // both halves fit in the pipe's 64 KiB
    ASSERT_LT(half, std::size_t{60'000});
    pipe_ends pipe;
    pipe.put(std::string_view(gz).substr(0, half));  // then nothing, the writer open
    input_source source(pipe.read.get(), "pipe");
    int runs = 0;
    // Due at once, until it has run; it sends the rest, so only it ends the input.
    const idle_work idle{[&] { return runs == 0 ? clock::now() : clock::time_point::max(); },
                         [&] {
                             ++runs;
                             pipe.put(std::string_view(gz).substr(half));
                             pipe.close_write();
                         }};
    EXPECT_EQ(read_all(source, 4096, idle), text);
    EXPECT_EQ(runs, 1);
}

TEST(InputSource, IdleWorkIsNotDoneWhileThereIsInputToRead) {
    const temp_dir dir;
    write_file(dir / "input", text);
    const bloomkit::os::file_descriptor file = bloomkit::os::open_for_reading(dir / "input");
    input_source source(file.get(), "input");
    int runs = 0;
    const idle_work always_due{[] { return clock::now(); }, [&] { ++runs; }};
    EXPECT_EQ(read_all(source, 4096, always_due), text);
    EXPECT_EQ(runs, 0);
}

}  // namespace
