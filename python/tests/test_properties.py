"""Properties over arbitrary keys (hypothesis): no false negatives in any kind, before and after
the bytes, pickle and a union; the same answers for a key and its numpy form."""
import pickle

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import bloomkit

texts = st.lists(st.one_of(st.text(max_size=40), st.binary(max_size=40)), max_size=300)
# Python ints record i64 (a signed type), so one filter's keys are either signed or, made with
# key_format="u64", unsigned: no filter holds both -1 and 2**64 - 1 (keys.hpp).
signed = st.lists(st.integers(min_value=-(2**63), max_value=2**63 - 1), max_size=300)
unsigned = st.lists(st.integers(min_value=0, max_value=2**64 - 1), max_size=300)
numbers = signed
MAKERS = [bloomkit.BloomFilter, bloomkit.CountingBloomFilter, bloomkit.CuckooFilter,
          lambda n, p: bloomkit.ScalableBloomFilter(max(n // 4, 1), p)]


@settings(max_examples=60, deadline=None)
@given(keys=st.one_of(texts, signed, unsigned), which=st.integers(min_value=0, max_value=len(MAKERS) - 1))
def test_no_key_is_ever_lost(keys, which):
    f = MAKERS[which](max(len(keys), 1) * 2, 0.01)
    if any(isinstance(k, int) and k >= 2**63 for k in keys):
        f.key_format = "u64"
    f.update(keys)
    for g in (f, bloomkit.from_bytes(f.to_bytes()), pickle.loads(pickle.dumps(f))):
        assert all(k in g for k in keys)
        assert g.contains_many(keys).all() if keys else True
    if keys:
        fuse = bloomkit.BinaryFuseFilter(keys, key_format=f.key_format)
        assert all(k in fuse for k in keys)


@settings(max_examples=40, deadline=None)
@given(a=numbers, b=numbers)
def test_a_union_holds_both(a, b):
    x, y = bloomkit.BloomFilter(1000, 0.01, seed=3), bloomkit.BloomFilter(1000, 0.01, seed=3)
    x.update(a)
    y.update(b)
    both = x | y
    assert all(k in both for k in a + b)


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.integers(min_value=0, max_value=2**64 - 1), min_size=1, max_size=200))
def test_numpy_keys_are_the_ints_they_hold(values):
    f = bloomkit.BloomFilter(1000, 0.01)
    f.update(np.array(values, dtype=np.uint64))
    assert all(v in f for v in values)
    assert f.key_format == "u64"  # an unsigned array records u64
    g = bloomkit.BloomFilter(1000, 0.01, key_format="u64")
    g.update(values)
    assert f == g
