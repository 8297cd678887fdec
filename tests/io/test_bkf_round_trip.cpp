// test_bkf_round_trip.cpp — the bkf format for every filter type: round trips through files, maps,
// buffers and streams, and the bytes they write (io/bkf_suite.hpp has the suite).
#include "io/bkf_suite.hpp"

namespace {

using namespace bloomkit_test;

// --- Round trips

TYPED_TEST(Bkf, SamplesAreWhatTheTestsNeed) {
    const auto& all = samples<TypeParam>();
    ASSERT_GE(all.size(), 3U);
    std::vector<std::string> names;
    for (const auto& s : all) {
        SCOPED_TRACE(s.name);
        names.push_back(s.name);
        EXPECT_EQ(found(s.filter, s.keys), s.keys.size());
        EXPECT_FALSE(s.filter.read_only());
        for (const auto& other : all)  // operator== can tell them apart
            EXPECT_EQ(s.filter == other.filter, &s == &other) << "against " << other.name;
    }
    std::ranges::sort(names);
    EXPECT_EQ(std::ranges::adjacent_find(names), names.end()) << "two samples of one name";
    EXPECT_NO_THROW((void)sample_named<TypeParam>("tiny"));
    EXPECT_LE(sample_named<TypeParam>("tiny").filter.size_in_bytes(), 2048U);
    TestFixture::traits::check_samples(all);
}

TYPED_TEST(Bkf, LoadRoundTripPreservesEverything) {
    const auto& all = samples<TypeParam>();
    for (std::size_t i = 0; i < all.size(); ++i) {
        SCOPED_TRACE(all[i].name);
        const auto loaded = bloomkit::load<TypeParam>(this->saved(all[i]));
        EXPECT_FALSE(loaded.read_only());
        expect_same_filter(loaded, all[i]);
        for (std::size_t j = 0; j < all.size(); ++j)
            EXPECT_EQ(loaded == all[j].filter, i == j) << "against " << all[j].name;
    }
}

TYPED_TEST(Bkf, MapRoundTripIsAReadOnlyViewOfTheSameFilter) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->saved(s);
        const auto mapped = bloomkit::map<TypeParam>(path);
        EXPECT_TRUE(mapped->read_only());
        EXPECT_TRUE((*mapped).read_only());
        expect_same_filter(mapped.filter(), s);
        EXPECT_NO_THROW(mapped.verify());
        EXPECT_EQ(mapped.header().kind, TestFixture::traits::code);
        expect_same_header(mapped.header(), bloomkit::read_header(path), true);
        TestFixture::traits::expect_mutators_refuse(mapped.filter(), s);
        expect_same_filter(mapped.filter(), s);  // unchanged by the attempts
    }
}

TYPED_TEST(Bkf, MappedFilterOutlivesItsHandleAndItsFile) {
    const auto& first = samples<TypeParam>().front();
    const auto& last = samples<TypeParam>().back();
    const auto path = this->saved(first);
    const TypeParam view = bloomkit::map<TypeParam>(path).filter();  // the handle is gone; the view keeps the mapping
    const any_filter any_view = *bloomkit::map<any_filter>(path);    // likewise
    bloomkit::save(last.filter, path);                               // replaced: the mappings still see the old file
    EXPECT_TRUE(view.read_only());
    expect_same_filter(view, first);
    expect_holds_same_filter(any_view, first);
    fs::remove(path);  // and gone
    expect_same_filter(view, first);
    expect_holds_same_filter(any_view, first);
    EXPECT_TRUE(std::get<TypeParam>(any_view).read_only());
}

TYPED_TEST(Bkf, AnyFilterOpensEveryKind) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->saved(s);

        const any_filter loaded = bloomkit::load<any_filter>(path);
        expect_holds_same_filter(loaded, s);
        EXPECT_FALSE(std::get<TypeParam>(loaded).read_only());
        expect_holds_same_filter(bloomkit::load_any(path), s);  // the older name

        const auto mapped = bloomkit::map<any_filter>(path);
        expect_holds_same_filter(*mapped, s);
        EXPECT_TRUE(std::get<TypeParam>(*mapped).read_only());
        EXPECT_NO_THROW(mapped.verify());
        EXPECT_EQ(mapped.header().kind, TestFixture::traits::code);
        const auto mapped_again = bloomkit::map_any(path);  // the older name
        expect_holds_same_filter(mapped_again.filter(), s);

        // save(any_filter) writes what save(TypeParam) does.
        const auto again = this->dir_ / "again.bkf";
        bloomkit::save(loaded, again);
        EXPECT_EQ(read_bytes(again), read_bytes(path));
    }
}

TYPED_TEST(Bkf, LoadedFilterKeepsWorkingAndSavesAgain) {
    using this_kind = typename TestFixture::traits;
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        auto loaded = bloomkit::load<TypeParam>(this->saved(s));
        auto original = s.filter;

        // The same operations on the loaded filter and on the original give the same answers
        // and the same filter.
        const auto loaded_log = this_kind::modify(loaded, s);
        const auto original_log = this_kind::modify(original, s);
        EXPECT_EQ(loaded_log, original_log);
        // Still held: every key modify() did not remove.
        const std::size_t removed = std::min(this_kind::removed_by_modify, s.keys.size());
        const sample<TypeParam> modified{
            s.name, original, keys_type(s.keys.begin() + static_cast<std::ptrdiff_t>(removed), s.keys.end())};
        expect_same_filter(loaded, modified);
        EXPECT_EQ(disagreements(loaded, original, s.keys), 0U);
        EXPECT_EQ(disagreements(loaded, original, fresh_keys(200)), 0U);
        if constexpr (this_kind::is_mutable) {
            EXPECT_FALSE(loaded == s.filter) << "modify() changed nothing";
        }

        const auto again = this->dir_ / "again.bkf";
        bloomkit::save(loaded, again);
        expect_same_filter(bloomkit::load<TypeParam>(again), modified);
        const auto mapped = bloomkit::map<TypeParam>(again);
        expect_same_filter(mapped.filter(), modified);
        EXPECT_NO_THROW(mapped.verify());
        expect_same_filter(bloomkit::from_bytes<TypeParam>(bloomkit::to_bytes(loaded)), modified);
    }
}

TYPED_TEST(Bkf, BufferRoundTripPreservesEverything) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const std::vector<std::byte> data = bloomkit::to_bytes(s.filter);
        const auto loaded = bloomkit::from_bytes<TypeParam>(data);
        EXPECT_FALSE(loaded.read_only());
        expect_same_filter(loaded, s);
        expect_holds_same_filter(bloomkit::from_bytes<any_filter>(data), s);

        // The buffer need not be aligned: here it starts one byte into a larger one.
        std::vector<std::byte> shifted(data.size() + 1);
        std::ranges::copy(data, shifted.begin() + 1);
        expect_same_filter(bloomkit::from_bytes<TypeParam>(std::span<const std::byte>(shifted).subspan(1)), s);

        // The buffer's bytes outlive it: the filter owns a copy.
        std::vector<std::byte> scratch = data;
        const auto from_scratch = bloomkit::from_bytes<TypeParam>(scratch);
        std::ranges::fill(scratch, std::byte{0xff});
        scratch.clear();
        scratch.shrink_to_fit();
        expect_same_filter(from_scratch, s);
    }
}

TYPED_TEST(Bkf, StreamRoundTripPreservesEverything) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        {
            std::stringstream stream;
            bloomkit::save(s.filter, stream);
            const auto loaded = bloomkit::load<TypeParam>(stream);
            EXPECT_FALSE(loaded.read_only());
            expect_same_filter(loaded, s);
            EXPECT_EQ(stream.peek(), std::char_traits<char>::eof()) << "the filter was not read to its end";
        }
        {
            std::stringstream stream;
            bloomkit::save(any_filter(s.filter), stream);
            expect_holds_same_filter(bloomkit::load<any_filter>(stream), s);
        }
        {
            // A pipe both ways: written without seeking, read a few bytes at a time.
            pipe_buf out;
            std::ostream writer(&out);
            bloomkit::save(s.filter, writer);
            EXPECT_EQ(out.seeks(), 0);
            pipe_buf in(out.output());
            std::istream reader(&in);
            expect_same_filter(bloomkit::load<TypeParam>(reader), s);
            EXPECT_TRUE(in.unread().empty());
            pipe_buf in_any(out.output());
            std::istream reader_any(&in_any);
            expect_holds_same_filter(bloomkit::load<any_filter>(reader_any), s);
        }
    }
}

TYPED_TEST(Bkf, ConcatenatedFiltersLoadBackInOrder) {
    const auto& all = samples<TypeParam>();
    const std::string tail = "and then something else";
    {
        // A seekable stream: each save seeks back to its own header, not the stream's start.
        std::stringstream stream;
        for (const auto& s : all) bloomkit::save(s.filter, stream);
        stream << tail;
        for (const auto& s : all) {
            SCOPED_TRACE(s.name);
            expect_same_filter(bloomkit::load<TypeParam>(stream, "concatenated"), s);
        }
        EXPECT_EQ(std::string(std::istreambuf_iterator<char>(stream), {}), tail) << "what follows the filters";
    }
    {
        // A pipe, as any_filter, after a filter of another kind.
        pipe_buf out;
        std::ostream writer(&out);
        const any_filter other = another_kind<TypeParam>();
        bloomkit::save(other, writer);
        for (const auto& s : all) bloomkit::save(s.filter, writer);
        writer << tail;
        ASSERT_TRUE(writer.flush());
        EXPECT_EQ(out.seeks(), 0);

        pipe_buf in(out.output());
        std::istream reader(&in);
        EXPECT_TRUE(bloomkit::load<any_filter>(reader) == other);
        for (const auto& s : all) {
            SCOPED_TRACE(s.name);
            expect_holds_same_filter(bloomkit::load<any_filter>(reader), s);
        }
        EXPECT_EQ(as_string(in.unread()), tail);
    }
    {
        // At the end of a stream there is no filter: an empty input.
        std::stringstream stream;
        bloomkit::save(all.front().filter, stream);
        (void)bloomkit::load<TypeParam>(stream);
        expect_format_error("load past the last filter", "the used stream", format_errc::truncated, {"empty (0 bytes)"},
                            [&] { (void)bloomkit::load<TypeParam>(stream, "the used stream"); });
    }
}

// --- The bytes

TYPED_TEST(Bkf, HeaderDescribesTheFile) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->saved(s);
        const bytes file = read_bytes(path);
        ASSERT_GE(file.size(), header_size);

        const file_header h = bloomkit::read_header(path);
        EXPECT_EQ(h.version, format_version);
        EXPECT_EQ(h.kind, TestFixture::traits::code);
        EXPECT_EQ(filter_name(h), TestFixture::traits::display_name());
        EXPECT_EQ(h.hash, s.filter.hash_function().algorithm());
        EXPECT_EQ(h.seed, s.filter.hash_function().seed());
        EXPECT_EQ(h.payload_offset, header_size);
        EXPECT_EQ(h.payload_size, bloomkit::header_of(s.filter).payload_size);  // the kind's checks: expect_header
        EXPECT_EQ(h.payload_checksum, 0U) << "version 2 checksums the payload by chunks";
        EXPECT_EQ(h.flags, 0U);
        EXPECT_EQ(h.chunk_shift, default_chunk_shift);

        // The header, the payload, the chunk table: nothing else.
        const std::uint64_t payload = h.payload_size;
        ASSERT_EQ(file.size(), header_size + payload + 8 * chunk_count(payload) + 8);
        EXPECT_EQ(file.size() - header_size - payload, trailer_size(payload));
        const bytes table = chunk_table(file.data() + header_size, payload);
        EXPECT_TRUE(
            std::equal(table.begin(), table.end(), file.begin() + static_cast<std::ptrdiff_t>(header_size + payload)))
            << "the chunk table";

        EXPECT_TRUE(std::equal(bloomkit::file_magic.begin(), bloomkit::file_magic.end(), file.begin()));
        EXPECT_EQ(get_le(file, field::version, 2), format_version);
        EXPECT_EQ(get_le(file, field::header_size, 2), header_size);
        EXPECT_EQ(get_le(file, field::kind, 2), static_cast<std::uint64_t>(TestFixture::traits::code));
        EXPECT_EQ(file[field::hash], static_cast<unsigned>(s.filter.hash_function().algorithm()));
        EXPECT_EQ(get_le(file, field::seed, 8), s.filter.hash_function().seed());
        EXPECT_EQ(get_le(file, field::expected_keys, 8), h.expected_keys);
        EXPECT_EQ(get_double(file, field::target_fpr), h.target_fpr);
        EXPECT_EQ(get_le(file, field::inserted_count, 8), h.inserted_count);
        EXPECT_EQ(get_le(file, field::payload_offset, 8), header_size);
        EXPECT_EQ(get_le(file, field::payload_size, 8), payload);
        EXPECT_EQ(file[field::key_format], static_cast<unsigned>(s.filter.recorded_key_format()));
        EXPECT_EQ(file[field::funnel], static_cast<unsigned>(s.filter.hash_function().funnel()));
        EXPECT_TRUE(zero_bytes(file, field::funnel + 1, field::extra));
        EXPECT_EQ(get_le(file, field::flags, 4), 0U);
        EXPECT_EQ(get_le(file, field::chunk_shift, 4), default_chunk_shift);
        EXPECT_EQ(get_le(file, field::header_checksum, 8), XXH3_64bits(file.data(), field::header_checksum));
        EXPECT_EQ(h.payload_offset % 64, 0U) << "the payload is 64-byte aligned";

        TestFixture::traits::expect_header(h, file, s.filter);
    }
}

TYPED_TEST(Bkf, HeaderOfIsWhatReadHeaderReturnsButTheChecksum) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->saved(s);
        const file_header expected = bloomkit::read_header(path);

        const file_header of = bloomkit::header_of(s.filter);
        expect_same_header(of, expected, false);
        EXPECT_EQ(of.payload_checksum, 0U) << "header_of computes no checksum";
        expect_same_header(bloomkit::header_of(any_filter(s.filter)), expected, false);
        expect_same_header(bloomkit::header_of(bloomkit::map<TypeParam>(path).filter()), expected, false);

        // The header of the bytes is the header of the file.
        const std::vector<std::byte> data = bloomkit::to_bytes(s.filter);
        expect_same_header(bloomkit::read_header(std::span<const std::byte>(data)), expected, true);
    }
}

TYPED_TEST(Bkf, BuffersAndStreamsHoldExactlyTheFilesBytes) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const bytes file = read_bytes(this->saved(s));
        EXPECT_EQ(from_library(bloomkit::to_bytes(s.filter)), file);
        EXPECT_EQ(from_library(bloomkit::to_bytes(any_filter(s.filter))), file);
        {
            std::stringstream stream;  // seekable, yet written in one pass as well
            bloomkit::save(s.filter, stream);
            EXPECT_EQ(from_string(stream.str()), file);
            EXPECT_EQ(static_cast<std::streamoff>(stream.tellp()), static_cast<std::streamoff>(file.size()))
                << "left at the end of what it wrote";
        }
        {
            std::ostringstream stream;  // after what the stream already holds
            stream << "prefix";
            bloomkit::save(any_filter(s.filter), stream);
            EXPECT_EQ(from_string(stream.str()), concatenated(from_string("prefix"), file));
        }
        {
            pipe_buf pipe;  // not seekable: header, payload, chunk table, in order
            std::ostream stream(&pipe);
            bloomkit::save(s.filter, stream);
            EXPECT_EQ(pipe.output(), file);
            EXPECT_EQ(pipe.seeks(), 0);
        }
        {
            const auto path = this->dir_ / "through_ofstream.bkf";  // a file stream seeks too
            {
                std::ofstream stream(path, std::ios::binary);
                bloomkit::save(s.filter, stream);
            }
            EXPECT_EQ(read_bytes(path), file);
        }
    }
}

TYPED_TEST(Bkf, SavingIsDeterministic) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const auto first = this->saved(s, "first.bkf");
        const bytes expected = read_bytes(first);
        ASSERT_GE(expected.size(), header_size);
        EXPECT_EQ(read_bytes(this->saved(s, "second.bkf")), expected);
        const auto from_load = this->dir_ / "from_load.bkf";
        bloomkit::save(bloomkit::load<TypeParam>(first), from_load);
        EXPECT_EQ(read_bytes(from_load), expected);
        const auto from_map = this->dir_ / "from_map.bkf";
        bloomkit::save(bloomkit::map<TypeParam>(first).filter(), from_map);
        EXPECT_EQ(read_bytes(from_map), expected);
        EXPECT_EQ(from_library(bloomkit::to_bytes(bloomkit::from_bytes<TypeParam>(bloomkit::to_bytes(s.filter)))),
                  expected);
    }
}

TYPED_TEST(Bkf, SaveReplacesAnExistingFileAndLeavesNoTemporary) {
    const auto& first = samples<TypeParam>().front();
    const auto& replacement = samples<TypeParam>().back();
    const auto path = this->saved(first);
    ::chmod(path.c_str(), 0640);

    bloomkit::save(replacement.filter, path);
    expect_same_filter(bloomkit::load<TypeParam>(path), replacement);
    EXPECT_EQ(this->dir_.entries(), std::vector<std::string>{"filter.bkf"});  // no ".filter.bkf.tmp-*"
    EXPECT_EQ(fs::status(path).permissions() & fs::perms::mask,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

}  // namespace
