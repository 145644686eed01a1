"""`potionpi calibrate floor`: home, one revolution, nudges, steps per ant."""
import pytest
from gpiozero.pins.mock import MockFactory

from controller.config import section
from controller.devices.floor_calibrate import BIG_NUDGE, CalibrationAborted, calibrate_floor, parse_nudge
from controller.devices.floor_gpio import GpioForestFloor
from controller.devices.floor_sim import SimulatedForestFloor


def scripted(*answers):
    queue = list(answers)
    return lambda prompt: queue.pop(0)


def test_parse_nudge():
    assert [parse_nudge(a) for a in ["", "ok", " + ", "-", "++", "--", "25", "-7", "0", "left"]] == \
        [0, 0, 1, -1, BIG_NUDGE, -BIG_NUDGE, 25, -7, None, None]


def test_nudges_add_to_one_revolution():
    floor = SimulatedForestFloor(ants_around=16, steps_per_ant=100, speed=2000.0, tick=0.001)
    said = []
    result = calibrate_floor(floor, scripted("+", "++", "-3", "what?", ""), said.append)
    assert result.nudged == 1 + 10 - 3
    assert result.steps_per_revolution == 1600 + 8
    assert result.steps_per_ant == 100.5
    assert result.as_config() == {"steps_per_ant": 100.5}
    assert any("Type + or -" in s for s in said)       # the help after a bad answer
    assert "100.5 steps per ant" in said[-1]
    floor.close()


def test_lined_up_at_once_keeps_the_guess():
    floor = SimulatedForestFloor(ants_around=16, steps_per_ant=100, speed=2000.0, tick=0.001)
    result = calibrate_floor(floor, scripted("ok"), lambda s: None, steps_per_ant_guess=50)
    assert result.steps_per_ant == 50 and result.nudged == 0
    floor.close()


def test_giving_up_saves_nothing():
    floor = SimulatedForestFloor(ants_around=16, steps_per_ant=100, speed=2000.0, tick=0.001)
    with pytest.raises(CalibrationAborted):
        calibrate_floor(floor, scripted("+", "q"), lambda s: None)
    floor.close()


def test_a_fault_aborts():
    floor = SimulatedForestFloor(ants_around=16, steps_per_ant=100, speed=2000.0, tick=0.001)
    floor.fail_next("home")
    with pytest.raises(CalibrationAborted, match="home not found"):
        calibrate_floor(floor, scripted(""), lambda s: None)
    floor.close()


def test_on_gpio_the_pulses_are_the_revolution_plus_the_nudges():
    factory = MockFactory()
    floor = GpioForestFloor.from_config(
        section("forest_floor", step_pin=17, dir_pin=27, enable_pin=22, home_pin=-1,
                steps_per_ant=3.0, top_speed=20000.0, start_speed=5000.0, acceleration=5e5),
        pin_factory=factory)
    step = factory.pin(17)
    step.clear_states()
    result = calibrate_floor(floor, scripted("++", "-", "-", ""), lambda s: None)
    rises = sum(1 for s in step.states[1:] if s.state)
    assert rises == 48 + 10 + 1 + 1                     # pulses both ways
    assert result.steps_per_revolution == 48 + 8
    assert result.steps_per_ant == 3.5
    floor.close()
    factory.close()


def test_a_back_end_that_cannot_nudge_is_refused_clearly():
    class HandFloor:
        ants_around, steps_per_ant = 16, 10
    with pytest.raises(CalibrationAborted, match="cannot be nudged"):
        calibrate_floor(HandFloor(), scripted(""), lambda s: None)
