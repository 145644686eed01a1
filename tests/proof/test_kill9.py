"""kill -9 at random points with a real daemon process: no acknowledged action is lost.

A tapping thread posts actions as fast as the daemon answers; the daemon is killed
(SIGKILL, no clean-up) at a random moment, restarted on the same data dir, and must
resume at or after the last version it acknowledged (at most one further action, the
one in flight when it died, may have been committed). Then the game goes on. CI runs a
handful of cycles; bench/bench_proof.py runs 200.
"""
from __future__ import annotations

import os
import random
import sqlite3
import threading
import time

import pytest

from tests.e2e.daemon_proc import DaemonProcess

pytestmark = pytest.mark.slow

CYCLES = int(os.environ.get("PROOF_KILL9_CYCLES", "5"))     # bench: 200


def kill9_cycles(tmp_path, cycles: int, seed: int = 15) -> dict[str, int]:
    """Run ``cycles`` kill -9 cycles; returns the figures (acknowledged, lost, ...)."""
    rng = random.Random(seed)
    acknowledged = lost = ahead = 0
    d = DaemonProcess(tmp_path).start()
    try:
        status, _ = d.request("POST", "/api/v1/session", {"game": "mirakel-mix", "players": ["Ann", "Ben"],
                                                           "seed": 7})
        assert status == 201
        for _ in range(cycles):
            acked: list[tuple[int, int]] = []          # (game id, version) the daemon confirmed
            stop = threading.Event()

            def tap():
                while not stop.is_set():
                    try:
                        status, session = d.request("GET", "/api/v1/session")
                        if session.get("outcome"):
                            status, session = d.request("POST", "/api/v1/session", {
                                "game": "mirakel-mix", "players": ["Ann", "Ben"]})
                            if status == 201:
                                acked.append((session["id"], 0))
                            continue
                        status, after = d.request("POST", "/api/v1/session/actions", {
                            "action": session["legal_actions"][0], "version": session["version"],
                            "game_id": session["id"]})
                        if status == 200:
                            acked.append((after["id"], after["version"]))
                    except Exception:                   # noqa: BLE001 - any way a killed server ends a reply
                        return                          # the daemon is gone
            tapper = threading.Thread(target=tap)
            tapper.start()
            time.sleep(rng.uniform(0.2, 1.5))
            d.kill9()
            stop.set()
            tapper.join(15)
            d = DaemonProcess(tmp_path, port=d.port).start()
            status, session = d.request("GET", "/api/v1/session")
            assert status == 200, session
            acknowledged += len(acked)
            if acked:
                game, version = acked[-1]
                if (session["id"], session["version"]) < (game, version):
                    lost += 1
                elif (session["id"], session["version"]) > (game, version):
                    ahead += 1                          # the action in flight was committed: fine
    except BaseException:                           # a failed or timed-out run leaves no daemon behind
        if d.proc is not None and d.proc.poll() is None:
            d.kill9()
        raise
    status, session = d.request("GET", "/api/v1/session")
    assert d.terminate() == 0
    # the log replays to what the daemon served (nothing half-written)
    db = sqlite3.connect(tmp_path / "potionpi.sqlite3")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    versions = [v for (v,) in db.execute("SELECT version FROM actions WHERE game_id = ? ORDER BY version",
                                         (session["id"],))]
    assert versions == list(range(1, session["version"] + 1))
    return {"cycles": cycles, "acknowledged": acknowledged, "lost": lost, "in_flight_kept": ahead}


def test_kill_9_cycles_lose_no_acknowledged_action(tmp_path, proof_line):
    figures = kill9_cycles(tmp_path, CYCLES)
    proof_line("kill -9 cycles", figures["cycles"], figures["lost"],
               f"{figures['acknowledged']} acknowledged actions, 0 allowed lost")
    assert figures["lost"] == 0
    assert figures["acknowledged"] > CYCLES           # the cycles did real work


def test_a_damaged_row_does_not_stop_the_daemon(tmp_path, proof_line):
    d = DaemonProcess(tmp_path).start()
    d.request("POST", "/api/v1/session", {"game": "mirakel-mix", "players": ["Ann", "Ben"], "seed": 7})
    for _ in range(3):
        _, session = d.request("GET", "/api/v1/session")
        d.request("POST", "/api/v1/session/actions", {"action": session["legal_actions"][0]})
    d.kill9()
    db = sqlite3.connect(tmp_path / "potionpi.sqlite3")
    with db:
        db.execute("UPDATE actions SET action = '{\"type\": \"fly\"}' WHERE version = 2")
    db.close()
    d = DaemonProcess(tmp_path, port=d.port).start()          # starts: no exit 1
    status, health = d.request("GET", "/healthz")
    assert status == 200 and health["damaged"]["reason"].startswith("action 2 ")
    status, body = d.request("GET", "/api/v1/session")
    assert status == 404 and "closed as damaged" in body["error"]
    status, _ = d.request("POST", "/api/v1/session", {"game": "mirakel-mix", "players": ["Ann", "Ben"]})
    assert status == 201                                       # play on with a new game
    assert d.terminate() == 0
    assert "closed as damaged" in d.output.decode() and "Traceback" not in d.output.decode()
    proof_line("storage: damaged row at start-up", 1, 0, "the daemon starts, the game is kept as damaged")
