"""The optional colour sensor under the cauldron's spout.

A TCS34725 on I2C (through ``smbus2``, imported only when this sensor is
configured) reads red, green, blue and clear light when a drop lands in the
bowl. The reading is turned into a colour by the nearest *learned* colour
(learned with ``potionpi calibrate colours``; stored in the config). A reading
far from every learned colour gives ``None``, and the tablet asks instead.

``SimulatedColourSensor`` gives readings that look like a real sensor's, with a
little seeded noise, for the simulated cauldron and the tests.
"""
from __future__ import annotations

import math
import random
import time
from typing import Any, Mapping, Sequence

from ..config import SCHEMA
from ..contracts import COLOURS

RGBC = tuple[int, int, int, int]


class ColourSensorError(RuntimeError):
    """The colour sensor is missing, unplugged or answers nonsense; says what to check."""


def chromaticity(rgbc: Sequence[float]) -> list[float]:
    """Share of red, green and blue in a reading: brightness drops out, hue stays."""
    r, g, b = (float(x) for x in rgbc[:3])
    total = r + g + b
    if total <= 0:
        return [0.0, 0.0, 0.0]
    return [r / total, g / total, b / total]


class ColourClassifier:
    """Nearest learned colour in chromaticity, or None when nothing is near enough."""

    def __init__(self, learned: Mapping[str, Sequence[float]], *, max_distance: float = 0.08,
                 min_clear: int = 20):
        for name, value in learned.items():
            if len(value) != 3:
                raise ValueError(f"learned colour {name!r} needs 3 numbers (red, green, blue "
                                 f"shares), got {list(value)!r}")
        self.learned = {name: [float(x) for x in value] for name, value in learned.items()}
        self.max_distance = max_distance
        self.min_clear = min_clear  # below this the sensor sees no ball at all

    def distances(self, rgbc: Sequence[float]) -> dict[str, float]:
        point = chromaticity(rgbc)
        return {name: math.dist(point, ref) for name, ref in self.learned.items()}

    def classify(self, rgbc: Sequence[float]) -> str | None:
        if not self.learned or rgbc[3] < self.min_clear:
            return None
        distances = self.distances(rgbc)
        best = min(distances, key=lambda name: distances[name])
        return best if distances[best] <= self.max_distance else None


class ColourSensor:
    """Base: ``read_rgbc()`` from the hardware, ``colour_of_drop()`` for the cauldron.

    ``saturation``: the count at which a channel is at full scale (None: no limit known).
    A reading with a channel there is no colour: the brightest channel was cut off, so
    its share, and the colour named from it, are wrong (a bright orange reads yellow)."""

    saturation: float | None = None
    fix_saturation = "lower colour_gain or colour_integration_ms in [cauldron]"

    def __init__(self, classifier: ColourClassifier | None = None, settle_s: float = 0.0):
        self.classifier = classifier
        self.settle_s = settle_s  # the ball rolls from the beam into the bowl first
        self.last_saturated = False   # the last drop's reading was at full scale
        self.saturated_readings = 0

    def saturated(self, rgbc: Sequence[float]) -> bool:
        return self.saturation is not None and max(rgbc) >= self.saturation

    def read_rgbc(self) -> RGBC:
        raise NotImplementedError

    def read_drop(self) -> RGBC:
        """Wait for the ball to settle under the sensor, then read it."""
        if self.settle_s > 0:
            time.sleep(self.settle_s)
        return self.read_rgbc()

    def colour_of_drop(self) -> str | None:
        """The colour of the drop that just landed, or None when unsure, not calibrated or
        dazzled (a channel at full scale)."""
        reading = self.read_drop()
        self.last_saturated = self.saturated(reading)
        if self.last_saturated:
            self.saturated_readings += 1
            return None
        return self.classifier.classify(reading) if self.classifier else None

    def close(self) -> None:
        pass


# --- TCS34725 ---------------------------------------------------------------
_COMMAND = 0x80
_AUTO_INCREMENT = 0x20
_ENABLE, _ATIME, _CONTROL, _ID, _STATUS, _CDATAL = 0x00, 0x01, 0x0F, 0x12, 0x13, 0x14
_PON, _AEN = 0x01, 0x02
_AVALID = 0x01
GAINS: tuple[int, ...] = SCHEMA["cauldron"]["colour_gain"].choices or ()
_GAINS = {gain: again for again, gain in enumerate(GAINS)}     # 1x, 4x, 16x, 60x: AGAIN 0-3
CYCLE_MS = 2.4                  # one ADC cycle: integration time = 2.4 ms x (256 - ATIME)
COUNTS_PER_CYCLE = 1024         # full scale: 1024 counts a cycle, at most 65535 (AMS DN40 3.5)
RIPPLE_BELOW_MS = 150.0         # shorter integrations saturate at 75 % with rippling light (DN40 3.7)
INIT_S = 0.0024                 # the RGBC init state after AEN, before integrating
_KNOWN_IDS = {0x44: "TCS34725", 0x4D: "TCS34727"}


def _open_smbus(bus_number: int) -> Any:
    try:
        from smbus2 import SMBus
    except ImportError as exc:
        raise ColourSensorError(
            "the colour sensor needs the smbus2 library: pip install smbus2 "
            "(or turn the colour sensor off in the config)") from exc
    try:
        return SMBus(bus_number)
    except OSError as exc:
        raise ColourSensorError(
            f"cannot open I2C bus {bus_number} ({exc}): enable I2C with raspi-config "
            "and check that the user is in the 'i2c' group") from exc


def full_scale(cycles: int) -> float:
    """The count a TCS34725 channel saturates at for an integration of ``cycles`` 2.4 ms
    cycles: 1024 a cycle up to 65535, and three quarters of that below 150 ms, where a
    room light's ripple saturates the sensor before the count shows it."""
    counts = float(min(65535, COUNTS_PER_CYCLE * cycles))
    return counts * 0.75 if cycles * CYCLE_MS < RIPPLE_BELOW_MS else counts


class TCS34725(ColourSensor):
    """TCS34725 colour sensor on I2C. ``bus`` is an smbus2-like object (for tests)."""

    def __init__(self, bus: Any = None, *, bus_number: int = 1, address: int = 0x29,
                 integration_ms: float = 24.0, gain: int = 4, settle_s: float = 0.03,
                 classifier: ColourClassifier | None = None):
        super().__init__(classifier, settle_s)
        if gain not in _GAINS:
            raise ValueError(f"colour sensor gain must be one of {sorted(_GAINS)}, got {gain}")
        if not 2.4 <= integration_ms <= 614.4:
            raise ValueError("colour sensor integration_ms must be between 2.4 and 614.4, "
                             f"got {integration_ms}")
        self.address = address
        cycles = max(1, min(256, round(integration_ms / CYCLE_MS)))
        self.integration_s = cycles * CYCLE_MS / 1000.0
        self.gain = gain
        self.saturation = full_scale(cycles)
        self._own_bus = bus is None
        self.bus = _open_smbus(bus_number) if bus is None else bus
        try:
            chip = self._read(_ID)
        except OSError as exc:
            self.close()
            raise ColourSensorError(
                f"no colour sensor answers at I2C address 0x{address:02x} on bus {bus_number} "
                f"({exc}): check its wiring (SDA, SCL, 3.3 V, GND)") from exc
        if chip not in _KNOWN_IDS:
            self.close()
            raise ColourSensorError(
                f"the chip at I2C address 0x{address:02x} says it is 0x{chip:02x}, "
                "not a TCS34725 (0x44) or TCS34727 (0x4d)")
        self.chip = _KNOWN_IDS[chip]
        self._write(_ATIME, 256 - cycles)
        self._write(_CONTROL, _GAINS[gain])
        self._write(_ENABLE, _PON)
        time.sleep(0.003)  # the datasheet asks for 2.4 ms between power-on and AEN
        self._write(_ENABLE, _PON | _AEN)

    @property
    def fix_saturation(self) -> str:            # type: ignore[override]
        lower_gain = max(g for g in GAINS if g < self.gain) if self.gain > min(GAINS) else None
        ms = self.integration_s * 1000
        gain = f"colour_gain (now {self.gain}; try {lower_gain})" if lower_gain else \
            f"colour_gain (now {self.gain}, the least)"
        return f"lower {gain} or colour_integration_ms (now {ms:g}; try {max(2.4, ms / 2):g}) in [cauldron]"

    def _read(self, register: int) -> int:
        return self.bus.read_byte_data(self.address, _COMMAND | register)

    def _write(self, register: int, value: int) -> None:
        self.bus.write_byte_data(self.address, _COMMAND | register, value)

    def read_rgbc(self) -> RGBC:
        """One fresh reading. With AEN left on, AVALID stays set from the last cycle, so
        waiting for it alone would hand back light from before the ball arrived: the
        integration is restarted (AEN off and on clears AVALID), then STATUS is polled
        until AVALID says that new cycle finished, within a deadline."""
        try:
            self._write(_ENABLE, _PON)
            self._write(_ENABLE, _PON | _AEN)
            started = time.monotonic()
            deadline = started + 2 * (INIT_S + self.integration_s) + 0.05
            time.sleep(INIT_S + self.integration_s)     # it cannot be ready any sooner
            while not self._read(_STATUS) & _AVALID:
                if time.monotonic() > deadline:
                    raise ColourSensorError(
                        "the colour sensor never finished a reading (no AVALID within "
                        f"{(deadline - started) * 1000:.0f} ms): check its power and wiring")
                time.sleep(self.integration_s / 8)
            raw = self.bus.read_i2c_block_data(
                self.address, _COMMAND | _AUTO_INCREMENT | _CDATAL, 8)
        except OSError as exc:
            raise ColourSensorError(f"the colour sensor stopped answering ({exc})") from exc
        c, r, g, b = (raw[i] | (raw[i + 1] << 8) for i in range(0, 8, 2))
        return (r, g, b, c)

    def close(self) -> None:
        try:
            self._write(_ENABLE, 0x00)  # power down
        except Exception:
            pass
        if self._own_bus and hasattr(self.bus, "close"):
            self.bus.close()


# --- simulation -------------------------------------------------------------
# What a TCS34725 a few cm above a drop (a coloured ball) roughly reports, as shares of
# red/green/blue. The simulated sensor reads these (plus noise); the same values
# serve as its learned colours.
TYPICAL_SHARES = {
    "red": [0.60, 0.20, 0.20],
    "yellow": [0.45, 0.42, 0.13],
    "green": [0.22, 0.52, 0.26],
    "blue": [0.18, 0.30, 0.52],
    "purple": [0.38, 0.22, 0.40],
    "orange": [0.58, 0.30, 0.12],
}


class SimulatedColourSensor(ColourSensor):
    """Reads the ball it was shown with ``present(colour)``; seeded noise, no hardware."""

    def __init__(self, seed: int | None = None, *, noise: float = 0.01, brightness: int = 900,
                 classifier: ColourClassifier | None = None, counts: int = 65535):
        """``counts``: where a channel stops counting (a real TCS34725 at 24 ms: 10240), so a
        ``brightness`` past it gives the cut-off reading a dazzled sensor does."""
        super().__init__(classifier or ColourClassifier(TYPICAL_SHARES), settle_s=0.0)
        self._rng = random.Random(seed)
        self.noise = noise
        self.brightness = brightness
        self.counts = counts
        self.saturation = float(counts)
        self.ball: str | None = None

    def present(self, colour: str | None) -> None:
        """The ball now lying under the sensor (None: an empty bowl)."""
        if colour is not None and colour not in TYPICAL_SHARES:
            raise ValueError(f"unknown drop colour {colour!r}: one of {', '.join(COLOURS)}")
        self.ball = colour

    def read_rgbc(self) -> RGBC:
        if self.ball is None:
            return (3, 3, 3, 8)  # dark: nothing under the sensor
        shares = [max(0.0, s + self._rng.uniform(-self.noise, self.noise))
                  for s in TYPICAL_SHARES[self.ball]]
        r, g, b = (round(s * self.brightness) for s in shares)
        clear = round((r + g + b) * 1.1)
        r, g, b, clear = (min(v, self.counts) for v in (r, g, b, clear))
        return (r, g, b, clear)


def make_colour_sensor(section: Mapping[str, Any] | None) -> ColourSensor | None:
    """The colour sensor the ``[cauldron]`` config section asks for, or None.

    Keys: ``colour_sensor`` ("none" or "tcs34725"), ``i2c_bus``, ``colour_gain``,
    ``colour_integration_ms``, ``colour_settle_ms`` and ``colours`` (learned colour =
    [r, g, b] shares, from ``potionpi calibrate colours``). Without learned colours the
    sensor reads but names nothing, so the tablet asks.
    """
    if section is None or section["colour_sensor"] == "none":
        return None
    kind = section["colour_sensor"]
    if kind != "tcs34725":
        raise ValueError(f'unknown colour sensor {kind!r}: use "none" or "tcs34725"')
    # learned colours are in the section only once `potionpi calibrate colours` wrote them
    return TCS34725(bus_number=section["i2c_bus"], gain=section["colour_gain"],
                    integration_ms=section["colour_integration_ms"],
                    settle_s=section["colour_settle_ms"] / 1000.0,
                    classifier=ColourClassifier(section.get("colours") or {}))
