"""One key, every face (docs/KEYS.md): a key of each format — text, i64, u64, u32 — added through any
face of bloomkit is found through every other, and a key or a format that a filter cannot take is
refused through every face, never answered "definitely not".

The faces (faces.py): C++ (faces_cpp: typed keys, block and split-block filters), the command
(build, add, check), Python (BloomFilter with key_format= and Python scalars; without it, numpy
arrays of every width and byte order), Redis from the command and from Python, and Dask on a
cluster of two worker processes. A filter moves between the stores as users move it: a file into
Redis by `redis push` or RedisBloomFilter.push, back by `redis pull` or .pull().

The keys are drawn by hypothesis within each format's range, always with its edges: 0, 2^32 - 1,
2^63 - 1, -2^63, 2^64 - 1; numbers spelled with leading zeros (and "-0") on the lines; the empty
key, bytes that are not UTF-8, '\r' and NUL inside a key, a key of 100,000 bytes. Text keys are
line-safe: no '\n', and no trailing '\r', which the faces that read lines take for a CRLF ending.
"""
import itertools
import os

import pytest

from conftest import missing_pieces

MISSING = missing_pieces()
if MISSING:
    pytest.skip("a face cannot run here; missing: " + "; ".join(MISSING), allow_module_level=True)

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import bloomkit  # noqa: E402
from faces import (FACES, CommandFace, CppFace, CppSplitBlockFace, Keys, NumpyFace, PythonFace,  # noqa: E402
                   RedisCommandFace, RedisPythonFace, Refused, Stores, line_of)

FORMATS = ["text", "i64", "u64", "u32"]
RANGES = {"u64": (0, 2**64 - 1), "i64": (-2**63, 2**63 - 1), "u32": (0, 2**32 - 1)}
EDGES = {
    "text": [b"", b"a\rb", b"\r\rleading", b"\xff\xfe\x80 not UTF-8", b"\x00", b"nul at the end\x00", "é 日本".encode(),
             b" spaced ", b"\t", b"-5", b"007", b"18446744073709551615", b"long " * 20_000],
    "u64": [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1],
    "i64": [-2**63, -2**63 + 1, -2**31, -1, 0, 1, 2**31 - 1, 2**32 - 1, 2**63 - 1],
    "u32": [0, 1, 2**31, 2**32 - 1],
}
WRITERS = FACES
READERS = [face for face in FACES if face is not CppSplitBlockFace]  # it reads as CppFace does
EXAMPLES = settings(max_examples=5, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def line_safe(key: bytes) -> bytes:
    # No '\n' in a line, and one trailing '\r' is the line's CRLF ending, not the key's.
    return key.replace(b"\n", b"\r").rstrip(b"\r")


TEXT = st.one_of(st.binary(max_size=40), st.text(max_size=20).map(str.encode)).map(line_safe)


@st.composite
def key_sets(draw, key_format):
    """Keys of the format: the edges and up to 24 drawn ones, in a drawn order, each number spelled
    on its line with 0 to 3 leading zeros (0 as "-0" too, for i64)."""
    drawn = draw(st.lists(TEXT if key_format == "text" else st.integers(*RANGES[key_format]), max_size=24))
    values = draw(st.permutations(list(dict.fromkeys(EDGES[key_format] + drawn))))
    if key_format == "text":
        return Keys.of(values)
    zeros = draw(st.lists(st.integers(0, 3), min_size=len(values), max_size=len(values)))
    return Keys.of(values, [b"-0" if v == 0 and key_format == "i64" and z % 2 else line_of(v, z)
                            for v, z in zip(values, zeros)])


def absent_keys(key_format, keys, count=20):
    """Keys of the format that `keys` lacks: asked too, so that a face answering "present" to
    everything is caught."""
    if key_format == "text":
        candidates = (b"absent %d" % i for i in itertools.count())
    else:
        low, high = RANGES[key_format]
        candidates = (low + i * 0x9E3779B97F4A7C15 % (high - low + 1) for i in itertools.count(1))
    taken = set(keys.values)
    return Keys.of(list(itertools.islice((c for c in candidates if c not in taken), count)))


@pytest.fixture(scope="module")
def stores(tmp_path_factory, redis_url):
    return Stores(os.environ["BLOOMKIT_CLI"], tmp_path_factory.mktemp("filters"), redis_url)


@pytest.fixture(scope="module")
def faces(stores, dask_client):
    return {face: face(stores) for face in FACES}


def found_all(answers) -> bool:
    """Every way a face asked found every key it asked (None: a key that way did not ask)."""
    return all(a is not False for found in answers.values() for a in found)


def short(values, limit=3):
    return ", ".join(repr(v if len(repr(v)) < 60 else repr(v)[:57] + "...") for v in values[:limit])


# --- The matrix: written through one face, read through every other ----------------------------------


@pytest.mark.parametrize("key_format", FORMATS)
@pytest.mark.parametrize("writer", WRITERS, ids=lambda face: face.name)
@EXAMPLES
@given(data=st.data())
def test_keys_added_through_one_face_are_found_through_every_face(faces, stores, writer, key_format, data):
    keys = data.draw(key_sets(key_format), label="keys")
    place = stores.new(writer.store, writer.layout)
    faces[writer].write(place, key_format, keys)
    assert stores.recorded(place) == key_format, f"{writer.name} made a filter that records another format"
    probe = keys + absent_keys(key_format, keys)
    for reader in READERS:
        face = faces[reader]
        if place.layout != "block" and face.store == "redis":
            # Redis holds block Bloom filters: another layout is refused, never copied as if it were one.
            with pytest.raises(Refused, match="block"):
                stores.moved(place, face.store, face.transfer)
            continue
        found = face.check(stores.moved(place, face.store, face.transfer), probe)
        for how, answers in found.items():
            cell = f"{key_format} keys added through {writer.name}, checked through {reader.name} ({how})"
            assert len(answers) == len(probe), f"{cell}: {len(answers)} answers to {len(probe)} keys"
            missed = [keys.values[i] for i in range(len(keys)) if answers[i] is False]
            assert not missed, f"{cell}: {len(missed)} of {len(keys)} answered 'definitely not': {short(missed)}"
            strangers = [a for a in answers[len(keys):] if a is not None]
            assert len(strangers) < 10 or not all(strangers), f"{cell}: every absent key answered present"


# --- Keys a filter cannot hold: refused through every face -----------------------------------------

# Two keys each format holds, and keys it does not: outside its range, or of the other kind.
GOOD = {"text": [b"kept", b"other"], "u64": [5, 2**64 - 2], "i64": [-5, 6], "u32": [7, 2**32 - 2]}
OUT_OF_RANGE = [("u64", -1), ("i64", 2**63), ("u32", 2**32 + 5), ("u32", -3)]
OF_THE_OTHER_KIND = [("u64", b"abc"), ("i64", b"12abc"), ("u32", b""), ("u64", b"7"), ("text", 7)]


def refusal_cells():
    for face in WRITERS:
        for key_format, bad in OUT_OF_RANGE + OF_THE_OTHER_KIND:
            if face.reads_lines and (key_format == "text" or isinstance(bad, bytes) and bad.isdigit()):
                continue  # a line is what it spells: "7" is a key of a text filter and of a u64 one
            yield pytest.param(face, key_format, bad, id=f"{face.name}-{key_format}-{line_of(bad).decode()!r}")


def assert_refusal_names_the_key(refusal: Refused, bad, out_of_range: bool):
    if refusal.error is None:  # a program reading lines: exit 2, naming the line
        assert "line 2" in refusal.message, refusal.message
    elif out_of_range:
        assert isinstance(refusal.error, bloomkit.InvalidKey), refusal
        assert not isinstance(refusal.error, bloomkit.WrongKeyType), refusal
    else:
        assert isinstance(refusal.error, bloomkit.WrongKeyType), refusal
    if out_of_range:
        assert str(bad) in refusal.message, refusal.message


def file_bytes(place):
    """A filter file's bytes; None for a filter in Redis, where no add promises all or nothing."""
    return open(place.name, "rb").read() if place.store == "file" else None


@pytest.mark.parametrize("face, key_format, bad", refusal_cells())
def test_a_key_its_filter_cannot_hold_is_refused_never_answered(faces, stores, face, key_format, bad):
    good, other = GOOD[key_format]
    out_of_range = isinstance(bad, int) and key_format != "text"
    place = stores.new(face.store, face.layout)
    faces[face].write(place, key_format, Keys.of([good]))
    before = file_bytes(place)
    with pytest.raises(Refused) as added:
        faces[face].add(place, Keys.of([other, bad]))
    assert_refusal_names_the_key(added.value, bad, out_of_range)
    with pytest.raises(Refused) as checked:
        faces[face].check(place, Keys.of([good, bad]))
    assert_refusal_names_the_key(checked.value, bad, out_of_range)
    assert file_bytes(place) == before, "a refused batch changed the file"
    assert found_all(faces[face].check(place, Keys.of([good])))


# --- A format said against the filter's record: refused ----------------------------------------------

SAYERS = [CppFace, CommandFace, RedisCommandFace, PythonFace, NumpyFace, RedisPythonFace]


@pytest.mark.parametrize("recorded, said", [("text", "u64"), ("u64", "text"), ("i64", "text"), ("u32", "text")])
@pytest.mark.parametrize("face", SAYERS, ids=lambda face: face.name)
def test_a_format_said_against_the_record_is_refused(faces, stores, face, recorded, said):
    place = stores.new(face.store)
    faces[face].write(place, recorded, Keys.of(GOOD[recorded]))
    with pytest.raises(Refused):
        faces[face].check(place, Keys.of(GOOD[said]), say=said)
    with pytest.raises(Refused):
        faces[face].add(place, Keys.of(GOOD[said]), say=said)
    assert stores.recorded(place) == recorded
    assert found_all(faces[face].check(place, Keys.of(GOOD[recorded])))


# An integer format said to a filter of another integer format: the filter's own format, and
# range, decide — a key within it is found however the reader spelled its format, one outside it is
# refused, never re-encoded (-1 is not 2^64 - 1).
@pytest.mark.parametrize("recorded, said, inside, outside", [
    ("u64", "i64", 2**64 - 1, -1), ("u32", "u64", 2**32 - 1, 2**32 + 5), ("i64", "u64", -5, 2**63),
    ("u32", "i64", 0, -3)])
@pytest.mark.parametrize("face", [CppFace, CommandFace, RedisCommandFace], ids=lambda face: face.name)
def test_an_integer_format_said_to_an_integer_filter_reads_its_own(faces, stores, face, recorded, said, inside,
                                                                   outside):
    place = stores.new(face.store)
    faces[face].write(place, recorded, Keys.of([inside]))
    assert found_all(faces[face].check(place, Keys.of([inside]), say=said))
    with pytest.raises(Refused, match=str(outside)):
        faces[face].check(place, Keys.of([inside, outside]), say=said)
    with pytest.raises(Refused, match=str(outside)):
        faces[face].add(place, Keys.of([outside]), say=said)
