"""bloomkit — approximate set membership: the Bloom filter family, shared with C++ and the command.

    >>> from bloomkit import BloomFilter
    >>> seen = BloomFilter(1_000_000, 0.01)
    >>> seen.add("https://example.com/")
    >>> "https://example.com/" in seen
    True

Every class is the same native filter (``bloomkit._bloomkit.Filter``, over the C++ library's
registry of kinds) made in the way its kind is made: Bloom, counting Bloom, cuckoo and scalable
filters are sized for a number of keys at a false-positive rate and take keys as they come; a
binary fuse filter is built once from all of its keys.

Keys are what bloomkit's one key model says (docs/KEYS.md), the same in C++, the command and
Redis: ``str`` (its UTF-8 bytes), bytes-like objects, integers (``int``, numpy's of any width and
byte order), and dates and times (nanoseconds since the epoch). A filter records what its keys
are — ``key_format``: "text", "u64", "i64" or "u32", said when it is made or taken from its first
key — in its file too, and refuses the others and any integer outside its range: ``"7"`` and
``7`` are different keys, and -1 is no u64. Floats, bools and nulls are never keys. ``key=``
turns other objects into keys, on every path (arrays and pandas columns included), and goes
with the filter when it is copied or pickled; Python's salted ``hash()`` is never used, so
answers hold across processes.

Files are the C++ library's: ``save``/``load``/``map`` (read-only, memory-mapped, instant
however large), ``to_bytes``/``from_bytes``, and pickle. Bulk calls (``update``, ``add_many``,
``contains_many``) take any iterable, or numpy arrays of uint64/int64 or fixed-width bytes
without a Python object per key, and release the GIL while the filter works.

Errors raise ``bloomkit.Error`` (``InvalidArgument`` and ``IncompatibleFilters`` are also
``ValueError``s, ``InvalidKey`` a key its filter cannot hold, ``WrongType`` and ``WrongKeyType``
also ``TypeError``s; ``FormatError`` for damaged or foreign files; ``FilterFull``), with the C++
library's message.
"""

from __future__ import annotations

import os
import pickle
from typing import Any, Callable, Iterable, Optional

from . import _bloomkit
from ._bloomkit import (Error, FilterFull, FormatError, IncompatibleFilters, InvalidArgument, InvalidKey,
                        OutOfMemory, WrongKeyType, WrongType)
from ._bloomkit import __version__  # include/bloomkit/version.hpp's

RedisError = getattr(_bloomkit, "RedisError", Error)  # without the Redis component: never raised

__all__ = [
    "Filter", "BloomFilter", "CountingBloomFilter", "CuckooFilter", "ScalableBloomFilter", "WindowedFilter",
    "BinaryFuseFilter", "RedisBloomFilter", "RedisWindowedFilter", "load", "map", "from_bytes", "kinds", "plan",
    "Error", "InvalidArgument", "InvalidKey", "WrongType", "WrongKeyType", "FormatError", "FilterFull", "OutOfMemory",
    "IncompatibleFilters", "RedisError",
]


def kinds() -> dict:
    """The registry of the C++ library: each kind's word, summary and capabilities."""
    return _bloomkit.kinds()


def plan(expected_items: float, false_positive_rate: float, *, kind: str = "bloom", layout: Optional[str] = None,
         bits: Optional[int] = None, arity: Optional[int] = None) -> dict:
    """What a filter would cost, without making it: {"bytes", "fpr" (modelled at expected_items),
    "hashes" (Bloom kinds), "fingerprint_bits" (cuckoo, fuse)} — the sizing the constructors and
    ``bloomkit plan`` use."""
    return _bloomkit.plan(kind, expected_items, false_positive_rate, layout=_layout_name(layout), bits=bits,
                          arity=arity)


def _layout_name(layout: Optional[str]) -> Optional[str]:
    return layout.replace("_", "-") if isinstance(layout, str) else layout


# --- Keys: containers unwrapped, key= applied; the values are read by the native module ---------

def _pandas_keys(keys):
    """A pandas Series, Index or array as the numpy array of its keys (the native module reads
    numpy's dtypes): integers of the nullable and sparse types as numpy's, tz-aware times in
    UTC, the values of a categorical. Nulls are no keys: refused here, where pandas can say
    where."""
    import numpy as np
    import pandas as pd
    if isinstance(keys, pd.DataFrame):
        raise WrongType("a DataFrame is not keys: give one of its columns (frame['id'])")
    if isinstance(keys, pd.MultiIndex):
        raise WrongKeyType("a MultiIndex holds tuples, which are no keys: give key= a function that makes one of "
                           "each, or one of its levels")
    if not isinstance(keys, pd.Series):
        keys = pd.Series(keys, copy=False)
    nulls = keys.isna()
    if nulls.any():
        raise InvalidKey(f"a null is not a key: {int(nulls.sum())} of the {len(keys)} keys are nulls (None, NaN, "
                         f"NA, NaT), the first at position {int(np.argmax(nulls.to_numpy()))}: drop them (dropna())")
    dtype = keys.dtype
    if isinstance(dtype, pd.SparseDtype):
        return _pandas_keys(keys.sparse.to_dense())
    if isinstance(dtype, pd.CategoricalDtype):
        return _pandas_keys(pd.Series(np.asarray(keys), copy=False))
    if isinstance(dtype, pd.DatetimeTZDtype):
        return keys.dt.tz_convert("UTC").dt.tz_localize(None).to_numpy()
    if pd.api.types.is_extension_array_dtype(dtype):
        numpy_dtype = getattr(dtype, "numpy_dtype", None)
        return keys.to_numpy(dtype=numpy_dtype if numpy_dtype is not None and numpy_dtype.kind in "iubf" else object)
    return keys.to_numpy()


def _masked_keys(keys):
    """A numpy masked array's items, when none is masked: a masked item is a null, no key."""
    if keys.mask is not False and keys.mask.any():
        raise InvalidKey(f"a masked item is a null, not a key: {int(keys.mask.sum())} of the {keys.size} items are "
                         "masked: compressed() drops them")
    return keys.data


def _keys(keys, key=None):
    """The keys of an iterable, array or pandas column as the native calls take them, each
    through key= when given (which sees each item as iterating the container gives it, as
    `item in f` would)."""
    module = type(keys).__module__
    if key is None:
        if module.startswith("pandas"):
            return _pandas_keys(keys)
        if module.startswith("numpy.ma"):
            return _masked_keys(keys)
        return keys
    if isinstance(keys, (str, bytes, bytearray, memoryview)):
        raise WrongKeyType("give an iterable of keys, not one key: a str or bytes-like object would be read as its "
                           "characters, each a key")
    if module.startswith("pandas") and type(keys).__name__ == "DataFrame":
        raise WrongType("a DataFrame is not keys: give one of its columns (frame['id'])")
    return (key(k) for k in keys)


class Filter(_bloomkit.Filter):
    """A filter of any kind: what ``load``, ``map`` and ``from_bytes`` return, and the base of
    every class below. Set-like: ``add``, ``update``, ``in``, ``|``, ``&``, ``==``, ``copy``.
    ``Filter(f)`` is a copy of ``f`` (with its key function)."""

    _key: Optional[Callable[[Any], Any]] = None

    def __init__(self, other: "Filter"):
        _bloomkit.Filter.__init__(self, other)
        self._key = getattr(other, "_key", None)

    # -- keys through key= --------------------------------------------------------------------
    def _k(self, key):
        return key if self._key is None else self._key(key)

    def _ks(self, keys):
        return _keys(keys, self._key)

    def add(self, key) -> None:
        """Adds one key."""
        super().add(self._k(key))

    def __contains__(self, key) -> bool:
        return super().__contains__(self._k(key))

    def update(self, *iterables: Iterable) -> None:
        """Adds every key of each iterable (or numpy array)."""
        for keys in iterables:
            super().update(self._ks(keys))

    def add_many(self, keys):
        """Adds the keys; returns a numpy bool array: whether each was new to the filter."""
        return super().add_many(self._ks(keys))

    def contains_many(self, keys):
        """A numpy bool array: whether each key may be in the filter (False: certainly not)."""
        return super().contains_many(self._ks(keys))

    def count(self, key) -> int:
        """How many times the key is in a counting Bloom or cuckoo filter (an upper bound)."""
        return super().count(self._k(key))

    def remove(self, key) -> None:
        """Removes a key (counting Bloom and cuckoo filters). KeyError if it is certainly not in
        the filter: removing a key never added would take away part of others."""
        if not super()._remove(self._k(key)):
            raise KeyError(key)

    def discard(self, key) -> None:
        """Removes a key if it may be in the filter."""
        super()._remove(self._k(key))

    def remove_many(self, keys) -> None:
        """Removes every key, or none: KeyError naming the first that is certainly absent."""
        keys = self._ks(keys)
        if not hasattr(keys, "dtype"):
            keys = list(keys)
        done = super()._remove_many(keys)
        if done != len(keys):
            raise KeyError(keys[done])

    # -- sizes ------------------------------------------------------------------------------
    def __len__(self) -> int:
        if self.kind not in ("cuckoo", "fuse"):
            raise TypeError(f"a {self.name} does not know its exact number of keys: use approx_len()")
        return self._inserted_count()

    # -- set algebra ------------------------------------------------------------------------
    def __or__(self, other: "Filter") -> "Filter":
        out = self.copy()
        out |= other
        return out

    def __and__(self, other: "Filter") -> "Filter":
        out = self.copy()
        out &= other
        return out

    def __ior__(self, other: "Filter") -> "Filter":
        """The union, in place: filters of the same kind and parameters (IncompatibleFilters)."""
        self._merge(other)
        return self

    def __iand__(self, other: "Filter") -> "Filter":
        """The intersection, in place (Bloom filters)."""
        self._intersect(other)
        return self

    def copy(self) -> "Filter":
        """A copy: a filter of its own, with the same key function."""
        return _as(type(self), super().copy(), self._key)

    def __copy__(self) -> "Filter":
        return self.copy()

    def __deepcopy__(self, memo) -> "Filter":
        return self.copy()

    __hash__ = None  # mutable

    # -- files ------------------------------------------------------------------------------
    def save(self, path: "os.PathLike | str", *, format: str = "bkf", wait: bool = True) -> None:  # noqa: A002
        """Writes the filter to a file (temporary, fsync, rename), readable by C++ and the
        command, under the writer lock the command takes: a ``bloomkit add`` to the same file is
        waited for (Ctrl-C stops the wait), never lost; with wait=False a file another writer
        holds is refused at once (bloomkit.Error). format="guava" writes a Guava filter as
        Java's ``BloomFilter.writeTo`` does, format="dcso" a DCSO filter as DCSO's ``bloom``
        does."""
        super().save(path, format, wait)

    def __reduce_ex__(self, protocol):
        # Its bkf bytes (from protocol 5 on, as a buffer that a pickler with a buffer_callback —
        # Dask's, multiprocessing's — sends out of band, without copying it into the stream) and
        # its key function, by reference as pickle keeps functions.
        if self._key is not None:
            try:
                pickle.dumps(self._key, protocol)
            except Exception as e:
                raise WrongType(f"this filter cannot be pickled: its key function {self._key!r} cannot ({e}); "
                                f"define it at the top level of a module") from None
        data = self.to_bytes()
        return (_from_pickle, (type(self), pickle.PickleBuffer(data) if protocol >= 5 else data, self._key))

    def __repr__(self) -> str:
        sized = f", sized for {self.expected_items} keys at {self.target_fpr:g}" if self.expected_items else ""
        return f"<{type(self).__name__}: {self.name}, {self.nbytes} bytes{sized}, fpr now {self.fpr():.3g}>"


def _as(cls, native, key=None):
    """The native filter `native`, new and held by nothing else, as an instance of cls (a Filter
    class): it takes the native over without copying it."""
    if isinstance(native, cls):
        native._key = key
        return native
    out = cls.__new__(cls)
    _bloomkit.Filter.__init__(out, native, _take=True)
    out._key = key
    return out


_class_of_kind: dict = {}


def _typed(native) -> Filter:
    return _as(_class_of_kind.get(native.kind, Filter), native)


def _from_pickle(cls, data: bytes, key=None):
    return _as(cls, _bloomkit.from_bytes(data), key)


def load(path: "os.PathLike | str", *, format: Optional[str] = None,  # noqa: A002
         funnel: Optional[str] = None, key_format: Optional[str] = None) -> Filter:
    """A filter read from a file written by any bloomkit (C++, the command, Python), or by
    Java's Guava (``BloomFilter.writeTo``) or DCSO's ``bloom`` (gzipped or not), as the command
    opens it. The format is told from the bytes unless `format` names it. `key_format` says what
    the keys are ("text", "u64", "i64", "u32"), as the command's --key does: a file that records
    none (a Guava stream, an older bkf file) records it; one that records another is refused.
    `funnel` names the Java side's funnel of a Guava stream ("utf8", "chars", "int", "long" or
    "bytes"; by default "long" for integer keys and "utf8" for the rest)."""
    return _typed(_bloomkit.read_filter(path, format, funnel, key_format))


def map(path: "os.PathLike | str") -> Filter:  # noqa: A001 - the library's name
    """A filter queried in place in a read-only memory map of its file: instant however large. A
    file another program shrinks meanwhile makes its queries raise FormatError."""
    return _typed(_bloomkit.map(path))


def from_bytes(data, *, format: Optional[str] = None, funnel: Optional[str] = None,  # noqa: A002
               key_format: Optional[str] = None) -> Filter:
    """A filter from the bytes ``to_bytes()`` (or C++'s ``bloomkit::to_bytes``) gave, or a Guava
    stream or DCSO file's bytes (told from the bytes unless `format` names it; `funnel` and
    `key_format`: as in ``load``)."""
    return _typed(_bloomkit.from_bytes(data, format, funnel or "", key_format))


class BloomFilter(Filter):
    """A Bloom filter for `expected_items` keys at `false_positive_rate`: adds, no removal.
    layout: "block" (one cache line per key, the default), "classic" (fewest bits),
    "split_block" (Apache Parquet's), "guava" (Java's Guava BloomFilter, bit for bit, with the
    Java side's `funnel`: "utf8", "chars", "int", "long" or "bytes"; save(format="guava")) or
    "dcso" (DCSO's bloom). concurrent=True: threads insert at once (atomic OR on the words, as
    C++'s insert(key, bloomkit::concurrent)) rather than one after another."""

    def __init__(self, expected_items: int, false_positive_rate: float, *, layout: str = "block",
                 seed: Optional[int] = None, key: Optional[Callable] = None, concurrent: bool = False,
                 funnel: Optional[str] = None, key_format: Optional[str] = None):
        _bloomkit.Filter.__init__(self, _bloomkit.make("bloom", expected_items, false_positive_rate,
                                                       layout=_layout_name(layout), seed=seed, funnel=funnel,
                                                       key_format=key_format), _take=True)
        self._key = key
        self.concurrent = concurrent


class CountingBloomFilter(Filter):
    """A counting Bloom filter (4-bit counters): adds and removes."""

    def __init__(self, expected_items: int, false_positive_rate: float, *, seed: Optional[int] = None,
                 key: Optional[Callable] = None, key_format: Optional[str] = None):
        _bloomkit.Filter.__init__(self, _bloomkit.make("counting", expected_items, false_positive_rate, seed=seed,
                                                       key_format=key_format), _take=True)
        self._key = key


class CuckooFilter(Filter):
    """A cuckoo filter: adds and removes, smaller than Bloom below ~0.4%; full at ~95% load
    (FilterFull). bits: fingerprint bits, 8, 12 or 16 (default: from the rate)."""

    def __init__(self, expected_items: int, false_positive_rate: float, *, bits: Optional[int] = None,
                 seed: Optional[int] = None, key: Optional[Callable] = None, key_format: Optional[str] = None):
        _bloomkit.Filter.__init__(self, _bloomkit.make("cuckoo", expected_items, false_positive_rate, bits=bits,
                                                       seed=seed, key_format=key_format), _take=True)
        self._key = key


class ScalableBloomFilter(Filter):
    """A scalable Bloom filter: starts at `initial_items` and grows, keeping the compound rate
    under `false_positive_rate`."""

    def __init__(self, initial_items: int, false_positive_rate: float, *, seed: Optional[int] = None,
                 key: Optional[Callable] = None, key_format: Optional[str] = None):
        _bloomkit.Filter.__init__(self, _bloomkit.make("scalable", initial_items, false_positive_rate, seed=seed,
                                                       key_format=key_format), _take=True)
        self._key = key


def _seconds(value, name: str) -> float:
    """Seconds from a number or a datetime.timedelta (window) / datetime.datetime (now; a naive
    one is local time, as datetime.timestamp() reads it)."""
    if hasattr(value, "total_seconds"):
        return value.total_seconds()
    if hasattr(value, "timestamp"):
        return value.timestamp()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgument(f"{name} is a number of seconds or a datetime object, not {value!r}")
    return float(value)


class WindowedFilter(Filter):
    """A Bloom filter that forgets: a key is found for at least `window` (seconds or a
    datetime.timedelta) after it was added, and gone by window × (1 + 1/generations).
    `expected_items` is the keys a window brings; `false_positive_rate` holds over the live
    generations. Time is the system clock, or `now` (Unix seconds or a datetime) on each call
    — for replays of old logs; a time before the newest one the filter has seen counts as that
    newest. Files, pickling, ``|`` (the union at the newer time) as every filter."""

    def __init__(self, expected_items: int, false_positive_rate: float, *, window=86400, generations: int = 4,
                 seed: Optional[int] = None, key: Optional[Callable] = None, key_format: Optional[str] = None):
        _bloomkit.Filter.__init__(self, _bloomkit.make("windowed", expected_items, false_positive_rate, seed=seed,
                                                       key_format=key_format, window=_seconds(window, "window"),
                                                       generations=generations), _take=True)
        self._key = key

    def add(self, key, now=None) -> None:
        """Adds one key, at `now` (default: the system clock)."""
        if now is None:
            super().add(key)
        else:
            self._add_at([self._k(key)], _seconds(now, "now"))

    def update(self, *iterables: Iterable, now=None) -> None:
        """Adds every key of each iterable (or numpy array), at `now`."""
        for keys in iterables:
            if now is None:
                _bloomkit.Filter.update(self, self._ks(keys))
            else:
                self._add_at(self._ks(keys), _seconds(now, "now"))

    def contains(self, key, now=None) -> bool:
        """Whether the key may have been added within the window before `now` (False: not)."""
        if now is None:
            return key in self
        return bool(self._contains_at([self._k(key)], _seconds(now, "now"))[0])

    def contains_many(self, keys, now=None):
        """A numpy bool array: whether each key may have been added within the window before `now`."""
        if now is None:
            return super().contains_many(keys)
        return self._contains_at(self._ks(keys), _seconds(now, "now"))


class BinaryFuseFilter(Filter):
    """A binary fuse filter built once from all of `keys` (an iterable or a numpy array): the
    smallest and fastest to query; takes no keys afterwards. bits 8 (~0.39%) or 16 (~0.0015%);
    arity 3 or 4 (smaller, slower to build)."""

    def __init__(self, keys, *, bits: int = 8, arity: int = 3, seed: Optional[int] = None,
                 key: Optional[Callable] = None, key_format: Optional[str] = None):
        _bloomkit.Filter.__init__(self, _bloomkit.build("fuse", _keys(keys, key), bits=bits, arity=arity, seed=seed,
                                                        key_format=key_format), _take=True)
        self._key = key


class RedisBloomFilter:
    """A block Bloom filter shared through Redis or a Redis Cluster by every process that opens
    it by name — the layout of docs/FORMAT.md, the same as ``bloomkit redis``'s, so the command,
    C++ services and this class share one filter. With `expected_items`, creates the filter (or
    opens it if it exists with the same parameters); without, opens it.

    url: "redis://[user:password@]host[:port][/db]", "unix:///path" or, with cluster=True, some
    nodes "h1:p1,h2:p2". timeout: the seconds a round trip may take, above 0 (rounded up to
    whole milliseconds). key_format: what the keys are ("text", "u64", "i64", "u32"), recorded
    with the filter for every client, as ``bloomkit redis create --key`` does; left out, the
    first keys added record theirs. Keys, bulk calls and key= as for the local filters;
    ``pull()`` gives the local BloomFilter, ``RedisBloomFilter.push(local, name)`` the reverse.

    A handle is one connection, used by one call at a time; in a process forked from the one
    that made it (multiprocessing, gunicorn --preload, Celery) it connects anew on first use.
    ``copy.copy`` gives another handle to the same filter; it cannot be deep-copied or pickled
    (make one in each process)."""

    _windowed = False  # the kind of filter in Redis this class handles

    def __init__(self, name: str, expected_items: Optional[int] = None, false_positive_rate: float = 0.01, *,
                 url: str = "redis://127.0.0.1:6379", cluster: bool = False, user: str = "", password: str = "",
                 timeout: float = 5.0, seed: Optional[int] = None, shard_bytes: Optional[int] = None,
                 key: Optional[Callable] = None, key_format: Optional[str] = None, _native=None, _window=None,
                 _generations: int = 4):
        if not hasattr(_bloomkit, "RedisFilter"):
            raise Error("this bloomkit was built without its Redis component (a CMake build with libhiredis-dev)")
        if _native is not None:
            self._f = _native
        elif expected_items is None:
            self._f = _bloomkit.RedisFilter.open(name, url, cluster, user, password, timeout)
        else:
            self._f = _bloomkit.RedisFilter.create(name, expected_items, false_positive_rate, url, cluster, user,
                                                   password, timeout, seed, shard_bytes, key_format, _window,
                                                   _generations)
        self._key = key
        if (self._f.window is not None) != self._windowed:
            kind, other = ("a windowed", "RedisWindowedFilter") if not self._windowed else ("a block", "RedisBloomFilter")
            raise WrongType(f"the filter {name!r} in Redis is {kind} filter: open it with bloomkit.{other}")

    def _ks(self, keys):
        return _keys(keys, self._key)

    def add(self, key) -> None:
        self._f.update(self._ks([key]))

    def update(self, *iterables) -> None:
        for keys in iterables:
            self._f.update(self._ks(keys))

    def add_many(self, keys):
        return self._f.add_many(self._ks(keys))

    def __contains__(self, key) -> bool:
        return bool(self._f.contains_many(self._ks([key]))[0])

    def contains_many(self, keys):
        return self._f.contains_many(self._ks(keys))

    def clear(self) -> None:
        self._f.clear()

    def fpr(self) -> float:
        return self._f.fpr()

    def approx_len(self) -> float:
        return self._f.approx_len()

    def pull(self) -> "BloomFilter":
        """The filter as a local BloomFilter, byte for byte what a file of it would hold."""
        return _as(BloomFilter, self._f.pull(), self._key)

    @classmethod
    def push(cls, local: "BloomFilter", name: str, *, url: str = "redis://127.0.0.1:6379", cluster: bool = False,
             user: str = "", password: str = "", timeout: float = 5.0,
             shard_bytes: Optional[int] = None) -> "RedisBloomFilter":
        """Copies a local block Bloom filter (a WindowedFilter, for RedisWindowedFilter) into Redis
        as `name` (refused if it exists)."""
        native = _bloomkit.RedisFilter.push(local, name, url, cluster, user, password, timeout, shard_bytes)
        return cls(name, _native=native, key=getattr(local, "_key", None))

    @staticmethod
    def drop(name: str, *, url: str = "redis://127.0.0.1:6379", cluster: bool = False, user: str = "",
             password: str = "", timeout: float = 5.0) -> bool:
        """Deletes the filter `name` from Redis; False if there was none."""
        return _bloomkit.RedisFilter.drop(name, url, cluster, user, password, timeout)

    def __copy__(self) -> "RedisBloomFilter":
        """Another handle to the same filter in Redis, with a connection of its own."""
        return type(self)(self.name, _native=self._f.reopened(), key=self._key)

    def __deepcopy__(self, memo):
        raise WrongType("a RedisBloomFilter is a handle to a filter that lives in Redis and cannot be deep-copied: "
                        "copy.copy() gives another handle to the same filter, pull() a local copy of its keys")

    def __reduce_ex__(self, protocol):
        raise WrongType("a RedisBloomFilter cannot be pickled (it is a connection): open one in each process with "
                        "RedisBloomFilter(name, url=...), or pickle pull()'s local copy")

    def __getattr__(self, attribute):  # name, bits, hashes, nbytes, shards, seed, expected_items, key_format, ...
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return getattr(self.__dict__["_f"], attribute)

    def __repr__(self) -> str:
        return f"<RedisBloomFilter {self.name!r}: {self.shards} shards, {self.nbytes} bytes, k = {self.hashes}>"


def _moment(now):
    return None if now is None else _seconds(now, "now")


class RedisWindowedFilter(RedisBloomFilter):
    """A filter that forgets (WindowedFilter) shared through Redis or a Redis Cluster, as
    ``bloomkit redis create --window`` makes it: a key is found for at least `window` (seconds
    or a datetime.timedelta) after it was added, and gone by window × (1 + 1/generations). The
    generations turn by the Redis server's clock, so clients whose clocks disagree agree; `now`
    (Unix seconds or a datetime) on a call replays another time. With `expected_items` (the keys
    a window brings), creates the filter or opens it if it exists alike; without, opens it. The
    rest as RedisBloomFilter; ``pull()`` gives the local WindowedFilter."""

    _windowed = True

    def __init__(self, name: str, expected_items: Optional[int] = None, false_positive_rate: float = 0.01, *,
                 window=86400, generations: int = 4, url: str = "redis://127.0.0.1:6379", cluster: bool = False,
                 user: str = "", password: str = "", timeout: float = 5.0, seed: Optional[int] = None,
                 shard_bytes: Optional[int] = None, key: Optional[Callable] = None, key_format: Optional[str] = None,
                 _native=None):
        super().__init__(name, expected_items, false_positive_rate, url=url, cluster=cluster, user=user,
                         password=password, timeout=timeout, seed=seed, shard_bytes=shard_bytes, key=key,
                         key_format=key_format, _native=_native, _window=_seconds(window, "window"),
                         _generations=generations)

    def add(self, key, now=None) -> None:
        """Adds one key at `now` (default: the server's clock)."""
        self._f.update(self._ks([key]), _moment(now))

    def update(self, *iterables, now=None) -> None:
        """Adds every key of each iterable (or numpy array) at `now`."""
        for keys in iterables:
            self._f.update(self._ks(keys), _moment(now))

    def add_many(self, keys, now=None):
        """A numpy bool array: whether no live generation held each key before it was added."""
        return self._f.add_many(self._ks(keys), _moment(now))

    def contains(self, key, now=None) -> bool:
        """Whether the key may have been added within the window before `now` (False: not)."""
        return bool(self._f.contains_many(self._ks([key]), _moment(now))[0])

    def contains_many(self, keys, now=None):
        """A numpy bool array: whether each key may have been added within the window before `now`."""
        return self._f.contains_many(self._ks(keys), _moment(now))

    def pull(self) -> "WindowedFilter":
        """The filter as a local WindowedFilter: its generations live at the server's clock."""
        return _as(WindowedFilter, self._f.pull(), self._key)

    def __repr__(self) -> str:
        return (f"<RedisWindowedFilter {self.name!r}: window {self.window:g} s in {self.generations} generations, "
                f"{self.shards} shards, {self.nbytes} bytes>")


_class_of_kind.update({"bloom": BloomFilter, "counting": CountingBloomFilter, "cuckoo": CuckooFilter,
                       "scalable": ScalableBloomFilter, "windowed": WindowedFilter, "fuse": BinaryFuseFilter})
# Every kind of the C++ registry opens (as Filter at least); the classes above construct them.
assert set(_class_of_kind) <= set(_bloomkit.kinds()), "a class for a kind the registry does not have"
