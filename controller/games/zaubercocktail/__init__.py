"""Zaubercocktail: trade ingredients, lay down the best cocktail, race the stones."""
from __future__ import annotations

from .. import Plugin, Toggle

PLUGIN = Plugin(
    id="zaubercocktail", name="Zaubercocktail", engine="engine:Zaubercocktail", order=2,
    blueprint="web:bp", phone_page="zaubercocktail_api.hand_page",
    settings_legend="The recipe cards",
    toggles=(Toggle("deck", "physical", "We use the printed recipe deck",
                    "the host taps each card as it is turned up; off: the tablet shuffles and deals"),),
)

__getattr__ = PLUGIN.exports     # `from <this package> import <Engine>` imports the engine then
