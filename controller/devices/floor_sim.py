"""A forest floor with no motor: it turns over time like the real one, in a thread.

The tablet sees the same status stream as from a real floor (moving, a position
creeping round, then idle), so the whole turn → search flow can be played and
tested without hardware. ``fail_next()`` makes the next move or homing fault,
for tests of the "turn it by hand" path.
"""
from __future__ import annotations

import math
import threading
from typing import Any

from .forest_floor import FAULT, HOMING, IDLE, MOVING, ForestFloor

HOME_NOT_FOUND = "home not found within 1.2 turns of the floor: turn it by hand"
STALL = "the floor is stuck (stall): turn it by hand"


class FloorBusy(RuntimeError):
    """A move was asked for while the floor is still turning or homing."""


class SimulatedForestFloor(ForestFloor):
    simulated = True

    def __init__(self, ants_around: int = 16, speed: float = 4.0, tick: float = 0.02,
                 steps_per_ant: float = 100.0):
        """``speed`` in ants per second; a status is published every ``tick`` seconds while moving."""
        super().__init__(ants_around)
        if speed <= 0 or tick <= 0:
            raise ValueError("speed and tick must be positive")
        self.speed = float(speed)
        self.tick = float(tick)
        self.steps_per_ant = steps_per_ant
        self._position = 0.0          # ants, unwrapped (clockwise positive)
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._thread: threading.Thread | None = None
        self._fail: dict[str, Any] | None = None
        self.last_move: dict[str, Any] | None = None

    # --- the interface ------------------------------------------------------
    @property
    def position(self) -> float:
        return self._position % self.ants_around

    def rotate(self, ants: int, direction: str) -> None:
        sign = 1 if self.signed_ants(ants, direction) >= 0 else -1
        self._start(MOVING, sign * float(ants), {"ants": ants, "direction": direction})

    def move_steps(self, steps: int) -> None:
        """Nudge by motor steps (calibration); clockwise for positive steps."""
        self._start(MOVING, steps / self.steps_per_ant, {"steps": steps})

    def home(self) -> None:
        # The simulated home mark is position 0, reached turning clockwise.
        distance = (-self._position) % self.ants_around
        self._start(HOMING, distance, {"home": True})

    def stop(self) -> None:
        self._stop.set()
        thread = self._thread
        # (a listener may call stop() before the thread has even started: then it
        # sees the stop flag before its first step)
        if thread is not None and thread is not threading.current_thread() and thread.ident is not None:
            thread.join()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the current move ends; False if still moving after ``timeout``."""
        return self._idle.wait(timeout)

    def close(self) -> None:
        self.stop()

    def status(self) -> dict[str, Any]:
        out = super().status()
        out["last_move"] = dict(self.last_move) if self.last_move else None
        return out

    # --- test hook --------------------------------------------------------------
    def fail_next(self, reason: str = "stall", after_ants: float = 0.5) -> None:
        """The next move faults: ``reason`` "stall" after ``after_ants``, or "home" (never finds home)."""
        if reason not in ("stall", "home"):
            raise ValueError('reason is "stall" or "home"')
        self._fail = {"reason": reason, "after": float(after_ants)}

    # --- the motion thread -----------------------------------------------------------
    def _start(self, state: str, distance: float, move: dict[str, Any]) -> None:
        with self._lock:
            if self.state in (MOVING, HOMING):
                raise FloorBusy("the forest floor is still turning")
            self.state = state
            self.fault = None
            self.last_move = dict(move, result="moving")
            self._stop.clear()
            self._idle.clear()
            fail, self._fail = self._fail, None
            self._thread = threading.Thread(target=self._run, args=(distance, fail),
                                            name="sim-forest-floor", daemon=True)
        self._notify()          # "moving" reaches listeners before any position from the thread
        self._thread.start()

    def _run(self, distance: float, fail: dict[str, Any] | None) -> None:
        homing = self.state == HOMING
        limit = abs(distance)
        fault = None
        if fail and fail["reason"] == "home" and homing:
            limit, fault = 1.2 * self.ants_around, HOME_NOT_FOUND
        elif fail and fail["reason"] == "stall":
            if fail["after"] < limit:
                limit, fault = fail["after"], STALL
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
            if result == "fault":
                self.state, self.fault = FAULT, fault
            else:
                self.state = IDLE
            if self.last_move is not None:
                self.last_move["result"] = result
        # tidy floating crumbs so a finished move reports a whole number of ants
        if result == "done" and math.isclose(self._position, round(self._position), abs_tol=1e-9):
            self._position = float(round(self._position))
        self._idle.set()
        self._notify()
