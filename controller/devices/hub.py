"""Builds the table's devices from their plug-ins and routes engine effects to them.

``--sim`` (or no GPIO on this machine) gives simulated twins that run the same device
code on gpiozero's MockFactory pins; otherwise the real devices on the configured pin
factory. Every device comes from its plug-in (``controller/devices/__init__.py``), which
reads its own config section; the hub holds them by name and names none itself.

The hub names no game either: what the devices should hold after a new game or a restart
comes from the running game's ``device_sync`` effects, and each plug-in wires what its
device tells the table beyond effects (the floor: a finished turn, ``wire``).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..config import Config
from ..contracts import DevicesStatus, Effect
from . import BuildContext, plugins
from .base import Device

if TYPE_CHECKING:
    from ..table import Table

log = logging.getLogger(__name__)

Say = Callable[[str], None]


class Closable(Protocol):
    def close(self) -> None: ...


class DeviceHub:
    """The devices of one table by name (``hub.get("cauldron")``; a missing one is None).

    ``DeviceHub(simulated=True, cauldron=c)`` holds the devices given by name (a test's);
    ``DeviceHub.build`` builds every plug-in's. A device is also its attribute
    (``hub.forest_floor``), None when this table has none.
    """

    def __init__(self, *, simulated: bool, extras: list[Closable] | None = None,
                 **devices: Device | None):
        self.simulated = simulated
        self._devices: dict[str, Device] = {name: d for name, d in devices.items() if d is not None}
        self._extras: list[Closable] = extras or []   # closed after the devices (a simulated Pico)
        self._closed = False

    @classmethod
    def build(cls, config: Config, *, sim: bool, table: Table | None = None,
              sim_mcu: bool = False, say: Say = print) -> "DeviceHub":
        """The configured devices. With a ``table`` they are wired to it both ways —
        sensor actions and notices to the table, its effects to the devices — and put
        in step with the running game (``table.device_sync()``)."""
        context = BuildContext(sim=sim, sim_mcu=sim_mcu, say=say,
                               sink=table.sensor if table is not None else None,
                               on_notice=table.notice if table is not None else None)
        hub = cls(simulated=sim, extras=context.closers)
        try:
            for name, plugin in plugins().items():
                device = plugin.build(config, context)
                if device is not None:
                    hub._devices[name] = device
        except Exception:
            hub.close()
            raise
        if table is not None:
            hub.wire(table)
        return hub

    def wire(self, table: Table) -> "DeviceHub":
        """Wire the devices to ``table`` both ways and put them in step with its game."""
        declared = plugins()
        for name, device in self._devices.items():
            if name in declared:
                declared[name].wire(device, table)
        table.on_effect(self.handle_effect)
        table.device_sync()
        return self

    def get(self, name: str) -> Device | None:
        """The device called ``name`` (a plug-in's name), or None if this table has none."""
        return self._devices.get(name)

    def __getattr__(self, name: str) -> Device | None:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self.__dict__.get("_devices", {}) or name in plugins():
            return self._devices.get(name)
        raise AttributeError(f"{type(self).__name__!r} has no device or attribute {name!r}")

    @property
    def devices(self) -> dict[str, Device]:
        """The devices this table has, by name."""
        return dict(self._devices)

    def handle_effect(self, effect: Effect) -> None:
        """Route an engine effect to its device; ``"*"`` effects go to every device (news
        of a game, with no device, to none)."""
        if "type" in effect:
            return
        target = effect["device"]
        for name, device in self._devices.items():
            if target in ("*", name):
                device.handle_effect(effect)

    def status(self) -> DevicesStatus:
        """``simulated``, then each declared device's status by name (None: not here)."""
        out: dict[str, Any] = {"simulated": self.simulated}
        names = [*plugins(), *(n for n in self._devices if n not in plugins())]
        for name in names:
            device = self._devices.get(name)
            out[name] = device.status() if device is not None else None
        return out

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for name, device in self._devices.items():
            try:
                device.close()
            except Exception:
                log.exception("closing %s failed", name)
        for extra in self._extras:
            try:
                extra.close()
            except Exception:
                log.exception("closing %r failed", extra)
