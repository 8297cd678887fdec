"""Shared fixtures: the bloomkit command of the same build (BLOOMKIT_CLI, set by ctest), a
throwaway redis-server, and keys."""
import os
import shutil
import socket
import subprocess
import time

import pytest


@pytest.fixture(scope="session")
def cli():
    """The bloomkit command built beside the bindings; the exchange tests need it."""
    path = os.environ.get("BLOOMKIT_CLI") or shutil.which("bloomkit")
    if not path:
        pytest.skip("no bloomkit command (BLOOMKIT_CLI unset, none on PATH)")
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A throwaway redis-server on a free loopback port, stopped afterwards."""
    redis = pytest.importorskip("redis", reason="python3-redis")
    binary = shutil.which("redis-server")
    if not binary:
        pytest.skip("redis-server is not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    folder = tmp_path_factory.mktemp("redis")
    process = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
                                "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + 120  # however slow the machine: only a server that never comes fails
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on port {port}") from None
            time.sleep(0.05)
    yield client, f"redis://127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=120)


def urls(n, start=0):
    return [f"https://www.site{i % 997:03d}.example.com/articles/{i:08x}" for i in range(start, start + n)]
