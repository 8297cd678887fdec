"""bloomkit.dask on a real cluster: a distributed.LocalCluster of two worker processes on loopback,
started here and always closed. Filters built on the workers equal the filter built in one
process bit for bit; isin has no false negatives; semi_join is dd.merge, row for row; a worker
killed mid-build never yields a filter missing keys."""
import os
import pickle
import signal
import threading
import time

import numpy as np
import pytest

dask = pytest.importorskip("dask", reason="Dask is not installed (Debian: python3-dask)")
distributed = pytest.importorskip("distributed", reason="distributed is not installed (Debian: python3-distributed)")
pd = pytest.importorskip("pandas", reason="pandas is not installed (Debian: python3-pandas)")
import dask.bag as db  # noqa: E402
import dask.dataframe as dd  # noqa: E402

import bloomkit  # noqa: E402
import bloomkit.dask as bkd  # noqa: E402
from conftest import urls  # noqa: E402


def start_cluster(**options):
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                       dashboard_address=":0", silence_logs=40, **options)
    return cluster, distributed.Client(cluster)


@pytest.fixture(scope="module")
def client():
    cluster, client = start_cluster(memory_limit="2GiB")
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def frame_rows(frame):
    """A pandas frame as a canonical list of rows (order of rows and of the index ignored)."""
    table = frame.reset_index(drop=True)
    return sorted(map(repr, table.astype(object).where(table.notna(), None).itertuples(index=False)))


# --- build -------------------------------------------------------------------------------------------

def test_build_over_eight_partitions_is_the_local_filter_bit_for_bit(client):
    keys = np.random.default_rng(1).integers(-2**63, 2**63 - 1, size=1_000_000, dtype=np.int64)
    series = dd.from_pandas(pd.Series(keys), npartitions=8)
    built = bkd.build(series, fpr=0.01, n=1_000_000)
    local = bloomkit.BloomFilter(1_000_000, 0.01)
    local.update(keys)
    assert built.to_bytes() == local.to_bytes()
    assert built.contains_many(keys).all()


@pytest.mark.parametrize("kind", ["block", "split_block", "classic", "counting"])
def test_build_of_text_from_a_bag_counts_n_and_equals_the_local_filter(client, kind):
    keys = urls(50_000)
    built = bkd.build(db.from_sequence(keys, npartitions=8), fpr=0.01, kind=kind)
    assert built.expected_items == 50_000  # counted in a first pass
    make = bloomkit.CountingBloomFilter if kind == "counting" else \
        (lambda n, p: bloomkit.BloomFilter(n, p, layout=kind))
    local = make(50_000, 0.01)
    local.update(keys)
    assert built.to_bytes() == local.to_bytes()


def test_build_of_a_dataframe_column_skips_nulls_and_reads_an_int_column_with_nulls_as_integers(client):
    values = pd.array([5, None, 7, 9, None, 11] * 1000, dtype="Int64")
    frame = dd.from_pandas(pd.DataFrame({"id": values, "float_id": values.astype("float64"),
                                         "name": ["a", None, "c", "d", None, "f"] * 1000}), npartitions=4)
    by_int = bkd.build(frame, column="id", fpr=0.001)
    assert by_int.expected_items == 4000  # non-null keys, duplicates counted
    assert all(k in by_int for k in (5, 7, 9, 11))
    assert bkd.build(frame, column="float_id", fpr=0.001, n=4000) == by_int
    by_name = bkd.build(frame, column="name", fpr=0.001)
    assert all(k in by_name for k in "acdf")
    with pytest.raises(bloomkit.InvalidArgument, match="column="):
        bkd.build(frame, fpr=0.01)


def test_build_refuses_what_cannot_be_united_or_held(client):
    bag = db.from_sequence(["a", "b"], npartitions=2)
    with pytest.raises(bloomkit.InvalidArgument, match="'cuckoo' cannot be built in parts"):
        bkd.build(bag, fpr=0.01, kind="cuckoo")
    # 10^10 keys at 1% is ~12 GB a filter: the workers have 2 GiB each. Refused before any work.
    with pytest.raises(bloomkit.InvalidArgument, match=r"does not fit.*a worker's memory_limit \(2\.0 GiB\)"):
        bkd.build(bag, fpr=0.01, n=10**10)
    fractional = dd.from_pandas(pd.Series([0.5, 1.0]), npartitions=1)
    with pytest.raises(TypeError, match="fractional numbers"):
        bkd.build(fractional, fpr=0.01, n=2)


def test_filters_travel_as_their_bytes(client):
    f = bloomkit.BloomFilter(10_000, 0.01)
    f.update(urls(1000))
    back = client.submit(lambda g: g.copy(), f).result()
    assert back == f and type(back) is bloomkit.BloomFilter
    buffers = []  # protocol 5: the bytes out of band, as Dask sends them
    data = pickle.dumps(f, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and len(data) < 200
    assert pickle.loads(data, buffers=buffers) == f
    assert pickle.loads(pickle.dumps(f, protocol=4)) == f


def test_a_worker_killed_mid_build_never_gives_a_filter_missing_keys(tmp_path):
    """The kill lands while the worker runs a partition of the build: each partition says which
    worker runs it, then waits until the test lets it go, after the kill."""
    cluster, client = start_cluster(memory_limit="1GiB")
    try:
        pids = list(client.run(os.getpid).values())
        release = tmp_path / "release"

        def held_partition(i):
            (tmp_path / f"started-{os.getpid()}").touch()
            while not release.exists():
                time.sleep(0.01)
            return [f"key-{i}-{j}" for j in range(20_000)]

        bag = db.from_sequence(range(8), npartitions=8).map_partitions(lambda part: held_partition(part[0]))
        outcome = {}

        def run():
            try:
                outcome["filter"] = bkd.build(bag, fpr=0.01, n=160_000)
            except Exception as e:  # noqa: BLE001 - any failure is an acceptable outcome; a wrong filter is not
                outcome["error"] = e

        job = threading.Thread(target=run)
        job.start()
        deadline = time.monotonic() + 300
        while not (running := [pid for pid in pids if (tmp_path / f"started-{pid}").exists()]):
            assert job.is_alive() and time.monotonic() < deadline, f"no worker started a partition: {outcome}"
            time.sleep(0.05)
        os.kill(running[0], signal.SIGKILL)
        release.touch()
        job.join(300)
        assert not job.is_alive()
        if "filter" in outcome:  # the lost tasks ran again
            keys = [f"key-{i}-{j}" for i in range(8) for j in range(20_000)]
            assert outcome["filter"].contains_many(keys).all()
        else:
            assert isinstance(outcome["error"], Exception)
    finally:
        client.close()
        cluster.close()


# --- isin --------------------------------------------------------------------------------------------

def test_isin_has_no_false_negatives_and_the_stated_fpr(client):
    members = urls(200_000)
    strangers = urls(200_000, start=10_000_000)
    f = bkd.build(dd.from_pandas(pd.Series(members), npartitions=8), fpr=0.01, n=200_000)
    series = dd.from_pandas(pd.Series(members + strangers + [None]), npartitions=6)
    answers = bkd.isin(series, f).compute().to_numpy()
    assert answers[:200_000].all()
    measured = answers[200_000:400_000].mean()
    assert measured <= 0.011, measured  # 1% target; 200k trials put 3 sigma at 0.067%
    assert not answers[-1]  # a null is never a key
    frame = dd.from_pandas(pd.DataFrame({"url": members[:1000] + strangers[:1000]}), npartitions=3)
    assert len(frame[bkd.isin(frame["url"], f)].compute()) < 1030


def test_isin_without_distributed_shares_the_filter_as_one_graph_node():
    f = bloomkit.BloomFilter(1000, 0.01)
    f.update(range(0, 1000))
    series = dd.from_pandas(pd.Series(np.arange(0, 2000, dtype=np.int64)), npartitions=4)
    with dask.config.set(scheduler="threads"):
        mask = bkd.isin(series, f)
        assert len({k for k in mask.dask if k[0].startswith("BloomFilter") if isinstance(k, tuple)}) <= 1
        answers = mask.compute().to_numpy()
    assert answers[:1000].all() and answers[1000:].mean() < 0.03


# --- semi_join ------------------------------------------------------------------------------------------

def tables(rng, rows, small_rows, text):
    """A big table and a small one whose keys overlap in part, with duplicates and nulls."""
    def key(i):
        return f"k{i:06d}é" if text else i
    big_keys = [None if i % 97 == 0 else key(int(k)) for i, k in enumerate(rng.integers(0, 50_000, rows))]
    small_keys = [None if i % 31 == 0 else key(int(k)) for i, k in enumerate(rng.integers(40_000, 60_000, small_rows))]
    big = pd.DataFrame({"key": pd.Series(big_keys, dtype=object if text else "Int64"),
                        "region": rng.integers(0, 3, rows), "amount": rng.random(rows)})
    small = pd.DataFrame({"key": pd.Series(small_keys, dtype=object if text else "Int64"),
                          "region": rng.integers(0, 3, small_rows), "label": [f"l{i}" for i in range(small_rows)]})
    return big, small


@pytest.mark.parametrize("text", [False, True], ids=["int keys", "str keys"])
@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
def test_semi_join_is_dd_merge_exactly(client, text, how):
    big, small = tables(np.random.default_rng(7), 40_000, 3_000, text)
    left, right = dd.from_pandas(big, npartitions=5), dd.from_pandas(small, npartitions=3)
    for a, b in ((left, right), (right, left)):
        for on in ("key", ["key", "region"]):
            expected = dd.merge(a, b, on=on, how=how).compute()
            joined, stats = bkd.semi_join(a, b, on=on, how=how, stats=True)
            got, report = dask.compute(joined, stats)
            assert frame_rows(got) == frame_rows(expected), (how, on)
            if report.pruned_side is not None:
                assert report.rows == 40_000 and report.rows_saved > 20_000  # most keys cannot match
                assert 0 < report.bytes_kept < report.bytes


def test_semi_join_matches_keys_as_pandas_compares_them(client):
    # 1, 1.0 and True are one key to pandas; "1" is another; nulls match nulls.
    left = pd.DataFrame({"key": [1, 2, "1", None, 3.0, True, b"x"] * 50, "v": range(350)})
    right = pd.DataFrame({"key": [1.0, "1", float("nan"), 3, b"x"], "w": range(5)})
    a, b = dd.from_pandas(left, npartitions=3), dd.from_pandas(right, npartitions=1)
    expected = dd.merge(a, b, on="key").compute()
    assert frame_rows(bkd.semi_join(a, b, on="key").compute()) == frame_rows(expected)


# semi_join on dates and times is dd.merge, row for row, on workers that are separate processes:
# their keys never go through Python's hash(), which each process salts its own way.
@pytest.mark.parametrize("column", ["datetime64", "date objects", "aware timestamps"])
def test_semi_join_on_dates_and_times_is_dd_merge_across_processes(client, column):
    days = pd.date_range("2024-01-01", periods=400, freq="D")
    keys = {"datetime64": days, "date objects": pd.Index(days.date, dtype=object),
            "aware timestamps": days.tz_localize("Europe/Paris")}[column]
    orders = pd.DataFrame({"day": np.tile(keys, 5), "amount": np.arange(2000)})
    holidays = pd.DataFrame({"day": keys[::2], "holiday": True})
    left, right = dd.from_pandas(orders, npartitions=8), dd.from_pandas(holidays, npartitions=2)
    expected = dd.merge(left, right, on="day").compute()
    assert len(expected) == 1000
    assert frame_rows(bkd.semi_join(left, right, on="day").compute()) == frame_rows(expected)


def test_semi_join_says_when_it_cannot_prune(client):
    big, small = tables(np.random.default_rng(3), 2_000, 100, False)
    left, right = dd.from_pandas(big, npartitions=2), dd.from_pandas(small, npartitions=1)
    _, report = bkd.semi_join(left, right, on="key", how="left", stats=True)  # the right side is the smaller
    assert report.compute().pruned_side is None and "smaller" in report.compute().reason
    _, report = bkd.semi_join(left, right, on="key", how="outer", stats=True)
    assert "keeps every row" in report.compute().reason


# --- dedup --------------------------------------------------------------------------------------------

def test_dedup_keeps_first_appearances_and_no_duplicate(client):
    rng = np.random.default_rng(5)
    items = [f"item-{int(k)}" for k in rng.integers(0, 10_000, 40_000)]
    bag = db.from_sequence(items, npartitions=6)
    deduped, stats = bkd.dedup(bag, fpr=0.001, stats=True)
    kept, report = dask.compute(deduped, stats)
    first = list(dict.fromkeys(items))
    assert len(set(kept)) == len(kept)  # no duplicate kept
    assert set(kept) <= set(first)
    missing = len(first) - len(kept)
    assert missing <= max(10, 5 * report.expected_wrongly_dropped)
    position = {item: i for i, item in enumerate(first)}
    kept_positions = [position[k] for k in kept]
    assert kept_positions == sorted(kept_positions)  # in order of first appearance
    assert report.items == 40_000 and report.kept == len(kept)
    assert sorted(bag.distinct().compute()) == sorted(first)  # the exact answer, through Dask's shuffle
