"""The faces of bloomkit's one key model (docs/KEYS.md) as small objects, for test_faces.py.

Each face keeps its filters where its users keep them — a file, or Redis — and does three things
in batches: `create` an empty filter of a key format, `add` keys and `check` keys, the last two
optionally saying a key format as the face lets its user say one (the command's --key). `write`
is how a face fills a new filter with keys: create, then add, or build at once where the face
builds. Every refusal, whatever its form (exit status 2, an exception), is raised as Refused;
anything else that goes wrong (a crash, exit 1 from an add) fails the test as itself.

A reader gets a filter into its own store first: a file into Redis by `bloomkit redis push` or
RedisBloomFilter.push, Redis into a file by `bloomkit redis pull` or .pull(), as its users would
(Stores.moved).
"""
from __future__ import annotations

import dataclasses
import itertools
import os
import subprocess
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np
import pandas as pd

import bloomkit
import bloomkit.dask as bkd

N, FPR = 1000, 0.01  # every face's filters are made alike: what Dask builds unites with a file's


def line_of(value, zeros: int = 0) -> bytes:
    """How a line spells a key: its bytes, or the number in decimal after `zeros` leading zeros."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode()
    return f"{'-' if value < 0 else ''}{'0' * zeros}{abs(value)}".encode()


@dataclasses.dataclass
class Keys:
    """Keys as every face is given them: `values` (bytes for text, int for the integer formats, or a
    wrong one on purpose) and `lines`, how the faces that read lines spell each of them."""

    values: list
    lines: List[bytes]

    @classmethod
    def of(cls, values, lines=None) -> "Keys":
        values = list(values)
        return cls(values, list(lines) if lines is not None else [line_of(v) for v in values])

    def __len__(self) -> int:
        return len(self.values)

    def __add__(self, other: "Keys") -> "Keys":
        return Keys(self.values + other.values, self.lines + other.lines)

    def __getitem__(self, part: slice) -> "Keys":
        return Keys(self.values[part], self.lines[part])

    def halves(self):
        middle = (len(self) + 1) // 2
        return self[:middle], self[middle:]

    def stdin(self) -> bytes:
        return b"".join(line + b"\n" for line in self.lines)


class Refused(Exception):
    """A face refused keys or a filter: its message (stderr, or the exception's text) and, where the
    face is Python, the exception itself."""

    def __init__(self, face: str, message: str, error: Optional[BaseException] = None):
        super().__init__(f"{face}: {message}")
        self.face, self.message, self.error = face, message, error


@dataclasses.dataclass(frozen=True)
class Place:
    """Where a filter is: a file's path or a Redis name, and its layout."""

    store: str  # "file" or "redis"
    name: str
    layout: str = "block"


# --- Python keys in the forms users give them -------------------------------------------------------


def utf8(value: bytes) -> Optional[str]:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return None


def python_objects(values) -> list:
    """The keys as a Python program holds them: ints, and text as str where it is UTF-8 (every other
    one, so that str and bytes both go in), else bytes."""
    out = []
    for i, v in enumerate(values):
        text = utf8(v) if isinstance(v, bytes) and i % 2 == 0 else None
        out.append(text if text is not None else v)
    return out


# Every integer dtype: both byte orders of each width but one byte, which has none.
INTEGER_DTYPES = list(dict.fromkeys(np.dtype(order + kind) for kind in ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8")
                                    for order in ("<", ">")))


def holds(dtype: np.dtype, value) -> bool:
    info = np.iinfo(dtype)
    return isinstance(value, int) and info.min <= value <= info.max


def numpy_forms(values) -> Dict[str, tuple]:
    """The keys as numpy arrays: each integer in one array per width, signedness and byte order that
    holds it; text in 'S' and 'U' arrays (the keys numpy gives back as they are: no trailing NUL)
    and an object array. {name: (indices of the keys, array)}."""
    forms = {}
    for dtype in INTEGER_DTYPES:
        indices = [i for i, v in enumerate(values) if holds(dtype, v)]
        if indices:
            forms[f"numpy {dtype.str}"] = (indices, np.array([values[i] for i in indices], dtype=dtype))
    texts = [i for i, v in enumerate(values) if isinstance(v, bytes)]
    if texts:
        whole = [i for i in texts if not values[i].endswith(b"\0")]
        forms["numpy S"] = (whole, np.array([values[i] for i in whole], dtype="S"))
        unicode = [i for i in whole if utf8(values[i]) is not None and len(values[i]) <= 4096]
        forms["numpy U"] = (unicode, np.array([utf8(values[i]) for i in unicode], dtype="U"))
        forms["numpy object"] = (texts, object_array([values[i] for i in texts]))
    return forms


def object_array(items) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def arrays_to_add(values, key_format: str) -> List[np.ndarray]:
    """The keys as a numpy program adds them, in their order: each integer in the narrowest dtype
    that holds it, of the format's signedness where it can be (the first array of an unrecorded
    filter records its format), byte orders alternating from one array to the next; text in 'S'
    arrays, or object arrays for the keys numpy would strip of their trailing NULs."""
    signed, unsigned = ("i1", "i2", "i4", "i8"), ("u1", "u2", "u4", "u8")
    preferred = signed + unsigned if key_format == "i64" else unsigned + signed
    groups: Dict[str, list] = {}
    for v in values:
        if isinstance(v, bytes):
            kind = "O" if v.endswith(b"\0") else "S"
        else:
            kind = next(k for k in preferred if holds(np.dtype(k), v))
        groups.setdefault(kind, []).append(v)
    arrays = []
    for i, (kind, group) in enumerate(groups.items()):
        if kind == "O":
            arrays.append(object_array(group))
        elif kind == "S":
            arrays.append(np.array(group, dtype="S"))
        else:
            arrays.append(np.array(group, dtype=np.dtype(("<" if i % 2 == 0 else ">") + kind)))
    return arrays


def answers(count: int, indices, found) -> List[Optional[bool]]:
    """Answers for some of `count` keys, aligned with them: None where the key was not asked."""
    out: List[Optional[bool]] = [None] * count
    for i, answer in zip(indices, found):
        out[i] = bool(answer)
    return out


# --- Where filters are kept, and how they move ------------------------------------------------------


class Stores:
    """New places for filters (files in a folder, names in one Redis), and copies between the two."""

    def __init__(self, cli: str, folder: Path, url: str):
        self.cli, self.folder, self.url = cli, folder, url
        self._numbers = itertools.count()
        self._copies: Dict[tuple, Place] = {}

    def new(self, store: str, layout: str = "block") -> Place:
        number = next(self._numbers)
        name = str(self.folder / f"f{number}.bkf") if store == "file" else f"faces-{number}"
        return Place(store, name, layout)

    def command(self, *arguments, stdin: bytes = b"") -> subprocess.CompletedProcess:
        return subprocess.run([self.cli, *map(str, arguments)], input=stdin, capture_output=True, timeout=300)

    def moved(self, place: Place, store: str, by: str) -> Place:
        """The filter at `place` in `store`: itself, or a copy made by `by` ("command" or "python")."""
        if place.store == store:
            return place
        key = (place, store, by)
        if key not in self._copies:
            copy = self.new(store, place.layout)
            try:
                if store == "redis" and by == "command":
                    refused_unless_done("redis push", self.command("redis", "push", place.name, copy.name,
                                                                   "--url", self.url))
                elif store == "redis":
                    bloomkit.RedisBloomFilter.push(bloomkit.load(place.name), copy.name, url=self.url)
                elif by == "command":
                    refused_unless_done("redis pull", self.command("redis", "pull", place.name, "-o", copy.name,
                                                                   "--url", self.url))
                else:
                    bloomkit.RedisBloomFilter(place.name, url=self.url).pull().save(copy.name)
            except bloomkit.Error as e:
                raise Refused(f"{by} copy to {store}", str(e), e) from e
            self._copies[key] = copy
        return self._copies[key]

    def recorded(self, place: Place) -> str:
        """The key format the filter records, as Python reads it."""
        if place.store == "file":
            return bloomkit.load(place.name).key_format
        return bloomkit.RedisBloomFilter(place.name, url=self.url).key_format


def refused_unless_done(what: str, run: subprocess.CompletedProcess, done=(0,)) -> subprocess.CompletedProcess:
    """The run, if it exited with one of `done`; Refused for exit 2 (the command's refusal), and a
    failure for anything else (a crash is never a refusal)."""
    message = run.stderr.decode(errors="replace").strip()
    if run.returncode == 2:
        raise Refused(what, message)
    assert run.returncode in done, f"{what} exited {run.returncode}: {message}"
    return run


def python_refusal(what: str, call, *arguments, **options):
    """call(...), its bloomkit.Error raised as Refused."""
    try:
        return call(*arguments, **options)
    except bloomkit.Error as e:
        raise Refused(what, str(e), e) from e


# --- The faces -----------------------------------------------------------------------------------------


class Face:
    """A way to add and check keys. `store` is where its filters are, `transfer` how it fetches one
    from the other store, `reads_lines` whether its keys are lines of text."""

    name = ""
    store = "file"
    layout = "block"
    transfer = "python"
    reads_lines = False

    def __init__(self, stores: Stores):
        self.stores = stores

    def create(self, place: Place, key_format: str) -> None:
        raise NotImplementedError

    def add(self, place: Place, keys: Keys, say: Optional[str] = None) -> None:
        raise NotImplementedError

    def check(self, place: Place, keys: Keys, say: Optional[str] = None) -> Dict[str, List[Optional[bool]]]:
        """{how: an answer per key (None where that way was not asked)}: every way the face asks."""
        raise NotImplementedError

    def write(self, place: Place, key_format: str, keys: Keys) -> None:
        first, second = keys.halves()
        self.create(place, key_format)
        self.add(place, first)
        self.add(place, second)


class LineFace(Face):
    """A program that reads keys one per line: refusals are exit 2 with a message on stderr."""

    reads_lines = True
    transfer = "command"

    def run(self, what: str, arguments, keys: Keys, done=(0,)) -> subprocess.CompletedProcess:
        return refused_unless_done(f"{self.name} {what}", subprocess.run(
            list(map(str, arguments)), input=keys.stdin(), capture_output=True, timeout=300), done)

    @staticmethod
    def said(say: Optional[str]) -> list:
        return ["--key", say] if say else []

    def absent_lines(self, keys: Keys, run: subprocess.CompletedProcess) -> Dict[str, List[Optional[bool]]]:
        """Answers from the lines a `check --absent` printed: each key not printed was found."""
        printed = run.stdout.split(b"\n")[:-1]
        if all(isinstance(v, int) for v in keys.values):
            absent = {int(line) for line in printed}
            return {"lines": [v not in absent for v in keys.values]}
        absent = set(printed)
        return {"lines": [line not in absent for line in keys.lines]}


class CppFace(LineFace):
    """tests/faces/cpp_face.cpp: typed C++ keys (std::string, std::uint64_t, std::int64_t,
    std::uint32_t) in a bloomkit::bloom_filter, loaded, inserted and saved."""

    name = "cpp"

    def program(self) -> str:
        return os.environ["BLOOMKIT_FACES_CPP"]

    def create(self, place, key_format):
        self.run("add", [self.program(), "add", place.name, "--key", key_format, "--layout", self.layout,
                         "-n", N, "-p", FPR], Keys.of([]))

    def add(self, place, keys, say=None):
        self.run("add", [self.program(), "add", place.name, *self.said(say)], keys)

    def check(self, place, keys, say=None):
        run = self.run("check", [self.program(), "check", place.name, *self.said(say)], keys)
        return {"typed C++ keys": [line == b"1" for line in run.stdout.split(b"\n")[:-1]]}

    def write(self, place, key_format, keys):
        # The first half creates the filter (bloomkit::bloom_filter(n, p, {.keys = format})), the
        # second is added to the file it saved.
        first, second = keys.halves()
        self.run("add", [self.program(), "add", place.name, "--key", key_format, "--layout", self.layout,
                         "-n", N, "-p", FPR], first)
        self.add(place, second)


class CppSplitBlockFace(CppFace):
    """The same, in a split-block filter (XXH64, as Parquet), where narrow C++ integer types would
    hash in their own width were the format not recorded."""

    name = "cpp split-block"
    layout = "split-block"


class CommandFace(LineFace):
    """bloomkit build --key, add, check."""

    name = "command"

    def create(self, place, key_format):
        self.run("build", [self.stores.cli, "build", "--key", key_format, "-n", N, "-p", FPR, "-o", place.name, "-"],
                 Keys.of([]))

    def write(self, place, key_format, keys):
        first, second = keys.halves()
        self.run("build", [self.stores.cli, "build", "--key", key_format, "-n", N, "-p", FPR, "-o", place.name, "-"],
                 first)
        self.add(place, second)

    def add(self, place, keys, say=None):
        self.run("add", [self.stores.cli, "add", place.name, "-", *self.said(say)], keys)

    def check(self, place, keys, say=None):
        run = self.run("check", [self.stores.cli, "check", place.name, "-", "--absent", *self.said(say)], keys,
                       done=(0, 1))
        return self.absent_lines(keys, run)


class RedisCommandFace(LineFace):
    """bloomkit redis create --key, redis add, redis check."""

    name = "redis command"
    store = "redis"

    def create(self, place, key_format):
        self.run("redis create", [self.stores.cli, "redis", "create", place.name, "--key", key_format, "-n", N,
                                  "-p", FPR, "--url", self.stores.url], Keys.of([]))

    def add(self, place, keys, say=None):
        self.run("redis add", [self.stores.cli, "redis", "add", place.name, "-", "--url", self.stores.url,
                               *self.said(say)], keys)

    def check(self, place, keys, say=None):
        run = self.run("redis check", [self.stores.cli, "redis", "check", place.name, "-", "--absent", "--url",
                                       self.stores.url, *self.said(say)], keys, done=(0, 1))
        return self.absent_lines(keys, run)


class PythonFace(Face):
    """bloomkit.BloomFilter made with key_format=, Python ints, str and bytes one by one and in
    lists; files by save, load and map."""

    name = "python"

    def create(self, place, key_format):
        python_refusal(self.name, lambda: bloomkit.BloomFilter(N, FPR, key_format=key_format).save(place.name))

    def write(self, place, key_format, keys):
        first, second = keys.halves()
        objects = python_objects(first.values)

        def made():
            f = bloomkit.BloomFilter(N, FPR, key_format=key_format)
            if objects:
                f.add(objects[0])
                f.update(objects[1:])
            f.save(place.name)
        python_refusal(self.name, made)
        self.add(place, second)

    def add(self, place, keys, say=None):
        def added():
            f = bloomkit.load(place.name)
            if say:
                f.key_format = say
            f.update(python_objects(keys.values))
            f.save(place.name)
        python_refusal(self.name, added)

    def check(self, place, keys, say=None):
        objects = python_objects(keys.values)

        def asked():
            loaded, mapped = bloomkit.load(place.name), bloomkit.map(place.name)
            if say:
                loaded.key_format = say
            return {"load, in": [k in loaded for k in objects],
                    "map, contains_many": [bool(a) for a in mapped.contains_many(objects)]}
        return python_refusal(self.name, asked)


class NumpyFace(Face):
    """bloomkit.BloomFilter made without key_format=, filled and asked with numpy arrays of every
    width and byte order ('S', 'U' and object arrays for text): the first array records the format
    (u32, which no array implies, is set on the empty filter)."""

    name = "numpy"

    def create(self, place, key_format):
        def made():
            f = bloomkit.BloomFilter(N, FPR)
            f.key_format = key_format
            f.save(place.name)
        python_refusal(self.name, made)

    def write(self, place, key_format, keys):
        first, second = keys.halves()

        def made():
            f = bloomkit.BloomFilter(N, FPR)
            if key_format == "u32":
                f.key_format = "u32"
            for array in arrays_to_add(first.values, key_format):
                f.update(array)
            f.save(place.name)
        python_refusal(self.name, made)
        self.add(place, second)

    def add(self, place, keys, say=None):
        def added():
            f = bloomkit.from_bytes(Path(place.name).read_bytes())
            if say:
                f.key_format = say
            for array in arrays_to_add(keys.values, say or f.key_format):
                f.update(array)
            f.save(place.name)
        python_refusal(self.name, added)

    def check(self, place, keys, say=None):
        def asked():
            f = bloomkit.from_bytes(Path(place.name).read_bytes())
            if say:
                f.key_format = say
            return {how: answers(len(keys), indices, f.contains_many(array))
                    for how, (indices, array) in numpy_forms(keys.values).items()}
        return python_refusal(self.name, asked)


class RedisPythonFace(Face):
    """bloomkit.RedisBloomFilter: made with key_format=, opened by name by another handle, keys one by
    one, in lists and in numpy arrays."""

    name = "redis python"
    store = "redis"

    def opened(self, place: Place, say: Optional[str] = None):
        # Saying a format is creating the filter with it, which opens it when it exists alike.
        if say:
            return bloomkit.RedisBloomFilter(place.name, N, FPR, url=self.stores.url, key_format=say)
        return bloomkit.RedisBloomFilter(place.name, url=self.stores.url)

    def create(self, place, key_format):
        python_refusal(self.name, bloomkit.RedisBloomFilter, place.name, N, FPR, url=self.stores.url,
                       key_format=key_format)

    def write(self, place, key_format, keys):
        first, second = keys.halves()
        objects = python_objects(first.values)

        def made():
            f = bloomkit.RedisBloomFilter(place.name, N, FPR, url=self.stores.url, key_format=key_format)
            if objects:
                f.add(objects[0])
                f.update(objects[1:])
            for array in arrays_to_add(second.values, key_format):
                self.opened(place).update(array)  # another handle, as another service would
        python_refusal(self.name, made)

    def add(self, place, keys, say=None):
        python_refusal(self.name, lambda: self.opened(place, say).update(python_objects(keys.values)))

    def check(self, place, keys, say=None):
        objects = python_objects(keys.values)

        def asked():
            f = self.opened(place, say)
            found = {"contains_many": [bool(a) for a in f.contains_many(objects)], "in": [k in f for k in objects]}
            if all(isinstance(v, int) for v in keys.values):
                for how, (indices, array) in numpy_forms(keys.values).items():
                    if how.endswith("8"):  # the 64-bit ones, both byte orders: a round trip each
                        found[how] = answers(len(keys), indices, f.contains_many(array))
            return found
        return python_refusal(self.name, asked)


class DaskFace(Face):
    """bloomkit.dask on the module's cluster: build from a Series (i64, u64) or a Bag (text; u32 as
    numpy scalars) with key_format=, united into the file's filter; isin over a Series."""

    name = "dask"

    def create(self, place, key_format):
        python_refusal(self.name, lambda: bloomkit.BloomFilter(N, FPR, key_format=key_format).save(place.name))

    @staticmethod
    def collection(values, key_format: str):
        import dask.bag as db
        import dask.dataframe as dd
        if key_format in ("i64", "u64"):
            dtype = next((d for d in ("i8", "u8") if all(holds(np.dtype(d), v) for v in values)), None)
            if dtype and values:
                return dd.from_pandas(pd.Series(values, dtype=dtype), npartitions=2)
        if key_format == "u32" and all(holds(np.dtype("u4"), v) for v in values):
            values = [np.uint32(v) for v in values]
        return db.from_sequence(python_objects(values) if values else [], npartitions=2)

    @staticmethod
    def series(values, key_format: str):
        import dask.dataframe as dd
        if all(isinstance(v, int) for v in values):
            dtype = next((d for d in (("u4",) if key_format == "u32" else ()) + ("i8", "u8")
                          if all(holds(np.dtype(d), v) for v in values)), object)
        else:
            dtype = object
        return dd.from_pandas(pd.Series(values, dtype=dtype), npartitions=2)

    def write(self, place, key_format, keys):
        python_refusal(self.name, lambda: bkd.build(self.collection(keys.values, key_format), fpr=FPR, n=N,
                                                    key_format=key_format).save(place.name))

    def add(self, place, keys, say=None):
        def added():
            f = bloomkit.load(place.name)
            f |= bkd.build(self.collection(keys.values, say or f.key_format), fpr=FPR, n=N,
                           key_format=say or f.key_format)
            f.save(place.name)
        python_refusal(self.name, added)

    def check(self, place, keys, say=None):
        def asked():
            f = bloomkit.load(place.name)
            return {"isin": [bool(a) for a in bkd.isin(self.series(keys.values, f.key_format), f).compute()]}
        return python_refusal(self.name, asked)


FACES = [CppFace, CppSplitBlockFace, CommandFace, PythonFace, NumpyFace, RedisCommandFace, RedisPythonFace,
         DaskFace]
