"""The games: one plug-in package per game, found by looking, never named in code.

A plug-in is a folder ``controller/games/<package>/`` whose ``__init__.py`` declares
``PLUGIN = Plugin(...)``; beside it live the engine, its ``data.toml``, its tablet
(``static/tablet.js`` and ``static/tablet.css``), and optionally a Flask blueprint
(``web.py``). docs/architecture.md has the recipe for adding one.

Engines are imported only when a game is played, so the daemon pays for one game.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources
from typing import Any

from .base import (SEAT, BadSetup, Choice, Counts, Field, Fields, Flag, Game, IllegalAction, InvalidAction,
                   ListOf, Outcome, Placing, Refusal, Seat, Text, Whole, load_data)


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
    blueprint: str | None = None       # "module:attribute" of an optional Flask blueprint
    settings_legend: str = ""          # heading over the start-screen toggles
    toggles: tuple[Toggle, ...] = ()
    # a seat link opens this blueprint endpoint (called with token=...) instead of the
    # generic phone page that loads static/phone.js (Zaubercocktail's lay-down helper)
    phone_page: str | None = None
    package: str = field(default="", compare=False)   # filled in by discovery

    @cached_property
    def players(self) -> tuple[int, int]:
        """(fewest, most) players, from the ``[players]`` table of the game's data.toml."""
        table = load_data(self.package)["players"]
        return int(table["min"]), int(table["max"])

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

    def load_blueprint(self) -> Any | None:
        """The plug-in's Flask blueprint, or None (imported only by the web side)."""
        if self.blueprint is None:
            return None
        module, attr = self.blueprint.split(":")
        return getattr(importlib.import_module(f"{self.package}.{module}"), attr)

    def static_dir(self) -> Any:
        """The folder of the game's tablet files (``tablet.js``, ``tablet.css``, ...)."""
        return resources.files(self.package).joinpath("static")

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


@cache
def plugins() -> dict[str, Plugin]:
    """Every installed game by id, in a stable order (the order of ``ORDER``, then by name)."""
    found: dict[str, Plugin] = {}
    for module in pkgutil.iter_modules(__path__, prefix=f"{__name__}."):
        if not module.ispkg:
            continue
        plugin = getattr(importlib.import_module(module.name), "PLUGIN", None)
        if isinstance(plugin, Plugin):
            object.__setattr__(plugin, "package", module.name)
            found[plugin.id] = plugin
    rank = {gid: i for i, gid in enumerate(ORDER)}
    return dict(sorted(found.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[1].name)))


# The order the start screen lists the games in (any other plug-in follows, by name).
ORDER = ("mirakel-mix", "zaubercocktail", "zauberwald", "mix-it", "elixir")


def available() -> list[str]:
    """Ids of the games this build runs."""
    return list(plugins())


def plugin(game_id: str) -> Plugin:
    """The plug-in of ``game_id``; KeyError if no such game is installed."""
    return plugins()[game_id]


def load(game_id: str) -> Game:
    """A fresh engine for ``game_id`` with its default data; KeyError if unknown."""
    return plugin(game_id).engine_class()()


__all__ = ["SEAT", "BadSetup", "Choice", "Counts", "Field", "Fields", "Flag", "Game", "IllegalAction",
           "InvalidAction", "ListOf", "ORDER", "Outcome", "Seat", "Text", "Whole",
           "Placing", "Plugin", "Refusal", "Toggle", "available", "load", "plugin", "plugins"]
