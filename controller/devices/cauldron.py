"""The cauldron: twist-grip encoder, drop beam and optional colour sensor, on gpiozero.

- The twist-grip turns a ``gpiozero.RotaryEncoder``: counter-clockwise is mixing,
  clockwise is dispensing. A full clockwise revolution with no drop gives the
  rulebook's advice ("turn back a little, then forward again"); turning faster
  than ``max_rev_per_s`` gives "turn gently".
- The drop beam is a ``gpiozero.DigitalInputDevice`` watched on both edges (not
  ``LineSensor``, which polls too slowly for a ball that blocks the beam for
  3-15 ms). Pulse lengths come from the edges' own timestamps (the ``ticks`` the
  pin factory hands to the pin's ``when_changed``: lgpio's kernel timestamp), never
  from the clock when the callback runs: lgpio delivers callbacks from one thread,
  and when that thread is held up both edges of a ball arrive back to back.
  Shorter than ``glitch_s`` is noise, longer than ``stuck_s`` is a sensor fault
  (reported once, never a drop), anything between is exactly one drop. RPi.GPIO
  hands over no edge time, so the beam refuses it (``pins.require_edge_times``).
- An optional colour sensor names the drop's colour when it lands.

Game actions go to ``sink`` ({"type": "drop", "colour": ...} or
{"type": "sensor_fault", "message": ...}); hints for the players go to
``on_notice`` ({"kind": ..., "message": ...}). Both are called from one
delivery thread, never from the GPIO callback, so a slow consumer (database,
I2C read) cannot distort the pulse timing. ``flush()`` waits until everything
seen so far has been delivered.
"""
from __future__ import annotations

import collections
import logging
import math
import queue
import threading
import time
from types import EllipsisType
from typing import Any, Callable

from gpiozero import Device as GpioDevice, DigitalInputDevice, RotaryEncoder

from ..contracts import Action, NoticeSink, Sink
from .base import Device, Section
from .colour_sensor import ColourSensor
from .pins import require_edge_times

log = logging.getLogger(__name__)

Clock = Callable[[], float]

DISPENSING, MIXING = "dispensing", "mixing"

STUCK_MESSAGE = "The cauldron may be stuck: turn back a little, then forward again."
TOO_FAST_MESSAGE = "Turn gently! Not so fast, or the drops jam."
LOST_EDGE_MESSAGE = ("The drop sensor missed a change of its beam (the Pi read its events too "
                     "late), so a drop may not have been counted: if one fell, add it on the "
                     "tablet.")

_STOP = object()


class Cauldron(Device):
    """The real cauldron's sensors on any gpiozero pin factory (``MockFactory`` included)."""

    name = "cauldron"

    def __init__(self, encoder_a: int | str, encoder_b: int | str, beam: int | str, *,
                 pin_factory: Any, detents_per_rev: int, reverse: bool,
                 beam_pull_up: bool | None, beam_dark: str, glitch_s: float, stuck_s: float,
                 max_rev_per_s: float, colour_sensor: ColourSensor | None = None,
                 sink: Sink | None = None, on_notice: NoticeSink | None = None,
                 clock: Clock = time.monotonic, wall: Clock = time.time):
        """Pins are BCM numbers (or gpiozero pin names). ``beam_pull_up`` None: the beam
        output drives both levels itself, and ``beam_dark`` says which one is "dark".

        ``clock`` times the grip and the stuck-beam watchdog; pulse widths come from the
        pin factory's edge ticks (``pin_factory.ticks_diff``)."""
        if detents_per_rev < 1:
            raise ValueError(f"detents per revolution must be at least 1, got {detents_per_rev}")
        if beam_dark not in ("low", "high"):
            raise ValueError(f'beam_dark must be "low" or "high", got {beam_dark!r}')
        if not 0 <= glitch_s < stuck_s:
            raise ValueError("the glitch limit must be shorter than the stuck-beam limit "
                             f"(got {glitch_s} s and {stuck_s} s)")
        self.detents_per_rev = detents_per_rev
        self.reverse = reverse
        self.glitch_s = glitch_s
        self.stuck_s = stuck_s
        self.max_rev_per_s = max_rev_per_s
        self.colour_sensor = colour_sensor
        self.sink = sink
        self.on_notice = on_notice
        self._clock = clock
        self._wall = wall

        self._lock = threading.RLock()
        self._drop_seen = threading.Condition(self._lock)
        self._closed = False
        # beam
        self._dark_since: float | None = None     # clock() when the dark edge was seen
        self._dark_tick: Any = None                # the dark edge's own timestamp
        self._clear_seen_at: float | None = None   # clock() the watchdog found the pin clear
        self.edges_lost = 0                        # impossible level sequences seen
        self._lost_told_at: float | None = None
        self.watchdog_looks = 0                    # dark spells the watchdog judged (tests)
        self._episode = 0
        self._episode_faulted = False
        self._beam_changed = threading.Condition(self._lock)
        self.fault: str | None = None
        self._colour_fault = False
        self._dazzle_told = False                  # the "colour sensor at full scale" notice
        self.drops_seen = 0
        self.glitches_ignored = 0
        self.last_drop_at: float | None = None
        self.last_drop_colour: str | None = None
        # grip
        self.position = 0
        self.direction: str | None = None
        self._cw_since_drop = 0
        self._speed_window = max(2, detents_per_rev // 4)   # detents the speed is judged over
        self._recent: collections.deque[float] = collections.deque(maxlen=self._speed_window)
        self._too_fast = False
        # delivery
        self._outbox: queue.Queue = queue.Queue()
        self._pending = 0
        self._idle = threading.Condition()
        self._worker = threading.Thread(target=self._deliver_loop, name="cauldron-events",
                                        daemon=True)
        self._worker.start()
        # One long-lived watchdog: starting a timer per pulse would cost the edge
        # callback a thread start each time.
        self._watchdog = threading.Thread(target=self._watch_beam, name="cauldron-beam-watchdog",
                                          daemon=True)
        self._watchdog.start()

        self._encoder: RotaryEncoder | None = None
        self._beam: DigitalInputDevice | None = None
        try:
            require_edge_times(pin_factory if pin_factory is not None
                               else GpioDevice.ensure_pin_factory(), "the drop beam")
            # max_steps=0: count without limit; we keep our own position anyway.
            self._encoder = RotaryEncoder(encoder_a, encoder_b, max_steps=0,
                                          pin_factory=pin_factory)
            self._encoder.when_rotated_clockwise = lambda: self._on_detent(-1 if reverse else 1)
            self._encoder.when_rotated_counter_clockwise = (
                lambda: self._on_detent(1 if reverse else -1))
            # gpiozero wants active_state only for a floating pin; with a pull
            # resistor "active" means the level away from the pull.
            self._beam = DigitalInputDevice(
                beam, pull_up=beam_pull_up,
                active_state=(beam_dark == "high") if beam_pull_up is None else None,
                pin_factory=pin_factory)
            active_level = ("low" if beam_pull_up else "high") if beam_pull_up is not None \
                else beam_dark
            self._dark_is_active = active_level == beam_dark
            self._dark_level = beam_dark == "high"
            self._factory = self._beam.pin_factory
            # The pin-level callback, not when_activated: only it carries the edge's
            # timestamp and the level the edge went to.
            self._beam.pin.when_changed = self._on_beam_edge
            if self.beam_dark:
                self._on_dark(None)  # a ball already blocks the beam at start-up: no edge time
        except Exception:
            self.close()
            raise

    @classmethod
    def from_config(cls, section: Section, *, pin_factory: Any,
                    colour_sensor: ColourSensor | None | EllipsisType = ...,
                    sink: Sink | None = None, on_notice: NoticeSink | None = None,
                    clock: Clock = time.monotonic, wall: Clock = time.time) -> "Cauldron":
        """Build from the ``[cauldron]`` config section (docs/config.md names the keys).

        The colour sensor comes from the same section (``colour_sensor``, ``i2c_bus``,
        ``colours``) unless one is passed in (None: none).
        """
        if colour_sensor is ...:
            from .colour_sensor import make_colour_sensor
            colour_sensor = make_colour_sensor(section)
        active_low = section["beam_active_low"]
        try:
            return cls(section["encoder_a"], section["encoder_b"], section["beam"],
                       pin_factory=pin_factory,
                       detents_per_rev=section["detents_per_revolution"],
                       reverse=section["encoder_reverse"],
                       # an output that goes low for "dark" idles high: pull it up
                       beam_pull_up=active_low, beam_dark="low" if active_low else "high",
                       glitch_s=section["glitch_ms"] / 1000.0,
                       stuck_s=section["stuck_beam_seconds"],
                       max_rev_per_s=section["max_turns_per_second"],
                       colour_sensor=colour_sensor, sink=sink, on_notice=on_notice,
                       clock=clock, wall=wall)
        except Exception:
            if colour_sensor is not None:
                colour_sensor.close()
            raise

    # --- what the daemon reads ----------------------------------------------
    @property
    def beam_dark(self) -> bool:
        assert self._beam is not None            # set up in __init__ or never built
        active = bool(self._beam.is_active)
        return active if self._dark_is_active else not active

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {
                "simulated": self.simulated,
                "position": self.position,
                "revolutions": round(self.position / self.detents_per_rev, 3),
                "direction": self.direction,
                "beam": "dark" if self._dark_since is not None else "clear",
                "fault": self.fault,
                "drops_seen": self.drops_seen,
                "glitches_ignored": self.glitches_ignored,
                "edges_lost": self.edges_lost,
                "last_drop_at": self.last_drop_at,
                "last_drop_colour": self.last_drop_colour,
                "colour_sensor": self.colour_sensor is not None,
            }

    def wait_for_drop(self, timeout: float | None = None, after: int | None = None) -> bool:
        """Block until the beam sees a valid drop; False on timeout.

        ``after``: a ``drops_seen`` count read earlier; a drop since then counts
        too, so a ball that falls before the call is not missed.
        """
        with self._drop_seen:
            start = self.drops_seen if after is None else after
            return self._drop_seen.wait_for(lambda: self.drops_seen > start, timeout)

    def beam_waiter(self) -> Callable[[float], bool]:
        """``wait(timeout) -> bool`` for calibration: each call returns on the next drop
        not yet returned for, so a ball that falls between two calls is not missed."""
        with self._lock:
            seen = [self.drops_seen]

        def wait(timeout: float) -> bool:
            if self.wait_for_drop(timeout, after=seen[0]):
                seen[0] += 1
                return True
            return False
        return wait

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every event seen so far has reached the sink and notice callback."""
        if threading.current_thread() is self._worker:
            return False  # a consumer calling back into us: waiting would deadlock
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    # --- the beam -------------------------------------------------------------
    def _on_beam_edge(self, ticks: Any, state: Any) -> None:
        """The pin's callback: ``ticks`` is when the edge happened, ``state`` the level it
        went to (both from the pin factory, however late this call comes)."""
        if bool(state) == self._dark_level:
            self._on_dark(ticks)
        else:
            self._on_light(ticks)

    def _on_dark(self, ticks: Any) -> None:
        with self._lock:
            if self._dark_since is not None:
                if ticks is not None:
                    # dark after dark: the light edge between was lost (the kernel's event
                    # FIFO overflowed, or lgpio's pipe): a ball ended and one began unseen
                    self._lost_edge()
                    self._dark_tick = ticks    # the new spell is timed from its own edge
                    self._dark_since = self._clock()
                return
            self._dark_since = self._clock()
            self._clear_seen_at = None
            self._dark_tick = ticks
            self._episode += 1
            self._episode_faulted = False
            self._beam_changed.notify_all()

    def _on_light(self, ticks: Any) -> None:
        with self._lock:
            since, self._dark_since = self._dark_since, None
            if since is None:
                self._lost_edge()              # light after light: a dark edge went missing
                return
            self._beam_changed.notify_all()
            length = (self._factory.ticks_diff(ticks, self._dark_tick)
                      if self._dark_tick is not None else -1.0)
            if length < 0:
                # no dark edge (dark at start-up), or the edge clock was set back between
                # the two edges: the callbacks' own clock is the best there is
                length = self._clock() - since
            if self._episode_faulted:
                self.fault = None
                self._post("notice", {"kind": "beam_ok",
                                      "message": "The drop sensor sees its beam again."})
                return
            if length < self.glitch_s:
                self.glitches_ignored += 1  # electrical noise or a flicker, not a ball
                return
            if length > self.stuck_s:
                # The watchdog did not get there first (it runs on a timer).
                self._post("action", {"type": "sensor_fault",
                                      "message": self._stuck_beam_message(length)})
                return
            self.drops_seen += 1
            self.last_drop_at = self._wall()
            self._cw_since_drop = 0
            self._drop_seen.notify_all()
            self._post("drop", None)

    def _dark_for(self) -> float:
        """How long the beam has been dark, by the dark edge's own time where there is one
        (a callback thread held up must not lengthen it), else by this clock."""
        assert self._dark_since is not None
        if self._dark_tick is not None:
            held = self._factory.ticks_diff(self._factory.ticks(), self._dark_tick)
            if held >= 0:
                return held
        return self._clock() - self._dark_since

    def _watch_beam(self) -> None:
        """Report a beam that stays dark too long while it is still dark. Judged on the
        edge's own time and on the pin as it reads now: a pin that reads clear has had its
        light edge, which the callback thread will still bring (it may be held up); one that
        never comes was lost, and is reported as such, never as a stuck beam."""
        with self._lock:
            while not self._closed:
                if self._dark_since is None or self._episode_faulted:
                    self._beam_changed.wait()
                    continue
                dark_for = self._dark_for()
                if dark_for < self.stuck_s:  # the clock is the judge, not the wait
                    self._beam_changed.wait(self.stuck_s - dark_for)
                    continue
                self.watchdog_looks += 1
                if not self.beam_dark:
                    now = self._clock()
                    if self._clear_seen_at is None:
                        self._clear_seen_at = now
                    if now - self._clear_seen_at < self.stuck_s:
                        self._beam_changed.wait(self.stuck_s - (now - self._clear_seen_at))
                        continue
                    # clear for a whole stuck time and still no light edge: it was lost
                    self._dark_since = self._dark_tick = self._clear_seen_at = None
                    self._lost_edge()
                    continue
                self._episode_faulted = True
                self.fault = self._stuck_beam_message(dark_for)
                self._post("action", {"type": "sensor_fault", "message": self.fault})

    def _lost_edge(self) -> None:
        """An edge the pin factory never handed over (lock held): say so, once a second at
        most; which drop it was cannot be known, so nothing is counted for it."""
        self.edges_lost += 1
        now = self._clock()
        if self._lost_told_at is None or now - self._lost_told_at >= 1.0:
            self._lost_told_at = now
            self._post("notice", {"kind": "sensor", "message": LOST_EDGE_MESSAGE})

    def _stuck_beam_message(self, dark_for: float) -> str:
        return (f"The drop sensor has been dark for {dark_for:.1f} s (more than "
                f"{self.stuck_s:g} s): a drop may be stuck in the spout, or the beam is "
                "blocked, or its emitter unplugged. Nothing was counted as a drop.")

    # --- the twist-grip -------------------------------------------------------
    def _on_detent(self, step: int) -> None:
        with self._lock:
            now = self._clock()
            direction = DISPENSING if step > 0 else MIXING
            if direction != self.direction:
                self._recent.clear()
                self._too_fast = False
            self.direction = direction
            self.position += step
            self._recent.append(now)
            self._check_speed()
            if step > 0:
                self._cw_since_drop += 1
                if self._cw_since_drop >= self.detents_per_rev:
                    self._cw_since_drop = 0
                    self._post("notice", {"kind": "stuck", "message": STUCK_MESSAGE})
            else:
                self._cw_since_drop = 0  # turning back is the cure; count afresh

    def _check_speed(self) -> None:
        if len(self._recent) < self._speed_window:
            return
        span = self._recent[-1] - self._recent[0]
        turns = (len(self._recent) - 1) / self.detents_per_rev
        rate = turns / span if span > 0 else math.inf
        if rate > self.max_rev_per_s:
            if not self._too_fast:  # once per fast spell, not once per detent
                self._too_fast = True
                self._post("notice", {"kind": "too_fast", "message": TOO_FAST_MESSAGE})
        elif rate < 0.8 * self.max_rev_per_s:
            self._too_fast = False

    # --- delivery -------------------------------------------------------------
    def _post(self, kind: str, payload: Any) -> None:
        with self._idle:
            self._pending += 1
        self._outbox.put((kind, payload))

    def _deliver_loop(self) -> None:
        while True:
            item = self._outbox.get()
            if item is _STOP:
                return
            kind, payload = item
            try:
                if kind == "drop":
                    self._deliver_drop()
                elif kind == "action":
                    self._call(self.sink, payload)
                else:
                    self._call(self.on_notice, payload)
            finally:
                with self._idle:
                    self._pending -= 1
                    if self._pending == 0:
                        self._idle.notify_all()

    def _deliver_drop(self) -> None:
        action: Action = {"type": "drop"}
        if self.colour_sensor is not None:
            try:
                colour = self.colour_sensor.colour_of_drop()
                self._colour_fault = False
            except Exception as exc:  # the drop still counts; the tablet asks its colour
                colour = None
                if not self._colour_fault:
                    self._colour_fault = True
                    self._call(self.sink, {"type": "sensor_fault",
                                           "message": f"The colour sensor failed: {exc}"})
            if colour is not None:
                action["colour"] = colour
            self._tell_dazzle(self.colour_sensor)
        with self._lock:
            self.last_drop_colour = action.get("colour")
        self._call(self.sink, action)

    def _tell_dazzle(self, sensor: ColourSensor) -> None:
        """A reading at full scale is no colour (the tablet asks); the maker hears why once
        a spell, with the setting to change."""
        if not sensor.last_saturated:
            self._dazzle_told = False
            return
        if not self._dazzle_told:
            self._dazzle_told = True
            self._call(self.on_notice, {
                "kind": "sensor",
                "message": "The colour sensor was dazzled (its reading at full scale), so it "
                           "cannot tell this drop's colour: choose it on the tablet, and "
                           f"{sensor.fix_saturation}."})

    @staticmethod
    def _call(callback: Callable[[Any], None] | None, payload: Any) -> None:
        if callback is None:
            return
        try:
            callback(payload)
        except Exception:
            log.exception("cauldron consumer failed on %r", payload)

    # --- shutting down ----------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._beam_changed.notify_all()
        for device in (self._encoder, self._beam):
            if device is not None:
                device.close()  # releases the pins for the next owner
        self.flush(timeout=2.0)
        self._outbox.put(_STOP)
        if threading.current_thread() is not self._worker:
            self._worker.join(timeout=2.0)
        if threading.current_thread() is not self._watchdog:
            self._watchdog.join(timeout=2.0)
        if self.colour_sensor is not None:
            self.colour_sensor.close()
