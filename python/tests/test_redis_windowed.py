"""RedisWindowedFilter, the filter that forgets shared through Redis, on a real redis-server:
found within its window and gone after it at the times given with each call; one filter with
the command (`bloomkit redis create --window`, add and check --now); pull gives a WindowedFilter
that answers alike, push the reverse; the server's clock by default; each class opens only its
own kind of filter."""
import copy
import datetime
import subprocess

import numpy as np
import pytest

pytest.importorskip("redis", reason="python3-redis")
import bloomkit  # noqa: E402

from conftest import urls  # noqa: E402

T0 = 1_900_000_000  # 2030-03-17: ahead of any server's clock, so the test's times are the newest
DAY = 86400


def command(cli, *arguments, stdin=None):
    return subprocess.run([cli, *arguments], input=stdin, capture_output=True, text=True)


def test_found_within_the_window_and_gone_after_it(server):
    _, url = server
    f = bloomkit.RedisWindowedFilter("py-seen", 20000, 0.01, window=datetime.timedelta(days=1), generations=4,
                                     url=url, shard_bytes=64 << 10)
    assert (f.window, f.generations) == (DAY, 4)
    keys = urls(5000)
    f.update(keys, now=T0)
    assert f.contains_many(keys, now=T0 + DAY).all()
    assert f.contains(keys[0], now=datetime.datetime.fromtimestamp(T0 + DAY, datetime.timezone.utc))
    assert not f.contains_many(keys, now=T0 + DAY + DAY / 4).any()
    # An add says whether a live generation held the key; a repeat renews it.
    fresh = f.add_many(urls(10, start=10**6), now=T0 + DAY + DAY / 4)
    assert fresh.dtype == np.bool_ and fresh.all()
    assert not f.add_many(urls(10, start=10**6), now=T0 + DAY + DAY / 4).any()
    assert "<RedisWindowedFilter 'py-seen': window 86400 s in 4 generations" in repr(f)


def test_one_filter_with_the_command_and_the_local_kind(cli, server):
    _, url = server
    assert command(cli, "redis", "create", "py-shared", "-n", "20000", "--window", "1h", "--generations", "2",
                   "--shard-size", "64KiB", "--url", url).returncode == 0
    keys, others = urls(3000), urls(3000, start=10**7)
    run = command(cli, "redis", "add", "py-shared", "--now", str(T0), "--url", url, stdin="\n".join(keys) + "\n")
    assert run.returncode == 0, run.stderr
    f = bloomkit.RedisWindowedFilter("py-shared", url=url)
    assert f.contains_many(keys, now=T0 + 3600).all()
    f.update(others, now=T0 + 60)
    run = command(cli, "redis", "check", "py-shared", "--count", "--now", str(T0 + 120), "--url", url,
                  stdin="\n".join(others) + "\n")
    assert "present\t3000" in run.stdout, run.stdout + run.stderr

    local = f.pull()
    assert isinstance(local, bloomkit.WindowedFilter)
    probe = keys + others + urls(3000, start=10**8)
    assert (local.contains_many(probe, now=T0 + 120) == f.contains_many(probe, now=T0 + 120)).all()
    pushed = bloomkit.RedisWindowedFilter.push(local, "py-pushed", url=url, shard_bytes=64 << 10)
    assert (pushed.contains_many(probe, now=T0 + 120) == f.contains_many(probe, now=T0 + 120)).all()
    other_handle = copy.copy(pushed)
    assert other_handle.contains(keys[1], now=T0 + 120)


def test_the_servers_clock_by_default(server):
    _, url = server
    f = bloomkit.RedisWindowedFilter("py-clock", 1000, 0.01, window=3600, url=url)
    f.add("now")
    assert "now" in f and f.contains("now")
    assert f.approx_len() == pytest.approx(1, abs=0.5)
    assert 0 < f.fpr() < 0.01


def test_each_class_opens_its_own_kind(server):
    _, url = server
    bloomkit.RedisWindowedFilter("py-windowed", 1000, 0.01, window=60, url=url)
    bloomkit.RedisBloomFilter("py-block", 1000, 0.01, url=url)
    with pytest.raises(bloomkit.WrongType, match="is a windowed filter: open it with bloomkit.RedisWindowedFilter"):
        bloomkit.RedisBloomFilter("py-windowed", url=url)
    with pytest.raises(bloomkit.WrongType, match="is a block filter: open it with bloomkit.RedisBloomFilter"):
        bloomkit.RedisWindowedFilter("py-block", url=url)
    with pytest.raises(bloomkit.RedisError, match="window"):
        bloomkit.RedisWindowedFilter("py-windowed", 1000, 0.01, window=120, url=url)
    with pytest.raises(bloomkit.InvalidArgument, match="now is Unix seconds"):
        bloomkit.RedisWindowedFilter("py-windowed", url=url).contains("x", now=-5)
    assert bloomkit.RedisWindowedFilter.drop("py-windowed", url=url)
