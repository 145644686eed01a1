"""The games: one plug-in package per game, found by looking, never named in code.

A plug-in is a folder ``controller/games/<package>/`` whose ``__init__.py`` declares
``PLUGIN = Plugin(...)``; beside it live the engine, its ``data.toml``, its tablet
(``static/tablet.js`` and ``static/tablet.css``), and optionally a Flask blueprint
(``web.py``). docs/architecture.md has the recipe for adding one.

Engines are imported only when a game is played, so the daemon pays for one game.
"""
from __future__ import annotations

import pkgutil
from functools import cache

from .base import (SEAT, BadSetup, Choice, Counts, Field, Fields, Flag, Game, IllegalAction, InvalidAction,
                   ListOf, Outcome, Placing, Refusal, RoundScore, Score, Scores, Seat, Text, Whole)
from .plugin import Plugin, Toggle, load_data, plugin_of


@cache
def plugins() -> dict[str, Plugin]:
    """Every installed game by id, in the start screen's order (``Plugin.order``, then name)."""
    found: dict[str, Plugin] = {}
    for module in pkgutil.iter_modules(__path__, prefix=f"{__name__}."):
        plugin = plugin_of(module.name) if module.ispkg else None
        if plugin is not None:
            found[plugin.id] = plugin
    return dict(sorted(found.items(), key=lambda kv: (kv[1].order, kv[1].name)))


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
           "InvalidAction", "ListOf", "Outcome", "Seat", "Text", "Whole", "load_data", "plugin_of",
           "Placing", "Plugin", "Refusal", "RoundScore", "Score", "Scores", "Toggle", "available", "load", "plugin", "plugins"]
