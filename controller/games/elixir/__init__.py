"""Elixir (1987): the table keeps the secrets — formulas, the brew stack, every wizard's brews."""
from __future__ import annotations

from typing import Any

from .. import Plugin, Toggle

PLUGIN = Plugin(
    id="elixir", name="Elixir", engine="engine:Elixir",
    settings_legend="The die",
    toggles=(Toggle("dice", "physical", "We roll our own die",
                    "tap the number rolled; off: the tablet rolls its own die, shown big"),),
)


def __getattr__(name: str) -> Any:
    if name == "Elixir":
        from .engine import Elixir
        return Elixir
    raise AttributeError(name)
