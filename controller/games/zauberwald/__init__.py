"""Im großen Zauberwald: the master turns the forest floor, everyone searches for ingredients."""
from __future__ import annotations

from typing import Any

from .. import Plugin, Toggle

PLUGIN = Plugin(
    id="zauberwald", name="Im großen Zauberwald", engine="engine:Zauberwald",
    settings_legend="The recipe cards",
    toggles=(Toggle("cards", "physical", "We deal the printed recipe cards",
                    "each player enters their three cards on the tablet; off: the tablet deals"),),
)


def __getattr__(name: str) -> Any:
    if name == "Zauberwald":
        from .engine import Zauberwald
        return Zauberwald
    raise AttributeError(name)
