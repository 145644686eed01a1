"""A forest floor with no motor: it turns over time like the real one, in a thread.

The tablet sees the same status stream as from a real floor (moving, a position
creeping round, then idle), so the whole turn → search flow can be played and
tested without hardware. ``fail_next()`` makes the next move or homing fault,
for tests of the "turn it by hand" path (a stall, a jam, home not found).
"""
from __future__ import annotations

import math
import threading
from typing import Any

from .base import Section
from .forest_floor import HOMING, FloorBusy, ForestFloor, Launch

HOME_NOT_FOUND = "home not found within 1.2 turns of the floor: turn it by hand"
STALL = "the floor is stuck (stall): turn it by hand"
# what the GPIO floor says when the home mark does not pass where it should
JAM = ("jam: the motor turned the floor past its home mark but the sensor never saw it, so the "
       "floor did not turn; its position is lost: home the floor before its next turn")

__all__ = ["HOME_NOT_FOUND", "JAM", "STALL", "FloorBusy", "SimulatedForestFloor"]


class SimulatedForestFloor(ForestFloor):
    simulated = True

    def __init__(self, *, ants_around: int, steps_per_ant: float, speed: float, tick: float = 0.02):
        """``speed`` in ants per second; a status is published every ``tick`` seconds while moving."""
        super().__init__(ants_around, steps_per_ant)
        if speed <= 0 or tick <= 0:
            raise ValueError("speed and tick must be positive")
        self.speed = float(speed)
        self.tick = float(tick)
        self._position = 0.0          # ants, unwrapped (clockwise positive)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._fail: dict[str, Any] | None = None

    @classmethod
    def from_config(cls, section: Section, simulation: Section) -> "SimulatedForestFloor":
        """From ``[forest_floor]`` (ants, steps per ant) and ``[simulation]`` (its speed)."""
        return cls(ants_around=section["ants_around"], steps_per_ant=section["steps_per_ant"],
                   speed=simulation["floor_ants_per_second"])

    # --- the interface ------------------------------------------------------
    @property
    def position(self) -> float:
        return self._position % self.ants_around

    def stop(self) -> None:
        self._stop.set()
        thread = self._thread
        # (a listener may call stop() before the thread has even started: then it
        # sees the stop flag before its first step)
        if thread is not None and thread is not threading.current_thread() and thread.ident is not None:
            thread.join()

    def close(self) -> None:
        self.stop()

    # --- test hook --------------------------------------------------------------
    def fail_next(self, reason: str = "stall", after_ants: float = 0.5) -> None:
        """The next move faults: ``reason`` "stall" or "jam" after ``after_ants`` (a jam as the
        GPIO floor finds it: the count turned on, the floor did not), or "home" (never finds home)."""
        if reason not in ("stall", "jam", "home"):
            raise ValueError('reason is "stall", "jam" or "home"')
        self._fail = {"reason": reason, "after": float(after_ants)}

    # --- the motion ---------------------------------------------------------------
    def _plan_turn(self, ants: int) -> Launch:
        return self._plan(float(ants))

    def _plan_steps(self, steps: int) -> Launch:
        return self._plan(steps / self.steps_per_ant)

    def _plan_home(self) -> Launch:
        # The simulated home mark is position 0, reached turning clockwise.
        return self._plan((-self._position) % self.ants_around)

    def _plan(self, distance: float) -> Launch:
        self._stop.clear()
        fail, self._fail = self._fail, None
        self._thread = threading.Thread(target=self._run, args=(distance, fail),
                                        name="sim-forest-floor", daemon=True)
        return self._thread.start

    def _run(self, distance: float, fail: dict[str, Any] | None) -> None:
        homing = self.state == HOMING
        limit = abs(distance)
        fault = None
        if fail and fail["reason"] == "home" and homing:
            limit, fault = 1.2 * self.ants_around, HOME_NOT_FOUND
        elif fail and fail["reason"] in ("stall", "jam"):
            if fail["after"] < limit:
                limit, fault = fail["after"], STALL if fail["reason"] == "stall" else JAM
        sign = -1.0 if distance < 0 else 1.0
        start = self._position
        travelled = 0.0
        per_tick = self.speed * self.tick
        result = "done"
        while travelled < limit:
            if self._stop.wait(self.tick):
                result = "stopped"
                break
            travelled = min(limit, travelled + per_tick)
            self._position = start + sign * travelled
            self._notify()
        else:
            if fault:
                result = "fault"
        with self._lock:
            if homing and result == "done":
                self._position = float(round(self._position))   # the mark is exact
                self.needs_home = False
            elif fault or homing:
                self.needs_home = True      # a stall, a jam or a homing cut short loses the count
            # tidy floating crumbs so a finished move reports a whole number of ants
            if result == "done" and math.isclose(self._position, round(self._position), abs_tol=1e-9):
                self._position = float(round(self._position))
            self._come_to_rest(result, fault)
        self._notify()
