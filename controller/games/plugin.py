"""What the rest of the daemon knows about one game, declared once in its plug-in's
``__init__.py`` as ``PLUGIN = Plugin(...)``: id, name, where the start screen lists it, its
engine, its start-screen toggles. The engine reads its identity from here (``Game.id``,
``Game.name``, ``Game.data_package``), and the player limits from the ``[players]`` table of
the plug-in's ``data.toml``, so nothing is said twice.
"""
from __future__ import annotations

import importlib
import sys
import tomllib
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Blueprint

    from .base import Game


def load_data(package: str, name: str = "data.toml") -> dict[str, Any]:
    """Read a TOML file shipped inside a game's plug-in package."""
    with resources.files(package).joinpath(name).open("rb") as fh:
        return tomllib.load(fh)


def player_limits(table: Any) -> tuple[int, int] | None:
    """(fewest, most) from a data.toml's ``[players]`` table: whole numbers with
    1 <= min <= max; None for anything else (`potionpi run` says so at start)."""
    low, high = (table.get("min"), table.get("max")) if isinstance(table, dict) else (None, None)
    if type(low) is int and type(high) is int and 1 <= low <= high:
        return low, high
    return None


@dataclass(frozen=True)
class Toggle:
    """A yes/no choice on the start screen that sets one set-up option when on."""

    option: str            # the key in the game's set-up options
    value: Any             # its value when the toggle is on (off: the option is left out)
    label: str
    hint: str = ""


@dataclass(frozen=True)
class Plugin:
    """What the rest of the daemon needs to know about one game."""

    id: str                            # the game id on the wire: "mirakel-mix"
    name: str                          # "Mirakel Mix"
    engine: str                        # "module:Class", relative to the plug-in package
    order: int = 100                   # where the start screen lists it (then by name)
    blueprint: str | None = None       # "module:attribute" of an optional Flask blueprint
    settings_legend: str = ""          # heading over the start-screen toggles
    toggles: tuple[Toggle, ...] = ()
    # a seat link opens this blueprint endpoint (called with token=...) instead of the
    # generic phone page that loads static/phone.js (Zaubercocktail's lay-down helper)
    phone_page: str | None = None

    @cached_property
    def package(self) -> str:
        """The plug-in's package: the module that declares this Plugin as its ``PLUGIN``."""
        for name, module in list(sys.modules.items()):
            if getattr(module, "PLUGIN", None) is self:
                return name
        raise LookupError(f"no imported package declares the plug-in {self.id!r} as PLUGIN")

    @cached_property
    def players(self) -> tuple[int, int]:
        """(fewest, most) players, from the ``[players]`` table of the game's data.toml."""
        limits = player_limits(load_data(self.package).get("players"))
        if limits is None:          # checked at start (datacheck), so only a file changed since
            raise ValueError(f"{self.package}: data.toml needs [players] with whole numbers "
                             "1 <= min <= max")
        return limits

    @property
    def min_players(self) -> int:
        return self.players[0]

    @property
    def max_players(self) -> int:
        return self.players[1]

    def engine_class(self) -> type[Game]:
        module, attr = self.engine.split(":")
        cls: type[Game] = getattr(importlib.import_module(f"{self.package}.{module}"), attr)
        return cls

    def exports(self, name: str) -> Any:
        """The plug-in package's ``__getattr__`` (``__getattr__ = PLUGIN.exports``):
        ``from <package> import MixIt`` imports the engine then, and only then (listing the
        games imports no engine)."""
        if name == self.engine.split(":")[1]:
            return self.engine_class()
        raise AttributeError(f"module {self.package!r} has no attribute {name!r}")

    def load_blueprint(self) -> Blueprint | None:
        """The plug-in's Flask blueprint, or None (imported only by the web side)."""
        if self.blueprint is None:
            return None
        module, attr = self.blueprint.split(":")
        return getattr(importlib.import_module(f"{self.package}.{module}"), attr)

    def static_dir(self) -> Path:
        """The folder of the game's tablet files (``tablet.js``, ``tablet.css``, ...): a
        folder on disk (the web side serves and hashes files from it)."""
        return Path(str(resources.files(self.package).joinpath("static")))

    def has_phone(self) -> bool:
        """True if the game draws a phone page of its own (``static/phone.js``)."""
        return bool(self.static_dir().joinpath("phone.js").is_file())

    def info(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "min_players": self.min_players,
                "max_players": self.max_players, "settings_legend": self.settings_legend,
                # players have secrets on their own phones: the tablet offers the seat links
                "phones": bool(self.phone_page) or self.has_phone(),
                "toggles": [{"option": t.option, "value": t.value, "label": t.label, "hint": t.hint}
                            for t in self.toggles]}


def plugin_of(package: str) -> Plugin | None:
    """The ``PLUGIN`` a package declares (imported if need be), or None if it declares none."""
    if not package:
        return None
    try:
        module = sys.modules.get(package) or importlib.import_module(package)
    except ImportError:
        return None
    plugin = getattr(module, "PLUGIN", None)
    return plugin if isinstance(plugin, Plugin) else None
