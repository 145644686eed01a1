"""Mix It: build the monster on your secret goal card from the parts on the table."""
from __future__ import annotations

from typing import Any

from .. import Plugin, Toggle

PLUGIN = Plugin(
    id="mix-it", name="Mix It", engine="engine:MixIt",
    settings_legend="Variant",
    toggles=(Toggle("variant", "express", "Mix It Express",
                    "one goal each, no hands: place from the face-up deck; the first to build wins"),),
)


def __getattr__(name: str) -> Any:
    if name == "MixIt":
        from .engine import MixIt
        return MixIt
    raise AttributeError(name)
