"""BF.* in bloomkit.so, driven by redis-py's RedisBloom client (r.bf()) and redis-cli on real servers:
RedisBloom's replies and error texts, growth without false negatives, restarts from RDB and AOF,
a replica, dumps that the command reads, and bad input that never brings the server down."""
import os
import random
import subprocess
from pathlib import Path

import pytest
import redis
import redis.cluster

from conftest import CLI, MODULE, batched, error_of, keys, needs_module, unanswered
from servers import Server, wait_until

pytestmark = needs_module


def madd(r, name, items):
    return batched(lambda chunk: r.bf().madd(name, *chunk), items)


def missed(r, name, items):
    return unanswered(lambda chunk: r.bf().mexists(name, *chunk), items)


# --- Replies, as redis-py's RedisBloom client parses them -----------------------------------------

def test_the_basic_commands_answer_as_redisbloom_does(server):
    r = server.client()
    bf = r.bf()
    assert bf.create("f", 0.01, 1000) is True
    assert bf.add("f", "a") == 1
    assert bf.add("f", "a") == 0
    assert bf.madd("f", "a", "b", "c") == [0, 1, 1]
    assert bf.exists("f", "a") == 1
    assert bf.exists("f", "never") == 0
    assert bf.mexists("f", "a", "b", "never") == [1, 1, 0]
    info = bf.info("f")
    assert (info.capacity, info.filterNum, info.insertedNum, info.expansionRate) == (1000, 1, 3, 2)
    assert info.size > 1000 * 8 // 8
    assert r.execute_command("BF.CARD", "f") == 3
    raw = server.client()  # without the parsing r.bf() registers for BF.INFO
    assert raw.execute_command("BF.INFO", "f", "CAPACITY") == [1000]
    assert raw.execute_command("BF.INFO", "f", "items") == [3]
    assert r.type("f") == b"bkf-bloom"


def test_bf_add_creates_a_filter_with_the_defaults(server):
    r = server.client()
    assert r.bf().add("new", "x") == 1
    info = r.bf().info("new")
    assert (info.capacity, info.filterNum, info.expansionRate) == (100, 1, 2)


def test_a_missing_key_is_empty_to_the_readers_and_not_found_to_info(server):
    r = server.client()
    assert r.bf().exists("nothing", "x") == 0
    assert r.bf().mexists("nothing", "x", "y") == [0, 0]
    assert r.execute_command("BF.CARD", "nothing") == 0
    assert error_of(lambda: r.bf().info("nothing")) == "not found"
    assert error_of(lambda: r.bf().scandump("nothing", 0)) == "not found"


def test_a_key_of_another_type_is_wrongtype_to_writers_and_absent_to_readers(server):
    r = server.client()
    r.set("s", "v")
    assert "WRONGTYPE" in error_of(lambda: r.bf().add("s", "x"))
    assert "WRONGTYPE" in error_of(lambda: r.bf().create("s", 0.01, 10))
    assert "WRONGTYPE" in error_of(lambda: r.bf().info("s"))
    assert "WRONGTYPE" in error_of(lambda: r.execute_command("BF.CARD", "s"))
    assert r.bf().exists("s", "x") == 0
    assert r.bf().mexists("s", "x") == [0]


def test_reserve_refuses_as_redisbloom_does(server):
    r = server.client()
    call = r.execute_command
    assert error_of(lambda: call("BF.RESERVE", "f", "x", 10)) == "bad error rate"
    assert error_of(lambda: call("BF.RESERVE", "f", 1.5, 10)) == "(0 < error rate range < 1) "
    assert error_of(lambda: call("BF.RESERVE", "f", 0, 10)) == "(0 < error rate range < 1) "
    assert error_of(lambda: call("BF.RESERVE", "f", 0.01, "ten")) == "bad capacity"
    assert error_of(lambda: call("BF.RESERVE", "f", 0.01, 0)) == "(capacity should be larger than 0)"
    assert error_of(lambda: call("BF.RESERVE", "f", 0.01, 10, "EXPANSION")) == "no expansion"
    assert error_of(lambda: call("BF.RESERVE", "f", 0.01, 10, "EXPANSION", 2, "NONSCALING")) == \
        "Nonscaling filters cannot expand"
    assert error_of(lambda: call("BF.RESERVE", "f", 0.01, 10, "EXPANSION", "x")) == "bad expansion"
    assert error_of(lambda: call("BF.RESERVE", "f", 0.01, 10, "EXPANSION", 0)) == \
        "expansion should be greater or equal to 1"
    assert "wrong number of arguments for 'bf.reserve'" in error_of(lambda: call("BF.RESERVE", "f", 0.01))
    assert call("BF.RESERVE", "f", 0.01, 10, "expansion", 4) == b"OK"
    assert error_of(lambda: call("BF.RESERVE", "f", 0.01, 10)) == "item exists"
    assert r.bf().info("f").expansionRate == 4


def test_any_expansion_redisbloom_takes_grows_the_filter(server):
    r = server.client()
    assert r.bf().create("wide", 0.01, 100, expansion=1000)
    madd(r, "wide", keys(2000))
    assert not missed(r, "wide", keys(2000))
    info = r.bf().info("wide")
    assert info.expansionRate == 1000 and info.filterNum == 2
    assert r.bf().create("widest", 0.01, 100, expansion=4294967295)
    r.bf().madd("widest", *range(100))
    assert "MAX_FILTER_BYTES" in error_of(lambda: r.bf().add("widest", "the one past the first filter"))


def test_a_non_scaling_filter_is_full_at_its_capacity(server):
    r = server.client()
    assert r.bf().create("f", 0.01, 10, noScale=True)
    assert r.bf().info("f").expansionRate is None
    assert r.bf().madd("f", *range(10)) == [1] * 10
    assert r.bf().add("f", 3) == 0  # present: no room needed
    assert error_of(lambda: r.bf().add("f", "eleventh")) == "non scaling filter is full"
    answers = r.bf().madd("f", 1, "twelfth", "thirteenth")
    assert answers[0] == 0 and isinstance(answers[1], redis.ResponseError) and len(answers) == 2
    assert str(answers[1]) == "non scaling filter is full"


def test_insert_reads_its_options_as_redisbloom_does(server):
    r = server.client()
    call = r.execute_command
    assert r.bf().insert("f", ["a", "b"], capacity=50, error=0.001, expansion=3) == [1, 1]
    info = r.bf().info("f")
    assert (info.capacity, info.expansionRate, info.insertedNum) == (50, 3, 2)
    assert r.bf().insert("f", ["b", "c"], capacity=999) == [0, 1]  # options shape only a new filter
    assert error_of(lambda: r.bf().insert("g", ["a"], noCreate=True)) == "not found"
    assert r.bf().insert("n", ["a"], noScale=True, capacity=1) == [1]
    assert r.bf().info("n").expansionRate is None
    assert error_of(lambda: call("BF.INSERT", "h", "BOGUS", "ITEMS", "a")) == "Unknown argument received"
    assert error_of(lambda: call("BF.INSERT", "h", "ERROR", "x", "ITEMS", "a")) == "Bad error rate"
    assert error_of(lambda: call("BF.INSERT", "h", "CAPACITY", "x", "ITEMS", "a")) == "Bad capacity"
    assert error_of(lambda: call("BF.INSERT", "h", "EXPANSION", "x", "ITEMS", "a")) == "Bad expansion"
    assert error_of(lambda: call("BF.INSERT", "h", "ERROR", "2", "ITEMS", "a")) == "Bad argument received"
    assert "wrong number of arguments" in error_of(lambda: call("BF.INSERT", "h", "CAPACITY", "10", "ITEMS"))
    assert "wrong number of arguments" in error_of(lambda: call("BF.INSERT", "h", "CAPACITY"))
    assert not r.exists("h")


def test_info_fields_and_their_errors(server):
    server.client().bf().create("f", 0.01, 100)
    call = server.client().execute_command
    assert call("BF.INFO", "f", "FILTERS") == [1]
    assert call("BF.INFO", "f", "expansion") == [2]
    assert call("BF.INFO", "f", "SIZE")[0] > 100
    assert error_of(lambda: call("BF.INFO", "f", "COLOR")) == "Invalid information value"


def test_resp3_clients_get_booleans_and_maps(server):
    out = subprocess.run(["redis-cli", "--no-raw", "-3", "-p", str(server.port)], input=(
        "BF.ADD f a\nBF.EXISTS f a\nBF.MEXISTS f a zz\nBF.INFO f ITEMS\n").encode(),
        capture_output=True, check=True).stdout.decode()
    assert out.split("\n")[:2] == ["(true)", "(true)"]
    assert "1) (true)" in out and "2) (false)" in out
    assert "1# Number of items inserted => (integer) 1" in out


# --- No key lost ----------------------------------------------------------------------------------

def test_a_million_keys_through_growth_with_no_false_negative_and_the_rate_kept(server):
    r = server.client()
    r.bf().create("f", 0.01, 10000)
    items = keys(1_000_000)
    assert sum(madd(r, "f", items)) > 990_000
    info = r.bf().info("f")
    assert info.filterNum >= 7 and info.capacity >= 1_000_000
    assert missed(r, "f", items) == []
    strangers = keys(200_000, tag="stranger")
    false_positives = sum(r.bf().mexists("f", *strangers))
    assert false_positives / len(strangers) <= 0.01


def test_the_filters_survive_a_restart_from_the_rdb(server):
    r = server.client()
    items = keys(100_000)
    r.bf().create("grown", 0.001, 5000)
    madd(r, "grown", items)
    r.bf().create("fixed", 0.01, 1000, noScale=True)
    filled = madd(r, "fixed", items[:2000])
    assert str(filled[-1]) == "non scaling filter is full"
    before = [r.bf().info(k).__dict__ for k in ("grown", "fixed")]
    digest = r.execute_command("DEBUG", "DIGEST-VALUE", "grown", "fixed")
    server.restart(save=True)
    r = server.client()
    assert [r.bf().info(k).__dict__ for k in ("grown", "fixed")] == before
    assert r.execute_command("DEBUG", "DIGEST-VALUE", "grown", "fixed") == digest
    assert missed(r, "grown", items) == [] and missed(r, "fixed", items[:len(filled) - 1]) == []
    assert error_of(lambda: r.bf().add("fixed", "one more")) == "non scaling filter is full"


def test_the_filters_survive_a_restart_from_a_rewritten_aof(tmp_path):
    s = Server(tmp_path / "aof", MODULE, "--appendonly", "yes", "--aof-use-rdb-preamble", "no").start()
    try:
        r = s.client()
        items = keys(60_000)
        r.bf().create("f", 0.01, 2000)
        madd(r, "f", items[:30_000])
        r.bgrewriteaof()
        wait_until(lambda: r.info("persistence")["aof_rewrite_in_progress"] == 0 and
                   r.info("persistence")["aof_rewrite_scheduled"] == 0, "the AOF rewrite")
        madd(r, "f", items[30_000:])  # after the rewrite: replayed from the AOF's tail
        info = r.bf().info("f").__dict__
        s.restart()
        r = s.client()
        assert r.bf().info("f").__dict__ == info
        assert missed(r, "f", items) == []
    finally:
        s.stop()


def test_a_replica_holds_every_key_written_before_and_after_it_joined_and_so_does_a_restart(tmp_path):
    primary = Server(tmp_path / "primary", MODULE).start()
    replica = None
    try:
        r = primary.client()
        items = keys(1_000_000)
        r.bf().create("f", 0.01, 1000)
        madd(r, "f", items[:500_000])
        replica = Server(tmp_path / "replica", MODULE, "--replicaof", "127.0.0.1", str(primary.port)).start()
        rr = replica.client()
        madd(r, "f", items[500_000:])
        r.bf().insert("other", ["x"], capacity=10, noScale=True)
        offset = r.info("replication")["master_repl_offset"]
        wait_until(lambda: rr.info("replication").get("master_link_status") == "up" and
                   rr.info("replication").get("slave_repl_offset", 0) >= offset, "the replica catching up")
        assert missed(rr, "f", items) == []
        assert rr.bf().info("f").__dict__ == r.bf().info("f").__dict__
        assert rr.execute_command("DEBUG", "DIGEST-VALUE", "f", "other") == \
            r.execute_command("DEBUG", "DIGEST-VALUE", "f", "other")
        replica.restart(save=True)  # its own RDB, of what it received
        assert missed(replica.client(), "f", items) == []
    finally:
        if replica:
            replica.stop()
        primary.stop()


# --- One filter everywhere: dumps -----------------------------------------------------------------

def dump(r, name):
    chunks, it = [], 0
    while True:
        it, data = r.bf().scandump(name, it)
        if it == 0:
            assert data == b""
            return chunks
        chunks.append((it, data))


def test_a_dump_loads_into_another_key_and_is_a_file_the_command_reads(server, tmp_path):
    r = server.client()
    items = keys(20_000)
    r.bf().create("f", 0.01, 1000)
    madd(r, "f", items)
    chunks = dump(r, "f")
    for it, data in chunks:
        r.bf().loadchunk("copy", it, data)
    assert r.bf().info("copy").__dict__ == r.bf().info("f").__dict__
    assert r.execute_command("BF.DEBUG", "copy") == r.execute_command("BF.DEBUG", "f")  # as redis-py's test
    assert r.execute_command("BF.DEBUG", "f")[0] == b"size:%d" % r.bf().info("f").insertedNum
    assert missed(r, "copy", items) == []
    path = tmp_path / "dump.bkf"
    path.write_bytes(b"".join(data for _, data in chunks))
    if CLI:
        (tmp_path / "keys.txt").write_bytes(b"\n".join(items) + b"\n")
        check = subprocess.run([CLI, "check", "--count", str(path), str(tmp_path / "keys.txt")],
                               capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        assert f"present\t{len(items)}\nabsent\t0" in check.stdout


def test_a_file_the_command_built_loads_into_a_key(server, tmp_path):
    if not CLI:
        pytest.skip("BLOOMKIT_CLI is not set")
    items = [f"line {i}" for i in range(5000)]
    (tmp_path / "keys.txt").write_text("\n".join(items) + "\n")
    built = tmp_path / "built.bkf"
    subprocess.run([CLI, "build", "-n", "5000", "-p", "0.01", "-o", str(built), str(tmp_path / "keys.txt")],
                   check=True, capture_output=True)
    r = server.client()
    data = built.read_bytes()
    step = 4096
    for at in range(0, len(data), step):
        piece = data[at:at + step]
        r.bf().loadchunk("local", at + len(piece), piece)
    assert missed(r, "local", [k.encode() for k in items]) == []
    assert r.bf().info("local").expansionRate is None


def test_the_command_loads_a_file_into_a_key_and_dumps_it_back(server, tmp_path):
    if not CLI:
        pytest.skip("BLOOMKIT_CLI is not set")
    url = f"redis://127.0.0.1:{server.port}"
    (tmp_path / "ids.txt").write_text("".join(f"{i}\n" for i in range(0, 300_000, 3)))
    built = tmp_path / "ids.bkf"
    subprocess.run([CLI, "build", "--key", "u64", "-n", "200000", "-o", str(built), str(tmp_path / "ids.txt")],
                   check=True, capture_output=True)
    load = subprocess.run([CLI, "redis", "load", str(built), "ids", "--url", url], capture_output=True, text=True)
    assert load.returncode == 0, load.stderr
    r = server.client()
    assert r.bf().mexists("ids", 3, 299_997, 4) == [1, 1, 0]  # an integer filter: items are numbers
    assert "u64 keys" in error_of(lambda: r.bf().add("ids", "not a number"))
    r.bf().add("ids", 7)
    out = tmp_path / "back.bkf"
    dump = subprocess.run([CLI, "redis", "dump", "ids", "-o", str(out), "--url", url], capture_output=True, text=True)
    assert dump.returncode == 0, dump.stderr
    check = subprocess.run([CLI, "check", str(out), "-"], input="7\n8\n3\n", capture_output=True, text=True)
    assert check.stdout.split() == ["7", "3"]
    again = subprocess.run([CLI, "redis", "load", str(built), "ids", "--url", url], capture_output=True, text=True)
    assert again.returncode == 2 and "item exists" in again.stderr
    missing = subprocess.run([CLI, "redis", "dump", "nothing", "-o", str(out), "--url", url],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "not found" in missing.stderr


def test_a_restore_under_way_survives_a_restart_and_completes(server):
    r = server.client()
    r.bf().create("f", 0.01, 15_000_000)  # over 16 MiB: a dump of two chunks
    items = keys(10_000)
    madd(r, "f", items)
    chunks = dump(r, "f")
    assert len(chunks) == 2
    r.bf().loadchunk("g", *chunks[0])
    server.restart(save=True)
    r = server.client()
    assert "still being restored" in error_of(lambda: r.bf().exists("g", items[0]))
    r.bf().loadchunk("g", *chunks[1])
    assert missed(r, "g", items) == []


def test_a_dump_of_a_filter_written_meanwhile_is_refused_not_mixed(server):
    r = server.client()
    r.bf().create("f", 0.01, 2_000_000)
    madd(r, "f", keys(1000))
    it, _ = r.bf().scandump("f", 0)
    r.bf().add("f", "a change")
    assert "changed since its SCANDUMP began" in error_of(lambda: r.bf().scandump("f", it))


def test_chunks_out_of_order_or_garbage_are_refused_and_the_server_lives(server):
    r = server.client()
    r.bf().create("f", 0.01, 15_000_000)  # over 16 MiB: a dump of two chunks
    madd(r, "f", keys(1000))
    chunks = dump(r, "f")
    assert len(chunks) >= 2
    assert "bad data" in error_of(lambda: r.bf().loadchunk("g", 1, b"garbage"))
    assert "bad data" in error_of(lambda: r.bf().loadchunk("g", 7, b"garbage"))
    assert error_of(lambda: r.bf().loadchunk("g", chunks[1][0], chunks[1][1])) == "not found"
    r.bf().loadchunk("g", *chunks[0])
    assert "still being restored" in error_of(lambda: r.bf().exists("g", "x"))
    assert "invalid offset" in error_of(lambda: r.bf().loadchunk("g", *chunks[0]))
    tampered = bytearray(chunks[-1][1])
    tampered[-1] ^= 0xFF
    for it, data in chunks[1:-1]:
        r.bf().loadchunk("g", it, data)
    assert "bad data" in error_of(lambda: r.bf().loadchunk("g", chunks[-1][0], bytes(tampered)))
    assert not r.exists("g")  # a dump found invalid once whole leaves nothing behind
    assert "item exists" in error_of(lambda: r.bf().loadchunk("f", *chunks[0]))
    assert r.ping()


@pytest.mark.parametrize("command", [
    ["BF.ADD", "f"], ["BF.ADD", "f", "a", "b"], ["BF.MADD", "f"], ["BF.EXISTS", "f"], ["BF.MEXISTS", "f"],
    ["BF.INFO"], ["BF.INFO", "f", "a", "b"], ["BF.CARD"], ["BF.SCANDUMP", "f"], ["BF.LOADCHUNK", "f", 1],
    ["BF.RESERVE", "f", 0.1, 10, "NONSCALING", "x", "y", "z"],
])
def test_every_wrong_arity_is_the_arity_error(server, command):
    assert "wrong number of arguments" in error_of(lambda: server.client().execute_command(*command))


def test_absurd_sizes_are_refused_before_any_memory_is_taken(tmp_path):
    s = Server(tmp_path / "limited", MODULE, module_arguments=["MAX_FILTER_BYTES", str(1 << 20)]).start()
    try:
        r = s.client()
        assert "MAX_FILTER_BYTES" in error_of(lambda: r.bf().create("huge", 0.0001, 1 << 40))
        assert "MAX_FILTER_BYTES" in error_of(lambda: r.bf().create("big", 0.01, 1_000_000))
        assert not r.exists("huge") and not r.exists("big")
        r.bf().create("grows", 0.01, 100_000)
        answers = madd(r, "grows", keys(400_000))
        assert isinstance(answers[-1], redis.ResponseError) and "MAX_FILTER_BYTES" in str(answers[-1])
        assert r.memory_usage("grows") <= (1 << 20) + 4096  # the filter, and the key's own few bytes
        assert r.ping()
    finally:
        s.stop()


def test_a_bad_load_argument_stops_the_load_with_a_message(tmp_path):
    s = Server(tmp_path / "bad", MODULE, module_arguments=["ERROR_RATE", "2"])
    with pytest.raises(AssertionError):
        s.start()
    assert "ERROR_RATE takes a number between 0 and 1" in s.output()
    s.process = None


def test_copy_memory_usage_and_unlink(server):
    r = server.client()
    r.bf().create("f", 0.01, 3_000_000)
    madd(r, "f", keys(1000))
    assert r.copy("f", "g")
    r.bf().add("g", "only in g")
    assert r.bf().exists("f", "only in g") == 0 and r.bf().exists("g", "only in g") == 1
    assert r.memory_usage("f") > 3_000_000
    assert r.unlink("f", "g") == 2
    assert r.ping()


def test_filters_count_in_used_memory_and_maxmemory_refuses_writes_past_it(server):
    r = server.client()
    before = r.info("memory")["used_memory"]
    r.bf().create("big", 0.001, 4_000_000)  # 7.2 MB of bits
    r.cf().create("cuckoo", 4_000_000)
    grown = r.info("memory")["used_memory"] - before
    assert grown >= r.memory_usage("big") + r.memory_usage("cuckoo") - 64 * 1024
    r.config_set("maxmemory", str(r.info("memory")["used_memory"] - 1_000_000))
    try:
        assert error_of(lambda: r.bf().add("big", "x")).startswith("OOM")
        assert error_of(lambda: r.cf().add("cuckoo", "x")).startswith("OOM")
        assert r.bf().exists("big", "x") == 0  # readers still answer
    finally:
        r.config_set("maxmemory", "0")
    r.delete("big", "cuckoo")
    assert r.info("memory")["used_memory"] - before < 1_000_000


def test_random_commands_never_bring_the_server_down(server):
    r = server.client()
    rng = random.Random(7)
    words = ["BF.ADD", "BF.MADD", "BF.EXISTS", "BF.MEXISTS", "BF.INSERT", "BF.RESERVE", "BF.INFO", "BF.CARD",
             "BF.SCANDUMP", "BF.LOADCHUNK", "CF.RESERVE", "CF.ADD", "CF.ADDNX", "CF.INSERT", "CF.INSERTNX",
             "CF.EXISTS", "CF.MEXISTS", "CF.DEL", "CF.COUNT", "CF.INFO", "CF.SCANDUMP", "CF.LOADCHUNK"]
    tokens = [b"f", b"g", b"0", b"1", b"-1", b"0.5", b"1e308", b"nan", b"ITEMS", b"CAPACITY", b"ERROR",
              b"EXPANSION", b"NONSCALING", b"NOCREATE", b"BUCKETSIZE", b"MAXITERATIONS", b"9223372036854775807", b"",
              b"\x00\xff", b"BKF", b"bkfCFch1"]
    for _ in range(6000):
        command = [rng.choice(words)] + [rng.choice(tokens) for _ in range(rng.randint(0, 7))]
        try:
            r.execute_command(*command)
        except redis.ResponseError:
            pass
    assert r.ping()


def test_a_redis_cluster_routes_the_commands_by_their_key(tmp_path):
    """Three masters with the module: redis-py's cluster client finds each command's key from the
    key specs Redis made of the module's registration, and every filter answers on its node."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "redis-cluster.sh"
    folder = tmp_path / "cluster"
    env = dict(os.environ)
    if os.environ.get("BLOOMKIT_MODULE_PRELOAD"):
        env.update(LD_PRELOAD=os.environ["BLOOMKIT_MODULE_PRELOAD"], ASAN_OPTIONS="detect_leaks=0")
    started = subprocess.run(["bash", str(script), "start", str(folder), "--masters", "3", "--owner", str(os.getpid()),
                              "--", "--loadmodule", MODULE], capture_output=True, text=True, env=env)
    if started.returncode == 3:
        pytest.skip("redis-server or redis-cli is missing")
    assert started.returncode == 0, started.stderr
    try:
        port = int(started.stdout.split()[0])
        r = redis.cluster.RedisCluster(host="127.0.0.1", port=port)
        names = [f"filter-{i}" for i in range(30)]  # spread over the three masters' slots
        for name in names:
            assert r.bf().add(name, "x") == 1
            assert r.cf().add("c" + name, "x") == 1
        assert all(r.bf().exists(name, "x") == 1 and r.bf().exists(name, "y") == 0 for name in names)
        assert all(r.cf().count("c" + name, "x") == 1 for name in names)
        assert len({r.keyslot(name) * 3 // 16384 for name in names}) == 3
    finally:
        subprocess.run(["bash", str(script), "stop", str(folder)], capture_output=True)
