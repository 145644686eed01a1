"""The forest floor, the disc that turns under the board: one interface, several back-ends.

Back-ends: simulated (moves over time), GPIO step/dir through gpiozero, and
serial through the Pi Pico firmware. The table hands them engine effects such as
``{"device": "forest_floor", "op": "rotate", "ants": 3, "direction": "clockwise"}``.

``ForestFloor`` keeps what every back-end shares: the interface (``rotate``,
``move_steps``, ``home``), the bookkeeping of the current move (``last_move``: which
move, and whether it is still ``moving`` or ended ``done``, ``stopped`` or ``fault``),
``wait_idle`` and the status listeners. A back-end only plans and runs its own motion
(``_plan_turn``, ``_plan_steps``, ``_plan_home``, ``stop``, ``position``).
"""
from __future__ import annotations

import threading
from typing import Any, Callable

from ..contracts import DeviceEffect, FloorStatus
from .base import Device

CLOCKWISE = "clockwise"
COUNTER_CLOCKWISE = "counter_clockwise"
DIRECTIONS = (CLOCKWISE, COUNTER_CLOCKWISE)

IDLE, MOVING, HOMING, FAULT = "idle", "moving", "homing", "fault"
RESULTS = ("moving", "done", "stopped", "fault")

Move = dict[str, Any]
"""``{"ants": 3, "direction": "clockwise"}``, ``{"steps": 25}`` or ``{"home": True}``,
plus ``"result"`` (one of ``RESULTS``) once it is the floor's ``last_move``."""

Listener = Callable[[FloorStatus], None]
Launch = Callable[[], None]
"""What a back-end's plan returns: sets the planned motion going (called without the lock,
after the listeners heard "moving")."""


def check_jam_tolerance(tolerance_ants: float, steps_per_ant: float, ants_around: int,
                        mark_steps: int = 0) -> float:
    """The jam watch's tolerance in steps, after checking it makes sense: above 0,
    below half the rim, and wider than the home mark (``mark_steps``, 0: not measured),
    whose far side a counter-clockwise move sees first. Raises ValueError naming the keys."""
    if not 0 < tolerance_ants < ants_around / 2:
        raise ValueError(f"jam_tolerance_ants must be above 0 and below half the rim "
                         f"({ants_around / 2:g} ants), got {tolerance_ants}")
    steps = tolerance_ants * steps_per_ant
    if mark_steps >= steps:
        raise ValueError(f"forest_floor.home_mark_steps = {mark_steps} is as wide as the jam "
                         f"tolerance ({tolerance_ants:g} ants = {steps:g} steps): the mark must be "
                         "narrower (a smaller magnet or flag), or raise jam_tolerance_ants")
    return steps


class FloorBusy(RuntimeError):
    """A move was asked for while the floor is still turning or homing."""


class ForestFloor(Device):
    """Base class. ``position`` is in ants (0 .. ants_around-1, may be fractional while moving)."""

    name = "forest_floor"
    # True while where the floor stands is not trusted (never homed, or lost since): home
    # it before its next turn. Every back-end reports it in its status, under this name.
    needs_home: bool = False

    def __init__(self, ants_around: int, steps_per_ant: float):
        if ants_around < 1:
            raise ValueError("ants_around must be at least 1")
        if steps_per_ant <= 0:
            raise ValueError("steps_per_ant must be positive (run `potionpi calibrate floor`)")
        self.ants_around = int(ants_around)
        self.steps_per_ant = float(steps_per_ant)
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()
        # notified (lock held) whenever the state may have changed: wait_idle waits on it
        self._changed = threading.Condition(self._lock)
        self.state = IDLE
        self.fault: str | None = None
        self.last_move: Move | None = None

    # --- the interface --------------------------------------------------------
    def rotate(self, ants: int, direction: str) -> None:
        """Start turning ``ants`` ants; returns at once, status goes moving → idle."""
        signed = self.signed_ants(ants, direction)
        self._start_move(MOVING, {"ants": ants, "direction": direction},
                         lambda: self._plan_turn(signed))

    def move_steps(self, steps: int) -> None:
        """Nudge by motor steps (calibration); clockwise for positive steps."""
        self._start_move(MOVING, {"steps": steps}, lambda: self._plan_steps(steps))

    def home(self) -> None:
        """Find the home mark; status goes homing → idle, or fault."""
        self._start_move(HOMING, {"home": True}, self._plan_home)

    def mark_scan(self, steps: int) -> None:
        """Turn ``steps`` clockwise with the home sensor watched on every step (calibration,
        no jam verdicts); ``mark_runs()`` then says where it read active."""
        self._start_move(MOVING, {"steps": steps}, lambda: self._plan_scan(steps))

    def mark_runs(self) -> list[tuple[int, int | None]]:
        """Where the home sensor read active during the last scan: (first step, first step
        after) in steps from home, the second None if it still read active at the end."""
        raise NotImplementedError("this forest floor has no home sensor to measure")

    def stop(self) -> None:
        """Halt at once (the tablet's big stop button)."""
        raise NotImplementedError

    def turn_over(self) -> None:
        """The game no longer waits for the current turn (the master tapped done, a new
        game began). A back-end that may carry a turn on by itself (after a link fault)
        must not do so any more; the others have nothing to do."""

    @property
    def position(self) -> float:
        raise NotImplementedError

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the floor rests (idle or fault); False if still busy after ``timeout``."""
        with self._changed:
            return self._changed.wait_for(lambda: self.state not in (MOVING, HOMING), timeout)

    def on_change(self, listener: Listener) -> None:
        """Call ``listener(status)`` whenever state or position changes."""
        self._listeners.append(listener)

    def status(self) -> FloorStatus:
        return {"simulated": self.simulated, "state": self.state,
                "position": round(self.position, 3), "ants_around": self.ants_around,
                "fault": self.fault, "needs_home": self.needs_home,
                "last_move": dict(self.last_move) if self.last_move else None}

    def handle_effect(self, effect: DeviceEffect) -> None:
        if effect["op"] == "rotate":
            self.rotate(int(effect["ants"]), effect["direction"])
        elif effect["op"] == "home":
            self.home()
        elif effect["op"] == "stop":
            self.stop()

    @staticmethod
    def signed_ants(ants: int, direction: str) -> int:
        """``ants`` with a sign: clockwise positive. ValueError names what is allowed."""
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, not {direction!r}")
        if ants < 0:
            raise ValueError("ants must be zero or more")
        return ants if direction == CLOCKWISE else -ants

    # --- what a back-end writes: its own motion (each called with the lock held) ----
    def _plan_turn(self, ants: int) -> Launch:
        """Plan a turn of ``ants`` whole ants (clockwise positive)."""
        raise NotImplementedError

    def _plan_steps(self, steps: int) -> Launch:
        """Plan a nudge of ``steps`` motor steps (clockwise positive)."""
        raise NotImplementedError

    def _plan_home(self) -> Launch:
        """Plan the search for the home mark."""
        raise NotImplementedError

    def _plan_scan(self, steps: int) -> Launch:
        """Plan a scan of the home mark; a back-end whose moves note the sensor anyway (the
        Pico's) makes it a nudge."""
        return self._plan_steps(steps)

    def _check_free(self) -> None:
        """Refuse a new move while one runs (a back-end that queues moves allows it)."""
        if self.state in (MOVING, HOMING):
            raise FloorBusy("the forest floor is still turning")

    # --- the shared bookkeeping -------------------------------------------------
    def _start_move(self, state: str, move: Move, plan: Callable[[], Launch]) -> None:
        with self._lock:
            self._check_free()
            self._begin_move(state, move)
            launch = plan()
        self._notify()          # "moving" reaches listeners before any position from the motion
        launch()

    def _begin_move(self, state: str, move: Move) -> None:
        """A move starts (lock held): the floor is busy and ``last_move`` says "moving"."""
        self.state, self.fault = state, None
        self.last_move = dict(move, result="moving")

    def _finish_move(self, result: str) -> None:
        """The current move ended (lock held). Its result is written once: a later word
        about the floor (a status repeated, a stop after the fault) changes nothing."""
        if self.last_move is not None and self.last_move["result"] == "moving":
            self.last_move["result"] = result

    def _come_to_rest(self, result: str, fault: str | None = None) -> None:
        """The motion ended (lock held): idle, or fault with ``fault`` saying why."""
        self.state = FAULT if result == "fault" else IDLE
        self.fault = fault if result == "fault" else None
        self._finish_move(result)
        self._changed.notify_all()

    def _notify(self) -> None:
        status = self.status()
        for listener in list(self._listeners):
            listener(status)
