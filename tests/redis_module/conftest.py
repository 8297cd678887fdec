"""What the module's tests share: the module and command under test (set by ctest), a server
with the module loaded for each test, keys, and the text of an error reply."""
import os

import pytest
import redis

from servers import Server

MODULE = os.environ.get("BLOOMKIT_REDIS_MODULE")
CLI = os.environ.get("BLOOMKIT_CLI")

needs_module = pytest.mark.skipif(not MODULE, reason="BLOOMKIT_REDIS_MODULE (the built bloomkit.so) is not set")


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path / "primary", MODULE).start()
    yield s
    s.stop()


def keys(n, tag="k"):
    return [f"{tag}:{i:09d}".encode() for i in range(n)]


def batched(call, items, batch=20000):
    """call(chunk) for each chunk of the items, its answers put end to end."""
    answers = []
    for i in range(0, len(items), batch):
        answers += call(items[i:i + batch])
    return answers


def unanswered(mexists, items):
    """The items an MEXISTS says were never added: must always be none."""
    return [item for item, found in zip(items, batched(mexists, items)) if found != 1]


def error_of(call):
    """The text redis-py raises for the error reply `call` gets (it must get one)."""
    with pytest.raises(redis.ResponseError) as e:
        call()
    return str(e.value)
