"""Shared fixtures: the bloomkit command of the same build (BLOOMKIT_CLI, set by ctest), and keys."""
import os
import shutil

import pytest


@pytest.fixture(scope="session")
def cli():
    """The bloomkit command built beside the bindings; the exchange tests need it."""
    path = os.environ.get("BLOOMKIT_CLI") or shutil.which("bloomkit")
    if not path:
        pytest.skip("no bloomkit command (BLOOMKIT_CLI unset, none on PATH)")
    return path


def urls(n, start=0):
    return [f"https://www.site{i % 997:03d}.example.com/articles/{i:08x}" for i in range(start, start + n)]
