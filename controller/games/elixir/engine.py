"""Elixir (id ``elixir``, 2-4 players): the engine the table loads.

The rules live in four modules: ``rules.py`` (set-up, the order of a turn, gold, shops,
laboratories), ``brewing.py`` (experiments, drinking, thieves' fluid), ``unknowns.py`` (the Unknowns, robbery, the dead-end
street) and ``views.py`` (what the table and each wizard's phone may see, and the
actions on offer). The numbers and cards are in ``data.toml``.
"""
from __future__ import annotations

from .brewing import BrewRules
from .unknowns import UnknownRules
from .views import ViewRules


class Elixir(BrewRules, UnknownRules, ViewRules):
    """The whole game: the rules, brewing, the Unknowns and the views (who it is: its plug-in)."""
