"""The Redis layout is a contract any language can keep: the independent reference client
(redis_reference_client.py, plain Redis commands and XXH3) and the C++ command give the same
answers on the same filters, both ways, on a real redis-server; and the worked example of
docs/FORMAT.md is what both compute. And RedisBloomFilter's own face: no password in any
message, no timeout that is in truth none, one key format for every client of a filter, a
generator that asks the filter it feeds, and handles that cross a fork."""
import multiprocessing
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

redis = pytest.importorskip("redis", reason="python3-redis")
pytest.importorskip("xxhash", reason="python3-xxhash")
import bloomkit  # noqa: E402
from redis_reference_client import ReferenceClient, parse_meta, positions  # noqa: E402

from conftest import urls  # noqa: E402 (the fixture `server` is conftest's too)

FORMAT_MD = Path(__file__).resolve().parents[2] / "docs" / "FORMAT.md"


def command(cli, *arguments, stdin=None):
    return subprocess.run([cli, *arguments], input=stdin, capture_output=True, text=True)


def test_keys_the_command_added_are_in_the_reference_client(cli, server):
    client, url = server
    keys, absent = urls(5000), urls(5000, start=10**6)
    assert command(cli, "redis", "create", "crawl", "-n", "5000", "--shard-size", "64KiB", "--url", url).returncode == 0
    assert command(cli, "redis", "add", "crawl", "--url", url, stdin="\n".join(keys) + "\n").returncode == 0
    reference = ReferenceClient(client, "crawl")
    assert all(k in reference for k in keys)
    false_positives = sum(k in reference for k in absent)
    assert false_positives < 0.02 * len(absent)
    # And the command answers the absent keys exactly as the reference client does.
    run = command(cli, "redis", "check", "crawl", "--count", "--url", url, stdin="\n".join(absent) + "\n")
    assert f"present\t{false_positives}" in run.stdout, run.stdout + run.stderr


def test_keys_the_reference_client_added_are_in_the_command(cli, server):
    client, url = server
    keys = urls(3000, start=5 * 10**6)
    assert command(cli, "redis", "create", "feed", "-n", "3000", "--shard-size", "64KiB", "--url", url).returncode == 0
    reference = ReferenceClient(client, "feed")
    for k in keys:
        reference.add(k)
    run = command(cli, "redis", "check", "feed", "--count", "--url", url, stdin="\n".join(keys) + "\n")
    assert run.returncode == 0 and "present\t3000" in run.stdout and "absent\t0" in run.stdout, run.stdout + run.stderr


def worked_example():
    """The filter and the rows of docs/FORMAT.md's worked example."""
    text = FORMAT_MD.read_text()
    section = text[text.index("### A worked example"):]
    parameters = dict(re.findall(r"^- `(\w+)` (\S+)$", section, re.M))
    rows = re.findall(r"^\| `([^`]*)` \| (\d+) \| ([\d, ]+) \|$", section, re.M)
    return parameters, [(key, int(shard), [int(o) for o in offsets.split(", ")]) for key, shard, offsets in rows]


def test_the_documented_example_is_what_both_compute(cli, server):
    client, url = server
    parameters, rows = worked_example()
    assert rows, "docs/FORMAT.md lost its worked example"
    made = command(cli, "redis", "create", "example", "-n", parameters["expected_keys"], "-p", parameters["fpr"],
                   "--shard-size", parameters["shard_size"], "--url", url)
    assert made.returncode == 0, made.stderr
    meta = parse_meta(client.get("example:meta"))
    assert (meta["bits"], meta["hashes"], meta["blocks_per_shard"], meta["seed"]) == (
        int(parameters["bits"]), int(parameters["hashes"]), int(parameters["blocks_per_shard"]), int(parameters["seed"]))
    for key, shard, offsets in rows:
        assert positions(meta, key) == (shard, offsets), key
        before = {s: client.get(f"example:{s}") for s in range(int(client.get("example:meta").split(b"shards ")[1].split()[0]))}
        assert command(cli, "redis", "add", "example", "--url", url, stdin=key + "\n").returncode == 0
        changed = [(s, o) for s, old in before.items() for o in set_bits(client.get(f"example:{s}")) - set_bits(old)]
        assert all(s == shard for s, _ in changed) and {o for _, o in changed} <= set(offsets), key


def set_bits(value):
    """The offsets of a Redis string's 1 bits, as Redis numbers them (from the top of each byte)."""
    return {8 * i + (7 - b) for i, byte in enumerate(value) for b in range(8) if byte >> b & 1}


def test_the_python_redis_filter_shares_the_commands_filter(cli, server):
    if not hasattr(bloomkit._bloomkit, "RedisFilter"):
        pytest.skip("built without the Redis component (sanitized builds; make test runs it from the GCC build)")
    client, url = server
    keys = urls(2000, start=7 * 10**6)
    shared = bloomkit.RedisBloomFilter("shared", 100_000, 0.01, url=url, shard_bytes=64 * 1024)
    assert shared.shards >= 2 and shared.expected_items == 100_000
    shared.update(keys[:1000])
    assert command(cli, "redis", "add", "shared", "--url", url, stdin="\n".join(keys[1000:]) + "\n").returncode == 0
    opened = bloomkit.RedisBloomFilter("shared", url=url)  # opened by name, as another service would
    assert opened.contains_many(keys).all() and keys[0] in opened
    assert all(k in ReferenceClient(client, "shared") for k in keys)
    assert opened.key_format == "text"
    with pytest.raises(TypeError, match="text keys"):
        opened.add(7)
    local = opened.pull()
    assert isinstance(local, bloomkit.BloomFilter) and local.contains_many(keys).all()
    copy = bloomkit.RedisBloomFilter.push(local, "copy", url=url)
    assert copy.contains_many(keys).all() and copy.pull() == local
    with pytest.raises(bloomkit.RedisError, match="already exists"):
        bloomkit.RedisBloomFilter.push(local, "copy", url=url)
    assert bloomkit.RedisBloomFilter.drop("copy", url=url)
    with pytest.raises(bloomkit.RedisError, match="no filter named copy"):
        bloomkit.RedisBloomFilter("copy", url=url)
    client.delete("shared:1")  # a lost shard is an error, never "absent"
    with pytest.raises(bloomkit.RedisError, match="missing"):
        opened.contains_many(keys)


def needs_redis_filter():
    if not hasattr(bloomkit._bloomkit, "RedisFilter"):
        pytest.skip("built without the Redis component (sanitized builds; make test runs it from the GCC build)")


# Passwords holding ',' then '/' (and '@', '#', '?'), or an address malformed around them: each
# is refused, by the parser or the server, and its password is in no message. {a} is the server.
@pytest.mark.parametrize("url", [
    "redis://app:TopSecret,x/y@{a}", "redis://app:TopSecret,x/y@127.0.0.1:1", "redis://TopSecret,x/y@{a}",
    "redis://app:TopSecret,x/y@127.0.0.1:x", "redis://app:TopSecret,x/y", "redis://app:TopSecret",
    "redis://:TopSecret", "redis://app:TopSecret/3", "redis://app:Top@Secret@127.0.0.1:x",
    "redis://app:Top#Secret@:1", "redis://app:Top?Secret@{a}/x", "redis://app:TopSecret@{a},",
    ",redis://app:TopSecret@{a}", "redis://app:TopSecret@{a},127.0.0.1:1", "unix://app:TopSecret",
    "http://app:Top,Secret@h", "redis://app:Top%zSecret@{a}",
])
def test_a_password_is_in_no_message(server, url):
    needs_redis_filter()
    _, address = server
    with pytest.raises(bloomkit.Error) as refused:
        bloomkit.RedisBloomFilter("guarded", url=url.format(a=address.removeprefix("redis://")))
    assert "Secret" not in str(refused.value)


def test_a_password_may_hold_any_character(server):
    needs_redis_filter()
    client, url = server
    client.execute_command("ACL", "SETUSER", "odd", "on", ">Top,Se/cr@e:t#?", "~*", "+@all")
    try:
        odd = bloomkit.RedisBloomFilter("odd", 1000, url=url.replace("redis://", "redis://odd:Top,Se/cr@e:t#?@"))
        odd.add("k")
        assert "k" in odd
    finally:
        client.execute_command("ACL", "DELUSER", "odd")


@pytest.mark.parametrize("timeout, shown", [(0, "0"), (-1, "-1"), (-0.0004, "-0.0004"), (float("nan"), "nan"),
                                            (float("inf"), "inf"), (1e12, "1e+12")])
def test_a_timeout_that_would_be_none_is_refused_naming_it(server, timeout, shown):
    needs_redis_filter()
    _, url = server
    with pytest.raises(bloomkit.InvalidArgument, match="timeout must be a number of seconds above 0") as refused:
        bloomkit.RedisBloomFilter("timed", url=url, timeout=timeout)
    assert str(refused.value).endswith("not " + shown)


def test_a_timeout_below_a_millisecond_is_one_not_none(server):
    """0.0004 s is 1 ms, not 0 (which hiredis takes for no timeout): against a server that stops
    answering (SIGSTOP), opening fails instead of waiting for ever (the subprocess's timeout ends
    it if it does wait)."""
    needs_redis_filter()
    client, url = server
    bloomkit.RedisBloomFilter("timed", 1000, url=url)
    pid = client.info("server")["process_id"]
    os.kill(pid, signal.SIGSTOP)
    try:
        run = subprocess.run([sys.executable, "-c", "import sys, bloomkit\n"
                              "try:\n    bloomkit.RedisBloomFilter('timed', url=sys.argv[1], timeout=0.0004)\n"
                              "except bloomkit.RedisError as e:\n    print(e)", url],
                             capture_output=True, text=True, timeout=120)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert "no reply within 1 ms" in run.stdout, run.stdout + run.stderr


# A shared filter made without a key format takes its first writer's, for every client at once:
# lines `bloomkit redis add` put in stay found, and a Python int is refused by a handle opened
# before that add as by a new one, never recorded over them as another format.
def test_the_first_writer_records_the_key_format_for_every_client(cli, server):
    needs_redis_filter()
    _, url = server
    early = bloomkit.RedisBloomFilter("first-writer", 10_000, 0.001, url=url)
    assert early.key_format is None  # not recorded yet
    assert command(cli, "redis", "add", "first-writer", "--url", url, stdin="10\n").returncode == 0
    for handle in (early, bloomkit.RedisBloomFilter("first-writer", url=url)):
        with pytest.raises(bloomkit.WrongKeyType, match="text keys"):
            handle.add(12)
        assert handle.key_format == "text" and "10" in handle
    run = command(cli, "redis", "check", "first-writer", "--url", url, stdin="10\n")
    assert (run.returncode, run.stdout) == (0, "10\n"), run.stderr


# update() takes any iterable, a generator that asks the same filter included (as
# `rf.update(k for k in batch if k not in rf)` does): it ends, and adds what the generator gave.
# In a child, which a deadlock would leave hanging until the timeout.
def test_update_takes_a_generator_that_asks_the_same_filter(server):
    needs_redis_filter()
    _, url = server
    child = ("import sys, bloomkit\n"
             "rf = bloomkit.RedisBloomFilter('generator', 10_000, 0.01, url=sys.argv[1])\n"
             "rf.add('a')\n"
             "rf.update(k for k in ['a', 'b', 'c'] if k not in rf)\n"
             "rf.add_many(k for k in ['d'] if k not in rf)\n"
             "print(all(k in rf for k in 'abcd'))")
    try:
        run = subprocess.run([sys.executable, "-c", child, url], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("update() of a generator that asks the same filter did not end within 120 s")
    assert (run.returncode, run.stdout) == (0, "True\n"), run.stderr


_forked_filter = None  # the parent's handle, inherited by the forked children
_present = np.arange(20_000, dtype=np.int64)
_absent = np.arange(10**9, 10**9 + 20_000, dtype=np.int64)


def _keys_missed_in_a_child(seed):
    """In a forked child: lookups of batches of added keys, between lookups of others; how many of
    the added ones were answered "definitely not"."""
    rng = np.random.default_rng(seed)
    missed = 0
    for _ in range(30):
        n = int(rng.integers(1, 400))
        missed += int((~_forked_filter.contains_many(rng.choice(_present, n))).sum())
        _forked_filter.contains_many(rng.choice(_absent, n))
    return missed


# A handle made before a fork (a module-level client in a multiprocessing pool, gunicorn
# --preload) answers rightly in every child: each connects anew, never reading replies meant for
# another process.
def test_a_handle_made_before_a_fork_answers_rightly_in_the_children(server):
    needs_redis_filter()
    global _forked_filter
    _, url = server
    _forked_filter = bloomkit.RedisBloomFilter("forked", 100_000, 0.001, url=url)
    _forked_filter.update(_present)
    try:
        with multiprocessing.get_context("fork").Pool(4) as pool:
            missed = pool.map(_keys_missed_in_a_child, range(8))
        assert sum(missed) == 0, f"added keys answered 'definitely not' in the children: {missed}"
        assert _forked_filter.contains_many(_present).all()  # and the parent's own connection is intact
    finally:
        _forked_filter = None
