"""The forest floor of Im großen Zauberwald: one interface, several back-ends.

Back-ends: simulated (moves over time), GPIO step/dir through gpiozero, and
serial through the Pi Pico firmware. The table hands them engine effects such as
``{"device": "forest_floor", "op": "rotate", "ants": 3, "direction": "clockwise"}``.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

from .base import Device

CLOCKWISE = "clockwise"
COUNTER_CLOCKWISE = "counter_clockwise"
DIRECTIONS = (CLOCKWISE, COUNTER_CLOCKWISE)

IDLE, MOVING, HOMING, FAULT = "idle", "moving", "homing", "fault"


class ForestFloor(Device):
    """Base class. ``position`` is in ants (0 .. ants_around-1, may be fractional while moving)."""

    name = "forest_floor"

    def __init__(self, ants_around: int = 16):
        self.ants_around = ants_around
        self._listeners: list[Callable[[dict[str, Any]], None]] = []
        self._lock = threading.Lock()
        self.state = IDLE
        self.fault: str | None = None

    # --- the interface ------------------------------------------------------
    def rotate(self, ants: int, direction: str) -> None:
        """Start turning ``ants`` ants; returns at once, status goes moving → idle."""
        raise NotImplementedError

    def home(self) -> None:
        """Find the home mark; status goes homing → idle, or fault."""
        raise NotImplementedError

    def stop(self) -> None:
        """Halt at once (the tablet's big stop button)."""
        raise NotImplementedError

    @property
    def position(self) -> float:
        raise NotImplementedError

    # --- shared plumbing ----------------------------------------------------
    @staticmethod
    def signed_ants(ants: int, direction: str) -> int:
        """``ants`` with a sign: clockwise positive. ValueError names what is allowed."""
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, not {direction!r}")
        if ants < 0:
            raise ValueError("ants must be zero or more")
        return ants if direction == CLOCKWISE else -ants

    def on_change(self, listener: Callable[[dict[str, Any]], None]) -> None:
        """Call ``listener(status)`` whenever state or position changes."""
        self._listeners.append(listener)

    def _notify(self) -> None:
        status = self.status()
        for listener in list(self._listeners):
            listener(status)

    def status(self) -> dict[str, Any]:
        return {"simulated": self.simulated, "state": self.state,
                "position": round(self.position, 3), "ants_around": self.ants_around,
                "fault": self.fault}

    def handle_effect(self, effect: dict[str, Any]) -> None:
        op = effect.get("op")
        if op == "rotate":
            self.rotate(int(effect["ants"]), effect["direction"])
        elif op == "home":
            self.home()
        elif op == "stop":
            self.stop()
