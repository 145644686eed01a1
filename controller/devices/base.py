"""What every device offers the daemon: a name, a status for /healthz, and close()."""
from __future__ import annotations

from typing import Any, Callable

# A device reports what it saw by calling a sink with a plain dict, e.g.
# {"type": "drop", "color": "red"} for a game action whose source is a sensor.
Sink = Callable[[dict[str, Any]], None]


class Device:
    name = "device"
    simulated = False

    def status(self) -> dict[str, Any]:
        """Plain JSON for /healthz and the tablet."""
        return {"simulated": self.simulated}

    def handle_effect(self, effect: dict[str, Any]) -> None:
        """An engine effect addressed to this device (``effect["device"] == self.name``)."""

    def close(self) -> None:
        """Release pins, ports and threads. Safe to call twice."""
