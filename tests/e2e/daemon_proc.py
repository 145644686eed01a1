"""Start `potionpi run` as a real subprocess on a free port, and talk HTTP to it."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

PIN = "2468"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DaemonProcess:
    def __init__(self, data_dir: Path, *args: str, port: int | None = None, sim: bool = True,
                 env: dict[str, str] | None = None):
        self.data_dir = Path(data_dir)
        # POTIONPI_PIN=2468 unless the test says otherwise ({} without it: the data dir's PIN)
        self.env = {"POTIONPI_PIN": PIN} if env is None else env
        self.port = port or free_port()
        self.args = (("--sim",) if sim else ()) + args
        self.proc: subprocess.Popen | None = None
        self.output = b""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> "DaemonProcess":
        env = {k: v for k, v in os.environ.items() if k != "POTIONPI_PIN"}
        env.update(self.env, PYTHONUNBUFFERED="1")
        cmd = [sys.executable, "-m", "controller.cli", "run", "--host", "127.0.0.1",
               "--port", str(self.port), "--data-dir", str(self.data_dir), *self.args]
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"daemon exited early: {self.proc.stdout.read().decode()}")
            try:
                status, _ = self.request("GET", "/healthz")
                if status == 200:
                    return self
            except OSError:
                time.sleep(0.1)
        raise AssertionError("daemon did not answer /healthz in time")

    def request(self, method: str, path: str, body=None, pin: str | None = PIN):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if pin:
            req.add_header("X-Table-Pin", pin)
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"null")

    def request_text(self, path: str) -> str:
        """A page, as text (GET, no PIN)."""
        with urllib.request.urlopen(self.url + path, timeout=10) as resp:
            return resp.read().decode()

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def terminate(self, timeout: float = 15) -> int:
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()              # so reading its output below cannot block the test
            raise
        finally:
            self.output = self.proc.stdout.read()
        return rc
