"""Elixir (id ``elixir``, 2-4 players): the engine the table loads.

The rules live in four modules: ``rules.py`` (set-up, the order of a turn, gold, shops,
laboratories), ``brewing.py`` (experiments, drinking, thieves' fluid), ``unknowns.py`` (the Unknowns, robbery, the dead-end
street) and ``views.py`` (what the table and each wizard's phone may see, and the
actions on offer). The numbers and cards are in ``data.toml``.
"""
from __future__ import annotations

from ...contracts import Action, State
from .brewing import BrewRules
from .unknowns import UnknownRules
from .views import ViewRules


class Elixir(BrewRules, UnknownRules, ViewRules):
    """The whole game: the rules, brewing, the Unknowns and the views (who it is: its plug-in)."""

    # drinking names a brew card; a note is written on the wizard's own formula table
    secret_types = frozenset({"drink", "note"})

    def is_secret(self, state: State, action: Action) -> bool:
        """Also secret: the brew card Phil takes or Clotilda buys (``give``/``accept`` with a
        ``brew``); ``"brew": "any"`` (the table picks one blind) names none."""
        if action.get("type") in ("give", "accept"):
            return "brew" in action and action.get("brew") != "any"
        return super().is_secret(state, action)
