"""Im großen Zauberwald: the master turns the forest floor, everyone searches for ingredients."""
from __future__ import annotations

from .. import Plugin, Toggle

PLUGIN = Plugin(
    id="zauberwald", name="Im großen Zauberwald", engine="engine:Zauberwald", order=3,
    settings_legend="The recipe cards",
    toggles=(Toggle("cards", "physical", "We deal the printed recipe cards",
                    "each player enters their three cards on the tablet; off: the tablet deals"),),
)

__getattr__ = PLUGIN.exports     # `from <this package> import <Engine>` imports the engine then
