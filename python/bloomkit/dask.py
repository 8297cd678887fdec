"""bloomkit on Dask: filters built where the data lies, and Bloom semi-joins that shrink the shuffle.

A Bloom filter is made for a cluster. Filters of the same kind, size and seed built on different
partitions unite by OR into the filter of all their keys, so each worker builds the filter of
its own partitions (the keys never leave it) and only the filters travel, united by a tree
reduction. A small filter sent to every worker drops the rows of a big table that cannot join
before anything crosses the network: the "Bloom join" of distributed databases (Bloom, 1970;
Mullin, "Optimal semijoins for distributed database systems", IEEE TSE 16(5), 1990).

    >>> import dask.dataframe as dd, bloomkit.dask
    >>> seen = bloomkit.dask.build(visits["url"], fpr=0.01)        # a bloomkit filter
    >>> seen.save("urls.bkf")                                        # or RedisBloomFilter.push(seen, "urls")
    >>> fresh = crawl[~bloomkit.dask.isin(crawl["url"], seen)]       # lazily, partition by partition
    >>> joined = bloomkit.dask.semi_join(clicks, customers, on="customer_id")   # = dd.merge(...)

Keys are what the filters take, by bloomkit's one key model (docs/KEYS.md): ``str``, bytes-like,
integers (Python's and numpy's), dates and times (nanoseconds since the epoch); a pandas column
goes to the filter as its numpy values without a Python object per key — nullable ``Int64``
too, and a float column whose values are whole numbers up to 2**53 (as pandas makes an integer
column with nulls; beyond 2**53 a float no longer holds every integer, and is refused). A filter
built here records its key format, so the command and C++ read it as they read their own.
Nulls are never keys: ``build`` skips them and ``isin`` answers False for them.

Every function works on any Dask scheduler. Under ``distributed`` a filter sent to the workers
is scattered to each of them once (``Client.scatter(broadcast=True)``) rather than pickled into
every task; elsewhere it is one node of the graph that every task shares. Filters pickle as
their bkf bytes. A filter that would not fit a worker's memory limit (``memory_limit`` of
``distributed``, else this machine's memory) is refused before anything is built, with the
sizes in the message, instead of letting a worker be killed for its memory.
"""

from __future__ import annotations

import datetime
import fractions
import functools
import math
import numbers
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple, Union

import dask
import dask.core
import dask.local
import dask.bag as db
import dask.dataframe as dd
import numpy as np
import pandas as pd
from dask.delayed import Delayed, delayed

from . import BloomFilter, CountingBloomFilter, Filter, InvalidArgument, WrongKeyType
from . import plan as _plan

__all__ = ["build", "isin", "semi_join", "dedup", "JoinStats", "DedupStats"]

Collection = Union[db.Bag, dd.Series, dd.DataFrame]

# The kinds whose filters unite by OR, as build() names them: (registry word, Bloom layout).
_KINDS = {
    "block": ("bloom", "block"),
    "split_block": ("bloom", "split_block"),
    "classic": ("bloom", "classic"),
    "counting": ("counting", None),
}

# Share of a worker's memory limit the filters of one reduction step may take: Dask pauses a
# worker at 80% of its limit and the partitions being read need room too.
_MEMORY_SHARE = 0.5


# --- The filter every partition makes -----------------------------------------------------------

@dataclass(frozen=True)
class _Spec:
    """What makes the filters of one job identical, so that they unite."""

    kind: str
    n: int
    fpr: float
    seed: Optional[int]
    key_format: Optional[str] = None

    def make(self) -> Filter:
        word, layout = _KINDS[self.kind]
        if word == "counting":
            return CountingBloomFilter(self.n, self.fpr, seed=self.seed, key_format=self.key_format)
        return BloomFilter(self.n, self.fpr, layout=layout, seed=self.seed, key_format=self.key_format)

    def nbytes(self) -> int:
        word, layout = _KINDS[self.kind]
        return int(_plan(self.n, self.fpr, kind=word, layout=layout)["bytes"])

    def hashes(self) -> int:
        word, layout = _KINDS[self.kind]
        return int(_plan(self.n, self.fpr, kind=word, layout=layout)["hashes"])


def _spec(kind: str, n: int, fpr: float, seed: Optional[int], key_format: Optional[str] = None) -> _Spec:
    if kind not in _KINDS:
        raise InvalidArgument(f"kind {kind!r} cannot be built in parts and united: choose "
                              + ", ".join(repr(k) for k in _KINDS))
    if not (isinstance(n, numbers.Integral) and n >= 0):
        raise InvalidArgument(f"n must be a whole number of keys, not {n!r}")
    return _Spec(kind, max(int(n), 1), float(fpr), seed, key_format)


# --- Keys out of partitions -----------------------------------------------------------------------

def _exact_float_limit(dtype) -> float:
    """The largest integer up to which a float of `dtype` holds every integer: 2**53 for float64,
    2**24 for float32, 2**11 for float16 (one more bit than its mantissa stores)."""
    return 2.0 ** (np.finfo(dtype).nmant + 1)


def _integer_array(column: pd.Series) -> Optional[np.ndarray]:
    """The column's non-null values as integers when it holds integers (numpy or nullable ints of
    any width, or floats that are all whole within the range where their type holds every
    integer: an integer column with nulls), else None. Throws for whole floats beyond that range,
    which may not be the integers they were."""
    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return None
    if pd.api.types.is_integer_dtype(dtype):
        values = column.dropna() if pd.api.types.is_extension_array_dtype(dtype) else column
        return values.to_numpy(dtype=getattr(dtype, "numpy_dtype", dtype))
    if pd.api.types.is_float_dtype(dtype):
        limit = _exact_float_limit(getattr(dtype, "numpy_dtype", dtype))
        values = column.dropna().to_numpy(dtype=np.float64)
        if np.all(np.isfinite(values)) and np.all(values == np.trunc(values)):
            if values.size and np.abs(values).max() > limit:
                raise InvalidArgument(f"column {column.name!r} holds whole numbers as {dtype} beyond {limit:.0f}, "
                                      "where that float no longer holds every integer: read it as integers (Int64) "
                                      "instead")
            return values.astype(np.int64)
    return None


def _keys_of(part: Any) -> Tuple[Any, Optional[np.ndarray]]:
    """The keys of one partition as bloomkit's bulk calls take them, and the mask of the rows they
    come from (None: every row), nulls left out."""
    if isinstance(part, pd.DataFrame):
        if part.shape[1] != 1:
            raise InvalidArgument("a DataFrame's keys are one column: give column=")
        part = part.iloc[:, 0]
    if isinstance(part, pd.Series):
        present = part.notna().to_numpy()
        integers = _integer_array(part)
        if integers is not None:
            return integers, None if present.all() else present
        if pd.api.types.is_float_dtype(part.dtype):
            raise WrongKeyType(f"column {part.name!r} holds fractional numbers, which are not keys: "
                               "convert it (astype, or to strings) first")
        return (part, None) if present.all() else (part[present], present)
    items = part if isinstance(part, list) else list(part)
    return [item for item in items if not _is_null(item)], None


def _is_null(item: Any) -> bool:
    """Whether an item of a Bag is a null (None, NaN, NA, NaT), which build skips."""
    if item is None or item is pd.NA or item is pd.NaT:
        return True
    if isinstance(item, (float, np.floating)):
        return math.isnan(item)
    if isinstance(item, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(item))
    return False


def _partitions_filter(spec: _Spec, keys_of: Callable[[Any], Tuple[Any, Any]], *parts: Any) -> Filter:
    """The filter of the keys of the partitions, keys_of(partition) giving them."""
    f = spec.make()
    for part in parts:
        keys, _ = keys_of(part)
        f.update(keys)
    return f


def _union(first: Filter, second: Filter, *others: Filter) -> Filter:
    """The union of filters made from one spec: a new filter; the inputs may be held elsewhere."""
    out = first | second
    for f in others:
        out |= f
    return out


def _tree_union(partials: List[Delayed], split_every: int) -> Delayed:
    if not partials:
        raise InvalidArgument("the collection has no partitions")
    level = partials
    while len(level) > 1:
        chunks = [level[i:i + split_every] for i in range(0, len(level), split_every)]
        level = [chunk[0] if len(chunk) == 1 else delayed(_union, pure=True)(*chunk) for chunk in chunks]
    return level[0]


# --- Memory: refuse what a worker cannot hold -----------------------------------------------------

def _client():
    """The distributed Client that will run the graphs, if dask's scheduler is one."""
    scheduler = dask.base.get_scheduler()
    owner = getattr(scheduler, "__self__", None)
    try:
        from distributed import Client
    except ImportError:
        return None
    return owner if isinstance(owner, Client) else None


def _worker_memory() -> Tuple[int, str]:
    """The smallest memory a task may count on, and what it is: a worker's memory_limit under
    distributed, else this machine's memory."""
    client = _client()
    if client is not None:
        limits = [w.get("memory_limit") or 0 for w in client.scheduler_info()["workers"].values()]
        if limits and all(limits):
            return min(limits), "a worker's memory_limit"
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"), "this machine's memory"


def _fan_in(nbytes: int, split_every: Optional[int]) -> int:
    """How many filters one reduction step unites: as many as fit (two to eight) in the share of
    a worker's memory the filters may take. Refuses a filter that cannot be united at all."""
    memory, what = _worker_memory()
    fits = int(memory * _MEMORY_SHARE) // max(nbytes, 1) - 1  # the inputs, and the union made
    if split_every is not None:
        if split_every < 2:
            raise InvalidArgument("split_every must be at least 2")
        fits = min(fits, split_every) if fits >= 2 else fits
    if fits < 2:
        raise InvalidArgument(
            f"a filter of {_size(nbytes)} does not fit: uniting two needs {_size(3 * nbytes)}, more than "
            f"{_MEMORY_SHARE:.0%} of {what} ({_size(memory)}); give the workers more memory, a higher fpr "
            f"or a smaller n, or build it in files with the command (bloomkit build, then bloomkit merge)")
    return min(fits, 8 if split_every is None else split_every)


def _size(nbytes: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if nbytes < 1024 or unit == "TiB":
            return f"{nbytes:.0f} {unit}" if unit == "bytes" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    raise AssertionError


# --- build -----------------------------------------------------------------------------------------
#
# A partial filter costs its whole size to allocate, send and unite, however few keys it holds, so
# the partitions are built into about one partial filter per worker thread rather than one per
# partition, where that moves no key: under distributed, the partitions of a persisted collection
# are grouped by the worker that holds them (the scheduler runs a group's task where all of its
# inputs are); with a single-machine scheduler, neighbouring partitions are grouped. Partitions
# still to be computed under distributed may be computed on any worker, so each gets its own.

def _split(indices: List[int], groups: int) -> List[List[int]]:
    groups = max(1, min(groups, len(indices)))
    return [indices[g::groups] for g in range(groups)]


def _leaf_groups(source: Collection, count: int) -> List[List[int]]:
    """Which partitions each partial filter is built from."""
    client = _client()
    if client is None:
        threads = dask.config.get("num_workers", None) or os.cpu_count() or 1
        return _split(list(range(count)), 1 if dask.base.get_scheduler() is dask.local.get_sync else threads)
    graph = dict(source.__dask_graph__())
    futures = [graph.get(key) for key in dask.core.flatten(source.__dask_keys__())]
    from distributed import Future
    if len(futures) != count or not all(isinstance(f, Future) for f in futures):
        return [[i] for i in range(count)]
    holders = client.who_has(futures)
    by_worker: dict = {}
    for i, f in enumerate(futures):
        by_worker.setdefault((holders.get(str(f.key)) or ("",))[0], []).append(i)
    threads = client.nthreads()
    return [group for worker, indices in by_worker.items() for group in _split(indices, threads.get(worker, 1))]


def _built(spec: _Spec, keys: Collection, source: Collection, keys_of: Callable, fan_in: int) -> Filter:
    """The filter of every key of `keys` (partitions of `source`, as keys_of reads them)."""
    parts = keys.to_delayed()
    partials = [delayed(_partitions_filter, pure=True)(spec, keys_of, *[parts[i] for i in group])
                for group in _leaf_groups(source, len(parts))]
    return _tree_union(partials, fan_in).compute()


def _key_collection(collection: Collection, column: Optional[str]) -> Union[db.Bag, dd.Series]:
    if isinstance(collection, dd.DataFrame):
        if column is None:
            raise InvalidArgument("a DataFrame's keys are one of its columns: give column=")
        return collection[column]
    if column is not None:
        if not isinstance(collection, dd.Series):
            raise InvalidArgument("column= names a column of a DataFrame")
        raise InvalidArgument("column= is for a DataFrame; a Series is its own column")
    if isinstance(collection, (db.Bag, dd.Series)):
        return collection
    raise TypeError(f"build takes a Dask Bag, Series or DataFrame, not {type(collection).__name__}")


def _count(keys: Union[db.Bag, dd.Series]) -> int:
    return int(keys.count().compute())  # a Series' count() leaves its nulls out, as build does


def build(collection: Collection, *, fpr: float, n: Optional[int] = None, kind: str = "block",
          column: Optional[str] = None, seed: Optional[int] = None, split_every: Optional[int] = None,
          key_format: Optional[str] = None) -> Filter:
    """The filter of every key of a Dask Bag, Series or DataFrame column, built on the workers.

    Each partition builds a filter for `n` keys at `fpr` where it lies; the filters are united
    by a tree reduction (`split_every` at a time: by default as many as fit, two to eight) and
    the union, equal bit for bit to the filter built from the same keys in one process, is
    returned. Without `n`, a first pass counts the keys (every non-null key, duplicates
    included: the filter is sized for at least as many distinct keys as there are, so its false
    positive rate is at most `fpr`); give `n` to read the data once.

    kind: "block" (one cache line per key, the default), "split_block", "classic" or
    "counting" — the kinds whose filters unite by OR. key_format: what the keys are ("text",
    "u64", "i64", "u32"), recorded with the filter; by default the keys' own (text for strings,
    i64 for signed integers and times, u64 for unsigned integers). The result can be saved
    (``f.save(path)``), pushed to Redis for services (``RedisBloomFilter.push(f, name)``),
    or given to ``isin``.
    """
    keys = _key_collection(collection, column)
    spec = _spec(kind, _count(keys) if n is None else n, fpr, seed, key_format)
    fan_in = _fan_in(spec.nbytes(), split_every)
    return _built(spec, keys, collection, _keys_of, fan_in)


# --- isin ------------------------------------------------------------------------------------------

def _shared(f: Filter) -> Delayed:
    """The filter as one node every task of a graph depends on: scattered once to every worker
    under distributed (the future is kept by the graph), else the filter itself."""
    client = _client()
    if client is not None:
        return delayed(client.scatter(f, broadcast=True, hash=True))
    return delayed(f, pure=True, traverse=False)


def _member_mask(part: pd.Series, f: Filter) -> pd.Series:
    keys, present = _keys_of(part)
    answers = f.contains_many(keys)
    if present is not None:
        full = np.zeros(len(part), dtype=bool)
        full[present] = answers
        answers = full
    return pd.Series(answers, index=part.index, name=part.name)


def isin(keys: dd.Series, f: Filter) -> dd.Series:
    """Whether each key may be in filter `f`, as a boolean Series beside `keys` (False: certainly
    not; True for a key of the filter always, and for others at its false-positive rate). Nulls
    are never in it. The filter goes to each worker once, not into every task."""
    if not isinstance(keys, dd.Series):
        raise TypeError(f"isin takes a Dask Series, not {type(keys).__name__}")
    return keys.map_partitions(_member_mask, _shared(f), meta=pd.Series(dtype=bool, name=keys.name))


# --- semi_join ---------------------------------------------------------------------------------------
#
# The pruned side keeps a row unless its key is certainly absent from the other side, judged by a
# filter of the other side's keys; the exact merge then runs on what survives, so the result is
# dd.merge's. A key must therefore reach the filter as the merge compares it: pandas matches 1,
# 1.0 and True, and a Timestamp with the datetime it equals. Integer, datetime64 and timedelta64
# columns on both sides are compared as their int64 values (without a Python object per row);
# any other columns through `_canonical_key`, which gives equal values equal bytes and unequal
# ones different bytes, the same in every process (never Python's hash(), which each process
# salts for str, bytes and dates). Rows whose key is null, or of a type the encoding cannot
# vouch for, are never pruned (pandas may match nulls with nulls; the merge decides).

_NULL, _UNVOUCHED = object(), object()
_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _nanoseconds(delta: datetime.timedelta) -> int:
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000


def _canonical_key(value: Any) -> Any:
    """Bytes that are equal exactly when the values are equal as a merge compares them; _NULL
    for a null, _UNVOUCHED for a value of a type this cannot vouch for."""
    if value is None or value is pd.NA or value is pd.NaT:
        return _NULL
    if isinstance(value, str):
        return b"s" + value.encode("utf-8", "surrogatepass")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return b"b" + bytes(value)
    if isinstance(value, (np.datetime64, np.timedelta64)):
        if np.isnat(value):
            return _NULL
        # Exactly, in Python's integers: numpy's range is far wider than pandas' nanoseconds.
        return (b"T%d" if isinstance(value, np.datetime64) else b"d%d") % _numpy_nanoseconds(value)
    if isinstance(value, datetime.datetime):  # pd.Timestamp too: its nanoseconds count
        extra = value.nanosecond if isinstance(value, pd.Timestamp) else 0
        if value.tzinfo is None:
            return b"T%d" % (_nanoseconds(value - _EPOCH) + extra)
        return b"Z%d" % (_nanoseconds(value - _EPOCH_UTC) + extra)  # an instant, in UTC
    if isinstance(value, datetime.date):
        return b"D%d" % value.toordinal()
    if isinstance(value, datetime.timedelta):  # pd.Timedelta too
        extra = value.nanoseconds if isinstance(value, pd.Timedelta) else 0
        return b"d%d" % (_nanoseconds(value) + extra)
    if isinstance(value, datetime.time):
        if value.tzinfo is not None:
            return _UNVOUCHED
        return b"t%d" % (((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond)
    if isinstance(value, (bool, np.bool_)):
        value = int(value)  # True == 1, as the merge compares them
    if isinstance(value, complex):
        if value.imag != 0:
            return b"c" + repr(value).encode()
        value = value.real
    if isinstance(value, np.floating):
        value = float(value)
    if isinstance(value, (numbers.Number, np.number)):
        # Numbers by their exact value, whatever their type: 1, 1.0, Decimal("1") and
        # Fraction(1) are one key, 0.1 and Decimal("0.1") two (they differ, as == says).
        try:
            exact = fractions.Fraction(value)
        except (TypeError, ValueError, OverflowError):
            if isinstance(value, (float, np.floating)) and math.isnan(value):
                return _NULL
            if isinstance(value, (float, np.floating)) and math.isinf(value):
                return b"i+" if value > 0 else b"i-"
            return _UNVOUCHED
        return b"n%d/%d" % (exact.numerator, exact.denominator)
    return _UNVOUCHED


def _numpy_nanoseconds(value) -> int:
    """A datetime64 (since the epoch) or timedelta64 in nanoseconds, exactly; a fraction of a
    nanosecond (ps, fs, as) is cut, as numpy's own conversion cuts it."""
    unit, count = np.datetime_data(value.dtype)
    if unit in ("Y", "M"):  # calendar units: the day they start on
        value, unit, count = value.astype("datetime64[D]"), "D", 1
    per = {"W": 604_800 * 10**9, "D": 86_400 * 10**9, "h": 3_600 * 10**9, "m": 60 * 10**9, "s": 10**9,
           "ms": 10**6, "us": 10**3, "ns": 1, "ps": fractions.Fraction(1, 10**3),
           "fs": fractions.Fraction(1, 10**6), "as": fractions.Fraction(1, 10**9), "generic": 1}[unit]
    return int(int(value.astype(np.int64)) * count * per)


def _int64_column(column: pd.Series) -> np.ndarray:
    """An integer, datetime64 or timedelta64 column as int64 values (times in nanoseconds, an
    aware time in UTC; uint64 by its bits, which keeps equality)."""
    if isinstance(column.dtype, pd.DatetimeTZDtype):
        column = column.dt.tz_convert("UTC").dt.tz_localize(None)
    if pd.api.types.is_datetime64_dtype(column.dtype) or pd.api.types.is_timedelta64_dtype(column.dtype):
        return column.to_numpy().view(np.int64)
    return _integer_array(column).astype(np.int64, copy=False)


def _encoded_keys(frame: pd.DataFrame, *, on: Sequence[str], integers: bool) -> Tuple[Any, np.ndarray]:
    """The join keys of each row as filter keys, and the mask of the rows they are for (the
    others: null or unvouched keys, never pruned)."""
    if integers:
        present = frame[list(on)].notna().all(axis=1).to_numpy()
        columns = [_int64_column(frame[c][present]) for c in on]
        if len(columns) == 1:
            return columns[0], present
        # Each row's int64 words side by side, as fixed-width bytes.
        packed = np.ascontiguousarray(np.column_stack(columns))
        return packed.view(f"S{8 * len(on)}").ravel(), present
    parts = [[_canonical_key(v) for v in frame[c].tolist()] for c in on]
    keys, present = [], np.zeros(len(frame), dtype=bool)
    for row, values in enumerate(zip(*parts)):
        if any(v is _NULL or v is _UNVOUCHED for v in values):
            continue
        present[row] = True
        keys.append(values[0] if len(values) == 1
                    else b"".join(len(v).to_bytes(4, "little") + v for v in values))
    return keys, present


def _join_mask(part: pd.DataFrame, on: Sequence[str], integers: bool, f: Filter) -> np.ndarray:
    """Which rows of the partition may join: those whose key may be in f, and those not judged."""
    keys, present = _encoded_keys(part, on=on, integers=integers)
    keep = ~present
    keep[present] = f.contains_many(keys)
    return keep


def _prune(part: pd.DataFrame, on: Sequence[str], integers: bool, f: Filter,
           counting: bool) -> Tuple[pd.DataFrame, np.ndarray]:
    """The rows of the partition that may join, and (when counting) the rows and bytes before
    and after: [rows, rows kept, bytes, bytes kept]."""
    keep = _join_mask(part, on, integers, f)
    kept = part[keep]
    if not counting:
        return kept, np.zeros(4)
    size = part.memory_usage(deep=True, index=True).sum()
    return kept, np.array([len(part), len(kept), size, kept.memory_usage(deep=True, index=True).sum()])


@dataclass
class JoinStats:
    """What a semi-join's pruning did to the side it pruned."""

    pruned_side: Optional[str]  #: "left", "right", or None when nothing could be pruned
    reason: str                 #: why that side (or why none)
    rows: int = 0               #: rows of the pruned side
    rows_kept: int = 0          #: rows that went on to the merge
    bytes: int = 0              #: their memory (pandas, deep), before pruning
    bytes_kept: int = 0         #: and after
    filter_bytes: int = 0       #: the filter sent to every worker
    fpr: float = 0.0            #: the filter's target false-positive rate

    @property
    def rows_saved(self) -> int:
        return self.rows - self.rows_kept

    @property
    def bytes_saved(self) -> int:
        return self.bytes - self.bytes_kept


def _join_stats(counts: Sequence[np.ndarray], template: JoinStats) -> JoinStats:
    total = np.sum(counts, axis=0) if counts else np.zeros(4)
    return JoinStats(template.pruned_side, template.reason, int(total[0]), int(total[1]), int(total[2]),
                     int(total[3]), template.filter_bytes, template.fpr)


def _column_class(dtype) -> Optional[str]:
    """What a column's values are compared as, when they can be as int64: "int", "datetime",
    "datetime-utc" or "timedelta"; None for the others."""
    if pd.api.types.is_bool_dtype(dtype):
        return None
    if pd.api.types.is_integer_dtype(dtype):
        return "int"
    if isinstance(dtype, pd.DatetimeTZDtype):
        return "datetime-utc"
    if pd.api.types.is_datetime64_dtype(dtype):
        return "datetime"
    if pd.api.types.is_timedelta64_dtype(dtype):
        return "timedelta"
    return None


def _all_integer(frames: Sequence[dd.DataFrame], on: Sequence[str]) -> bool:
    """Whether every join column is compared as int64 on both sides, each alike on both."""
    for c in on:
        classes = {_column_class(frame._meta[c].dtype) for frame in frames}
        if None in classes or len(classes) != 1:
            return False
    return True


def semi_join(left: dd.DataFrame, right: dd.DataFrame, on: Union[str, Sequence[str]], *, fpr: float = 0.01,
              how: str = "inner", stats: bool = False, seed: Optional[int] = None,
              **merge_options: Any) -> Union[dd.DataFrame, Tuple[dd.DataFrame, Delayed]]:
    """``dd.merge(left, right, on=on, how=how, **merge_options)``, with the larger side pruned
    first by a filter of the smaller side's keys, so that rows which cannot match never reach
    the shuffle. The result is the merge's exactly: the filter only removes rows whose key is
    certainly absent from the other side.

    One pass counts both sides' rows and builds the filter (on the workers, as ``build`` does);
    the merge itself stays lazy. how="inner" prunes the larger side; "left" can prune only the
    right side and "right" only the left, so they prune when that side is the larger; "outer"
    prunes nothing. With stats=True, returns (frame, stats): ``stats`` a Delayed ``JoinStats``
    (rows and bytes pruned) that ``dask.compute(frame, stats)`` computes in the same pass.
    """
    on = [on] if isinstance(on, str) else list(on)
    merged_plainly = dd.merge(left, right, on=on, how=how, **merge_options)  # the merge's own checks first
    sizes = dask.compute(left.shape[0], right.shape[0])
    larger = "left" if sizes[0] >= sizes[1] else "right"
    prunable = {"inner": larger, "left": "right", "right": "left"}.get(how)
    if prunable != larger:
        reason = (f"how={how!r} keeps every row of both sides" if prunable is None else
                  f"how={how!r} can prune only the {prunable} side, the smaller one")
        result = merged_plainly
        report = delayed(JoinStats(None, reason, fpr=fpr), pure=True)
        return (result, report) if stats else result

    pruned, source = (left, right) if prunable == "left" else (right, left)
    integers = _all_integer([left, right], on)
    spec = _spec("block", sizes[1] if prunable == "left" else sizes[0], fpr, seed)
    keys_of = functools.partial(_encoded_keys, on=on, integers=integers)
    f = _shared(_built(spec, source, source, keys_of, _fan_in(spec.nbytes(), None)))
    pairs = [delayed(_prune, nout=2, pure=True)(part, on, integers, f, stats) for part in pruned.to_delayed()]
    kept = dd.from_delayed([frame for frame, _ in pairs], meta=pruned._meta, divisions=pruned.divisions,
                           verify_meta=False)
    result = dd.merge(kept, right, on=on, how=how, **merge_options) if prunable == "left" else \
        dd.merge(left, kept, on=on, how=how, **merge_options)
    if not stats:
        return result
    counts = [count for _, count in pairs]
    template = JoinStats(prunable, f"the {prunable} side is the larger ({max(sizes)} rows against {min(sizes)})",
                         filter_bytes=spec.nbytes(), fpr=fpr)
    return result, delayed(_join_stats, pure=True)(counts, template)


# --- dedup -------------------------------------------------------------------------------------------
#
# Each item is kept if no earlier item (in partition order, then within its partition) may be
# the same: partition j keeps what its own filter has not seen (add_many answers that) and the
# union of the filters of partitions 0..j-1 does not hold. The unions form a chain, one OR per
# partition; the partitions are deduplicated in parallel once their prefix is known. An item is
# wrongly dropped when a filter answers a false positive for it; the expected count is
# estimated from each filter's fill.

@dataclass
class DedupStats:
    """What an approximate dedup kept, and how many unique items it is expected to have dropped."""

    items: int = 0                     #: items read
    kept: int = 0                      #: items written
    expected_wrongly_dropped: float = 0.0  #: unique items a false positive dropped, expected


def _dedup_key(item: Any) -> bytes:
    """The bytes a dedup tells an item by: equal exactly when the items are equal as Python
    compares them ("a" and b"a" are two items, 1 and 1.0 one), in every process alike."""
    if isinstance(item, tuple):
        parts = [_dedup_key(v) for v in item]
        return b"(" + b"".join(len(p).to_bytes(4, "little") + p for p in parts)
    if item is None:
        return b"0"
    key = _canonical_key(item)
    if key is _NULL:  # NaN, NaT, NA: each a value of its own kind
        return b"null:" + type(item).__name__.encode()
    if key is _UNVOUCHED:
        raise WrongKeyType(f"dedup tells items apart by value: str, bytes, numbers, dates and times, and tuples of "
                           f"them; not {type(item).__name__}")
    return key


def _dedup_within(part: Iterable, spec: _Spec) -> Tuple[Tuple[list, int, float], Filter]:
    """The partition's items that its own filter had not seen, and that filter."""
    items = part if isinstance(part, list) else list(part)
    f = spec.make()
    new = f.add_many([_dedup_key(item) for item in items]) if items else np.zeros(0, dtype=bool)
    kept = [item for item, fresh in zip(items, new) if fresh]
    # add_many checks each item against a filter still filling: its false-positive rate grows
    # as (i/n)^k from 0 to f.fpr(), whose mean over the partition is f.fpr()/(k+1).
    return (kept, len(items), len(kept) * f.fpr() / (spec.hashes() + 1)), f


def _drop_seen(within: Tuple[list, int, float], seen: Optional[Filter]) -> Tuple[list, np.ndarray]:
    """Of those, the items the earlier partitions' filters do not hold; [read, kept, expected]."""
    items, read, expected = within
    if seen is None or not items:
        return items, np.array([read, len(items), expected])
    kept = [item for item, maybe in zip(items, seen.contains_many([_dedup_key(item) for item in items])) if not maybe]
    p = seen.fpr()
    return kept, np.array([read, len(kept), expected + len(kept) * p / max(1.0 - p, 1e-12)])


def _dedup_stats(counts: Sequence[np.ndarray]) -> DedupStats:
    total = np.sum(counts, axis=0) if counts else np.zeros(3)
    return DedupStats(int(total[0]), int(total[1]), float(total[2]))


def dedup(bag: db.Bag, *, fpr: float = 0.001, n: Optional[int] = None, seed: Optional[int] = None,
          stats: bool = False) -> Union[db.Bag, Tuple[db.Bag, Delayed]]:
    """Each item of the bag once, at its first appearance (partition order, then item order),
    approximately: a unique item is dropped with probability at most `fpr` (a false positive of
    the filter of the items before it); no duplicate is kept. Lazy, but for the count of items
    that sizes the filters when `n` is not given (a first pass, as in ``build``). With
    stats=True, returns (bag, stats): a Delayed ``DedupStats`` with the expected number of
    unique items wrongly dropped, computed in the same pass by ``dask.compute(bag, stats)``.

    Partitions are deduplicated in parallel; the filters of earlier partitions are united in a
    chain, one union per partition. The exact answer, in any order, is Dask's own shuffle:
    ``bag.distinct()``.
    """
    if not isinstance(bag, db.Bag):
        raise TypeError(f"dedup takes a Dask Bag, not {type(bag).__name__}")
    spec = _spec("block", _count(bag) if n is None else n, fpr, seed, "text")  # of _dedup_key's bytes
    _fan_in(spec.nbytes(), 2)  # a worker holds a prefix, a partition's filter and their union
    parts, counts, seen = [], [], None
    for part in bag.to_delayed():
        within, f = delayed(_dedup_within, nout=2, pure=True)(part, spec)
        items, count = delayed(_drop_seen, nout=2, pure=True)(within, seen)
        parts.append(items)
        counts.append(count)
        seen = f if seen is None else delayed(_union, pure=True)(seen, f)
    out = db.from_delayed(parts)
    return (out, delayed(_dedup_stats, pure=True)(counts)) if stats else out
