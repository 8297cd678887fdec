"""Files shared with C++ and the command, both ways; bytes; maps; damaged input."""
import os
import subprocess

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
