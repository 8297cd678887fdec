// test_bkf_damage.cpp — the bkf format for every filter type: damaged bytes rejected alike by every
// reader, version 1 files, interrupted updates, the wrong kind, operating-system errors
// (io/bkf_suite.hpp has the suite).
#include "io/bkf_suite.hpp"

namespace {

using namespace bloomkit_test;

// --- Damage: the same bytes, the same reason, whatever reads them

TYPED_TEST(Bkf, EveryFlippedHeaderBitIsDetectedAlike) {
    const bytes good = saved_bytes(this->dir_, sample_named<TypeParam>("tiny").filter);
    for (std::size_t offset = 0; offset < header_size && !this->HasFailure(); ++offset) {
        for (int bit = 0; bit < 8; ++bit) {
            SCOPED_TRACE("byte " + std::to_string(offset) + ", bit " + std::to_string(bit));
            bytes damaged = good;
            damaged[offset] ^= static_cast<unsigned char>(1U << bit);
            // A version this bloomkit reads (3 with bit 0 flipped is 2) is then caught by the checksum.
            const auto version = get_le(damaged, field::version, 2);
            const bool readable_version = version >= version_1 && version <= format_version;
            const format_errc reason = offset < 8                         ? format_errc::bad_magic
                                       : offset < 10 && !readable_version ? format_errc::unsupported_version
                                                                          : format_errc::header_checksum;
            expect_every_reader_rejects<TypeParam>(this->dir_, damaged, {reason, ""});
        }
    }
}

TYPED_TEST(Bkf, FlippedPayloadBytesAreDetectedAlike) {
    for (const auto& s : samples<TypeParam>()) {
        if (s.filter.size_in_bytes() == 0) continue;  // the empty fuse filter has no payload
        SCOPED_TRACE(s.name);
        const bytes good = saved_bytes(this->dir_, s.filter);
        const std::size_t payload = announced_payload(good);
        ASSERT_EQ(chunk_count(payload), 1U) << "the samples fit one chunk (MultiChunkPayloads has more)";
        // A scalable or windowed filter's payload starts with its stage table, which a map reads
        // (unverified) to find the stages: damage there is an invalid field to a map, if not a
        // checksum mismatch to verify().
        std::size_t table = 0;
        if constexpr (std::is_same_v<TypeParam, bloomkit::scalable_bloom_filter>)
            table = stage_entry::size * get_le(good, scalable_field::stages, 4);
        if constexpr (std::is_same_v<TypeParam, bloomkit::windowed_filter>)
            table = stage_entry::size * (get_le(good, scalable_field::stages, 4) + 1);  // G + 1 slots
        std::vector<std::size_t> offsets = {header_size, header_size + table, header_size + payload / 2,
                                            header_size + payload - 1};
        std::ranges::sort(offsets);
        offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
        const std::string chunk =
            "payload checksum mismatch in chunk 0 of 1 (bytes 128 to " + std::to_string(header_size + payload) + ")";
        for (const std::size_t at : offsets) {
            SCOPED_TRACE("byte " + std::to_string(at));
            bytes damaged = good;
            damaged.at(at) ^= 0x10;
            rejection r{format_errc::payload_checksum, chunk, caught::by_payload_checksum};
            if (at < header_size + table) r.map_reason = format_errc::invalid_field;
            expect_every_reader_rejects<TypeParam>(this->dir_, damaged, r);
        }
    }
}

TYPED_TEST(Bkf, DamagedChunkTablesAreDetectedAlike) {
    // After the payload: each chunk's checksum, then the table's own. Damage to either is a
    // payload checksum error (a map opens, and verify() finds it); a chunk checksum forged along
    // with the table's names its chunk.
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const bytes good = saved_bytes(this->dir_, s.filter);
        const std::size_t payload = announced_payload(good);
        const std::size_t table = header_size + payload;  // where the chunk table starts
        const std::size_t entries = chunk_count(payload);
        ASSERT_EQ(good.size(), table + 8 * entries + 8);
        const rejection table_mismatch{format_errc::payload_checksum, "the chunk table does not match its checksum",
                                       caught::by_payload_checksum};
        {
            SCOPED_TRACE("the table's checksum");
            bytes damaged = good;
            damaged.back() ^= 0x01;
            expect_every_reader_rejects<TypeParam>(this->dir_, damaged, table_mismatch);
        }
        if (entries == 0) {
            // An empty payload has no chunks: the table is its checksum alone, of no entries.
            EXPECT_EQ(get_le(good, table, 8), XXH3_64bits(nullptr, 0));
            continue;
        }
        {
            SCOPED_TRACE("chunk 0's checksum");
            bytes damaged = good;
            damaged.at(table) ^= 0x80;
            expect_every_reader_rejects<TypeParam>(this->dir_, damaged, table_mismatch);
        }
        {
            SCOPED_TRACE("chunk 0's checksum, the table's recomputed");
            bytes damaged = good;
            put_le(damaged, table, get_le(damaged, table, 8) + 1, 8);
            put_le(damaged, damaged.size() - 8, XXH3_64bits(damaged.data() + table, 8 * entries), 8);
            expect_every_reader_rejects<TypeParam>(
                this->dir_, damaged,
                {format_errc::payload_checksum, "payload checksum mismatch in chunk 0 of 1",
                 caught::by_payload_checksum});
        }
    }
}

TYPED_TEST(Bkf, EveryTruncationIsDetectedAlike) {
    // A prefix of the signature is not a wrong signature: an input shorter than 8 bytes whose
    // bytes match the magic's first ones is truncated, and so is an empty one.
    const auto expect_cut_rejected = [&](const bytes& good, std::size_t length) {
        SCOPED_TRACE("length " + std::to_string(length));
        const bytes cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(length));
        expect_every_reader_rejects<TypeParam>(this->dir_, cut,
                                               {format_errc::truncated, length == 0 ? "empty (0 bytes)" : "truncated"});
    };
    // Every length of the tiny sample.
    const bytes tiny = saved_bytes(this->dir_, sample_named<TypeParam>("tiny").filter);
    for (std::size_t length = 0; length < tiny.size() && !this->HasFailure(); ++length)
        expect_cut_rejected(tiny, length);
    // Telling lengths of the others.
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const bytes good = saved_bytes(this->dir_, s.filter);
        const std::size_t payload = good.size() - header_size;
        std::vector<std::size_t> lengths = {1, 5, 7, 8, 9, 10, 64, 119, 127};
        if (payload > 0)
            lengths.insert(lengths.end(), {header_size, header_size + 1, header_size + payload / 2, good.size() - 1});
        for (const std::size_t length : lengths) expect_cut_rejected(good, length);
    }
}

TYPED_TEST(Bkf, TrailingBytesAreRejectedByFilesAndBuffersButLeftInAStream) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const bytes good = saved_bytes(this->dir_, s.filter);
        for (const std::size_t extra : {1U, 64U}) {
            SCOPED_TRACE(std::to_string(extra) + " bytes more");
            const bytes trailer(extra, 0);
            const bytes longer = concatenated(good, trailer);
            expect_files_and_buffers_reject<TypeParam>(
                this->dir_, longer,
                {format_errc::invalid_field, std::to_string(extra) + " unexpected bytes after the filter"});
            // A stream is read up to the end of the filter, and what follows is left in it.
            std::istringstream stream(as_string(longer));
            expect_same_filter(bloomkit::load<TypeParam>(stream), s);
            EXPECT_EQ(from_string(std::string(std::istreambuf_iterator<char>(stream), {})), trailer);
            pipe_buf pipe(longer);
            std::istream from_pipe(&pipe);
            expect_holds_same_filter(bloomkit::load<any_filter>(from_pipe), s);
            EXPECT_EQ(pipe.unread(), trailer);
        }
    }
}

TYPED_TEST(Bkf, ForeignBytesAreNotABloomkitFilter) {
    const bytes good = saved_bytes(this->dir_, samples<TypeParam>().front().filter);
    {
        bytes other = good;
        std::memcpy(other.data(), "BLOOMKIT", 8);
        expect_every_reader_rejects<TypeParam>(this->dir_, other, {format_errc::bad_magic, "not a bloomkit filter"});
    }
    // Short, and not a prefix of the signature.
    expect_every_reader_rejects<TypeParam>(this->dir_, from_string("hello"),
                                           {format_errc::bad_magic, "not a bloomkit filter"});
    {
        // What an FTP text-mode transfer does to a file: every CR LF becomes LF.
        bytes mangled;
        for (std::size_t i = 0; i < good.size(); ++i)
            if (!(good[i] == '\r' && i + 1 < good.size() && good[i + 1] == '\n')) mangled.push_back(good[i]);
        ASSERT_LT(mangled.size(), good.size());
        expect_every_reader_rejects<TypeParam>(this->dir_, mangled, {format_errc::bad_magic, ""});
    }
}

TYPED_TEST(Bkf, OtherFormatVersionsAreUnsupported) {
    const bytes good = saved_bytes(this->dir_, samples<TypeParam>().front().filter);
    for (const std::uint64_t version : {4, 5, 0xffff}) {
        SCOPED_TRACE("version " + std::to_string(version));
        bytes newer = good;
        put_le(newer, field::version, version, 2);
        reseal(newer);
        expect_every_reader_rejects<TypeParam>(this->dir_, newer, {format_errc::unsupported_version, "upgrade"});
        expect_files_and_buffers_reject<TypeParam>(
            this->dir_, newer,
            {format_errc::unsupported_version,
             "written in file format version " + std::to_string(version) + "; this bloomkit reads versions 1 to 3"});
    }

    bytes older = good;
    put_le(older, field::version, 0, 2);
    reseal(older);
    expect_every_reader_rejects<TypeParam>(this->dir_, older, {format_errc::unsupported_version, "version 0"});
    try {
        (void)bloomkit::from_bytes<TypeParam>(as_span(older));
    } catch (const bloomkit::file_format_error& e) {
        EXPECT_FALSE(mentions(e.what(), "upgrade")) << "an older version needs no upgrade";
    }
}

// --- Version 1 files, and updates in place

TYPED_TEST(Bkf, Version1FilesStillLoadAndAnswerAsBefore) {
    // A version 1 file (hash 1 or 2, the payload's checksum at 88, no chunk table) of each sample
    // a version 1 file can hold: every reader opens it as the same filter, and saved again it is
    // the version 2 file of that filter, hash algorithm kept.
    if (!has_version_1_sample<TypeParam>()) GTEST_SKIP() << "Guava's and DCSO's layouts came after version 1";
    std::size_t tried = 0;
    for (const auto& s : samples<TypeParam>()) {
        if (!in_version_1(s.filter.hash_function().algorithm())) continue;  // not in version 1
        SCOPED_TRACE(s.name);
        ++tried;
        bytes v2 = saved_bytes(this->dir_, s.filter);
        v2[field::key_format] = key_code::unrecorded;  // what version 1 cannot say is not said again
        reseal(v2);
        const bytes v1 = to_version_1(v2);
        ASSERT_EQ(v1.size(), header_size + announced_payload(v2)) << "no chunk table";
        const auto path = this->dir_ / "version_1.bkf";
        write_bytes(path, v1);

        // The header: version 1, its checksum at 88, otherwise the version 2 file's.
        const file_header h = bloomkit::read_header(path);
        EXPECT_EQ(h.version, 1U);
        EXPECT_EQ(h.hash, s.filter.hash_function().algorithm());
        EXPECT_EQ(h.payload_checksum, XXH3_64bits(v1.data() + header_size, v1.size() - header_size));
        EXPECT_EQ(h.flags, 0U);
        file_header expected = bloomkit::read_header(as_span(v2));
        expected.version = 1;
        expected.payload_checksum = h.payload_checksum;
        expected.chunk_shift = h.chunk_shift;  // no such field in version 1
        expect_same_header(h, expected, true);
        expect_same_header(bloomkit::read_header(as_span(v1)), expected, true);

        // Every reader: the same filter, the same answers.
        expect_same_filter(bloomkit::load<TypeParam>(path), s);
        expect_holds_same_filter(bloomkit::load<any_filter>(path), s);
        {
            const auto mapped = bloomkit::map<TypeParam>(path);
            expect_same_filter(mapped.filter(), s);
            EXPECT_EQ(mapped.header().version, 1U);
            EXPECT_NO_THROW(mapped.verify());
            const auto mapped_any = bloomkit::map<any_filter>(path);
            expect_holds_same_filter(*mapped_any, s);
            EXPECT_NO_THROW(mapped_any.verify());
        }
        expect_same_filter(bloomkit::from_bytes<TypeParam>(as_span(v1)), s);
        expect_holds_same_filter(bloomkit::from_bytes<any_filter>(as_span(v1)), s);
        {
            // A stream of a version 1 filter, then a version 2 one: each read to its own end.
            std::istringstream stream(as_string(concatenated(concatenated(v1, v2), from_string("tail"))));
            expect_same_filter(bloomkit::load<TypeParam>(stream), s);
            expect_holds_same_filter(bloomkit::load<any_filter>(stream), s);
            EXPECT_EQ(std::string(std::istreambuf_iterator<char>(stream), {}), "tail");
            pipe_buf pipe(concatenated(v1, from_string("tail")));
            std::istream from_pipe(&pipe);
            expect_same_filter(bloomkit::load<TypeParam>(from_pipe), s);
            EXPECT_EQ(as_string(pipe.unread()), "tail");
        }

        // Saved again: the current version, the same hash code, exactly the file it came from.
        const auto again = this->dir_ / "again.bkf";
        bloomkit::save(bloomkit::load<TypeParam>(path), again);
        EXPECT_EQ(read_bytes(again), v2);
        EXPECT_EQ(read_bytes(again).at(field::hash), static_cast<unsigned>(s.filter.hash_function().algorithm()));
        bloomkit::save(bloomkit::map<TypeParam>(path).filter(), again);
        EXPECT_EQ(read_bytes(again), v2);
        EXPECT_EQ(from_library(bloomkit::to_bytes(bloomkit::from_bytes<TypeParam>(as_span(v1)))), v2);
        const file_header resaved = bloomkit::header_of(bloomkit::load<TypeParam>(path));
        EXPECT_EQ(resaved.version, format_version);
        EXPECT_EQ(resaved.hash, s.filter.hash_function().algorithm());

        // And it keeps working: modified after a load, it answers as the original modified alike.
        auto loaded = bloomkit::load<TypeParam>(path);
        auto original = s.filter;
        EXPECT_EQ(TestFixture::traits::modify(loaded, s), TestFixture::traits::modify(original, s));
        EXPECT_TRUE(loaded == original);
    }
    EXPECT_GE(tried, 1U) << "no sample hashes as a version 1 file can";
}

TYPED_TEST(Bkf, Version1FilesAreCheckedAsVersion1) {
    if (!has_version_1_sample<TypeParam>()) GTEST_SKIP() << "Guava's and DCSO's layouts came after version 1";
    const sample<TypeParam>& s = version_1_sample<TypeParam>();
    const bytes v1 = to_version_1(saved_bytes(this->dir_, s.filter));
    {
        SCOPED_TRACE("hash 3: version 2's");
        bytes forged = v1;
        forged[field::hash] = 3;
        reseal(forged);
        expect_every_reader_rejects<TypeParam>(this->dir_, forged,
                                               {format_errc::invalid_field, "unknown hash algorithm 3"});
    }
    {
        SCOPED_TRACE("the interrupted-update flag: a reserved byte in version 1");
        bytes forged = v1;
        put_le(forged, field::flags, flag::interrupted_update, 4);
        reseal(forged);
        expect_every_reader_rejects<TypeParam>(this->dir_, forged, {format_errc::invalid_field, "reserved byte 112"});
    }
    {
        SCOPED_TRACE("a damaged payload");
        bytes damaged = v1;
        if (damaged.size() > header_size) {
            damaged.back() ^= 0x02;
            expect_every_reader_rejects<TypeParam>(
                this->dir_, damaged,
                {format_errc::payload_checksum, "payload checksum mismatch", caught::by_payload_checksum});
        }
    }
    {
        SCOPED_TRACE("cut short");
        for (const std::size_t length : {header_size - 1, v1.size() - 1}) {
            const bytes cut(v1.begin(), v1.begin() + static_cast<std::ptrdiff_t>(length));
            expect_every_reader_rejects<TypeParam>(this->dir_, cut, {format_errc::truncated, "truncated"});
        }
    }
}

TYPED_TEST(Bkf, InterruptedUpdateIsReportedButTheMapOpens) {
    // Flags bit 0: an update in place began and did not finish. Loading (file, buffer, stream)
    // and verify() say so (interrupted_update, before any checksum); read_header and map open it.
    const rejection interrupted{format_errc::interrupted_update, "an update in place was interrupted",
                                caught::by_payload_checksum};
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        bytes flagged = saved_bytes(this->dir_, s.filter);
        put_le(flagged, field::flags, flag::interrupted_update, 4);
        reseal(flagged);
        EXPECT_EQ(bloomkit::read_header(as_span(flagged)).flags, flag::interrupted_update);
        expect_every_reader_rejects<TypeParam>(this->dir_, flagged, interrupted);

        // The map answers from the payload as it is (every key the file held before).
        const auto path = this->dir_ / "flagged.bkf";
        write_bytes(path, flagged);
        {
            const auto mapped = bloomkit::map<TypeParam>(path);
            EXPECT_EQ(mapped.header().flags, flag::interrupted_update);
            expect_same_filter(mapped.filter(), s);
            expect_format_error("verify()", path.string(), format_errc::interrupted_update,
                                {"the next update in place"}, [&] { mapped.verify(); });
        }

        // Half an update: some payload bits added, the chunk checksums not yet rewritten. Still
        // an interrupted update, not a damaged file.
        const std::size_t payload = announced_payload(flagged);
        if (payload == 0) continue;
        bytes half = flagged;
        half.at(header_size + payload / 2) |= 0x41;
        if (half == flagged) half.at(header_size + payload / 2) ^= 0x08;
        expect_every_reader_rejects<TypeParam>(this->dir_, half, interrupted);

        // Without the flag, the same bytes are a damaged file: the checksums no longer vouch.
        bytes unflagged = half;
        put_le(unflagged, field::flags, 0, 4);
        reseal(unflagged);
        expect_every_reader_rejects<TypeParam>(
            this->dir_, unflagged,
            {format_errc::payload_checksum, "payload checksum mismatch in chunk 0", caught::by_payload_checksum});
    }
}

// --- The wrong kind

/// The file at `path` (its bytes `data`, holding a filter named `stored`) read as an `Asked` by
/// every reader: opened when it is its own kind, wrong_kind otherwise. A function of the asked
/// type alone: instantiated once per type, not once per pair of types (a lambda per pair made
/// this file the suite's slowest to compile).
template <class Asked>
void expect_read_as(const std::filesystem::path& path, const bytes& data, const std::string& stored, bool own_kind) {
    SCOPED_TRACE("a " + stored + " opened as a " + kind_of<Asked>::display_name());
    const auto from_stream = [&] {
        std::istringstream stream(as_string(data));
        return bloomkit::load<Asked>(stream, "the stream");
    };
    if (own_kind) {
        EXPECT_NO_THROW((void)bloomkit::load<Asked>(path));
        EXPECT_NO_THROW((void)bloomkit::map<Asked>(path));
        EXPECT_NO_THROW((void)bloomkit::from_bytes<Asked>(as_span(data)));
        EXPECT_NO_THROW((void)from_stream());
        return;
    }
    const std::string file = path.string();
    const std::vector<std::string> parts = {"holds a " + stored, "not a " + kind_of<Asked>::display_name()};
    const auto wrong = format_errc::wrong_kind;
    expect_format_error("load", file, wrong, parts, [&] { (void)bloomkit::load<Asked>(path); });
    expect_format_error("map", file, wrong, parts, [&] { (void)bloomkit::map<Asked>(path); });
    expect_format_error("from_bytes", "the buffer", wrong, parts,
                        [&] { (void)bloomkit::from_bytes<Asked>(as_span(data), "the buffer"); });
    expect_format_error("load(stream)", "the stream", wrong, parts, [&] { (void)from_stream(); });
}

TYPED_TEST(Bkf, EveryOtherTypeIsTheWrongKind) {
    // Each sample (the empty fuse filter, which has no fingerprints at all, knows its variant
    // too) opened as every type: wrong_kind unless it is its own, by every reader.
    using Stored = TypeParam;
    for (const auto& s : samples<Stored>()) {
        SCOPED_TRACE(s.name);
        const auto path = this->saved(s);
        const bytes data = read_bytes(path);
        bloomkit::for_each_filter_type([&]<class Asked>(std::type_identity<Asked>) {
            expect_read_as<Asked>(path, data, kind_of<Stored>::display_name(), std::is_same_v<Stored, Asked>);
        });
    }
}

// --- Operating-system errors

TYPED_TEST(Bkf, MissingFileIsAnIoErrorNamingIt) {
    const auto path = this->dir_ / "no-such-filter.bkf";
    const auto path_name = path.string();
    const auto missing = std::errc::no_such_file_or_directory;
    expect_io_error("load", path_name, missing, [&] { (void)bloomkit::load<TypeParam>(path); });
    expect_io_error("map", path_name, missing, [&] { (void)bloomkit::map<TypeParam>(path); });
    expect_io_error("load<any_filter>", path_name, missing, [&] { (void)bloomkit::load<any_filter>(path); });
    expect_io_error("map<any_filter>", path_name, missing, [&] { (void)bloomkit::map<any_filter>(path); });
    expect_io_error("load_any", path_name, missing, [&] { (void)bloomkit::load_any(path); });
    expect_io_error("map_any", path_name, missing, [&] { (void)bloomkit::map_any(path); });
    expect_io_error("read_header", path_name, missing, [&] { (void)bloomkit::read_header(path); });
}

TYPED_TEST(Bkf, DirectoryIsAnIoError) {
    const auto& path = this->dir_.path();
    const auto path_name = path.string();
    const auto is_directory = std::errc::is_a_directory;
    expect_io_error("load", path_name, is_directory, [&] { (void)bloomkit::load<TypeParam>(path); });
    expect_io_error("map", path_name, is_directory, [&] { (void)bloomkit::map<TypeParam>(path); });
    expect_io_error("load<any_filter>", path_name, is_directory, [&] { (void)bloomkit::load<any_filter>(path); });
    expect_io_error("map<any_filter>", path_name, is_directory, [&] { (void)bloomkit::map<any_filter>(path); });
    expect_io_error("read_header", path_name, is_directory, [&] { (void)bloomkit::read_header(path); });
}

TYPED_TEST(Bkf, SaveIntoAMissingDirectoryFailsAndCreatesNothing) {
    const auto existing = this->saved(samples<TypeParam>().front());
    const bytes before = read_bytes(existing);

    const auto missing_dir = this->dir_ / "no-such-dir";
    const auto path = missing_dir / "filter.bkf";
    expect_io_error("save", missing_dir.string(), std::errc::no_such_file_or_directory,
                    [&] { bloomkit::save(samples<TypeParam>().back().filter, path); });
    EXPECT_FALSE(fs::exists(missing_dir));
    EXPECT_EQ(this->dir_.entries(), std::vector<std::string>{"filter.bkf"});
    EXPECT_EQ(read_bytes(existing), before);
}

TYPED_TEST(Bkf, FailedReplaceLeavesTheDestinationAndNoTemporary) {
    // A directory where the file should go: rename() could not put a file over it, and the save
    // must fail, leaving the directory as it was and no temporary file.
    const auto path = this->dir_ / "filter.bkf";
    fs::create_directory(path);
    write_bytes(path / "inside", {'x'});

    expect_io_error("save", path.string(), std::errc::is_a_directory,
                    [&] { bloomkit::save(samples<TypeParam>().front().filter, path); });
    EXPECT_TRUE(fs::is_directory(path));
    EXPECT_EQ(read_bytes(path / "inside"), bytes{'x'});
    EXPECT_EQ(this->dir_.entries(), std::vector<std::string>{"filter.bkf"});
}

TYPED_TEST(Bkf, FailedWriteLeavesTheDestinationAndNoTemporary) {
    // The save fails after its temporary file was partly written (here the file size limit
    // stops it inside the payload): the destination keeps its old contents, and the temporary
    // file is gone.
    const auto& first = samples<TypeParam>().front();
    const auto path = this->saved(samples<TypeParam>().back());
    const bytes before = read_bytes(path);
    ASSERT_GT(first.filter.size_in_bytes(), 1U);
    std::exception_ptr failure;  // checked once the limit is lifted: GoogleTest's output may be a file too
    {
        const file_size_limit limit(header_size + 1);
        try {
            bloomkit::save(first.filter, path);
        } catch (...) {
            failure = std::current_exception();
        }
    }
    expect_io_error("save", path.string(), std::errc::file_too_large, [&] {
        if (failure) std::rethrow_exception(failure);
    });
    EXPECT_EQ(read_bytes(path), before);
    EXPECT_EQ(this->dir_.entries(), std::vector<std::string>{"filter.bkf"});
}

TYPED_TEST(Bkf, BrokenStreamsAreIoErrors) {
    for (const auto& s : samples<TypeParam>()) {
        SCOPED_TRACE(s.name);
        const bytes good = from_library(bloomkit::to_bytes(s.filter));
        for (const std::size_t room : {std::size_t{0}, good.size() - 1}) {
            SCOPED_TRACE("a device that takes " + std::to_string(room) + " bytes");
            broken_buf device(room);
            std::ostream out(&device);
            expect_io_error("save", "cannot write the stream", std::nullopt, [&] { bloomkit::save(s.filter, out); });
            broken_buf reading(0, good, room);
            std::istream in(&reading);
            expect_io_error("load", "cannot read the stream", std::nullopt,
                            [&] { (void)bloomkit::load<TypeParam>(in); });
        }
    }
}

}  // namespace
