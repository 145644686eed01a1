"""Rules engines, one module per game, looked up by id.

Engines are imported lazily so the daemon only pays for the game being played.
"""
from __future__ import annotations

import importlib
import importlib.util

from .base import BadSetup, Game, IllegalAction

# id -> "module:Class". A module that is not there yet is simply not offered.
REGISTRY: dict[str, str] = {
    "mirakel-mix": "controller.games.mirakel_mix:MirakelMix",
    "zaubercocktail": "controller.games.zaubercocktail:Zaubercocktail",
    "zauberwald": "controller.games.zauberwald:Zauberwald",
    "mix-it": "controller.games.mix_it:MixIt",
    "elixir": "controller.games.elixir:Elixir",
}


def available() -> list[str]:
    """Ids of the games this build runs, in registry order."""
    return [gid for gid, target in REGISTRY.items()
            if importlib.util.find_spec(target.split(":")[0]) is not None]


def load(game_id: str) -> Game:
    """A fresh engine for ``game_id`` with its default data; KeyError if unknown."""
    if game_id not in available():
        raise KeyError(game_id)
    module_name, cls_name = REGISTRY[game_id].split(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    return cls()


__all__ = ["BadSetup", "Game", "IllegalAction", "REGISTRY", "available", "load"]
