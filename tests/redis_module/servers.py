"""Real redis-server processes with bloomkit.so loaded, on free loopback ports in a temporary folder.

A sanitized module (ctest sets BLOOMKIT_MODULE_PRELOAD to the sanitizer runtimes) is loaded with
those runtimes preloaded into the server; the server's output is kept, and stop() fails the test
when a sanitizer reported anything. Waiting is for states the test asks the server about (PING
answered, a rewrite finished, a replica in sync), never for a length of time.
"""
import os
import shutil
import socket
import subprocess
import time

import redis


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition, what, limit=300):
    """Polls condition() until it holds; the limit only stops a test that would hang for ever."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen in {limit} s")
        time.sleep(0.02)


class Server:
    def __init__(self, folder, module, *arguments, module_arguments=()):
        self.folder = str(folder)
        os.makedirs(self.folder, exist_ok=True)
        self.module = module
        self.module_arguments = list(module_arguments)
        self.arguments = list(arguments)
        self.port = free_port()
        self.process = None
        self.log = os.path.join(self.folder, "server.out")

    def start(self):
        binary = shutil.which("redis-server")
        env = dict(os.environ)
        preload = os.environ.get("BLOOMKIT_MODULE_PRELOAD")
        if preload:
            env["LD_PRELOAD"] = preload
            # Redis frees little at exit, by design: leaks there are not the module's.
            env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
            env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
        command = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.folder,
                   "--save", "", "--appendonly", "no", "--enable-debug-command", "yes",
                   *self.arguments, "--loadmodule", self.module, *self.module_arguments]
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        client = self.client()

        def answering():
            if self.process.poll() is not None:
                raise AssertionError(f"redis-server exited ({self.process.returncode}): {self.output()[-2000:]}")
            try:
                return client.ping()
            except redis.ConnectionError:
                return False
        wait_until(answering, "redis-server answering")
        return self

    def client(self, **options):
        return redis.Redis(host="127.0.0.1", port=self.port, **options)

    def output(self):
        with open(self.log, "r", errors="replace") as f:
            return f.read()

    def stop(self, save=False):
        """Shuts the server down (saving first when asked) and checks it reported no memory error."""
        if self.process is None:
            return
        if self.process.poll() is None:
            try:
                self.client().shutdown(save=save, nosave=not save)
            except redis.ConnectionError:
                pass
            self.process.wait(timeout=300)
        self.process = None
        out = self.output()
        assert "AddressSanitizer" not in out and "runtime error:" not in out, out[-4000:]

    def restart(self, save=False):
        self.stop(save=save)
        return self.start()
