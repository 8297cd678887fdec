#!/usr/bin/python3
"""Prints each URL of the input the first time it is seen, remembering them in a Bloom filter
that a later run (or `bloomkit dedup --state seen.bkf`) continues from.

    PYTHONPATH=build/release/python examples/python/dedup_urls.py seen.bkf < urls.txt > new.txt

A URL seen before is never printed again; a new one is wrongly taken for a repeat with
probability ~0.1% (the filter's false-positive rate), so a crawler skips a few pages in a
thousand rather than keeping every URL it ever saw in memory.
"""
import os
import sys

import bloomkit

state = sys.argv[1] if len(sys.argv) > 1 else "seen.bkf"
seen = bloomkit.load(state) if os.path.exists(state) else bloomkit.BloomFilter(10_000_000, 0.001)
for line in sys.stdin.buffer:
    url = line.rstrip(b"\n")
    if url not in seen:
        seen.add(url)
        sys.stdout.buffer.write(line)
seen.save(state)
