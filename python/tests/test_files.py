"""Files shared with C++ and the command, both ways; bytes; maps; damaged input; a file changed
under a map; a save beside a running `bloomkit add`."""
import fcntl
import os
import subprocess
import sys
import time

import pytest

import bloomkit
from conftest import urls


def test_save_load_map_and_bytes_round_trip(tmp_path):
    f = bloomkit.CountingBloomFilter(5000, 0.01)
    f.update(urls(3000))
    path = tmp_path / "f.bkf"
    f.save(path)
    for g in (bloomkit.load(path), bloomkit.map(path), bloomkit.from_bytes(f.to_bytes()),
              bloomkit.from_bytes(bytearray(f.to_bytes()))):
        assert type(g) is bloomkit.CountingBloomFilter and g == f
        assert g.contains_many(urls(3000)).all()
    mapped = bloomkit.map(str(path))
    assert mapped.read_only and not mapped.changed()
    mapped.verify()
    with pytest.raises(TypeError, match="read-only"):
        mapped.add("x")
    copy = mapped.copy()
    copy.add("x")
    assert "x" in copy and not copy.read_only


def test_damaged_and_foreign_bytes_are_format_errors(tmp_path):
    data = bytearray(bloomkit.BloomFilter(1000, 0.01).to_bytes())
    data[200] ^= 1
    with pytest.raises(bloomkit.FormatError, match="checksum"):
        bloomkit.from_bytes(bytes(data))
    with pytest.raises(bloomkit.FormatError):
        bloomkit.from_bytes(b"not a filter at all")
    with pytest.raises(bloomkit.Error, match="cannot open|No such"):
        bloomkit.load(tmp_path / "missing.bkf")


def test_a_filter_the_command_built_answers_in_python(cli, tmp_path):
    lines = urls(10_000)
    (tmp_path / "keys.txt").write_text("\n".join(lines) + "\n")
    for kind in ("bloom", "counting", "cuckoo", "fuse"):
        out = tmp_path / f"{kind}.bkf"
        subprocess.run([cli, "build", "--kind", kind, "-p", "0.01", "-o", out, tmp_path / "keys.txt"], check=True)
        f = bloomkit.load(out)
        assert f.kind == kind and f.key_format == "text"
        assert f.contains_many(lines).all()


def test_numbers_the_command_built_answer_python_ints(cli, tmp_path):
    numbers = [0, 7, 2**63 - 1, 123456789012]
    (tmp_path / "ids.txt").write_text("\n".join(map(str, numbers)) + "\n")
    subprocess.run([cli, "build", "--key", "u64", "-n", "1000", "-o", tmp_path / "ids.bkf", tmp_path / "ids.txt"],
                   check=True)
    f = bloomkit.load(tmp_path / "ids.bkf")
    assert f.key_format == "u64" and all(n in f for n in numbers)
    with pytest.raises(TypeError, match="integer keys"):
        _ = "7" in f


def test_a_filter_python_built_answers_in_the_command(cli, tmp_path):
    lines = urls(5000)
    f = bloomkit.BloomFilter(10_000, 0.001)
    f.update(lines)
    f.save(tmp_path / "py.bkf")
    (tmp_path / "keys.txt").write_text("\n".join(lines) + "\n")
    run = subprocess.run([cli, "check", "--count", "--json", tmp_path / "py.bkf", tmp_path / "keys.txt"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert '"present": 5000' in run.stdout
    info = subprocess.run([cli, "info", tmp_path / "py.bkf"], capture_output=True, text=True, check=True)
    assert "text" in info.stdout and os.path.getsize(tmp_path / "py.bkf") > f.nbytes


# A mapped file that another program truncates (cp over it, a log rotation) makes the next lookup
# raise FormatError, never kill the interpreter with SIGBUS. In a child, which a SIGBUS would kill.
def test_a_mapped_file_truncated_under_it_raises_never_crashes(tmp_path):
    child = """if True:
        import os, sys, bloomkit
        f = bloomkit.BloomFilter(2_000_000, 0.01)
        keys = [f"k{i}" for i in range(1000)]
        f.update(keys)
        f.save(sys.argv[1])
        m = bloomkit.map(sys.argv[1])
        assert m.contains_many(keys).all()
        os.truncate(sys.argv[1], 4096)
        for ask in (lambda: m.contains_many(keys), lambda: "k5" in m):
            try:
                ask()
                print("answered")
            except bloomkit.FormatError as e:
                print("FormatError", e)
    """
    run = subprocess.run([sys.executable, "-c", child, tmp_path / "f.bkf"], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, f"the child died (signal {-run.returncode})" if run.returncode < 0 else run.stderr
    assert [line.split()[0] for line in run.stdout.splitlines()] == ["FormatError", "FormatError"], run.stdout
    assert "truncated" in run.stdout


def writer_lock_held(path):
    """Whether another process holds the writer lock of `path` (an flock on the file itself)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # releases the lock if this probe took it


def poll(condition, what, seconds=300):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        time.sleep(0.01)


# save() beside a running `bloomkit add` of the same file waits for the add's writer lock, and no
# writer's keys are lost without a word: the add's land, and a Python job that read the file before
# the add committed is refused (the file changed since it read it) rather than replacing the add's
# keys; read again, it saves both.
def test_save_waits_for_a_running_add_and_loses_none_of_its_keys(cli, tmp_path):
    path = tmp_path / "f.bkf"
    subprocess.run([cli, "build", "-n", "10000", "-o", path, "-"], input=b"base\n", check=True)
    fifo = tmp_path / "input"
    os.mkfifo(fifo)
    feed = os.open(fifo, os.O_RDWR)  # held open, so that the add reads on until the test closes it
    add = subprocess.Popen([cli, "add", path, fifo], stderr=subprocess.PIPE)
    python = None
    try:
        os.write(feed, b"cmdkey\n")
        poll(lambda: writer_lock_held(path) or add.poll() is not None, "the add takes the writer lock")
        assert add.poll() is None, add.stderr.read()
        before = os.stat(path)
        python = subprocess.Popen([sys.executable, "-c", "import sys, bloomkit\n"
                                   "f = bloomkit.load(sys.argv[1]); f.add('pykey'); print('saving', flush=True)\n"
                                   "f.save(sys.argv[1])", path],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert python.stdout.readline() == "saving\n"
        # The add holds the lock until the test closes its input: whatever the save does, it
        # cannot have replaced the file yet.
        now = os.stat(path)
        assert (now.st_ino, now.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), "the save ignored the lock"
    finally:
        os.close(feed)
        assert add.wait(timeout=120) == 0, add.stderr.read()
    assert python.wait(timeout=120) != 0, "the save replaced the file the add had changed since it was read"
    assert "changed since this filter was read" in python.stderr.read()
    assert all(key in bloomkit.load(path) for key in ("base", "cmdkey"))
    again = bloomkit.load(path)  # read after the add: saved, it keeps every key
    again.add("pykey")
    again.save(path)
    final = bloomkit.load(path)
    assert all(key in final for key in ("base", "cmdkey", "pykey"))


def test_save_without_wait_is_refused_while_another_writer_holds_the_file(cli, tmp_path):
    path = tmp_path / "f.bkf"
    subprocess.run([cli, "build", "-n", "10000", "-o", path, "-"], input=b"base\n", check=True)
    fifo = tmp_path / "input"
    os.mkfifo(fifo)
    feed = os.open(fifo, os.O_RDWR)
    add = subprocess.Popen([cli, "add", path, fifo], stderr=subprocess.PIPE)
    try:
        poll(lambda: writer_lock_held(path) or add.poll() is not None, "the add takes the writer lock")
        f = bloomkit.BloomFilter(10_000, 0.01)
        with pytest.raises(bloomkit.Error, match="being written by another bloomkit process"):
            f.save(path, wait=False)
        with pytest.raises(bloomkit.WrongType, match="True or False"):
            f.save(path, wait="no")
    finally:
        os.close(feed)
        assert add.wait(timeout=120) == 0, add.stderr.read()
