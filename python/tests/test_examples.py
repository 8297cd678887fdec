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
