"""bloomkit.dask against plain Dask, on a LocalCluster of worker processes on this machine.

    PYTHONPATH=build/release/python /usr/bin/python3 bench/dask_bench.py [--rows 20e6] [--small 2e5]

1. semi_join of a big table (--rows rows, 1% of them with a key of the small table) with a
   small one (--small rows) against dd.merge of the same tables (a hash join: both shuffled):
   wall time, bytes moved between workers (the workers' transfer counters) and peak memory per
   worker (VmHWM, reset before each run), the outputs checked equal.
2. build: keys per second per worker, integers and URL-like strings, against one process
   updating a filter from the same keys held in memory.
3. dedup of URL-like items (about 43% distinct) against Dask's exact answers: Bag.distinct() and
   a shuffled DataFrame.drop_duplicates.
Tables are generated on the workers and persisted first, as data read from storage would be.
"""
import argparse
import os
import platform
import statistics
import time

import dask
import dask.bag as db
import dask.dataframe as dd
import distributed
import numpy as np
import pandas as pd

import bloomkit
import bloomkit.dask as bkd

PARTITION_ROWS = 1_000_000


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def big_partition(i, small_rows):
    rng = np.random.default_rng(1000 + i)
    joins = rng.random(PARTITION_ROWS) < 0.01
    keys = np.where(joins, rng.integers(0, small_rows, PARTITION_ROWS), rng.integers(10**12, 2 * 10**12, PARTITION_ROWS))
    return pd.DataFrame({"key": keys.astype(np.int64), "amount": rng.random(PARTITION_ROWS),
                         "shop": rng.integers(0, 5000, PARTITION_ROWS).astype(np.int32)})


def small_partition(i, rows_each):
    keys = np.arange(i * rows_each, (i + 1) * rows_each, dtype=np.int64)
    return pd.DataFrame({"key": keys, "segment": (keys % 17).astype(np.int32)})


def url_partition(i, rows):
    return pd.Series([f"https://www.site{(i * rows + j) % 997:03d}.example.com/articles/{i * rows + j:010x}"
                      for j in range(rows)], name="url")


def repeated_urls(i, rows, universe):
    """URL-like items drawn from `universe` of them: about 43% distinct when rows x 8 = 2 x universe."""
    rng = np.random.default_rng(2000 + i)
    return [f"https://www.site{k % 997:03d}.example.com/articles/{k:010x}" for k in rng.integers(0, universe, rows)]


def workers_bytes_sent(client):
    return sum(client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total).values())


def reset_peaks(client):
    def reset():
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM, the peak resident set (Linux 4.0+)
    client.run(reset)


def peaks(client):
    def peak():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        return 0
    return sorted(client.run(peak).values())


def measure(client, job, repeats):
    """(median seconds, bytes sent between workers, highest peak RSS of a worker, result)."""
    times, moved, top, result = [], [], [], None
    for _ in range(repeats):
        before = workers_bytes_sent(client)
        reset_peaks(client)
        start = time.perf_counter()
        result = job()
        times.append(time.perf_counter() - start)
        moved.append(workers_bytes_sent(client) - before)
        top.append(max(peaks(client)))
    return statistics.median(times), statistics.median(moved), max(top), result


def canonical(frame):
    return frame.sort_values(list(frame.columns)).reset_index(drop=True)


def mib(n):
    return f"{n / 2**20:,.0f} MiB"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=float, default=20e6)
    parser.add_argument("--small", type=float, default=2e5)
    parser.add_argument("--urls", type=float, default=4e6)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows, small_rows, url_rows = int(args.rows), int(args.small), int(args.urls)

    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                       dashboard_address=":0", memory_limit="8GiB", silence_logs=40)
    client = distributed.Client(cluster)
    try:
        print(f"# bloomkit.dask — {cpu_model()}, {os.cpu_count()} cores; 2 worker processes x 1 thread, "
              f"Dask {dask.__version__}, distributed {distributed.__version__}, pandas {pd.__version__}\n")
        big_parts, small_parts = max(1, rows // PARTITION_ROWS), 4
        big = dd.from_map(big_partition, range(big_parts), small_rows=small_rows,
                          meta=big_partition(0, small_rows).iloc[:0]).persist()
        small = dd.from_map(small_partition, range(small_parts), rows_each=small_rows // small_parts,
                            meta=small_partition(0, 1).iloc[:0]).persist()
        distributed.wait([big, small])
        rows = big_parts * PARTITION_ROWS

        print(f"## semi_join: {rows:,} rows ({big_parts} partitions, 1% with a key of the small table) "
              f"with {small_rows:,} rows ({small_parts} partitions), inner, on an int64 key\n")
        print("| | time | ratio | bytes moved between workers | ratio | peak RSS of a worker |")
        print("|---|---:|---:|---:|---:|---:|")
        plain = measure(client, lambda: dd.merge(big, small, on="key").compute(), args.repeats)
        pruned = measure(client, lambda: bkd.semi_join(big, small, on="key").compute(), args.repeats)
        assert canonical(plain[3]).equals(canonical(pruned[3])), "semi_join and dd.merge disagree"
        for name, (seconds, moved, peak, _) in (("`dd.merge`", plain), ("`bloomkit.dask.semi_join`", pruned)):
            print(f"| {name} | {seconds:.2f} s | {plain[0] / seconds:.1f}x | {mib(moved)} | "
                  f"{plain[1] / max(moved, 1):.1f}x | {mib(peak)} |")
        _, report = dask.compute(*bkd.semi_join(big, small, on="key", stats=True))
        print(f"\n{len(plain[3]):,} rows joined, equal in both. Pruning kept {report.rows_kept:,} of "
              f"{report.rows:,} rows ({mib(report.bytes_kept)} of {mib(report.bytes)}); the filter: "
              f"{report.filter_bytes:,} bytes at {report.fpr:g}.\n")

        print("## build: keys per second per worker, against one process\n")
        print("| keys | local, one process | Dask, per worker (2 workers) | Dask, both workers |")
        print("|---|---:|---:|---:|")
        urls = dd.from_map(url_partition, range(8), rows=url_rows // 8, meta=pd.Series([], dtype=object, name="url"))
        urls = urls.to_frame().persist()
        distributed.wait(urls)
        for name, frame, count in (("int64", big, rows), ("URL strings (~60 bytes)", urls, url_rows // 8 * 8)):
            column = frame.columns[0]
            seconds = measure(client, lambda: bkd.build(frame, column=column, fpr=0.01, n=count), args.repeats)[0]
            held = frame[column].compute()
            values = held.to_numpy() if held.dtype != object else held.to_numpy(dtype=object)
            local = []
            for _ in range(args.repeats):
                f = bloomkit.BloomFilter(count, 0.01)
                start = time.perf_counter()
                f.update(values)
                local.append(time.perf_counter() - start)
            one = count / statistics.median(local)
            print(f"| {count:,} {name} | {one / 1e6:.1f} M/s | {count / seconds / 2 / 1e6:.1f} M/s | "
                  f"{count / seconds / 1e6:.1f} M/s |")

        print("\n## dedup: each item once, against Dask's exact answers\n")
        count = url_rows // 8 * 8
        items = db.from_sequence(range(8), npartitions=8).map_partitions(
            lambda part: repeated_urls(part[0], count // 8, count // 2)).persist()
        distributed.wait(items)
        # Timed to the count of the items out, which stay on the workers (a job would write them
        # there): gathering lists of strings to the client costs Dask more than either job.
        exact = measure(client, lambda: items.distinct().count().compute(), args.repeats)
        frame = items.to_dataframe(meta={"item": object}).persist()
        distributed.wait(frame)
        shuffled = measure(client, lambda: len(frame.drop_duplicates(split_out=frame.npartitions)),
                           args.repeats)
        deduped, stats = bkd.dedup(items, fpr=0.001, n=count, stats=True)
        approx = measure(client, lambda: dask.compute(deduped.count(), stats), args.repeats)
        kept, report = dask.compute(deduped, stats)
        unique = set(items.distinct().compute())
        distinct = len(unique)
        assert exact[3] == distinct == shuffled[3] and approx[3][0] == len(kept)
        assert set(kept) <= unique and len(set(kept)) == len(kept)
        print("| | time | ratio | bytes moved between workers | items out | order |")
        print("|---|---:|---:|---:|---:|---|")
        print(f"| `Bag.distinct()` (exact: sets united in a tree) | {exact[0]:.2f} s | 1.0x | {mib(exact[1])} | "
              f"{distinct:,} | none |")
        print(f"| `DataFrame.drop_duplicates(split_out=P)` (exact: shuffled) | {shuffled[0]:.2f} s | "
              f"{exact[0] / shuffled[0]:.1f}x | {mib(shuffled[1])} | {distinct:,} | none |")
        print(f"| `bloomkit.dask.dedup(fpr=0.001)` | {approx[0]:.2f} s | {exact[0] / approx[0]:.1f}x | {mib(approx[1])} | "
              f"{len(kept):,} | first appearance |")
        print(f"\n{count:,} items, {distinct:,} distinct; dedup dropped {distinct - len(kept)} unique items "
              f"wrongly, {report.expected_wrongly_dropped:.1f} expected.")
    finally:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
