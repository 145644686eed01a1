"""systemd's notify protocol against a real NOTIFY_SOCKET datagram socket, and a watchdog
that stops pinging when the table's writer hangs."""
from __future__ import annotations

import os
import socket
import threading
import time

import pytest

from controller.config import Config
from controller.daemon import Daemon
from controller.service.notify import notify, watchdog_interval


@pytest.fixture
def notify_socket(tmp_path):
    """systemd's side: a datagram socket; yields (path, receive(timeout) -> list of messages)."""
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)

    def receive(timeout: float) -> list[str]:
        got, deadline = [], time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            try:
                got.append(sock.recv(4096).decode())
            except socket.timeout:
                break
        return got

    yield path, receive
    sock.close()


def test_notify_sends_one_datagram(notify_socket):
    path, receive = notify_socket
    assert notify("READY=1\nSTATUS=serving", {"NOTIFY_SOCKET": path})
    assert receive(0.5) == ["READY=1\nSTATUS=serving"]


def test_abstract_socket_address():
    name = f"potionpi-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    try:
        assert notify("WATCHDOG=1", {"NOTIFY_SOCKET": "@" + name})
        sock.settimeout(1)
        assert sock.recv(100) == b"WATCHDOG=1"
    finally:
        sock.close()


def test_not_under_systemd_nothing_is_sent():
    assert notify("READY=1", {}) is False
    assert watchdog_interval({}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None  # not us
    assert watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 15.0


def test_daemon_is_ready_pings_and_stops_pinging_when_the_table_hangs(tmp_path, notify_socket, monkeypatch):
    path, receive = notify_socket
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "1000000")         # WatchdogSec=1: a ping every 0.5 s
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    daemon = Daemon(Config.defaults(), sim=True, data_dir=tmp_path, say=lambda _: None)
    try:
        daemon.start("127.0.0.1", 0)
        first = receive(1.8)
        assert first[0].startswith("READY=1\nSTATUS=potionpi ")
        assert "no game" in first[0]
        assert sum("WATCHDOG=1" in m for m in first) >= 2, first

        # the table's writer hangs: something holds the table's lock and never lets go
        hung, release = threading.Event(), threading.Event()

        def writer_hangs():
            with daemon.table._lock:
                hung.set()
                release.wait(10)

        threading.Thread(target=writer_hangs, daemon=True).start()
        assert hung.wait(2)
        receive(0.6)                                        # a ping already on its way
        silent = receive(2.0)                               # two WatchdogSec: systemd would act
        assert not any("WATCHDOG=1" in m for m in silent), silent
        assert daemon.watchdog is not None and daemon.watchdog.missed >= 2

        release.set()                                       # the writer recovers
        assert any("WATCHDOG=1" in m for m in receive(2.0))
    finally:
        daemon.close()
    assert "STOPPING=1" in receive(0.5)


def test_missing_hardware_tells_systemd_why(tmp_path, notify_socket):
    import subprocess
    import sys

    from controller.service.preflight import library_installed
    if library_installed("lgpio"):
        pytest.skip("lgpio is installed here")
    path, receive = notify_socket
    config = tmp_path / "potionpi.toml"
    config.write_text('[gpio]\npin_factory = "lgpio"\n')
    result = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config", str(config),
                             "--data-dir", str(tmp_path)], env={**os.environ, "NOTIFY_SOCKET": path},
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    (message,) = receive(0.5)
    assert message.startswith('STATUS=gpio.pin_factory = "lgpio"') and "pip install" in message


def test_healthy_means_the_tablet_page_answers(tmp_path):
    daemon = Daemon(Config.defaults(), sim=True, data_dir=tmp_path, say=lambda _: None)
    try:
        daemon.start("127.0.0.1", 0)
        assert daemon.healthy(2.0)
        daemon.server.close()                   # the web server is gone
        assert not daemon.healthy(2.0)
    finally:
        daemon.close()
