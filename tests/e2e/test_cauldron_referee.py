"""The cauldron as referee, end to end: gpiozero MockFactory pins → Cauldron → Table → Mirakel Mix.

Beam pulses are driven on mock pins with a hand-driven clock, so durations are exact:
a drop the rules cannot explain must become a visible warning, a glitch must vanish,
and a beam stuck dark must be a sensor fault — never a change to the drops.
"""
from __future__ import annotations

import pytest

from controller.config import section
from controller.devices.cauldron import Cauldron
from controller.devices.colour_sensor import SimulatedColourSensor
from controller.devices.pins import ClockedMockFactory
from controller.devices.sim_cauldron import SimClock
from controller.table import Table

A, B, BEAM = 17, 27, 22


class Rig:
    def __init__(self, store):
        self.table = Table(store)
        self.clock = SimClock(real=False)
        self.factory = ClockedMockFactory(self.clock)   # edges stamped by the hand-driven clock
        self.sensor = SimulatedColourSensor(seed=1)
        self.cauldron = Cauldron.from_config(section("cauldron", encoder_a=A, encoder_b=B, beam=BEAM),
                                             pin_factory=self.factory, clock=self.clock,
                                             colour_sensor=self.sensor, sink=self.table.sensor,
                                             on_notice=self.table.notice)
        self.beam = self.factory.pin(BEAM)

    def pulse(self, seconds: float, colour: str | None = None) -> None:
        """A ball (or a glitch) darkens the beam for ``seconds``."""
        self.sensor.present(colour)
        self.beam.drive_low()
        self.clock.advance(seconds)
        self.beam.drive_high()
        self.cauldron.flush()

    def state(self) -> dict:
        return self.table.session()["state"]

    def do(self, action: dict) -> dict:
        return self.table.act(action)

    def some_colour(self) -> str:
        """A colour the cauldron still holds (what a real ball would be)."""
        return next(c for c, n in self.state()["cauldron"].items() if n > 0)

    def close(self):
        self.cauldron.close()


@pytest.fixture
def rig(store):
    r = Rig(store)
    r.table.start("mirakel-mix", ["Ann", "Ben"], seed=11, options={"fill": "random"})
    for _ in range(2):
        r.do(next(a for a in r.table.session()["legal_actions"] if a["type"] == "place_apprentice"))
    yield r
    r.close()


def play_one_turn(rig: Rig) -> None:
    rig.do({"type": "empty_bowl", "bowl": 0})
    for _ in range(4):
        rig.pulse(0.004, rig.some_colour())
        place = next(a for a in rig.table.session()["legal_actions"] if a["type"] == "place_disk")
        rig.do(place)
    # completed potions (if any) move apprentices; stand still so the turn ends
    while rig.state()["phase"] == "move":
        rig.do({"type": "move", "to": None})


def drops_where(state: dict) -> tuple[int, int]:
    in_bowls = sum(len(b["drops"]) for b in state["bowls"])
    return in_bowls, state["cauldron_total"]


def test_a_real_turn_by_beam_pulses(rig):
    play_one_turn(rig)
    assert rig.state()["phase"] == "choose_bowl" and rig.state()["active"] == 1
    assert drops_where(rig.state()) == (12, 6)
    log = rig.table.store.actions(rig.table.session()["id"])
    sensed = [e["action"] for e in log if e["source"] == "sensor"]
    assert len(sensed) == 4 and all(a["type"] == "drop" and a["colour"] for a in sensed)


def test_a_fifth_drop_is_a_warning_not_a_change(rig):
    rig.do({"type": "empty_bowl", "bowl": 0})
    for _ in range(4):
        rig.pulse(0.004, rig.some_colour())
    before = rig.state()
    rig.pulse(0.004, "red")
    after = rig.state()
    assert len(after["warnings"]) == len(before["warnings"]) + 1
    assert drops_where(after) == drops_where(before)
    assert after["cauldron"] == before["cauldron"] and after["bowls"] == before["bowls"]
    assert after["warnings"][-1]["fixes"], "a warning comes with a one-tap fix"


def test_a_drop_between_turns_is_a_warning(rig):
    play_one_turn(rig)
    before = rig.state()
    rig.pulse(0.004, rig.some_colour())
    after = rig.state()
    assert after["phase"] == before["phase"] == "choose_bowl"
    assert len(after["warnings"]) == len(before["warnings"]) + 1
    assert drops_where(after) == drops_where(before)


def test_a_half_millisecond_glitch_is_ignored(rig):
    rig.do({"type": "empty_bowl", "bowl": 0})
    version = rig.table.version
    rig.pulse(0.0005, "red")
    assert rig.table.version == version
    assert rig.state()["turn"]["drops"] == []


def test_a_beam_stuck_dark_for_two_seconds_is_a_sensor_fault_not_drops(rig):
    rig.do({"type": "empty_bowl", "bowl": 0})
    before = rig.state()
    rig.pulse(2.0, "red")
    after = rig.state()
    assert after["turn"]["drops"] == [] and drops_where(after) == drops_where(before)
    assert any("stuck" in w["message"].lower() or "sensor" in w["message"].lower()
               for w in after["warnings"])
