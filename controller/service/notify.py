"""systemd's notify protocol: READY, STATUS, STOPPING and the watchdog ping.

A unit with ``Type=notify`` passes ``NOTIFY_SOCKET`` (a datagram socket; a leading ``@``
means the abstract namespace) and, with ``WatchdogSec=``, ``WATCHDOG_USEC``. The protocol
is a few ``KEY=value`` lines per datagram (sd_notify(3)); a few lines here instead of
another dependency.

The watchdog pings only while the daemon is healthy: the table must take its lock (its
one writer is not hung) and the tablet page must answer ``/healthz``. If either hangs,
the pings stop and systemd restarts the service after ``WatchdogSec``.
"""
from __future__ import annotations

import logging
import os
import socket
import threading
from typing import Callable, Mapping

log = logging.getLogger(__name__)


def notify(message: str, env: Mapping[str, str] | None = None) -> bool:
    """Send ``message`` (e.g. "READY=1\\nSTATUS=serving") to systemd; False when not under
    a notify unit (no ``NOTIFY_SOCKET``) or the socket is gone."""
    address = (os.environ if env is None else env).get("NOTIFY_SOCKET", "")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
        return True
    except OSError as exc:
        log.warning("cannot tell systemd %r: %s", message.split("\n")[0], exc)
        return False


def watchdog_interval(env: Mapping[str, str] | None = None) -> float | None:
    """Seconds between pings (half of ``WatchdogSec``), or None when no watchdog is asked for
    this process (``WATCHDOG_PID`` names another one)."""
    env = os.environ if env is None else env
    usec = env.get("WATCHDOG_USEC", "")
    pid = env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0 or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 1_000_000 / 2


class Watchdog:
    """Pings ``WATCHDOG=1`` every ``interval`` seconds while ``healthy()`` is true, and sends
    ``status()`` as STATUS when it changes. ``healthy`` may block for a while (it waits for
    the table's lock); a hung table means no ping."""

    def __init__(self, interval: float, healthy: Callable[[], bool],
                 status: Callable[[], str] | None = None,
                 send: Callable[[str], bool] = notify):
        self.interval = interval
        self.healthy = healthy
        self.status = status
        self.send = send
        self.pings = 0
        self.missed = 0
        self._stop = threading.Event()
        self._last_status = ""
        self._thread = threading.Thread(target=self._run, name="sd-watchdog", daemon=True)

    def start(self) -> "Watchdog":
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                ok = self.healthy()
            except Exception:
                log.exception("health check failed")
                ok = False
            if self._stop.is_set():
                return
            if not ok:
                self.missed += 1
                log.error("potionpi is not healthy (the table or the web server is stuck); "
                          "no watchdog ping, systemd will restart it")
                continue
            lines = ["WATCHDOG=1"]
            text = self.status() if self.status is not None else ""
            if text and text != self._last_status:
                lines.append(f"STATUS={text}")
                self._last_status = text
            self.send("\n".join(lines))
            self.pings += 1

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=self.interval + 1)
