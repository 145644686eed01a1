"""What every device offers the daemon: a name, a status for /healthz, effects, close().

A device reports what it saw through a ``Sink`` (a game action whose source is a sensor,
e.g. ``{"type": "drop", "colour": "red"}``) and tells the players something through a
``NoticeSink`` (``{"kind": "too_fast", "message": ...}``); both seams are typed in
``controller/contracts.py``. Each device class builds itself from its validated config
section with ``from_config``; the defaults live only in ``controller.config.SCHEMA``.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..contracts import DeviceEffect, DeviceStatus, Effect, Notice, NoticeSink, Sink

Section = Mapping[str, Any]
"""One validated config section (``config["cauldron"]``): every SCHEMA key is present."""

__all__ = ["Device", "Effect", "Notice", "NoticeSink", "Section", "Sink"]


class Device:
    name = "device"
    simulated = False

    def status(self) -> DeviceStatus:
        """Plain JSON for /healthz and the tablet: each device's own typed status
        (controller/contracts.py), at least ``simulated``."""
        return {"simulated": self.simulated}

    def handle_effect(self, effect: DeviceEffect) -> None:
        """An engine effect addressed to this device (or to ``"*"``); what a device cannot
        do (a real cauldron asked to refill itself) it ignores."""

    def close(self) -> None:
        """Release pins, ports and threads. Safe to call twice."""
