"""Mix It: build the monster on your secret goal card from the parts on the table."""
from __future__ import annotations

from .. import Plugin, Toggle

PLUGIN = Plugin(
    id="mix-it", name="Mix It", engine="engine:MixIt", order=4,
    settings_legend="Variant",
    toggles=(Toggle("variant", "express", "Mix It Express",
                    "one goal each, no hands: place from the face-up deck; the first to build wins"),),
)

__getattr__ = PLUGIN.exports     # `from <this package> import <Engine>` imports the engine then
