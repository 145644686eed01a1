"""Mirakel Mix (Zoch): the cauldron referees; apprentices race out of the cave."""
from __future__ import annotations

from .. import Plugin, Toggle

PLUGIN = Plugin(
    id="mirakel-mix", name="Mirakel Mix", engine="engine:MirakelMix", order=1,
    settings_legend="Help at the table",
    toggles=(Toggle("coach", True, "Coach",
                    "shows the chance of each colour and suggests a bowl and a space"),),
)

__getattr__ = PLUGIN.exports     # `from <this package> import <Engine>` imports the engine then
