"""The simulated cauldron: real drops, real ``Cauldron`` code, mock pins.

``SimulatedCauldron`` holds the drop population (``[simulation] drops`` in the config:
18 balls, 3 of each colour) and drives a real ``Cauldron`` on
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
import contextlib
import logging
import random
import threading
import time
from collections.abc import Iterator
from typing import Any


from ..contracts import CauldronStatus, DeviceEffect, NoticeSink, Sink
from .base import Device, Section
from .cauldron import Cauldron
from .colour_sensor import SimulatedColourSensor
from .pins import ClockedMockFactory

log = logging.getLogger(__name__)

# The simulation's wiring, not the config's: mock pins numbered like the usual ones,
# and a beam sensor that pulls low while a ball blocks it.
MOCK_PINS = (17, 27, 22)
BALL_PULSE_S = 0.004      # a ball blocks the beam for a few milliseconds


class SimulationRefused(ValueError):
    """The simulated cauldron cannot do that (e.g. drop a colour it does not hold)."""


class SimClock:
    """Monotonic seconds: real time (unless ``real=False``) plus simulated time spent."""

    def __init__(self, real: bool = True):
        self._real = real
        self._offset = 0.0
        self._held_at: float | None = None
        self._lock = threading.Lock()

    def _now(self) -> float:
        return time.monotonic() if self._real else 0.0

    def __call__(self) -> float:
        with self._lock:
            return (self._now() if self._held_at is None else self._held_at) + self._offset

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Real time stands still inside: only ``advance`` moves the clock. A simulated
        ball blocks the beam for its pulse, however long the OS keeps the thread that
        drives it from running (on a busy machine a stall between the two edges made the
        ball a stuck-beam fault and lost it). Afterwards the clock goes on from where it
        stood, so it never runs backwards."""
        with self._lock:
            if self._held_at is not None:
                raise RuntimeError("the simulated clock is already held")
            self._held_at = self._now()
        try:
            yield
        finally:
            with self._lock:
                assert self._held_at is not None
                self._offset -= self._now() - self._held_at
                self._held_at = None

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time does not run backwards")
        with self._lock:
            self._offset += seconds


class SimulatedCauldron(Device):
    """A cauldron you can turn from the tablet's simulation panel or from tests."""

    name = "cauldron"
    simulated = True

    def __init__(self, *, seed: int | None, population: dict[str, int], detents_per_drop: int,
                 turn_speed: float, colour_sensor: bool, detents_per_rev: int,
                 max_rev_per_s: float, stuck_s: float, glitch_s: float,
                 sink: Sink | None = None, on_notice: NoticeSink | None = None,
                 pulse_s: float = BALL_PULSE_S):
        """``population``: colour → drops inside when a game starts. ``turn_speed`` in
        turns per second; the limits (``detents_per_rev`` ... ``glitch_s``) are the real
        cauldron's, so the simulation behaves like it."""
        if detents_per_drop < 1:
            raise ValueError(f"detents_per_drop must be at least 1, got {detents_per_drop}")
        if turn_speed <= 0:
            raise ValueError(f"turn_speed must be above 0 revolutions per second, got {turn_speed}")
        if pulse_s <= glitch_s:
            raise ValueError(f"a simulated ball ({pulse_s * 1000:g} ms) must block the beam longer "
                             f"than the glitch limit ({glitch_s * 1000:g} ms)")
        self.population = dict(population)
        self.detents_per_drop = detents_per_drop
        self.turn_speed = turn_speed
        self.pulse_s = pulse_s
        self.clock = SimClock()
        self._rng = random.Random(seed)
        self._contents = collections.Counter(self.population)
        self._countdown = self._next_countdown()
        self._drive = threading.RLock()    # one hand on the grip at a time
        self._stock = threading.Lock()     # the balls; never held while pins move
        # the beam's edges are stamped by the simulated clock, as lgpio stamps real ones
        self.pin_factory = ClockedMockFactory(self.clock)
        self.colour_sensor = SimulatedColourSensor(seed) if colour_sensor else None
        self.cauldron = Cauldron(*MOCK_PINS, pin_factory=self.pin_factory,
                                 detents_per_rev=detents_per_rev, reverse=False,
                                 beam_pull_up=True, beam_dark="low", glitch_s=glitch_s,
                                 stuck_s=stuck_s, max_rev_per_s=max_rev_per_s,
                                 colour_sensor=self.colour_sensor,
                                 sink=sink, on_notice=on_notice, clock=self.clock)
        self._pin_a, self._pin_b, self._pin_beam = (self.pin_factory.pin(p) for p in MOCK_PINS)
        self.beam_unplugged = False

    def unplug_beam(self) -> None:
        """The beam sensor's wire comes loose: balls still fall, the beam never sees them
        (`potionpi check --sim --sim-fault beam` shows what the check then says)."""
        self.beam_unplugged = True

    @classmethod
    def from_config(cls, simulation: Section, cauldron: Section, *, sink: Sink | None = None,
                    on_notice: NoticeSink | None = None) -> "SimulatedCauldron":
        """From the ``[simulation]`` section (seed, drops, turning, colour sensor) and
        ``[cauldron]`` (detents per revolution and the limits, so the simulation behaves
        like the real one). ``simulation["colour_sensor"]`` false: drops come without a
        colour and the tablet asks, as on a cauldron without a sensor."""
        glitch_s = cauldron["glitch_ms"] / 1000.0
        return cls(seed=simulation["seed"], population=simulation["drops"],
                   detents_per_drop=simulation["detents_per_drop"],
                   turn_speed=simulation["turn_speed"],
                   colour_sensor=simulation["colour_sensor"],
                   detents_per_rev=cauldron["detents_per_revolution"],
                   max_rev_per_s=cauldron["max_turns_per_second"],
                   stuck_s=cauldron["stuck_beam_seconds"], glitch_s=glitch_s,
                   # a ball must outlast the glitch limit, or no simulated drop would count
                   pulse_s=max(BALL_PULSE_S, 2 * glitch_s),
                   sink=sink, on_notice=on_notice)

    # consumers may be wired after construction (the table starts after devices)
    @property
    def sink(self) -> Sink | None:
        return self.cauldron.sink

    @sink.setter
    def sink(self, value: Sink | None) -> None:
        self.cauldron.sink = value

    @property
    def on_notice(self) -> NoticeSink | None:
        return self.cauldron.on_notice

    @on_notice.setter
    def on_notice(self, value: NoticeSink | None) -> None:
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
        unknown = [c for c in counts if c not in self.population]
        if unknown:
            log.warning("the simulated cauldron has no drops of colour %s; left out",
                        ", ".join(map(repr, unknown)))
        with self._stock:
            self._contents = collections.Counter(
                {c: int(n) for c, n in counts.items() if c in self.population and int(n) > 0})
            self._countdown = self._next_countdown()

    def handle_effect(self, effect: DeviceEffect) -> None:
        """``reset`` (every drop back in), ``set_contents`` (hold exactly these), ``fill``
        (drops emptied back in) and ``unfill`` (an undone emptying takes them out again)."""
        if effect["op"] == "set_contents":
            self.set_contents(effect["contents"])
        elif effect["op"] == "fill":
            with self._stock:
                for colour in effect["drops"]:
                    if colour not in self.population:
                        log.warning("fill effect names unknown drop colour %r; skipped", colour)
                        continue
                    self._contents[colour] += 1
                    if self._contents[colour] > self.population[colour]:
                        log.warning("the simulated cauldron now holds %d %s drops, more "
                                    "than the game has", self._contents[colour], colour)
        elif effect["op"] == "unfill":
            # An undone "empty the bowl": those drops go back out into the bowl.
            with self._stock:
                for colour in effect["drops"]:
                    if self._contents[colour] > 0:
                        self._contents[colour] -= 1
                    else:
                        log.warning("unfill effect takes a %s drop the simulated cauldron "
                                    "does not hold; skipped", colour)
        elif effect["op"] == "reset":
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

    def drop(self, colour: str | None = None) -> str:
        """Let one drop fall now: the named colour, or a random one of those inside."""
        with self._drive:
            colour = self._take(colour)
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
        if self.beam_unplugged:
            self.clock.advance(self.pulse_s)
            return
        with self.clock.held():           # the pulse is the ball's, not the scheduler's
            self._pin_beam.drive_low()    # the ball blocks the beam ...
            self.clock.advance(self.pulse_s)
            self._pin_beam.drive_high()   # ... and has passed
        # The sensor reads the ball that just landed: wait before the next one.
        self.cauldron.flush()

    # --- Device -----------------------------------------------------------------
    def status(self) -> CauldronStatus:
        status = self.cauldron.status()
        status.update({"simulated": True, "contents": self.contents(), "total": self.total()})
        return status

    def close(self) -> None:
        self.cauldron.close()
