"""`potionpi check` and `potionpi firmware flash` against the simulated Pico."""
from __future__ import annotations

import io
import json
import sys
import textwrap

import pytest

from controller import firmware_tools
from controller.firmware import floorproto as P
from controller.devices import pico_link
from controller.devices.sim_pico import SimPico

from .conftest import REV


def test_check_prints_versions_and_round_trip(sim, timings):
    out = io.StringIO()
    assert firmware_tools.check(sim.port, out, timings=timings) == 0
    text = out.getvalue()
    assert f"firmware {sim.firmware_version}, protocol {P.PROTOCOL_VERSION}" in text
    assert "round trip: median" in text and "ms" in text
    assert "not homed" in text                      # check only looks, it does not home


def test_check_refuses_other_protocol_and_says_what_to_flash(timings):
    other = SimPico(steps_per_rev=REV, protocol=P.PROTOCOL_VERSION + 5)
    try:
        out = io.StringIO()
        assert firmware_tools.check(other.port, out, timings=timings) == 2
        assert "potionpi firmware flash" in out.getvalue()
        assert f"protocol {P.PROTOCOL_VERSION + 5}" in out.getvalue()
    finally:
        other.close()


def test_check_without_a_pico(monkeypatch, timings):
    monkeypatch.setattr(pico_link.list_ports, "comports", lambda: [])
    out = io.StringIO()
    assert firmware_tools.check(None, out, timings=timings) == 1
    assert "no Pico found" in out.getvalue()


@pytest.fixture
def fake_mpremote(tmp_path):
    """A stand-in for mpremote that prints what the real one prints and notes its arguments."""
    log = tmp_path / "args.json"
    script = tmp_path / "mpremote_fake.py"
    script.write_text(textwrap.dedent(f"""
        import json, sys
        args = sys.argv[1:]
        json.dump(args, open({str(log)!r}, "w"))
        for i, a in enumerate(args):
            if a == "cp":
                print("cp", args[i + 1], args[i + 2], flush=True)
    """))
    return [sys.executable, str(script)], log


def test_flash_copies_every_file_main_last_with_progress(sim, fake_mpremote):
    cmd, log = fake_mpremote
    out = io.StringIO()
    assert firmware_tools.flash(sim.port, out, mpremote=cmd) == 0
    text = out.getvalue()
    files = firmware_tools.firmware_files()
    assert f"[{len(files)}/{len(files)}]" in text and text.rstrip().endswith("new firmware")
    assert "stepped aside" in text                  # the running firmware was asked to leave
    assert sim.executed(P.REPL) == [b""]
    args = json.loads(log.read_text())
    assert args[:2] == ["connect", sim.port] and args[-1] == "reset"
    copied = [args[i + 2] for i, a in enumerate(args) if a == "cp"]
    assert copied[-1] == ":main.py" and ":floorproto.py" in copied
    assert sorted(copied) == sorted(":" + name for _, name in files)


def test_flash_reports_a_failed_copy(sim, tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("import sys\nprint('cp a :a')\nprint('could not enter raw repl')\nsys.exit(1)\n")
    out = io.StringIO()
    assert firmware_tools.flash(sim.port, out, mpremote=[sys.executable, str(script)]) == 1
    assert "stopped after 1 of" in out.getvalue() and "GP22" in out.getvalue()


def test_flash_without_a_pico(monkeypatch):
    monkeypatch.setattr(pico_link.list_ports, "comports", lambda: [])
    monkeypatch.setattr(firmware_tools, "find_pico_ports", lambda: [])
    out = io.StringIO()
    assert firmware_tools.flash(None, out) == 1
    assert "no Pico found" in out.getvalue()


def test_start_sim_pico_gives_a_port_and_a_handle():
    port, handle = firmware_tools.start_sim_pico({"drop": 0.0}, steps_per_rev=REV)
    try:
        import serial
        with serial.Serial(port, exclusive=True, timeout=1) as ser:
            ser.write(P.encode_frame(0, P.HELLO, P.pack_hello(9)))
            decoder = P.Decoder()
            frames = []
            while not frames:
                frames = decoder.feed(ser.read(1))
            assert frames[0][1] == P.HELLO_REPLY
    finally:
        handle.close()
