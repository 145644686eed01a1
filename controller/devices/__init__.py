"""The devices: one plug-in package per device, found by looking, never named in code.

A plug-in is a folder ``controller/devices/builtin/<package>/`` (or one in a folder named
by ``POTIONPI_DEVICES``) holding

* ``device.toml``: plain data, read by ``controller.config`` without importing anything
  here: the device's name, its config section and keys (merged into ``SCHEMA``, so
  docs/config.md, ``potionpi config --print-default`` and the refusals come from them)
  and the GPIO pins it claims (two keys on one pin are refused when the config loads);
* ``__init__.py``: ``build(config, context) -> Device | None`` (None: not on this table),
  and optionally ``wire(device, table)`` (listeners beyond effects), ``blueprint()`` (a
  Flask blueprint with its API routes, mounted by web_ui), ``page_state()`` (what the
  tablet page carries of it) and ``check(run)`` (its parts of `potionpi check`, added to
  ``run``, a ``controller.service.check.TableCheck``, in the plug-ins' order);
* ``static/``: its tablet module, served at ``/devices/<name>/`` for any game to import.

The hub builds every plug-in's device by name (``DeviceHub.build``); a plug-in's package
is imported only then. docs/architecture.md walks through adding one (a weight scale).
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..config import BUILTIN_DEVICES, DEVICES, Config, DeviceDeclaration
from ..contracts import NoticeSink, Sink

if TYPE_CHECKING:
    from flask import Blueprint

    from ..service.check import TableCheck
    from ..table import Table
    from .base import Device

Say = Callable[[str], None]


@dataclass
class BuildContext:
    """What a plug-in's ``build`` may use besides the config.

    ``sim``: simulated devices (gpiozero's MockFactory pins); ``sim_mcu``: the forest
    floor's serial back-end on a simulated Pico. ``sink``/``on_notice``: the table's
    sensor and notice entry points (None without a table). ``closers``: what the hub
    closes after the devices (e.g. a simulated Pico's process). ``say``: a line for the
    person who started the daemon.
    """

    sim: bool = False
    sim_mcu: bool = False
    sink: Sink | None = None
    on_notice: NoticeSink | None = None
    closers: list[Any] = field(default_factory=list)
    say: Say = print


@dataclass(frozen=True)
class DevicePlugin:
    """One device plug-in: its declaration (``device.toml``) and its package, loaded lazily."""

    declaration: DeviceDeclaration

    @property
    def name(self) -> str:
        return self.declaration.name

    def module(self) -> ModuleType:
        return _load(self.declaration)

    def build(self, config: Config, context: BuildContext) -> Device | None:
        device: Device | None = self.module().build(config, context)
        return device

    def wire(self, device: Device, table: Table) -> None:
        wire = getattr(self.module(), "wire", None)
        if wire is not None:
            wire(device, table)

    def blueprint(self) -> Blueprint | None:
        make = getattr(self.module(), "blueprint", None)
        return make() if make is not None else None

    def check(self, run: TableCheck) -> None:
        """Its parts of `potionpi check`, on ``run``'s results (nothing if it has none)."""
        check = getattr(self.module(), "check", None)
        if check is not None:
            check(run)

    def page_state(self) -> Any:
        """What the tablet page carries of this device (``ctx.devices[name]`` in a game's
        module), or None; asked while a request is served."""
        state = getattr(self.module(), "page_state", None)
        return state() if state is not None else None


@cache
def plugins() -> dict[str, DevicePlugin]:
    """Every declared device by name, in their ``order`` (that of the config sections)."""
    return {name: DevicePlugin(declaration) for name, declaration in DEVICES.items()}


def plugin(name: str) -> DevicePlugin:
    """The plug-in of device ``name``; KeyError if none is declared."""
    return plugins()[name]


def _load(declaration: DeviceDeclaration) -> ModuleType:
    folder = declaration.folder
    if folder.parent == BUILTIN_DEVICES:
        return importlib.import_module(f"{__name__}.builtin.{folder.name}")
    # a plug-in outside the install: its package imported from its own folder
    name = f"potionpi_device_{folder.name}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    if spec is None or spec.loader is None:
        raise ImportError(f"{folder}: a device plug-in needs an __init__.py beside its device.toml")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


__all__ = ["BuildContext", "DevicePlugin", "plugin", "plugins"]
