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
    assert any("100.5 steps per ant" in line for line in said)
    assert "not measured" in said[-1]                    # a simulated floor has no sensor
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


# --- the home mark: its width, and a sensor that samples instead of watching (issue 25) -----
from tests.devices.floor_rotor import RecordingPin, Rotor  # noqa: E402

SPA = 8                                 # 128 steps a turn; half an ant of tolerance = 4 steps
STEP, DIR, HOME = 17, 27, 23


class SamplingRotor(Rotor):
    """A hall switch that samples: its output follows the disc only on every ``every``-th
    step (its own clock, a DRV5032's 20 Hz at this speed) and holds it in between."""

    def __init__(self, *args, every: int, **kwargs):
        self.every, self.count = every, 0
        super().__init__(*args, **kwargs)

    def _show(self):
        self.count += 1
        if self.count % self.every == 0 or self.count == 1:
            super()._show()


class GappedRotor(Rotor):
    """A mark with a gap in the middle (two magnets, a chipped flag): the sensor lets go."""

    def at_mark(self):
        return self.angle % self.revolution in (0, 1, 3)


def gpio_floor(factory, rotor_class=Rotor, **rotor):
    floor = GpioForestFloor.from_config(
        section("forest_floor", step_pin=STEP, dir_pin=DIR, enable_pin=22, home_pin=HOME,
                steps_per_ant=float(SPA), top_speed=20000.0, start_speed=5000.0,
                acceleration=5e5, homing_speed=20000.0, home_mark_steps=1),
        pin_factory=factory)
    rotor_class(factory, STEP, DIR, HOME, revolution=16 * SPA, angle=-7, **rotor)
    return floor


def calibrate_on_a_disc(rotor_class=Rotor, say=lambda s: None, **rotor):
    """The whole calibration on a GPIO floor over a model disc; its result."""
    factory = MockFactory(pin_class=RecordingPin)
    floor = gpio_floor(factory, rotor_class, **rotor)
    try:
        return calibrate_floor(floor, scripted(""), say, tolerance_ants=0.5)
    finally:
        floor.close()
        factory.close()


def test_calibration_measures_the_mark_and_saves_its_width():
    said = []
    result = calibrate_on_a_disc(mark_width=3, say=said.append)
    assert result.mark is not None and result.mark.widths == [3, 3, 3]
    assert result.mark.spread == 0
    assert result.as_config() == {"steps_per_ant": SPA, "home_mark_steps": 3}
    assert any("saw the mark on 3 of 3 turns, 3 steps wide" in line for line in said)


def test_a_sensor_that_samples_instead_of_watching_is_refused_in_words():
    with pytest.raises(CalibrationAborted) as refused:
        calibrate_on_a_disc(SamplingRotor, mark_width=3, every=5)
    text = str(refused.value)
    assert "samples the field" in text and "DRV5032" in text
    assert "DRV5033" in text and "optical slot sensor" in text and "nothing saved" in text


def test_a_sensor_that_flickers_on_the_mark_is_refused():
    with pytest.raises(CalibrationAborted, match="switched 2 times in turn 1 instead of once"):
        calibrate_on_a_disc(GappedRotor)


def test_a_mark_as_wide_as_the_jam_tolerance_is_refused():
    with pytest.raises(CalibrationAborted, match="4 steps wide, as wide as the jam tolerance"):
        calibrate_on_a_disc(mark_width=4)            # half an ant of 8 steps: 4


def test_on_the_pico_the_firmware_notes_where_it_saw_the_mark():
    from controller.devices.floor_serial import SerialForestFloor
    from controller.devices.pico_link import LinkTimings
    from controller.devices.sim_pico import SimPico
    pico = SimPico(steps_per_rev=16 * 10, start=40)            # its mark: 3 steps wide
    floor = SerialForestFloor(ants_around=16, steps_per_ant=10, top_speed=4000, acceleration=40000,
                              homing_speed=1500, invert_direction=False, serial_port=pico.port,
                              timings=LinkTimings(heartbeat_s=0.05, lost_after_s=0.5))
    try:
        assert floor.link.wait_connected(10)
        result = calibrate_floor(floor, scripted(""), lambda s: None, tolerance_ants=0.5)
    finally:
        floor.close()
        pico.close()
    assert result.mark is not None and result.mark.widths == [3, 3, 3] and result.mark.spread == 0
    assert result.as_config()["home_mark_steps"] == 3
