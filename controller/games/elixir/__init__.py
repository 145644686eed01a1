"""Elixir (1987): the table keeps the secrets — formulas, the brew stack, every wizard's brews."""
from __future__ import annotations

from .. import Plugin, Toggle

PLUGIN = Plugin(
    id="elixir", name="Elixir", engine="engine:Elixir", order=5,
    settings_legend="The die",
    toggles=(Toggle("dice", "physical", "We roll our own die",
                    "tap the number rolled; off: the tablet rolls its own die, shown big"),),
)

__getattr__ = PLUGIN.exports     # `from <this package> import <Engine>` imports the engine then
