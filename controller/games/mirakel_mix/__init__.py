"""Mirakel Mix (Zoch): the cauldron referees; apprentices race out of the cave."""
from __future__ import annotations

from typing import Any

from .. import Plugin, Toggle

PLUGIN = Plugin(
    id="mirakel-mix", name="Mirakel Mix", engine="engine:MirakelMix",
    settings_legend="Help at the table",
    toggles=(Toggle("coach", True, "Coach",
                    "shows the chance of each colour and suggests a bowl and a space"),),
)


def __getattr__(name: str) -> Any:
    # ``from controller.games.mirakel_mix import MirakelMix`` without importing the
    # engine when only the plug-in list is wanted
    if name == "MirakelMix":
        from .engine import MirakelMix
        return MirakelMix
    raise AttributeError(name)
