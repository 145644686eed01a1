"""A PIN change reaches the running table at once (`potionpi pin --set/--new`).

The daemon watches the PIN file in its data dir: once a second it compares the file's
``stat`` (inode, size, modification time) with the last one it read, and when the file
changed it reads the PIN again and hands it to the web side, which locks every tablet and
revokes every seat link (``TableContext.change_pin``). It then writes ``pin_applied.json``
beside it (a keyed hash of the PIN it took, and how many tablets and seats it revoked),
which the command line waits for to say so.

Why a watched file and not a control socket: the PIN file already is the one place the
PIN lives, so whoever may change it may change the running table's, and nothing else can;
every way the file changes counts (the command, an edit by hand, a restored copy, a
`sudo` run); there is no listener to secure, no socket path to keep short, no inotify
(not in the standard library, and it loses a file replaced by rename); a stat a second
costs microseconds. The daemon holds a lock on ``daemon.lock`` while it runs, so the
command line knows whether anyone will answer.
"""
from __future__ import annotations

import errno
import fcntl
import hashlib
import hmac
import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import IO, Callable

from .config import is_pin
from .secrets_store import PIN_FILE, write_private

log = logging.getLogger(__name__)

APPLIED_FILE = "pin_applied.json"
LOCK_FILE = "daemon.lock"
#: where a running table's PIN may come from instead of the file, as a sentence names it
KEPT_FROM = {"config": "the config ([table] pin)", "environment": "POTIONPI_PIN"}
#: how long `potionpi pin` waits for the running table to say it took the new PIN
ANSWER_SECONDS = 5.0


def pin_mark(secret: bytes, pin: str) -> str:
    """A keyed hash of ``pin``: names it in pin_applied.json without writing it there."""
    return hmac.new(secret, b"potionpi.pin-applied|" + pin.encode(), hashlib.sha256).hexdigest()[:32]


class PinWatch:
    """Watches ``data_dir``'s PIN file and hands a new PIN to ``apply`` (a thread)."""

    def __init__(self, data_dir: Path, secret: bytes, apply: Callable[[str], dict[str, int]],
                 current: str, interval: float = 1.0, kept_from: str | None = None):
        """``kept_from``: where the table's PIN comes from when not from this file (``config``,
        ``environment``): a new PIN in the file is then only answered, never applied."""
        self.kept_from = kept_from
        self.path = data_dir / PIN_FILE
        self.answer = data_dir / APPLIED_FILE
        self.secret = secret
        self.apply = apply
        self.current = current
        self.interval = interval
        self._seen = self._stat()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return st.st_ino, st.st_size, st.st_mtime_ns

    def start(self) -> "PinWatch":
        self._thread = threading.Thread(target=self._run, name="pin-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.check()
            except Exception:                     # never let the watch die silently
                log.exception("could not read the PIN file %s", self.path)

    def check(self) -> bool:
        """Read the PIN again if the file changed; True when a new PIN was applied."""
        seen = self._stat()
        if seen == self._seen:
            return False
        self._seen = seen
        try:
            pin = self.path.read_text().strip()
        except OSError as exc:
            log.warning("the PIN file %s changed but cannot be read (%s); the table keeps its PIN",
                        self.path, exc.strerror or exc)
            return False
        if not is_pin(pin):
            log.warning("the PIN file %s holds no PIN of 4 to 8 digits; the table keeps its PIN", self.path)
            return False
        if self.kept_from is not None:
            log.warning("the PIN file %s changed, but this table takes its PIN from %s and keeps it",
                        self.path, KEPT_FROM[self.kept_from])
            self._answer({"pin": pin_mark(self.secret, pin), "kept": self.kept_from})
            return False
        if pin == self.current:
            return False
        counts = self.apply(pin)
        self.current = pin
        log.warning("the table PIN was changed: %d tablet(s) locked, %d seat(s) freed for new links",
                    counts.get("tablets", 0), counts.get("seats", 0))
        self._answer({"pin": pin_mark(self.secret, pin), **counts})
        return True

    def _answer(self, answer: dict[str, object]) -> None:
        try:
            write_private(self.answer, json.dumps(answer).encode())
        except OSError as exc:
            log.warning("could not write %s (%s)", self.answer, exc.strerror or exc)


def hold_lock(data_dir: Path) -> IO[str] | None:
    """The running daemon's lock on ``daemon.lock`` (kept open while it runs; the kernel
    frees it whatever way the process ends). None when another process holds it."""
    handle = open(data_dir / LOCK_FILE, "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        handle.close()
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            return None
        raise
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def daemon_running(data_dir: Path) -> bool:
    """True while a daemon holds ``data_dir``'s lock."""
    try:
        handle = open(data_dir / LOCK_FILE)
    except OSError:
        return False
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def tell_running(data_dir: Path, secret: bytes, pin: str, wait: float = ANSWER_SECONDS) -> str:
    """After `potionpi pin` wrote ``pin``: what the running table did with it, in a sentence."""
    if not daemon_running(data_dir):
        return "potionpi is not running with this data dir: it uses the new PIN when it starts"
    mark = pin_mark(secret, pin)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            answer = json.loads((data_dir / APPLIED_FILE).read_text())
        except (OSError, ValueError):
            answer = {}
        if answer.get("pin") == mark and answer.get("kept") in KEPT_FROM:
            return (f"the running table takes its PIN from {KEPT_FROM[answer['kept']]} and keeps it: "
                    "the new PIN applies once that is removed and potionpi restarted")
        if answer.get("pin") == mark:
            return (f"the running table took the new PIN now: {answer.get('tablets', 0)} tablet(s) locked "
                    f"and every phone link revoked ({answer.get('seats', 0)} seat(s) were on phones); "
                    "enter the new PIN on the tablet, then hand out the new phone links")
        time.sleep(0.1)                      # a person waits for this line; polling is fine here
    return ("the running table did not confirm the new PIN within "
            f"{wait:.0f} s (it may use the PIN from the config or POTIONPI_PIN); restart it to be sure: "
            "sudo systemctl restart potionpi")
