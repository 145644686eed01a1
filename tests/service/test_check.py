"""`potionpi check` on simulated devices: every part passes; a broken part fails with its fix."""
from __future__ import annotations

import json
import subprocess
import sys

from controller.cli import main
from controller.config import Config
from controller.service.check import TableCheck, firmware_older, version_tuple
from controller.firmware.floorproto import PROTOCOL_VERSION
from controller.firmware.settings import FIRMWARE_VERSION

PARTS = ["pin factory", "pins", "encoder", "beam", "colour sensor", "Pico", "floor homing"]


def check_json(*args):
    result = subprocess.run([sys.executable, "-m", "controller.cli", "check", "--json", *args],
                            capture_output=True, text=True, timeout=60)
    return result.returncode, json.loads(result.stdout)


def test_every_check_passes_on_simulated_devices():
    code, report = check_json("--sim")
    assert code == 0 and report["ok"] is True and report["simulated"] is True
    assert [c["name"] for c in report["checks"]] == PARTS
    assert all(c["status"] == "pass" for c in report["checks"]), report
    by_name = {c["name"]: c for c in report["checks"]}
    assert f"firmware {FIRMWARE_VERSION}-sim, protocol {PROTOCOL_VERSION}" in by_name["Pico"]["detail"]
    assert "reading r=" in by_name["colour sensor"]["detail"]


def test_a_broken_simulated_beam_fails_with_its_fix():
    code, report = check_json("--sim", "--sim-fault", "beam")
    assert code == 1 and report["ok"] is False
    by_name = {c["name"]: c for c in report["checks"]}
    assert by_name["beam"]["status"] == "fail"
    assert by_name["beam"]["detail"] == "no drop seen"
    assert "BCM 22" in by_name["beam"]["fix"]
    # only the beam: the rest of the table is fine
    assert [c["name"] for c in report["checks"] if c["status"] != "pass"] == ["beam"]


def test_text_output_is_a_line_per_part(capsys):
    assert main(["check", "--sim", "--sim-fault", "encoder"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  encoder: no notch seen\n      fix: check the encoder's A and B wires (BCM 17 and 27)" in out
    assert "PASS  beam: a drop was seen" in out
    assert out.rstrip().endswith("1 check(s) failed")


def test_one_pin_used_twice_is_named(tmp_path):
    config = Config.defaults()
    config["cauldron"]["beam"] = 17
    results = TableCheck(config, sim=True).run()
    pins = next(r for r in results if r.name == "pins")
    assert pins.status == "fail"
    assert pins.detail == "BCM 17 is used by cauldron.encoder_a and cauldron.beam"


def test_sim_fault_needs_sim(capsys):
    assert main(["check", "--sim-fault", "beam"]) == 2
    assert "use it with --sim" in capsys.readouterr().err


def test_firmware_versions_compare_as_numbers():
    assert version_tuple("1.10.0-sim") == (1, 10, 0)
    assert firmware_older("1.9.2", "1.10.0")
    assert not firmware_older("1.0.0-sim", "1.0.0")
    assert not firmware_older(None, "1.0.0") and not firmware_older("dev", "1.0.0")


def test_only_the_pico_named_by_port(capsys):
    from controller.devices.sim_pico import start_sim_pico
    port, pico = start_sim_pico(steps_per_rev=3200)
    try:
        assert main(["check", "--only", "pico", "--port", port]) == 0
    finally:
        pico.close()
    out = capsys.readouterr().out.splitlines()
    assert out[-2].startswith(f"PASS  Pico: Pico on {port}; firmware {FIRMWARE_VERSION}-sim, protocol {PROTOCOL_VERSION}")
    assert out[-1] == "all checks passed" and not any(l.startswith(("PASS  beam", "PASS  pins")) for l in out)


def test_no_pico_plugged_in_fails_with_the_fix(capsys, monkeypatch, tmp_path):
    assert main(["check", "--only", "pico", "--port", str(tmp_path / "ttyACM9")]) == 1
    out = capsys.readouterr().out
    assert "FAIL  Pico:" in out and "fix: plug the Pico in by USB" in out


def test_a_pico_held_by_the_service_says_stop_the_service():
    import serial
    from controller.devices.sim_pico import start_sim_pico
    port, pico = start_sim_pico(steps_per_rev=3200)
    held = serial.Serial(port, exclusive=True)            # as the running service holds it
    try:
        (result,) = TableCheck(Config.defaults(), sim=True, pico_port=port, only=["pico"]).run()
    finally:
        held.close()
        pico.close()
    assert result.status == "fail" and "is in use by another program" in result.detail
    assert result.fix == "stop what holds it; the table's service with `sudo systemctl stop potionpi`"


def mock_table_config(**cauldron):
    config = Config.defaults()
    config["gpio"]["pin_factory"] = "mock"
    config["cauldron"].update(cauldron)
    return config


class Person:
    """Does what the check asks, on the mock pins of the check's own pin factory."""

    def __init__(self, clockwise: bool = True):
        self.checker = None
        self.clockwise = clockwise
        self.asked = []

    def __call__(self, text: str) -> None:
        import time
        self.asked.append(text)
        pin = self.checker.factory.pin
        if text.startswith("turn the grip"):
            a, b = (pin(17), pin(27)) if self.clockwise else (pin(27), pin(17))
            for p, level in ((a, 0), (b, 0), (a, 1), (b, 1)):      # one detent in quadrature
                time.sleep(0.01)
                p.drive_low() if level == 0 else p.drive_high()
        elif text.startswith("drop a ball"):
            pin(22).drive_low()
            time.sleep(0.006)                                      # a ball blocks the beam
            pin(22).drive_high()


def run_with(person, config):
    checker = TableCheck(config, sim=False, prompt=person, wait_s=3.0,
                         only=["pins", "encoder", "beam"])
    person.checker = checker
    return {r.name: r for r in checker.run()}


def test_real_devices_pass_when_the_person_does_what_is_asked():
    person = Person()
    results = run_with(person, mock_table_config())
    assert [r.status for r in results.values()] == ["pass"] * 4, results
    assert person.asked == ["turn the grip one notch clockwise (dispensing) within 3 s …",
                            "drop a ball through the cauldron's beam within 3 s …"]


def test_an_encoder_wired_backwards_gets_the_config_fix():
    results = run_with(Person(clockwise=False), mock_table_config())
    assert results["encoder"].status == "fail"
    assert results["encoder"].fix.startswith("set cauldron.encoder_reverse = true in")


# --- the floor turns only after a yes; its limits are the link's (issue 25) -----------------------
def gpio_floor_config(**floor):
    config = Config.defaults()
    config["gpio"]["pin_factory"] = "mock"
    config["cauldron"]["enabled"] = False
    config["forest_floor"].update(backend="gpio", steps_per_ant=2.0, top_speed=20000.0,
                                  start_speed=5000.0, homing_speed=20000.0, **floor)
    return config


def homing_check(config, ask):
    """The homing check on mock pins; (its result, the STEP pulses it made)."""
    checker = TableCheck(config, sim=False, only=["homing"], ask=ask)
    checker.check_pin_factory(report=False)
    try:
        checker.check_floor()
        pulses = sum(1 for s in checker.factory.pin(5).states[1:] if s.state)   # STEP is BCM 5
    finally:
        for closer in reversed(checker._closers):
            closer.close()
    (result,) = [r for r in checker.results if r.name == "floor homing"]
    return result, pulses


def test_a_real_floor_is_not_turned_unless_someone_says_yes():
    asked = []
    for answer in (None, "n", ""):
        ask = None if answer is None else (lambda q, a=answer: asked.append(q) or a)
        result, pulses = homing_check(gpio_floor_config(), ask)
        assert result.status == "skip" and pulses == 0, result
    assert "nobody here to say it may turn" in homing_check(gpio_floor_config(), None)[0].detail
    assert asked and all("hands off the board" in q and "[y/N]" in q for q in asked)


def test_after_a_yes_the_floor_turns_and_a_missing_mark_is_named():
    result, pulses = homing_check(gpio_floor_config(), lambda q: "y")
    assert result.status == "fail" and result.detail.startswith("home not found within 1.2 turns")
    assert pulses == 39                                   # 1.2 x 16 ants x 2 steps, rounded up


def test_a_homing_that_never_ends_says_which_limit_passed():
    class Stuck:
        def home(self):
            pass

        def stop(self):
            self.stopped = True

        def status(self):
            return {"state": "homing", "homed": False, "fault": None, "last_move": {"home": True}}

    checker = TableCheck(gpio_floor_config(), sim=False, ask=lambda q: "y")
    checker.homing_limit = lambda planned: 0.2
    floor = Stuck()
    checker._home(floor)
    (result,) = checker.results
    assert result.status == "fail" and floor.stopped
    assert result.detail.startswith("the floor was still homing after 0 s (1.2 turns at 20000 steps/s")
    assert "homing ended homing" not in result.detail


def test_the_pico_check_waits_as_long_as_the_config_gives_a_slow_link(tmp_path, capsys):
    """A Pico whose every reply takes 1.5 s (a slow hub, an emulated chip): with the default
    limits it is "no answer"; with link_lost_after_s = 6 in the config it passes."""
    from controller.devices.sim_pico import Faults, SimPico
    pico = SimPico(steps_per_rev=3200, faults=Faults(delay_s=1.5))
    slow = tmp_path / "slow.toml"
    slow.write_text("[forest_floor]\nlink_lost_after_s = 6.0\n")
    try:
        assert main(["check", "--only", "pico", "--port", pico.port]) == 1
        assert "no answer from" in capsys.readouterr().out
        assert main(["check", "--config", str(slow), "--only", "pico", "--port", pico.port]) == 0
        assert "PASS  Pico:" in capsys.readouterr().out
    finally:
        pico.close()
