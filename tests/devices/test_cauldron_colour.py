"""The cauldron's colour sensor: TCS34725 registers, classifying, and calibration."""
from __future__ import annotations

import sys
import time

import pytest

from controller.config import section
from controller.devices.calibrate_colours import (CalibrationCancelled, learned_colours_toml,
                                                  run_colour_calibration)
from controller.devices.cauldron import Cauldron
from controller.devices.colour_sensor import (COLOURS, TYPICAL_SHARES, ColourClassifier,
                                              ColourSensorError, SimulatedColourSensor, TCS34725,
                                              chromaticity, make_colour_sensor)
from controller.devices.pins import ClockedMockFactory
from controller.devices.sim_cauldron import SimClock

import tomllib


class FakeTCS34725Bus:
    """An I2C bus with one TCS34725 on it, register by register and cycle by cycle as in
    the datasheet: setting AEN starts a 2.4 ms init, then back-to-back integrations of
    2.4 ms x (256 - ATIME); AVALID sets when the first one ends and stays set while AEN
    is on; the data registers hold the light seen by the last finished integration."""

    def __init__(self, chip_id=0x44, rgbc=(120, 60, 40, 250)):
        self.registers = {0x12: chip_id}
        self.writes = []
        self.light = [(-1e9, rgbc)]          # (since when, what lies under the sensor)
        self.unplugged = False
        self.measuring_since: float | None = None

    def show(self, rgbc):
        """A new ball under the sensor from now on."""
        self.light.append((time.monotonic(), rgbc))

    @property
    def rgbc(self):
        return self.light[-1][1]

    def _integration_s(self):
        return (256 - self.registers.get(0x01, 0xFF)) * 0.0024

    def _last_cycle_end(self):
        if self.measuring_since is None:
            return None
        t, now = self._integration_s(), time.monotonic()
        done = int((now - self.measuring_since - 0.0024) // t)
        return None if done < 1 else self.measuring_since + 0.0024 + done * t

    def _register(self, address, command):
        if self.unplugged or address != 0x29:
            raise OSError(121, "Remote I/O error")
        assert command & 0x80, "TCS34725 registers need the command bit"
        return command & 0x1F

    def read_byte_data(self, address, command):
        register = self._register(address, command)
        if register == 0x13:
            return 0x01 if self._last_cycle_end() is not None else 0x00
        return self.registers.get(register, 0)

    def write_byte_data(self, address, command, value):
        register = self._register(address, command)
        if register == 0x00:
            if value & 0x03 == 0x03 and self.measuring_since is None:
                self.measuring_since = time.monotonic()
            elif value & 0x03 != 0x03:
                self.measuring_since = None  # AEN off: the state machine idles, AVALID clears
        self.registers[register] = value
        self.writes.append((register, value))

    def read_i2c_block_data(self, address, command, length):
        register = self._register(address, command)
        assert command & 0x20, "reading 8 data bytes needs auto-increment"
        assert (register, length) == (0x14, 8)
        end = self._last_cycle_end()
        # before any finished cycle the registers still hold zeros
        r, g, b, c = (0, 0, 0, 0) if end is None else [x for t, x in self.light if t <= end][-1]
        out = []
        for value in (c, r, g, b):
            out += [value & 0xFF, value >> 8]
        return out


def test_tcs34725_is_set_up_and_read_like_the_datasheet_says():
    bus = FakeTCS34725Bus(rgbc=(1200, 300, 260, 2000))
    sensor = TCS34725(bus, integration_ms=24, gain=16, settle_s=0)
    assert sensor.chip == "TCS34725"
    assert (0x01, 256 - 10) in bus.writes            # ATIME: 10 cycles of 2.4 ms
    assert (0x0F, 0x02) in bus.writes                # gain 16x
    assert bus.writes[-2:] == [(0x00, 0x01), (0x00, 0x03)]  # power on, then measure
    assert sensor.read_rgbc() == (1200, 300, 260, 2000)
    sensor.close()
    assert bus.registers[0x00] == 0x00               # powered down again


def test_a_tcs34725_reading_becomes_a_colour():
    red = [round(x * 1000) for x in TYPICAL_SHARES["red"]]
    bus = FakeTCS34725Bus(rgbc=(*red, 1100))
    sensor = TCS34725(bus, settle_s=0, classifier=ColourClassifier(TYPICAL_SHARES))
    assert sensor.colour_of_drop() == "red"


def test_each_reading_is_a_fresh_integration_of_the_ball_that_just_landed():
    bus = FakeTCS34725Bus(rgbc=(100, 100, 100, 330))          # the empty bowl
    sensor = TCS34725(bus, integration_ms=48, gain=4, settle_s=0)
    time.sleep(0.12)                                           # the sensor idles, AVALID set
    assert sensor.read_rgbc() == (100, 100, 100, 330)
    bus.show((600, 200, 200, 1100))                            # a red ball lands
    assert sensor.read_rgbc() == (600, 200, 200, 1100)         # not the bowl from before


def test_a_sensor_that_never_finishes_a_reading_gives_up_at_its_deadline(monkeypatch):
    bus = FakeTCS34725Bus()
    sensor = TCS34725(bus, integration_ms=24, settle_s=0)
    monkeypatch.setattr(bus, "_last_cycle_end", lambda: None)  # AVALID never comes
    started = time.monotonic()
    with pytest.raises(ColourSensorError, match="never finished a reading"):
        sensor.read_rgbc()
    assert time.monotonic() - started < 1.0                    # the deadline, not forever


def test_gain_integration_and_settle_come_from_the_config(monkeypatch):
    from controller.devices import colour_sensor
    bus = FakeTCS34725Bus()
    monkeypatch.setattr(colour_sensor, "_open_smbus", lambda number: bus)
    sensor = make_colour_sensor(section("cauldron", colour_sensor="tcs34725", colour_gain=60,
                                        colour_integration_ms=101, colour_settle_ms=45))
    assert (0x0F, 0x03) in bus.writes                  # gain 60x
    assert (0x01, 256 - 42) in bus.writes              # 101 ms: 42 cycles of 2.4 ms
    assert sensor.integration_s == pytest.approx(0.1008)
    assert sensor.settle_s == pytest.approx(0.045)


@pytest.mark.parametrize("key, value", [("colour_gain", 8), ("colour_integration_ms", 1000),
                                        ("colour_settle_ms", -1)])
def test_colour_sensor_settings_outside_the_datasheet_are_refused(tmp_path, key, value):
    from controller.config import Config, ConfigError
    path = tmp_path / "potionpi.toml"
    path.write_text(f"[cauldron]\n{key} = {value}\n")
    with pytest.raises(ConfigError, match=f"{path}: cauldron.{key} = {value} is not allowed; use "):
        Config.load(path)


def test_no_sensor_on_the_bus_says_what_to_check():
    bus = FakeTCS34725Bus()
    bus.unplugged = True
    with pytest.raises(ColourSensorError, match="wiring"):
        TCS34725(bus)


def test_another_chip_at_the_address_is_refused():
    with pytest.raises(ColourSensorError, match="not a TCS34725"):
        TCS34725(FakeTCS34725Bus(chip_id=0x12))


def test_a_sensor_that_stops_answering_is_an_error_with_a_reason():
    bus = FakeTCS34725Bus()
    sensor = TCS34725(bus, settle_s=0)
    bus.unplugged = True
    with pytest.raises(ColourSensorError, match="stopped answering"):
        sensor.read_rgbc()


def test_bad_gain_or_integration_time_is_refused():
    with pytest.raises(ValueError, match="gain"):
        TCS34725(FakeTCS34725Bus(), gain=8)
    with pytest.raises(ValueError, match="integration"):
        TCS34725(FakeTCS34725Bus(), integration_ms=1000)


def test_without_smbus2_the_error_says_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "smbus2", None)
    with pytest.raises(ColourSensorError, match="pip install smbus2"):
        make_colour_sensor(section("cauldron", colour_sensor="tcs34725"))


def test_colour_sensor_none_means_none():
    assert make_colour_sensor(None) is None
    assert make_colour_sensor({"colour_sensor": "none", "colours": {"red": [1, 0, 0]}}) is None
    with pytest.raises(ValueError, match="unknown colour sensor"):
        make_colour_sensor({"colour_sensor": "as7341"})


# --- classifying ----------------------------------------------------------------
def test_brightness_does_not_change_the_colour():
    classifier = ColourClassifier(TYPICAL_SHARES)
    dim = (60, 30, 12, 110)
    bright = (600, 300, 120, 1100)
    assert chromaticity(dim) == pytest.approx(chromaticity(bright))
    assert classifier.classify(dim) == classifier.classify(bright) == "orange"


def test_far_from_every_learned_colour_is_unknown():
    classifier = ColourClassifier(TYPICAL_SHARES, max_distance=0.05)
    assert classifier.classify((300, 300, 300, 1000)) is None  # grey: the tablet asks
    assert classifier.classify((1, 1, 0, 2)) is None            # too dark to say


def test_the_simulated_sensor_is_always_recognised():
    sensor = SimulatedColourSensor(seed=1, noise=0.01)
    for colour in COLOURS * 20:
        sensor.present(colour)
        assert sensor.colour_of_drop() == colour
    sensor.present(None)
    assert sensor.colour_of_drop() is None
    with pytest.raises(ValueError, match="unknown drop colour"):
        sensor.present("pink")


def test_learned_colours_need_three_numbers():
    with pytest.raises(ValueError, match="3 numbers"):
        ColourClassifier({"red": [0.6, 0.2]})


# --- calibration ------------------------------------------------------------------
class Maker:
    """Plays the person at the table: answers questions, drops balls on request."""

    def __init__(self, answers=()):
        self.answers = list(answers)
        self.said = []
        self.asked = []

    def ask(self, question):
        self.asked.append(question)
        return self.answers.pop(0) if self.answers else ""

    def say(self, text):
        self.said.append(text)


def test_calibration_learns_each_colour_from_real_beam_drops():
    """The beam waiter is a real Cauldron on mock pins; a 'hand' drops the asked colour."""
    clock = SimClock(real=False)
    factory = ClockedMockFactory(clock)    # the beam's edges happen on the hand-driven clock
    cauldron = Cauldron.from_config(section("cauldron"), pin_factory=factory, clock=clock)
    sensor = SimulatedColourSensor(seed=5)
    beam = factory.pin(22)
    maker = Maker()
    current = {"colour": None}

    def say(text):
        maker.say(text)
        for colour in COLOURS:
            if text.startswith(f"Turn clockwise: {colour} drop"):
                current["colour"] = colour

    wait_for_beam = cauldron.beam_waiter()

    def waiter(timeout):
        # The maker turns: one ball of the colour being taught passes the beam.
        sensor.present(current["colour"])
        beam.drive_low()
        clock.advance(0.004)
        beam.drive_high()
        return wait_for_beam(timeout)

    try:
        learned = run_colour_calibration(sensor, waiter, maker.ask, say, drops_per_colour=3)
    finally:
        cauldron.close()
    assert list(learned) == list(COLOURS)
    for colour, value in learned.items():
        assert value == pytest.approx(TYPICAL_SHARES[colour], abs=0.02)
    assert cauldron.status()["drops_seen"] == 18
    # what was learned tells the colours apart again
    check = SimulatedColourSensor(seed=99, classifier=ColourClassifier(learned))
    for colour in COLOURS:
        check.present(colour)
        assert check.colour_of_drop() == colour


class ScriptedSensor:
    def __init__(self, readings):
        self.readings = list(readings)

    def read_drop(self):
        return self.readings.pop(0)


def test_skipped_colours_are_left_out():
    sensor = ScriptedSensor([(600, 200, 200, 1000)] * 2)
    maker = Maker(answers=["", "skip"])
    learned = run_colour_calibration(sensor, lambda t: True, maker.ask, maker.say,
                                     colours=["red", "blue"], drops_per_colour=2)
    assert learned == {"red": [0.6, 0.2, 0.2]}
    assert "Skipped blue." in maker.said


def test_a_dark_reading_is_dropped_again():
    sensor = ScriptedSensor([(2, 2, 2, 5), (200, 300, 500, 1000)])
    maker = Maker()
    learned = run_colour_calibration(sensor, lambda t: True, maker.ask, maker.say,
                                     colours=["blue"], drops_per_colour=1)
    assert learned == {"blue": [0.2, 0.3, 0.5]}
    assert any("almost no light" in text for text in maker.said)


def test_no_drop_seen_asks_whether_to_keep_waiting():
    beams = iter([False, True])
    sensor = ScriptedSensor([(200, 300, 500, 1000)])
    maker = Maker(answers=["", ""])  # start, then "keep waiting"
    learned = run_colour_calibration(sensor, lambda t: next(beams), maker.ask, maker.say,
                                     colours=["blue"], drops_per_colour=1, timeout_s=5)
    assert learned == {"blue": [0.2, 0.3, 0.5]}
    assert any("No drop seen for 5 s" in q for q in maker.asked)


def test_quit_cancels_without_a_result():
    maker = Maker(answers=["quit"])
    with pytest.raises(CalibrationCancelled):
        run_colour_calibration(ScriptedSensor([]), lambda t: True, maker.ask, maker.say)


def test_look_alike_colours_are_warned_about():
    sensor = ScriptedSensor([(600, 200, 200, 1000), (590, 210, 200, 1000)])
    maker = Maker()
    run_colour_calibration(sensor, lambda t: True, maker.ask, maker.say,
                           colours=["red", "orange"], drops_per_colour=1)
    assert any("red and orange look alike" in text for text in maker.said)


def test_learned_colours_as_toml_are_accepted_by_the_config(tmp_path):
    learned = {"red": [0.6, 0.2, 0.2], "blue": [0.18, 0.3, 0.52]}
    text = learned_colours_toml(learned)
    parsed = tomllib.loads(text)
    assert parsed["cauldron"]["colours"] == learned
    from controller.config import Config
    config_file = tmp_path / "potionpi.toml"
    config_file.write_text(text)
    assert Config.load(config_file)["cauldron"]["colours"] == learned


# --- a dazzled sensor: a reading at full scale is no colour (issue 25) -----------------------
def test_full_scale_is_1024_counts_a_cycle_and_three_quarters_of_it_below_150_ms():
    from controller.devices.colour_sensor import full_scale
    assert full_scale(10) == 10240 * 0.75          # 24 ms: room-light ripple saturates it first
    assert full_scale(64) == 65535                  # 153.6 ms: the 16-bit count's own limit
    assert full_scale(256) == 65535


def test_a_bright_orange_cut_off_at_full_scale_would_read_yellow_so_it_reads_nothing():
    sensor = SimulatedColourSensor(seed=3, brightness=30000, counts=10240)   # 24 ms, gain too high
    sensor.present("orange")
    reading = sensor.read_rgbc()
    assert reading[0] == 10240                      # red cut off: its share too small
    assert sensor.classifier.classify(reading) == "yellow"     # what it used to name
    assert sensor.colour_of_drop() is None and sensor.last_saturated
    dim = SimulatedColourSensor(seed=3, brightness=3000, counts=10240)
    dim.present("orange")
    assert dim.colour_of_drop() == "orange" and not dim.last_saturated


def test_a_tcs34725_at_full_scale_names_no_colour_and_says_which_setting_to_lower():
    bus = FakeTCS34725Bus(rgbc=(7700, 4000, 1600, 10240))      # red past 75 % of 10240
    sensor = TCS34725(bus, settle_s=0, gain=16, classifier=ColourClassifier(TYPICAL_SHARES))
    assert sensor.saturation == 7680
    assert sensor.colour_of_drop() is None and sensor.saturated_readings == 1
    assert sensor.fix_saturation == ("lower colour_gain (now 16; try 4) or colour_integration_ms "
                                     "(now 24; try 12) in [cauldron]")


def test_a_dazzled_drop_reaches_the_game_without_a_colour_and_the_tablet_hears_why_once():
    clock = SimClock(real=False)
    factory = ClockedMockFactory(clock)
    sensor = SimulatedColourSensor(seed=1, brightness=30000, counts=10240)
    actions, notices = [], []
    cauldron = Cauldron.from_config(section("cauldron"), pin_factory=factory, clock=clock,
                                    colour_sensor=sensor, sink=actions.append,
                                    on_notice=notices.append)
    beam = factory.pin(22)

    def drop(colour, brightness):
        sensor.brightness = brightness
        sensor.present(colour)
        beam.drive_low()
        clock.advance(0.004)
        beam.drive_high()
        cauldron.flush()

    try:
        drop("orange", 30000)
        drop("orange", 30000)
        drop("red", 1000)
        drop("yellow", 40000)
    finally:
        cauldron.close()
    assert actions == [{"type": "drop"}, {"type": "drop"}, {"type": "drop", "colour": "red"},
                       {"type": "drop"}]
    dazzled = [n for n in notices if "dazzled" in n["message"]]
    assert len(dazzled) == 2 and all(n["kind"] == "sensor" for n in dazzled)   # once a spell
    assert "choose it on the tablet" in dazzled[0]["message"]
    assert "lower colour_gain or colour_integration_ms" in dazzled[0]["message"]


def test_calibration_refuses_a_dazzled_sensor_and_names_the_setting():
    sensor = TCS34725(FakeTCS34725Bus(rgbc=(9000, 5000, 2000, 10240)), settle_s=0, gain=4)
    with pytest.raises(CalibrationCancelled, match=r"full scale \(10240 of 7680 counts\).*"
                                                   r"lower colour_gain \(now 4; try 1\)"):
        run_colour_calibration(sensor, lambda t: True, Maker().ask, Maker().say, colours=["red"])
