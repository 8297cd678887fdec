"""Filters of other programs: Java's Guava streams and DCSO bloom files, made, read and written
here; DCSO's files checked against flor (DCSO's own Python implementation, Debian's python3-flor).
The round trips with Java itself and DCSO's Go tool are tests/cli/guava.sh and dcso.sh."""
import gzip
import io

import pytest

import bloomkit
from conftest import urls


def test_guava_filter_round_trips_as_java_bytes(tmp_path):
    f = bloomkit.BloomFilter(1000, 0.01, layout="guava")
    f.update(["apple", "banana", "cherry"])
    data = f.to_bytes(format="guava")
    assert len(data) == 6 + 8 * 150 and data[:2] == b"\x01\x07"  # MITZ_64, k = 7, 150 longs
    back = bloomkit.from_bytes(data)  # told from the bytes: a Guava stream
    # The same bits; a Guava stream does not keep what the filter was sized for, nor its count.
    assert back.name == "Guava Bloom filter" and "apple" in back and back.to_bytes(format="guava") == data
    path = tmp_path / "users.guava"
    f.save(path, format="guava")
    assert path.read_bytes() == data
    assert bloomkit.load(path).to_bytes(format="guava") == data


def test_guava_funnels_of_integers_and_their_refusals():
    longs = bloomkit.BloomFilter(100, 0.01, layout="guava", funnel="long")
    longs.update([0, 1, -1, 2**63 - 1])
    assert all(k in longs for k in (0, 1, -1, 2**63 - 1))
    again = bloomkit.from_bytes(longs.to_bytes(format="guava"), funnel="long")
    assert -1 in again and again.to_bytes(format="guava") == longs.to_bytes(format="guava")
    ints = bloomkit.BloomFilter(100, 0.01, layout="guava", funnel="int")
    ints.add(-5)
    with pytest.raises(bloomkit.InvalidArgument, match="Java int"):
        ints.add(2**40)
    with pytest.raises(bloomkit.InvalidArgument):
        bloomkit.BloomFilter(100, 0.01, layout="guava", funnel="utf16")
    # A filter of another kind has no Guava stream: its bits mean nothing to Guava.
    with pytest.raises(bloomkit.InvalidArgument, match="keys"):
        bloomkit.BloomFilter(100, 0.01).to_bytes(format="guava")


def test_dcso_files_agree_with_flor(tmp_path):
    flor = pytest.importorskip("flor", reason="flor (python3-flor) is DCSO's Python implementation")
    keys = urls(5000)
    theirs = flor.BloomFilter(n=10000, p=0.001)
    for k in keys:
        theirs.add(k.encode())
    out = io.BytesIO()
    theirs.write(out)
    path = tmp_path / "iocs.bloom"
    path.write_bytes(gzip.compress(out.getvalue()))  # as `bloom --gzip` keeps them
    ours = bloomkit.load(path)
    assert ours.name == "DCSO Bloom filter" and ours.contains_many(keys).all()
    absent = urls(20000, start=10**6)
    assert list(ours.contains_many(absent)) == [theirs.check(k.encode()) for k in absent]

    made = bloomkit.BloomFilter(10000, 0.001, layout="dcso")
    made.update(keys)
    assert made.to_bytes(format="dcso") == out.getvalue()  # the same file, N included
    back = flor.BloomFilter()
    back.read(io.BytesIO(made.to_bytes(format="dcso")))
    assert all(back.check(k.encode()) for k in keys)
