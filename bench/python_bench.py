#!/usr/bin/python3
"""bench/python_bench.py — bloomkit from Python beside Python's set and DCSO's flor (Debian
python3-flor), in one run, as ratios: single-key add and `in` over N string keys, memory, and
numpy bulk adds and lookups of 64-bit integers.

    PYTHONPATH=build/release/python bench/python_bench.py [N] [BULK_N]

N string keys (default 1,000,000); BULK_N uint64 keys for the numpy rows (default 10,000,000; 0
leaves them out). flor, pure Python at ~10 µs a key, is measured on at most 1,000,000 of the keys
(its cost a key is the interpreter's, whatever N; the table says how many). Prints a Markdown
table; figures are best of three, on this machine (name its CPU beside them).
"""
import sys
import time
import tracemalloc

import numpy as np

import bloomkit

try:
    import flor
except ImportError:  # the table says so
    flor = None


def best_of_three(run):
    best = None
    for _ in range(3):
        start = time.perf_counter()
        run()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best


def set_memory(keys):
    tracemalloc.start()
    s = set(keys)
    size = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del s
    return size


def main():
    n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 1_000_000
    bulk_n = int(float(sys.argv[2])) if len(sys.argv) > 2 else 10_000_000
    keys = [f"https://www.site{i % 99991:05d}.example.com/articles/{i:012x}" for i in range(n)]
    absent = [k + "/x" for k in keys]
    rows = []

    def row(tool, operation, seconds, count, base=None):
        rows.append((tool, operation, seconds / count * 1e9, base))

    s = set()
    row("set", "add", best_of_three(lambda: [s.add(k) for k in keys]), n)
    row("set", "in (absent)", best_of_three(lambda: [k in s for k in absent]), n)
    b = bloomkit.BloomFilter(n, 0.001)
    row("bloomkit", "add", best_of_three(lambda: [b.add(k) for k in keys]), n)
    row("bloomkit", "in (absent)", best_of_three(lambda: [k in b for k in absent]), n)
    row("bloomkit", "update(list)", best_of_three(lambda: b.update(keys)), n)
    row("bloomkit", "contains_many(list)", best_of_three(lambda: b.contains_many(absent)), n)
    flor_n = min(n, 1_000_000)
    if flor is not None:
        bytes_keys = [k.encode() for k in keys[:flor_n]]
        bytes_absent = [k.encode() for k in absent[:flor_n]]
        f = flor.BloomFilter(n, 0.001)
        row("flor", "add", best_of_three(lambda: [f.add(k) for k in bytes_keys]), flor_n)
        row("flor", "in (absent)", best_of_three(lambda: [f.check(k) for k in bytes_absent]), flor_n)

    if bulk_n > 0:
        numbers = np.random.default_rng(1).integers(0, 2**63, size=bulk_n, dtype=np.int64).astype(np.uint64)
        nb = bloomkit.BloomFilter(bulk_n, 0.01)
        row("bloomkit", f"add_many(numpy uint64 x {bulk_n:,})", best_of_three(lambda: nb.update(numbers)), bulk_n)
        row("bloomkit", f"contains_many(numpy uint64 x {bulk_n:,})",
            best_of_three(lambda: nb.contains_many(numbers)), bulk_n)

    by = {(t, o): ns for t, o, ns, _ in rows}
    print(f"Python {sys.version.split()[0]}, {n:,} string keys at 0.1%"
          f"{f' (flor on the first {flor_n:,})' if flor is not None and flor_n < n else ''}:\n")
    print("| tool | operation | ns/key | keys/s | vs flor |")
    print("|---|---|---:|---:|---:|")
    for tool, operation, ns, _ in rows:
        base = by.get(("flor", operation))
        ratio = f"{base / ns:.1f}x" if base and tool != "flor" else "–"
        print(f"| {tool} | {operation} | {ns:.0f} | {1e9 / ns / 1e6:.1f}M | {ratio} |")
    table = set_memory(keys)
    strings = sum(sys.getsizeof(k) for k in keys)
    print(f"\nmemory: a set of the keys {(table + strings) / 1e6:.1f} MB ({table / 1e6:.1f} MB of table, the rest "
          f"the strings); bloomkit at 0.1% {b.nbytes / 1e6:.2f} MB: {(table + strings) / b.nbytes:.0f}x less "
          f"({table / b.nbytes:.0f}x less than the table alone)")


if __name__ == "__main__":
    main()
