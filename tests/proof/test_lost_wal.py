"""A lost write-ahead log is never a silent empty table (issue 22).

After kill -9 the main database file is 1 KiB and every action sits in
``potionpi.sqlite3-wal``. Before, with the WAL deleted, overwritten or cut to 100 bytes (or
a copy of the ``.sqlite3`` file alone put back), the daemon started with history ``[]``, no
session, ``/healthz`` "ok" and ``damaged`` null: 3 of 11 damaged start-ups were silent.
Now the store's acknowledgement record (controller/ack.py) tells, at every one of them:
``damaged`` in ``/healthz``, on the tablet's page and in ``potionpi doctor``; ``potionpi
repair`` accepts what is left. And ``potionpi backup`` makes a copy that holds everything.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from tests.e2e.daemon_proc import DaemonProcess

pytestmark = pytest.mark.slow

DB = "potionpi.sqlite3"


def played(tmp_path, actions: int = 20) -> DaemonProcess:
    d = DaemonProcess(tmp_path).start()
    status, _ = d.request("POST", "/api/v1/session", {"game": "mirakel-mix", "players": ["Ann", "Ben"], "seed": 7})
    assert status == 201
    for _ in range(actions):
        _, session = d.request("GET", "/api/v1/session")
        assert d.request("POST", "/api/v1/session/actions", {"action": session["legal_actions"][0]})[0] == 200
    return d


def lose_it(tmp_path, how: str) -> None:
    wal = tmp_path / f"{DB}-wal"
    if how == "WAL deleted":
        wal.unlink()
        (tmp_path / f"{DB}-shm").unlink(missing_ok=True)
    elif how == "WAL overwritten":
        wal.write_bytes(os.urandom(wal.stat().st_size))
    elif how == "WAL cut to 100 bytes":
        with open(wal, "r+b") as fh:
            fh.truncate(100)
    elif how == ".sqlite3 alone copied back":
        shutil.copy(tmp_path / DB, tmp_path / "copy")        # what a careless backup takes
        for side in ("-wal", "-shm"):
            (tmp_path / f"{DB}{side}").unlink(missing_ok=True)
        shutil.move(tmp_path / "copy", tmp_path / DB)


def doctor(tmp_path, command: str = "doctor") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", command, "--data-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)


LOSSES = ["WAL deleted", "WAL overwritten", "WAL cut to 100 bytes", ".sqlite3 alone copied back"]


def test_a_lost_wal_is_said_at_every_start(tmp_path, proof_line):
    silent = []
    for n, how in enumerate(LOSSES):
        data = tmp_path / f"table{n}"
        d = played(data)
        d.kill9()
        assert (data / DB).stat().st_size <= 8192 and (data / f"{DB}-wal").stat().st_size > 0
        lose_it(data, how)
        d = DaemonProcess(data, port=d.port).start()
        try:
            _, health = d.request("GET", "/healthz")
            _, history = d.request("GET", "/api/v1/history")
            page = d.request_text("/")
            damaged = health["damaged"]
            told = (damaged is not None and "holds less than the table had saved" in damaged["message"]
                    and "holds less than the table had saved" in page)
        finally:
            assert d.terminate() == 0
        check = doctor(data)
        told = told and check.returncode == 1 and "holds less than the table had saved" in check.stdout
        if not told:
            silent.append((how, health, history, check.stdout))
        # the owner accepts what is left: the next start is quiet, and a new game is played
        assert "accepted what the database holds" in doctor(data, "repair").stdout
        d = DaemonProcess(data, port=d.port).start()
        try:
            assert d.request("GET", "/healthz")[1]["damaged"] is None
        finally:
            assert d.terminate() == 0
    proof_line("lost write-ahead log after kill -9", len(LOSSES), len(silent),
               "deleted, overwritten, cut to 100 bytes, .sqlite3 alone put back: /healthz, the tablet and "
               "potionpi doctor say damaged (3 of 11 damaged start-ups silent before)")
    assert silent == []


def test_potionpi_backup_holds_what_the_wal_holds(tmp_path, proof_line):
    d = played(tmp_path)
    try:
        backup = tmp_path / "backup.sqlite3"
        made = subprocess.run([sys.executable, "-m", "controller.cli", "backup", "--data-dir", str(tmp_path),
                               "--output", str(backup)], capture_output=True, text=True, timeout=120)
        assert made.returncode == 0, made.stderr
        assert "1 game, 20 actions" in made.stdout
    finally:
        d.kill9()
    db = sqlite3.connect(backup)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT COUNT(*) FROM actions").fetchone()[0] == 20
    assert not (tmp_path / "backup.sqlite3-wal").exists() or (tmp_path / "backup.sqlite3-wal").stat().st_size == 0
    db.close()
    # restored over a data dir whose WAL was lost: all 20 moves are back, nothing to say
    (tmp_path / f"{DB}-wal").unlink()
    (tmp_path / f"{DB}-shm").unlink(missing_ok=True)
    shutil.copy(backup, tmp_path / DB)
    d = DaemonProcess(tmp_path, port=d.port).start()
    try:
        _, health = d.request("GET", "/healthz")
        assert health["damaged"] is None and health["game"]["version"] == 20
    finally:
        assert d.terminate() == 0
    proof_line("potionpi backup, restored after the WAL was lost", 20, 0, "20 actions back, nothing damaged")
