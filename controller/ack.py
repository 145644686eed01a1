"""What the store last acknowledged, kept outside the database and its write-ahead log.

SQLite keeps every change in ``potionpi.sqlite3-wal`` until a checkpoint copies it into
the database file; after a power cut the main file may be 1 KiB while all the night's
actions sit in the WAL. If that file is then lost (deleted, overwritten, cut short, or
left behind by a backup that copied only ``potionpi.sqlite3``), SQLite opens what is left
without a word: an empty table. So the store also writes, after each commit, which game
and version it acknowledged, to ``potionpi.sqlite3.ack`` (one 1 KiB block written in
place and fsynced, with a checksum), and at start-up a database that holds less than
that record says so: ``damaged`` in ``/healthz``, on the tablet and in ``potionpi
doctor`` (controller/store.py ``Store.lost``).

The record is written by its own thread right after each commit, coalescing: a tap is
answered once its action is in the WAL (as before) and does not wait for a second fsync;
the record trails the database by at most the write in flight, never leads it.
"""
from __future__ import annotations

import json
import logging
import os
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

BLOCK = 1024
MAGIC = "potionpi-ack 1"


@dataclass(frozen=True)
class Acked:
    """The newest game (its row id) and the version the store had committed for it."""

    game: int
    version: int
    name: str = ""                      # the game's id ("elixir"), for the sentence
    players: tuple[str, ...] = ()

    def encode(self) -> bytes:
        players = list(self.players)
        while True:
            body = json.dumps({"game": self.game, "version": self.version, "name": self.name,
                               "players": players}, separators=(",", ":"))
            line = f"{MAGIC} {zlib.crc32(body.encode()):08x} {body}\n".encode()
            if len(line) <= BLOCK or not players:
                return line.ljust(BLOCK, b" ")[:BLOCK]
            players = players[:-1]      # long names: the numbers matter, not the names

    @classmethod
    def decode(cls, data: bytes) -> "Acked":
        """The record in ``data``; ValueError when it is not one (torn, edited, another file)."""
        parts = data.decode("utf-8", "replace").strip().split(" ", 3)
        if len(parts) != 4 or parts[:2] != MAGIC.split(" "):
            raise ValueError("not an acknowledgement record")
        crc, body = parts[2], parts[3]
        if f"{zlib.crc32(body.encode()):08x}" != crc:
            raise ValueError("its checksum does not match (a write cut short?)")
        fields = json.loads(body)
        game, version = fields.get("game"), fields.get("version")
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (game, version)):
            raise ValueError("it holds no game and version")
        return cls(game, version, str(fields.get("name", "")),
                   tuple(p for p in fields.get("players", []) if isinstance(p, str)))


def read(path: Path) -> Acked | None:
    """The record at ``path``; None when there is none; ValueError when it is unreadable."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    return Acked.decode(data)


class AckWriter:
    """Writes the newest acknowledgement to ``path`` from its own thread (see the module).
    The thread and the open file go after ``IDLE`` seconds with nothing to write, and come
    back with the next commit: an idle table (or a command that only read) holds neither."""

    IDLE = 30.0

    def __init__(self, path: Path):
        self.path = path
        self._cond = threading.Condition()
        self._wanted: Acked | None = None
        self._written: Acked | None = None
        self._busy = False
        self._closed = False
        self._fd: int | None = None
        self._thread: threading.Thread | None = None

    def note(self, acked: Acked) -> None:
        """The store committed ``acked``: write it soon (a newer one replaces it)."""
        with self._cond:
            self._wanted = acked
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._run, name="ack", daemon=True)
                self._thread.start()
            self._cond.notify()

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until what was noted is on disk (a cut, a clean stop, tests)."""
        with self._cond:
            return self._cond.wait_for(lambda: self._wanted is None and not self._busy, timeout)

    def close(self) -> None:
        self.flush()
        with self._cond:
            self._closed = True
            thread = self._thread
            self._cond.notify()
        if thread is not None:
            thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._wanted is not None or self._closed, self.IDLE)
                if self._wanted is None:      # closed, or idle: go until the next commit (the
                    if self._fd is not None:  # next thread starts only once this one is gone)
                        os.close(self._fd)
                        self._fd = None
                    self._thread = None
                    return
                acked, self._wanted, self._busy = self._wanted, None, True
            self._write_noted(acked)

    def _write_noted(self, acked: Acked) -> None:
        try:
            self._write(acked)
        except OSError as exc:              # a full card: the database itself says so
            log.warning("could not write the acknowledgement record %s: %s", self.path,
                        exc.strerror or exc)
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def _write(self, acked: Acked) -> None:
        if acked == self._written:
            return
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        os.pwrite(self._fd, acked.encode(), 0)     # one block in place: no rename to sync
        os.fdatasync(self._fd)
        self._written = acked


def lost(acked: Acked, newest: int | None, version: int | None) -> str | None:
    """Why a database whose newest game is ``newest`` (at ``version`` for the acknowledged
    game) holds less than ``acked`` says, or None when it holds all of it."""
    if acked.game == 0:                   # the record of a table that has played nothing
        return None
    what = f"game #{acked.game}" + (f" ({acked.name})" if acked.name else "")
    if newest is None or newest < acked.game:
        return (f"{what} is missing from the database, which the table had saved at move {acked.version}: "
                "its last writes (the -wal file beside it) were lost or damaged")
    if version is not None and version < acked.version:
        return (f"{what} has only {version} of its {acked.version} moves in the database: the rest "
                "(in the -wal file beside it) was lost or damaged")
    return None


def from_row(row: dict[str, Any], version: int) -> Acked:
    return Acked(row["id"], version, row["game"], tuple(row["players"]))
