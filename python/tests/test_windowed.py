"""WindowedFilter: keys found for the window and gone by window × (1 + 1/generations) on an
explicit clock (numbers and datetimes), the system clock by default, files and pickles that keep
forgetting, the command reading a filter Python wrote, and the refusals."""
import datetime
import os
import pickle
import subprocess

import numpy as np
import pytest

import bloomkit
from conftest import urls

T0 = datetime.datetime(2030, 6, 1, 9, 0, tzinfo=datetime.timezone.utc)
HOUR = datetime.timedelta(hours=1)


def test_keys_are_found_for_the_window_and_gone_by_its_last_generation():
    f = bloomkit.WindowedFilter(10_000, 0.001, window=HOUR, generations=4)
    keys = urls(2000)
    f.update(keys, now=T0)
    assert f.contains_many(keys, now=T0 + HOUR).all()
    assert all(f.contains(k, now=T0 + HOUR) for k in keys[:50])
    assert f.contains_many(keys, now=T0 + HOUR * 1.25).sum() <= 5
    # Unix seconds name the same moments.
    assert f.contains_many(keys, now=(T0 + HOUR).timestamp()).all()


def test_a_key_added_again_later_is_remembered_from_then():
    f = bloomkit.WindowedFilter(1000, 0.01, window=3600)
    f.add("x", now=T0)
    f.add("x", now=T0 + HOUR * 0.9)
    assert f.contains("x", now=T0 + HOUR * 1.8)


def test_the_system_clock_is_the_default():
    f = bloomkit.WindowedFilter(1000, 0.01, window=60)
    f.add("now")
    assert "now" in f and f.contains("now")
    assert not f.contains("now", now=datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=5))


def test_files_and_pickles_keep_their_generations(tmp_path):
    f = bloomkit.WindowedFilter(1000, 0.01, window=HOUR)
    f.update(["a", "b"], now=T0)
    f.save(tmp_path / "w.bkf")
    for g in (bloomkit.load(tmp_path / "w.bkf"), bloomkit.map(tmp_path / "w.bkf"), pickle.loads(pickle.dumps(f))):
        assert isinstance(g, bloomkit.Filter) and g.kind == "windowed"
        assert g == f
        assert g.contains("a", now=T0 + HOUR)
        assert not g.contains("a", now=T0 + 2 * HOUR)


def test_the_command_reads_what_python_wrote(tmp_path):
    cli = os.environ.get("BLOOMKIT_CLI")
    if not cli:
        pytest.skip("BLOOMKIT_CLI names no command")
    f = bloomkit.WindowedFilter(1000, 0.01, window=HOUR)
    f.update(["a", "b"], now=T0)
    f.save(tmp_path / "w.bkf")
    run = lambda t: subprocess.run([cli, "check", "--now", t, str(tmp_path / "w.bkf")], input=b"a\nb\nc\n",
                                   capture_output=True, check=False).stdout
    assert run("2030-06-01T09:59:00Z") == b"a\nb\n"
    assert run("2030-06-01T10:20:00Z") == b""


def test_a_union_holds_both_at_the_newer_time():
    a = bloomkit.WindowedFilter(1000, 0.01, window=HOUR)
    b = bloomkit.WindowedFilter(1000, 0.01, window=HOUR)
    a.add("old", now=T0)
    b.add("new", now=T0 + HOUR * 0.5)
    both = a | b
    assert both.contains("old", now=T0 + HOUR * 0.5) and both.contains("new", now=T0 + HOUR * 0.5)
    with pytest.raises(bloomkit.IncompatibleFilters):
        a |= bloomkit.WindowedFilter(1000, 0.01, window=2 * HOUR)


def test_refusals():
    with pytest.raises(bloomkit.InvalidArgument, match="window"):
        bloomkit.WindowedFilter(1000, 0.01, window=0)
    with pytest.raises(bloomkit.InvalidArgument, match="generations"):
        bloomkit.WindowedFilter(1000, 0.01, window=60, generations=65)
    f = bloomkit.WindowedFilter(1000, 0.01, window=60)
    with pytest.raises(bloomkit.InvalidArgument, match="now"):
        f.add("x", now="yesterday")
    with pytest.raises(bloomkit.InvalidArgument, match="1970"):
        f.add("x", now=-5)
    with pytest.raises(bloomkit.WrongType):
        bloomkit.BloomFilter(100, 0.01)._add_at(["x"], 0.0)
    assert isinstance(f.contains_many(np.arange(10, dtype=np.uint64), now=T0), np.ndarray)
