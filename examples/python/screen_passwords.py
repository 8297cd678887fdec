#!/usr/bin/python3
"""Screens candidate passwords against the word lists Debian ships (wamerican-huge,
cracklib-runtime), held in a filter a small fraction of the size of a set of them: a word on the
lists is always caught; a strong password is wrongly called weak with probability 0.1%.

    PYTHONPATH=build/release/python examples/python/screen_passwords.py [PASSWORD...]
"""
import sys

import bloomkit

LISTS = ["/usr/share/dict/american-english-huge", "/usr/share/dict/cracklib-small"]
words = [w.rstrip("\n") for path in LISTS for w in open(path, encoding="utf-8", errors="surrogateescape")]
weak = bloomkit.BloomFilter(len(words), 0.001)
weak.update(w.encode("utf-8", "surrogateescape") for w in words)  # the lists' bytes, as the command reads them
candidates = sys.argv[1:] or ["password", "letmein", "Tr0ub4dor&3", "correct horse battery staple", "g7#Vq!p2Lm"]
for password, maybe in zip(candidates, weak.contains_many(candidates)):
    print(f"{'weak  ' if maybe else 'strong'}  {password}")
print(f"({len(words):,} words in {weak.nbytes / 1e6:.2f} MB)", file=sys.stderr)
