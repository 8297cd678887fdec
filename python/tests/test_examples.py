"""The Python examples (examples/python/) run as the README says, and answer rightly."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


def run(script, *arguments, stdin=None):
    return subprocess.run([sys.executable, EXAMPLES / script, *map(str, arguments)], input=stdin,
                          capture_output=True, env=dict(os.environ), check=True)


def test_dedup_urls_prints_each_url_once_across_runs(tmp_path):
    state = tmp_path / "seen.bkf"
    first = run("dedup_urls.py", state, stdin=b"a\nb\na\nc\n")
    assert first.stdout == b"a\nb\nc\n"
    second = run("dedup_urls.py", state, stdin=b"c\nd\na\n")
    assert second.stdout == b"d\n"


@pytest.mark.skipif(not all(Path(p).exists() for p in ("/usr/share/dict/american-english-huge", "/usr/share/dict/cracklib-small")),
                    reason="wamerican-huge, cracklib-runtime")
def test_screen_passwords_catches_dictionary_words():
    out = run("screen_passwords.py", "password", "letmein").stdout.decode()
    assert out.splitlines() == ["weak    password", "weak    letmein"]


def test_dask_semi_join_runs_as_the_readme_shows_it(tmp_path):
    pytest.importorskip("distributed", reason="Dask is not installed (python3-dask python3-distributed)")
    script = (EXAMPLES / "dask_semi_join.py").read_text()
    readme = (EXAMPLES.parents[1] / "README.md").read_text()
    section = readme.split("## Beyond one machine", 1)[1]
    assert section.split("```python\n", 1)[1].split("```", 1)[0] == script  # the README shows the file
    out = subprocess.run([sys.executable, EXAMPLES / "dask_semi_join.py"], cwd=tmp_path, capture_output=True,
                         env=dict(os.environ), check=True, timeout=300).stdout.decode()
    words = out.split()
    joined, saved, total = words[0], words[3], words[5]
    assert (joined, total) == ("2000", "2000000") and int(saved) > 0.98 * 2_000_000  # 1% false positives at most
    import bloomkit
    seen = bloomkit.load(tmp_path / "customers.bkf")
    assert seen.contains_many(list(range(2_000_000))).all()
