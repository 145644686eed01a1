"""The forest floor on a stepper driven straight from the Pi's GPIO (step/dir).

Works with any step/dir driver: A4988, DRV8825, TMC2209 in step/dir mode. One
rising edge on STEP moves one (micro)step; DIR chooses the way; ENABLE (active
low on those boards) powers the coils only while moving, so the motor stays cool
and the floor can be turned by hand whenever it is idle.

Motion is a trapezoidal ramp (speed up, cruise, slow down) so the trees on the
floor do not topple. With lgpio pins it is queued as waves to lgpio's transmit
thread, which times every pulse (step_wave.py: the ``wave`` path); with other pin
factories a Python thread pulses it (the ``software`` path: no step ever comes sooner
than ``MIN_INTERVAL`` of its planned interval, late ones are made up gradually;
docs/forest-floor.md has the jitter figures). ``stop()`` halts at once.

Homing (always the software loop, to stop on the very step the sensor fires) turns
until a hall or optical sensor sees the home mark; if it has not seen it within 1.2
revolutions, or a driver's stall output trips (a TMC2209's DIAG, once ``tmc2209.py``
set its StallGuard up over UART), the floor goes to ``fault`` and the tablet tells the
master to turn by hand.

Jams, with any driver: once homed, the floor knows at which step the home mark
passes the sensor (every whole revolution from home). A move that should carry
the mark past the sensor but never sees it (the motor turned, the floor did not),
or sees it where no mark should be (the floor slipped), ends as ``fault`` with a
sentence starting "jam": the position is lost and the floor must be homed. A jam
is caught by the first move whose path crosses the mark, so within one revolution
of turning; a move that does not reach the mark cannot tell. On the wave path the
sensor's edges carry their own time, which the queued schedule turns into steps
(``_watch_waves``).
"""
from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from typing import Any, Callable

from gpiozero import DigitalInputDevice, DigitalOutputDevice

from ..config import SCHEMA
from ..contracts import FloorStatus
from ..firmware.markwatch import DEFAULT_CONFIRM, MISPLACED, MISSED, STUCK, MarkWatch as Rule, confirm_steps
from .base import Section
from .forest_floor import FloorBusy, ForestFloor, Launch, check_jam_tolerance
from .step_wave import LG_TX_BUF, POLL_S, RESYNC_WIDTH, LgpioStepTx, WaveRun, wave_handle

log = logging.getLogger(__name__)

HOME_NOT_FOUND = "home not found within 1.2 turns of the floor: turn it by hand"
HOME_STUCK = "the home sensor never switches off: check its wiring, then turn the floor by hand"
STALL = "the floor is stuck (stall): turn it by hand"
JAM = "jam"
HOMING_REVOLUTIONS = 1.2
STEP_TIMINGS = ("auto", "software")
EDGE_GRACE_S = 0.1
"""On the wave path a home-sensor edge reaches Python through lgpio's callback thread,
late on a busy Pi: a mark counts as missed only once the floor passed it this long ago."""
MIN_INTERVAL = 0.9
"""No step interval is shorter than this share of the planned one (catching up included)."""

_KEYS = SCHEMA["forest_floor"]      # the defaults of the keys left out: the plug-in's declared ones

__all__ = ["HOME_NOT_FOUND", "HOME_STUCK", "JAM", "STALL", "FloorBusy", "GpioForestFloor",
           "MarkWatch", "ramp_delays"]

Ending = tuple[str, str | None]
"""How a motion ended: ("done" | "stopped" | "fault", the fault sentence or None)."""


def ramp_delays(steps: int, start_speed: float, top_speed: float, acceleration: float) -> list[float]:
    """Seconds between step pulses for a trapezoidal move of ``steps`` steps.

    Speed after ``d`` steps from standstill is sqrt(v0² + 2·a·d), capped at the
    top speed, and the same counted back from the end: the move speeds up, cruises,
    and slows down symmetrically (a triangle when it is too short to cruise).
    """
    if steps <= 0:
        return []
    if not 0 < start_speed <= top_speed or acceleration <= 0:
        raise ValueError("need 0 < start_speed <= top_speed and acceleration > 0")
    out = []
    for i in range(steps):
        d = min(i, steps - 1 - i)
        speed = min(top_speed, math.sqrt(start_speed ** 2 + 2.0 * acceleration * d))
        out.append(1.0 / speed)
    return out


class MarkWatch:
    """The jam watch's one rule (controller/firmware/markwatch.py, which the Pico runs too)
    over one move, in this floor's words: ``level``, ``reached`` and ``after_step`` return
    None or the jam's sentence; ``take_correction()`` the whole steps to add to the count
    after a clockwise sighting re-synced it.

    Marks sit at every whole ``revolution`` of steps from home. A sighting counts once the
    sensor stayed active for ``confirm`` steps (a glitch is shorter); farther than
    ``tolerance`` from every mark it is a jam, and so is a mark the move passed by the
    tolerance unseen. Marks whose window overlaps the start or the end of the move are not
    required (the floor may already sit on one, or stop short of it).
    """

    def __init__(self, start: int, end: int, revolution: float, tolerance: float,
                 active_now: bool, steps_per_ant: float, confirm: int = DEFAULT_CONFIRM,
                 resync_width: int = RESYNC_WIDTH):
        self.steps_per_ant = steps_per_ant
        self.rule = Rule()
        self.rule.start(start, end, revolution, tolerance, confirm, active_now, resync_width)

    def after_step(self, steps: int, active: bool) -> str | None:
        """The floor's step count after a pulse and the sensor's level: None, or the jam."""
        return self.level(active, steps, steps) or self.reached(steps)

    def level(self, active: bool, low: int, high: int) -> str | None:
        """The sensor's level is ``active`` since the count was between ``low`` and ``high``
        (the same step on the software path; a window on the wave path, where the edge's
        time is mapped onto the queued steps)."""
        return self._words(self.rule.level(active, low, high))

    def reached(self, steps: int) -> str | None:
        """The floor has surely turned to ``steps``."""
        return self._words(self.rule.reached(steps))

    def take_correction(self) -> int:
        return round(self.rule.take_correction())

    @property
    def glitches(self) -> int:
        return self.rule.glitches

    def _words(self, verdict: int) -> str | None:
        if verdict == MISPLACED:
            return (f"{JAM}: the home mark passed {abs(self.rule.off) / self.steps_per_ant:.1f} "
                    "ants from where it should be, so the floor slipped or was pushed")
        if verdict == MISSED:
            return (f"{JAM}: the motor turned the floor past its home mark but the sensor "
                    "never saw it, so the floor did not turn")
        if verdict == STUCK:
            return (f"{JAM}: the home sensor kept seeing the mark while the motor turned "
                    f"{self.rule.off / self.steps_per_ant:.1f} ants on, so the floor did not turn")
        return None


class GpioForestFloor(ForestFloor):
    simulated = False

    def __init__(self, step_pin: int | str, dir_pin: int | str, *, enable_pin: int | str | None,
                 home_pin: int | str | None, stall_pin: int | str | None,
                 ants_around: int, steps_per_ant: float, top_speed: float, start_speed: float,
                 acceleration: float, homing_speed: float, invert_direction: bool,
                 pin_factory: Any, enable_active_low: bool = _KEYS["enable_active_low"].default,
                 home_active_low: bool = _KEYS["home_active_low"].default,
                 stall_active_high: bool = _KEYS["stall_active_high"].default, pulse_width: float = 5e-6,
                 notify_every: int | None = None,
                 jam_tolerance_ants: float = _KEYS["jam_tolerance_ants"].default,
                 home_mark_steps: int = _KEYS["home_mark_steps"].default, step_timing: str = "auto",
                 clock: Callable[[], float] = time.monotonic, driver: Any = None):
        """Speeds in steps per second, acceleration in steps per second².

        ``step_timing``: ``auto`` queues the pulses to lgpio's transmit thread when the
        pin factory is lgpio's (``wave``), else times them from a Python thread
        (``software``); ``software`` forces the Python loop everywhere.

        ``home_active_low``: most hall (A3144) and slotted optical sensors pull
        their output low at the mark, so the input uses the Pi's pull-up.
        ``jam_tolerance_ants``: how far from where it should be the home mark may be
        seen before the move is a jam (the mark must be narrower than this).
        ``home_mark_steps``: the mark's width as calibration measured it (0: not yet),
        which sizes the glitch filter: a sighting counts, and homing stops, only once
        the sensor read active on ``mark_confirm`` steps in a row.
        ``driver``: a ``tmc2209.Tmc2209Keeper`` (owned from here on): before each motion
        its settings are checked and, after a driver reset, written again.
        """
        super().__init__(ants_around, steps_per_ant)
        if step_timing not in STEP_TIMINGS:
            raise ValueError(f"step_timing must be one of {STEP_TIMINGS}, not {step_timing!r}")
        self.top_speed = float(top_speed)
        self.start_speed = float(min(start_speed, top_speed))
        self.acceleration = float(acceleration)
        self.homing_speed = float(homing_speed)
        self.invert_direction = bool(invert_direction)
        self.pulse_width = float(pulse_width)
        self._clock = clock
        self.driver = driver
        self.jam_tolerance = check_jam_tolerance(jam_tolerance_ants, self.steps_per_ant,
                                                 self.ants_around, home_mark_steps)
        self.mark_confirm = confirm_steps(home_mark_steps)
        # a status for the tablet about every quarter ant, not every step
        self.notify_every = notify_every or max(1, int(self.steps_per_ant // 4))
        self._devices: list[Any] = []
        self.step_out = self._own(DigitalOutputDevice(step_pin, initial_value=False, pin_factory=pin_factory))
        self.dir_out = self._own(DigitalOutputDevice(dir_pin, initial_value=False, pin_factory=pin_factory))
        self.enable_out = None
        if enable_pin is not None:
            self.enable_out = self._own(DigitalOutputDevice(
                enable_pin, active_high=not enable_active_low, initial_value=False, pin_factory=pin_factory))
        self.home_in = None
        if home_pin is not None:
            self.home_in = self._own(DigitalInputDevice(home_pin, pull_up=home_active_low, pin_factory=pin_factory))
        self.stall_in = None
        if stall_pin is not None:
            self.stall_in = self._own(DigitalInputDevice(
                stall_pin, pull_up=not stall_active_high, pin_factory=pin_factory))
            self.stall_in.when_activated = self._stall_edge
        # (the factory gpiozero really used: pin_factory=None means its default one)
        handle = wave_handle(self.step_out.pin_factory) if step_timing == "auto" else None
        self._tx = None if handle is None else LgpioStepTx(
            handle, int(self.step_out.pin.info.name.removeprefix("GPIO")))
        self.step_timing = "software" if self._tx is None else "wave"
        # home-sensor edges with their own timestamps, for the wave path's jam watch
        self._home_active_low = home_active_low
        self._home_edges: deque[tuple[float, bool]] = deque()
        self._recording_edges = False
        self._home_device_changed: Callable[[Any, Any], None] | None = None
        if self.home_in is not None:
            self._home_device_changed = self.home_in.pin.when_changed
            self.home_in.pin.when_changed = self._home_pin_changed
        self._steps = 0                  # motor steps from home, clockwise positive
        self._runs: list[tuple[int, int | None]] = []   # the last mark scan's active runs
        self._target_ants = 0            # where whole-ant moves aim, so rounding never drifts
        self._stalled = threading.Event()
        self._stop = threading.Event()
        self._jam: str | None = None
        # wave path: the steps played when the last move was cancelled (at least, at most)
        self.cancel_window: tuple[int, int] | None = None
        self._thread: threading.Thread | None = None
        # After a stop, a fault or a turn by hand the step count no longer matches
        # the floor: the tablet should home it again before trusting the position.
        self.needs_home = home_pin is not None
        self._closed = False

    @classmethod
    def from_config(cls, section: Section, *, pin_factory: Any) -> "GpioForestFloor":
        """From the ``[forest_floor]`` section (docs/config.md names the keys); a pin of -1
        means that input is not wired. With ``tmc2209_uart`` the driver's StallGuard is set
        up first, so its DIAG (on ``stall_pin``) reports stalls."""
        driver = None
        if section["tmc2209_uart"]:
            if section["stall_pin"] < 0:
                raise ValueError("forest_floor.tmc2209_uart is set but stall_pin is -1: wire the "
                                 "TMC2209's DIAG to a GPIO (GPIO26) and set stall_pin = 26")
            from .tmc2209 import Tmc2209Settings, open_keeper
            settings = Tmc2209Settings.for_floor(section)      # checked before anything is sent
            driver = open_keeper(section["tmc2209_uart"], settings)
            log.info("forest floor driver: %s", settings.describe())
        try:
            return cls(section["step_pin"], section["dir_pin"], enable_pin=section["enable_pin"],
                       home_pin=None if section["home_pin"] < 0 else section["home_pin"],
                       stall_pin=None if section["stall_pin"] < 0 else section["stall_pin"],
                       ants_around=section["ants_around"], steps_per_ant=section["steps_per_ant"],
                       top_speed=section["top_speed"], start_speed=section["start_speed"],
                       acceleration=section["acceleration"], homing_speed=section["homing_speed"],
                       invert_direction=section["invert_direction"],
                       enable_active_low=section["enable_active_low"],
                       home_active_low=section["home_active_low"],
                       stall_active_high=section["stall_active_high"],
                       jam_tolerance_ants=section["jam_tolerance_ants"],
                       home_mark_steps=section["home_mark_steps"], pin_factory=pin_factory,
                       driver=driver)
        except Exception:
            if driver is not None:
                driver.close()
            raise

    def _own(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    # --- the interface ------------------------------------------------------
    @property
    def position(self) -> float:
        return (self._steps / self.steps_per_ant) % self.ants_around

    @property
    def steps(self) -> int:
        """Motor steps turned since home (clockwise positive)."""
        return self._steps

    def stop(self) -> None:
        self._stop.set()
        thread = self._thread
        # (a listener may call stop() before the thread has even started: then it
        # sees the stop flag before its first step)
        if thread is not None and thread is not threading.current_thread() and thread.ident is not None:
            thread.join()
        self._release()

    def close(self) -> None:
        if self._closed:
            return
        self.stop()
        self._closed = True
        for device in reversed(self._devices):
            device.close()
        if self.driver is not None:
            self.driver.close()

    def status(self) -> FloorStatus:
        out = super().status()
        out["steps"] = self._steps
        out["step_timing"] = self.step_timing
        return out

    # --- the motion -------------------------------------------------------------
    def _check_free(self) -> None:
        if self._closed:
            raise RuntimeError("the forest floor has been closed")
        super()._check_free()

    def _plan_turn(self, ants: int) -> Launch:
        target = self._target_ants + ants
        steps = round(target * self.steps_per_ant) - self._steps
        self._target_ants = target
        return self._launch(self._move, steps, self.top_speed)

    def _plan_steps(self, steps: int) -> Launch:
        return self._launch(self._move, steps, self.top_speed, False)

    def _plan_scan(self, steps: int) -> Launch:
        return self._launch(self._scan, steps)

    def mark_runs(self) -> list[tuple[int, int | None]]:
        if self.home_in is None:
            raise NotImplementedError("this forest floor has no home sensor (forest_floor.home_pin)")
        return list(self._runs)

    def _plan_home(self) -> Launch:
        if self.home_in is None:
            # No sensor: the floor is where the master lined it up by hand.
            return self._launch(self._set_home_here)
        return self._launch(self._find_home)

    def _launch(self, motion: Callable[..., Ending], *args: Any) -> Launch:
        self._stop.clear()
        self._stalled.clear()
        self._thread = threading.Thread(target=self._guarded, args=(motion, *args),
                                        name="gpio-forest-floor", daemon=True)
        return self._thread.start

    def _guarded(self, motion: Callable[..., Ending], *args: Any) -> None:
        result: str = "fault"
        fault: str | None = "the floor's motor thread failed: turn it by hand"
        try:
            refused = self._driver_ready()
            if refused is not None:
                fault = refused
            else:
                result, fault = motion(*args)
        finally:
            if result != "done":
                # whole-ant moves go on from where the floor really is, not the old target
                self._target_ants = round(self._steps / self.steps_per_ant)
                self.needs_home = self.home_in is not None
            self._release()
            with self._lock:
                self._come_to_rest(result, fault)
            self._notify()

    def _driver_ready(self) -> str | None:
        """Before a motion: a TMC2209 reset since the last one (its motor supply cycled)
        gets its settings again; a driver that does not answer is the fault, in words."""
        if self.driver is None:
            return None
        from .tmc2209 import Tmc2209Error
        try:
            if self.driver.ensure():
                log.warning("the TMC2209 was reset (its motor supply cycled?): its settings "
                            "were written again")
        except Tmc2209Error as exc:
            return f"{exc}; turn the floor by hand"
        return None

    def _release(self) -> None:
        """Coils off: the motor idles cool and the floor turns freely by hand."""
        self.step_out.off()
        if self.enable_out is not None:
            self.enable_out.off()

    def _home_pin_changed(self, ticks: Any, state: Any) -> None:
        """The home pin's own callback (``ticks``: when the edge happened): kept for the
        wave path, then handed on to gpiozero's device as before."""
        if self._recording_edges:
            self._home_edges.append((float(ticks), bool(state) != self._home_active_low))
        if self._home_device_changed is not None:
            self._home_device_changed(ticks, state)

    def _stall_edge(self) -> None:
        self._stalled.set()

    # --- pulsing ---------------------------------------------------------------------
    def _set_direction(self, sign: int) -> None:
        clockwise = sign > 0
        self.dir_out.value = clockwise != self.invert_direction

    def _pulse(self, sign: int) -> float:
        """One step; returns a time just after STEP rose (never before it)."""
        self.step_out.on()
        rose = time.perf_counter()
        # The drivers want a minimum high time (≈1–2 µs): far too short to sleep for.
        until = rose + self.pulse_width
        while time.perf_counter() < until:
            pass
        self.step_out.off()
        self._steps += sign
        return rose

    def _drive(self, steps: int, delays: list[float], until: Callable[[], bool] | None = None,
               watch: MarkWatch | None = None) -> str:
        """Pulse ``abs(steps)`` steps with ``delays``; "done", "stopped", "stall", "until", or
        "jam" (``watch`` found the home mark missing or misplaced: ``self._jam`` says how)."""
        if self._stop.is_set():
            return "stopped"
        sign = 1 if steps > 0 else -1
        self._set_direction(sign)
        if self.enable_out is not None:
            self.enable_out.on()
            self._stop.wait(0.001)   # drivers need ~1 ms after enable before the first step
        # Steps are timed against a running deadline, so the loop's own overhead does not
        # slow the floor below the planned ramp; but no interval is ever shorter than
        # MIN_INTERVAL of the planned one: a step that came late is made up for a little
        # at a time, never by two pulses back to back (which a loaded motor would miss).
        due = time.perf_counter()
        last_rise: float | None = None
        for i, delay in enumerate(delays):
            if self._stop.is_set():
                return "stopped"
            if self._stalled.is_set() or (self.stall_in is not None and self.stall_in.is_active):
                return "stall"
            if until is not None and until():
                return "until"
            if last_rise is not None:
                earliest = last_rise + MIN_INTERVAL * delays[i - 1]
                while time.perf_counter() < earliest:   # the sleep ended a hair early
                    pass
            last_rise = self._pulse(sign)
            if watch is not None:
                assert self.home_in is not None
                self._jam = watch.after_step(self._steps, bool(self.home_in.is_active))
                if self._jam is not None:
                    return "jam"
                self._steps += watch.take_correction()
            if (i + 1) % self.notify_every == 0:
                self._notify()
            due = max(due + delay, last_rise + MIN_INTERVAL * delay)
            now = time.perf_counter()
            if due < now - delay:
                due = now          # fell a whole step behind (a busy Pi): never sprint to catch up
            if self._stop.wait(max(0.0, due - now)):
                return "stopped"
        if self._stalled.is_set():
            return "stall"
        return "done"

    def _drive_wave(self, steps: int, delays: list[float], watch: MarkWatch | None) -> str:
        """``_drive`` on lgpio: the pulses are queued in chunks to lgpio's transmit thread
        (step_wave.py), which times them; this thread only feeds the queue, checks stop,
        stall and the home mark, and counts. "done", "stopped", "stall" or "jam"."""
        if self._stop.is_set():
            return "stopped"
        tx = self._tx
        assert tx is not None
        sign = 1 if steps > 0 else -1
        self._set_direction(sign)            # settled long before the lead-in ends
        if self.enable_out is not None:
            self.enable_out.on()             # the lead-in wave is the driver's ~1 ms wake-up
        run = WaveRun(delays, high_us=max(1, round(self.pulse_width * 1e6)))
        base = self._steps                   # + resync corrections; + sign × steps played
        self._home_edges.clear()
        self._recording_edges = watch is not None
        how, waiting, notified, played_out = "done", 0, 0, False

        def at(count: int) -> int:
            return base + sign * count

        run.begin(self._clock())
        try:
            while True:
                # (``waiting`` is from the last look and only falls meanwhile: the room is
                # never overestimated. Should the one wave left end in between, the next
                # starts at the thread's next wake: a late step, and the clock re-anchors.)
                for wave in run.next_waves(LG_TX_BUF - waiting, waiting):
                    run.queued(tx.queue(wave))   # (the room left says if it found the queue idle)
                    waiting += 1
                if self._stop.wait(POLL_S):
                    how = "stopped"
                elif self._stalled.is_set() or (self.stall_in is not None and self.stall_in.is_active):
                    how = "stall"
                if how != "done":
                    break
                # the clock on both sides of the read: preempted in between, the feeder
                # still knows the queue was read after ``asked`` and by ``now``
                asked = self._clock()
                waiting = tx.waiting()
                now = self._clock()
                run.look(now, waiting, asked)
                finished = waiting == 0 and run.all_queued
                if watch is not None:
                    if finished:             # the last edges may still be on their way
                        self._stop.wait(EDGE_GRACE_S)
                    jam, correction = self._watch_waves(run, watch, at, now, finished)
                    base += correction
                    if jam is not None:
                        self._jam, how = jam, "jam"
                        break
                if finished:
                    played_out = True
                    break
                best = run.estimate(now)[1]
                self._steps = at(best)
                if best // self.notify_every > notified:
                    notified = best // self.notify_every
                    self._notify()
        finally:
            self._recording_edges = False
            if not played_out:
                # stop, stall, jam or an error: drop the queue at once, then count what played
                before = self._clock()
                waiting = tx.waiting()
                tx.cancel()
                low, high = run.count_at_cancel(before, self._clock(), waiting)
                self._steps = at((low + high) // 2)
                self.cancel_window = (low, high)
        if how == "done":
            self._steps = at(run.steps)      # every queued pulse played: exact
        return how

    def _watch_waves(self, run: WaveRun, watch: MarkWatch, at: Callable[[int], int], now: float,
                     finished: bool) -> tuple[str | None, int]:
        """The home mark on the wave path: each sensor edge's own time is mapped onto the
        queued steps (a window of steps, see ``WaveRun.steps_at``), and a mark counts as
        missed only once the steps surely played ``EDGE_GRACE_S`` ago passed it. Returns (the jam or None, the count correction from a re-sync)."""
        correction = 0
        while self._home_edges:
            ticks, active = self._home_edges.popleft()
            least, _, most = run.estimate(ticks)
            low, high = sorted((at(least) + correction, at(most) + correction))
            jam = watch.level(active, low - 1, high + 1)   # ±1: the tick against the step's edge
            correction += watch.take_correction()
            if jam is not None:
                return jam, correction
        # (the clock's lower bound: most steps play inside one queued wave, so the queue
        # itself says little mid-move; a thread later than the grace could call a jam early)
        played = run.steps if finished else run.estimate(now - EDGE_GRACE_S)[0]
        jam = watch.reached(at(played) + correction)
        return jam, correction + watch.take_correction()

    def _move(self, steps: int, speed: float, watched: bool = True) -> Ending:
        """``steps`` from here; ``watched``: checked against the home mark (a calibration
        nudge runs on a guessed steps per ant, so it is not)."""
        goal = self._steps + steps
        how = "done"
        # A clockwise sighting may re-sync the count on the way: then the floor goes on the
        # rest of the way (a few steps, back or on) so it ends exactly at its goal.
        for _ in range(3):
            left = goal - self._steps
            if left == 0:
                break
            delays = ramp_delays(abs(left), self.start_speed, speed, self.acceleration)
            watch = self._mark_watch(left) if watched else None
            if self._tx is not None:
                how = self._drive_wave(left, delays, watch)
            else:
                how = self._drive(left, delays, watch=watch)
            if how != "done" or watch is None:
                break
        if how == "stall":
            return "fault", STALL
        if how == "jam":
            return "fault", f"{self._jam}; its position is lost: home the floor before its next turn"
        return how, None

    def _mark_watch(self, steps: int) -> MarkWatch | None:
        """A watch on the home mark for a move of ``steps``, once homing made it mean something."""
        if self.home_in is None or self.needs_home:
            return None
        revolution = self.steps_per_ant * self.ants_around
        return MarkWatch(self._steps, self._steps + steps, revolution, self.jam_tolerance,
                         bool(self.home_in.is_active), self.steps_per_ant, self.mark_confirm)

    def _scan(self, steps: int) -> Ending:
        """``steps`` clockwise on the turn's own ramp, on the software loop so the sensor is
        read before every step (the level after the one before): each run of active
        readings noted. At speed, as in a game: a sensor that samples shows it most there."""
        home_in = self.home_in
        self._runs = []
        if home_in is None or steps <= 0:
            return "done", None
        was = [bool(home_in.is_active)]

        def sample() -> bool:
            active = bool(home_in.is_active)
            if active and not was[0]:
                self._runs.append((self._steps, None))
            elif was[0] and not active and self._runs and self._runs[-1][1] is None:
                self._runs[-1] = (self._runs[-1][0], self._steps)
            was[0] = active
            return False
        delays = ramp_delays(steps, self.start_speed, self.top_speed, self.acceleration)
        how = self._drive(steps, delays, until=sample)
        sample()                             # the level after the last step
        if how == "stall":
            return "fault", STALL
        return how, None

    def _set_home_here(self) -> Ending:
        self._steps = 0
        self._target_ants = 0
        return "done", None

    def _find_home(self) -> Ending:
        home_in = self.home_in
        assert home_in is not None          # planned only with a home sensor
        revolution = self.steps_per_ant * self.ants_around
        limit = math.ceil(HOMING_REVOLUTIONS * revolution)
        speed = min(self.homing_speed, self.top_speed)
        start = min(self.start_speed, speed)
        cruise = [1.0 / speed] * limit
        confirm = self.mark_confirm

        def held(level: bool) -> Callable[[], bool]:
            """True once the sensor read ``level`` on ``confirm`` steps in a row (sampled
            before each step): a glitch on the wire is shorter."""
            run = [0]

            def check() -> bool:
                run[0] = run[0] + 1 if bool(home_in.is_active) == level else 0
                return run[0] >= confirm
            return check

        # Already on the mark: back off counter-clockwise first, so home is always
        # approached from the same side and its edge is the same spot every time.
        if home_in.is_active:
            how = self._drive(-limit, [1.0 / start] * limit, until=held(False))
            if how == "stopped":
                return "stopped", None
            if how == "stall":
                return "fault", STALL
            if how == "done":
                return "fault", HOME_STUCK
        self._steps = 0
        how = self._drive(limit, cruise, until=held(True))
        if how == "until":
            # home is the first step the sensor saw the mark on; the floor stands on the
            # step that confirmed it
            self._steps = confirm - 1
            self._target_ants = 0
            self.needs_home = False
            return "done", None
        if how == "stall":
            return "fault", STALL
        if how == "stopped":
            return "stopped", None
        return "fault", HOME_NOT_FOUND
