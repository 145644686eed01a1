"""The whole daemon as a subprocess: play over HTTP, kill -9, restart, same game."""
from __future__ import annotations

import sqlite3

import pytest

from tests.e2e.daemon_proc import PIN, DaemonProcess

pytestmark = pytest.mark.slow


def play(d: DaemonProcess, steps: int) -> dict:
    """Take the first legal action (or drop from the simulated cauldron) ``steps`` times."""
    status, session = d.request("GET", "/api/v1/session")
    for _ in range(steps):
        sensor_turn = session["state"]["phase"] in ("fill_bowls", "dispense")
        if sensor_turn:
            status, _ = d.request("POST", "/api/v1/sim/cauldron/drop", {})
            assert status == 200
            status, session = d.request("GET", "/api/v1/session")
        else:
            action = session["legal_actions"][0]
            status, session = d.request("POST", "/api/v1/session/actions",
                                        {"action": action, "version": session["version"]})
            assert status == 200, session
    return session


def test_kill_9_and_restart_resume_at_the_last_version(tmp_path):
    d = DaemonProcess(tmp_path).start()
    try:
        status, session = d.request("POST", "/api/v1/session",
                                    {"game": "mirakel-mix", "players": ["Ann", "Ben"], "seed": 7})
        assert status == 201
        before = play(d, 20)
        assert before["version"] >= 15
    finally:
        d.kill9()
    again = DaemonProcess(tmp_path, port=d.port).start()
    try:
        status, after = again.request("GET", "/api/v1/session")
        assert status == 200
        assert after["version"] == before["version"]
        assert after["state"] == before["state"]
        assert after["legal_actions"] == before["legal_actions"]
        # and the game goes on from there, the simulated cauldron in step with it
        more = play(again, 6)
        assert more["version"] > after["version"]
    finally:
        assert again.terminate() == 0


def test_sigterm_stops_cleanly_and_closes_the_database(tmp_path):
    d = DaemonProcess(tmp_path).start()
    assert d.request("GET", "/api/v1/session")[0] == 404
    assert d.terminate() == 0
    out = d.output.decode()
    assert "running" in out and "stopping" in out and "Traceback" not in out
    # a cleanly closed WAL database has been checkpointed: the -wal file is gone or empty
    wal = tmp_path / "potionpi.sqlite3-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    sqlite3.connect(tmp_path / "potionpi.sqlite3").execute("PRAGMA integrity_check").fetchone()


def test_wrong_pin_is_refused(tmp_path):
    d = DaemonProcess(tmp_path).start()
    try:
        status, body = d.request("POST", "/api/v1/session",
                                 {"game": "mirakel-mix", "players": ["Ann", "Ben"]}, pin="0000")
        assert status == 401 and "PIN" in body["error"]
    finally:
        d.terminate()


def test_without_gpio_and_without_sim_it_falls_back_to_simulated_devices(tmp_path):
    from controller.devices.pins import gpio_available
    if gpio_available("auto")[0]:
        pytest.skip("this machine has real GPIO")
    d = DaemonProcess(tmp_path, sim=False).start()
    status, health = d.request("GET", "/healthz")
    assert status == 200 and health["devices"]["simulated"] is True
    assert d.terminate() == 0
    out = d.output.decode()
    # said loudly, before anything else
    assert out.startswith("!" * 72) and "SIMULATED DEVICES: this machine has no GPIO" in out
    # the address as a QR code on the console, with the PIN beside it
    assert f"then enter the PIN {PIN}:" in out and "█" * 25 in out      # its quiet zone
