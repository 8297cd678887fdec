"""What the cross-face tests need, each started once for the module and always stopped: a throwaway
redis-server on a free loopback port and a Dask cluster of two worker processes. When a face cannot
run here (no command, no faces_cpp, no redis-server, no Dask, a module built without its Redis
component) the tests are skipped saying which, and the run exits 77, which ctest reports as skipped."""
import os
import shutil
import socket
import subprocess
import time

import pytest

SKIPPED = 77  # ctest's SKIP_RETURN_CODE for the test `faces`


def missing_pieces():
    """What this machine or build lacks for one of the faces, as the package or setting to fix it."""
    missing = []
    for variable, what in (("BLOOMKIT_CLI", "the bloomkit command"), ("BLOOMKIT_FACES_CPP", "faces_cpp")):
        if not os.access(os.environ.get(variable, ""), os.X_OK):
            missing.append(f"{what} (${variable})")
    if not shutil.which("redis-server"):
        missing.append("redis-server (redis-server)")
    for module, package in (("numpy", "python3-numpy"), ("pandas", "python3-pandas"), ("dask", "python3-dask"),
                            ("distributed", "python3-distributed"), ("hypothesis", "python3-hypothesis")):
        try:
            __import__(module)
        except ImportError:
            missing.append(f"{module} ({package})")
    try:
        import bloomkit
    except ImportError as e:
        missing.append(f"the bloomkit package on PYTHONPATH ({e})")
    else:
        if not hasattr(bloomkit._bloomkit, "RedisFilter"):
            missing.append("bloomkit's Redis component (a build with libhiredis-dev, without sanitizers)")
    return missing


def pytest_sessionfinish(session, exitstatus):
    # Nothing ran because a piece is missing: skipped, not passed.
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    stats = reporter.stats if reporter else {}
    nothing_failed = exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)
    if nothing_failed and stats.get("skipped") and not stats.get("passed") and not stats.get("xfailed"):
        session.exitstatus = SKIPPED


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """The URL of a redis-server of this module's own, stopped afterwards."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    folder = tmp_path_factory.mktemp("redis")
    server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
                               "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120  # however slow the machine: only a server that never comes fails
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start on port {port}") from None
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=120)


@pytest.fixture(scope="module")
def dask_client():
    """A distributed Client of a LocalCluster of two single-threaded worker processes on loopback."""
    import distributed
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                       dashboard_address=":0", silence_logs=40)
    try:
        client = distributed.Client(cluster)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()
