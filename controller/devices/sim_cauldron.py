"""The simulated cauldron: real drops, real ``Cauldron`` code, mock pins.

``SimulatedCauldron`` holds the drop population (18 balls, counts from
``controller/games/data/mirakel_mix.toml``) and drives a real ``Cauldron`` on
gpiozero ``MockFactory`` pins: turning toggles the encoder's A/B pins in
quadrature, and a falling drop darkens the beam pin for a few milliseconds
while the simulated colour sensor sees that ball. So the daemon runs the same
device code with or without hardware.

Time inside the simulation runs on a ``SimClock``: real time plus whatever the
simulation "spent" turning (a detent at the chosen speed, a 4 ms beam pulse).
The pins change at once, the cauldron measures realistic durations, and
``turn()``/``drop()`` return only after every resulting event was delivered.
"""
from __future__ import annotations

import collections
import logging
import random
import threading
import time
from typing import Any

from gpiozero.pins.mock import MockFactory

from .base import Device, Sink
from .cauldron import Cauldron, Notice
from .colour_sensor import SimulatedColourSensor

log = logging.getLogger(__name__)

# Used only when the game data file is missing (DEFAULTS.md: 3 of each of 6 colours).
DEFAULT_DROPS = {"red": 3, "yellow": 3, "green": 3, "blue": 3, "purple": 3, "orange": 3}


class SimulationRefused(ValueError):
    """The simulated cauldron cannot do that (e.g. drop a colour it does not hold)."""


def drop_population() -> dict[str, int]:
    """Colour → number of drops in the game, from the Mirakel Mix data file."""
    try:
        from controller.games.base import load_data
        data = load_data("mirakel_mix")
    except (FileNotFoundError, ModuleNotFoundError):
        return dict(DEFAULT_DROPS)
    if isinstance(data.get("drops"), dict):
        return {str(colour): int(n) for colour, n in data["drops"].items()}
    colours = data.get("colors")
    if isinstance(colours, list) and colours and all("drops" in c for c in colours):
        return {str(c["id"]): int(c["drops"]) for c in colours}
    return dict(DEFAULT_DROPS)


class SimClock:
    """Monotonic seconds: real time (unless ``real=False``) plus simulated time spent."""

    def __init__(self, real: bool = True):
        self._real = real
        self._offset = 0.0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return (time.monotonic() if self._real else 0.0) + self._offset

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time does not run backwards")
        with self._lock:
            self._offset += seconds


class SimulatedCauldron(Device):
    """A cauldron you can turn from the tablet's simulation panel or from tests."""

    name = "cauldron"
    simulated = True

    def __init__(self, *, seed: int | None = None, sink: Sink | None = None,
                 on_notice: Notice | None = None, population: dict[str, int] | None = None,
                 detents_per_drop: int = 5, detents_per_rev: int = 20,
                 turn_speed: float = 1.0, colour_sensor: bool = True,
                 pulse_s: float = 0.004, max_rev_per_s: float = 2.0, stuck_s: float = 1.0,
                 pins: tuple[int, int, int] = (17, 27, 22)):
        if detents_per_drop < 1:
            raise ValueError(f"detents_per_drop must be at least 1, got {detents_per_drop}")
        if turn_speed <= 0:
            raise ValueError(f"turn_speed must be above 0 revolutions per second, got {turn_speed}")
        self.population = dict(population) if population is not None else drop_population()
        self.detents_per_drop = detents_per_drop
        self.turn_speed = turn_speed
        self.pulse_s = pulse_s
        self.clock = SimClock()
        self._rng = random.Random(seed)
        self._contents = collections.Counter(self.population)
        self._countdown = self._next_countdown()
        self._drive = threading.RLock()    # one hand on the grip at a time
        self._stock = threading.Lock()     # the balls; never held while pins move
        self.pin_factory = MockFactory()
        self.colour_sensor = SimulatedColourSensor(seed) if colour_sensor else None
        self.cauldron = Cauldron(*pins, pin_factory=self.pin_factory,
                                 detents_per_rev=detents_per_rev, stuck_s=stuck_s,
                                 max_rev_per_s=max_rev_per_s, colour_sensor=self.colour_sensor,
                                 sink=sink, on_notice=on_notice, clock=self.clock)
        self._pin_a, self._pin_b, self._pin_beam = (self.pin_factory.pin(p) for p in pins)

    @classmethod
    def from_config(cls, simulation: dict[str, Any], cauldron: dict[str, Any] | None = None,
                    *, sink: Sink | None = None, on_notice: Notice | None = None):
        """From the ``[simulation]`` section (seed, detents_per_drop) and ``[cauldron]``
        (detents per revolution and the limits, so the simulation behaves like the real one).
        The simulated cauldron always has a simulated colour sensor unless
        ``simulation["colour_sensor"]`` is false."""
        cauldron = cauldron or {}
        return cls(seed=simulation.get("seed"), sink=sink, on_notice=on_notice,
                   detents_per_drop=int(simulation.get("detents_per_drop", 5)),
                   turn_speed=float(simulation.get("turn_speed", 1.0)),
                   colour_sensor=bool(simulation.get("colour_sensor", True)),
                   detents_per_rev=int(cauldron.get("detents_per_revolution", 20)),
                   max_rev_per_s=float(cauldron.get("max_turns_per_second", 2.0)),
                   stuck_s=float(cauldron.get("stuck_beam_seconds", 1.0)))

    # consumers may be wired after construction (the table starts after devices)
    @property
    def sink(self) -> Sink | None:
        return self.cauldron.sink

    @sink.setter
    def sink(self, value: Sink | None) -> None:
        self.cauldron.sink = value

    @property
    def on_notice(self) -> Notice | None:
        return self.cauldron.on_notice

    @on_notice.setter
    def on_notice(self, value: Notice | None) -> None:
        self.cauldron.on_notice = value

    # --- the balls ----------------------------------------------------------------
    def contents(self) -> dict[str, int]:
        """Colour → balls inside now, every colour of the game listed."""
        with self._stock:
            colours = list(self.population) + [c for c in self._contents
                                               if c not in self.population]
            return {c: self._contents.get(c, 0) for c in colours}

    def total(self) -> int:
        with self._stock:
            return sum(self._contents.values())

    def reset(self) -> None:
        """All drops back inside, as at the start of a game."""
        with self._stock:
            self._contents = collections.Counter(self.population)
            self._countdown = self._next_countdown()

    def set_contents(self, counts: dict[str, int]) -> None:
        """Hold exactly these drops (after a restart: where the game says they are)."""
        with self._stock:
            self._contents = collections.Counter(
                {c: int(n) for c, n in counts.items() if c in self.population and int(n) > 0})
            self._countdown = self._next_countdown()

    def handle_effect(self, effect: dict[str, Any]) -> None:
        op = effect.get("op")
        if op == "fill":
            with self._stock:
                for colour in effect.get("drops", []):
                    if colour not in self.population:
                        log.warning("fill effect names unknown drop colour %r; skipped", colour)
                        continue
                    self._contents[colour] += 1
                    if self._contents[colour] > self.population[colour]:
                        log.warning("the simulated cauldron now holds %d %s drops, more "
                                    "than the game has", self._contents[colour], colour)
        elif op == "unfill":
            # An undone "empty the bowl": those drops go back out into the bowl.
            with self._stock:
                for colour in effect.get("drops", []):
                    if self._contents[colour] > 0:
                        self._contents[colour] -= 1
                    else:
                        log.warning("unfill effect takes a %s drop the simulated cauldron "
                                    "does not hold; skipped", colour)
        elif op == "reset":
            self.reset()

    def _take(self, colour: str | None) -> str:
        with self._stock:
            if colour is None:
                balls = sorted(self._contents.elements())  # sorted: seed alone decides
                if not balls:
                    raise SimulationRefused(
                        "The cauldron is empty: empty a bowl into it first.")
                colour = self._rng.choice(balls)
            elif colour not in self.population:
                raise SimulationRefused(
                    f"There is no drop colour {colour!r}: choose one of "
                    + ", ".join(self.population) + ".")
            elif self._contents[colour] == 0:
                raise SimulationRefused(
                    f"There is no {colour} drop in the cauldron; it holds "
                    + self._describe() + ".")
            self._contents[colour] -= 1
            return colour

    def _describe(self) -> str:
        held = [f"{n} {c}" for c, n in self._contents.items() if n]
        return ", ".join(held) if held else "nothing"

    def _next_countdown(self) -> int:
        n = self.detents_per_drop
        return self._rng.randint(max(1, n - n // 2), n + n // 2)

    # --- the hand on the grip -----------------------------------------------------
    def turn(self, detents: int, speed: float | None = None) -> dict[str, Any]:
        """Turn the grip: positive = clockwise (dispensing), negative = counter-clockwise
        (mixing), at ``speed`` revolutions per second. Returns the drops that fell."""
        speed = self.turn_speed if speed is None else float(speed)
        if speed <= 0:
            raise SimulationRefused("The turning speed must be above 0.")
        step_s = 1.0 / (speed * self.cauldron.detents_per_rev)
        fallen: list[str] = []
        with self._drive:
            for _ in range(abs(int(detents))):
                self._one_detent(clockwise=detents > 0, seconds=step_s)
                if detents > 0:
                    colour = self._maybe_drop()
                    if colour:
                        fallen.append(colour)
            self.cauldron.flush()
        return {"detents": int(detents), "drops": fallen}

    def drop(self, color: str | None = None) -> str:
        """Let one drop fall now: the named colour, or a random one of those inside."""
        with self._drive:
            colour = self._take(color)
            self._pulse_beam(colour)
            self.cauldron.flush()
        return colour

    def _maybe_drop(self) -> str | None:
        with self._stock:
            self._countdown -= 1
            if self._countdown > 0:
                return None
            self._countdown = self._next_countdown()
            if not any(self._contents.values()):
                return None  # nothing left to fall; the grip turns freely
        colour = self._take(None)
        self._pulse_beam(colour)
        return colour

    def _one_detent(self, clockwise: bool, seconds: float) -> None:
        # Encoder pins rest high (pull-ups). Clockwise, A falls first; then B.
        first, second = (self._pin_a, self._pin_b) if clockwise else (self._pin_b, self._pin_a)
        for pin, level in ((first, 0), (second, 0), (first, 1), (second, 1)):
            self.clock.advance(seconds / 4)
            pin.drive_low() if level == 0 else pin.drive_high()

    def _pulse_beam(self, colour: str) -> None:
        if self.colour_sensor is not None:
            self.colour_sensor.present(colour)
        self._pin_beam.drive_low()        # the ball blocks the beam ...
        self.clock.advance(self.pulse_s)
        self._pin_beam.drive_high()       # ... and has passed
        # The sensor reads the ball that just landed: wait before the next one.
        self.cauldron.flush()

    # --- Device -----------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        status = self.cauldron.status()
        status.update(simulated=True, contents=self.contents(), total=self.total())
        return status

    def close(self) -> None:
        self.cauldron.close()
