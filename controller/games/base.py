"""The contract every rules engine follows (modelled on python-chess).

An engine is pure: no devices, no clock, no files, no network. State is plain
JSON-serialisable data and all randomness comes from a seeded RNG whose state
lives inside the game state, so ``replay(setup, actions)`` is deterministic.

    game = MirakelMix(data=default_data())
    state = game.setup(players=["Ann", "Ben"], seed=7, options={})
    game.legal_actions(state)        # complete action dicts, each valid as-is
    state, effects = game.apply(state, action)   # raises IllegalAction
    game.view(state, seat=None)      # what a seat (or the public table) may see
    game.outcome(state)              # None while playing
"""
from __future__ import annotations

import copy
import random
import tomllib
from importlib import resources
from typing import Any

State = dict[str, Any]
Action = dict[str, Any]
Effect = dict[str, Any]


class IllegalAction(Exception):
    """An action the rules forbid. ``str(exc)`` names the rule in a player's words."""

    def __init__(self, rule: str):
        super().__init__(rule)
        self.rule = rule


class BadSetup(IllegalAction):
    """Set-up arguments the game cannot start with (player count, options)."""


def load_data(name: str) -> dict[str, Any]:
    """Read ``controller/games/data/<name>.toml`` shipped in the package."""
    with resources.files("controller.games").joinpath(f"data/{name}.toml").open("rb") as fh:
        return tomllib.load(fh)


def rng_from(state: State) -> random.Random:
    """The game's RNG, restored from the state (so replays are identical)."""
    rng = random.Random()
    version, internal, gauss = state["rng"]
    rng.setstate((version, tuple(internal), gauss))
    return rng


def rng_store(state: State, rng: random.Random) -> None:
    version, internal, gauss = rng.getstate()
    state["rng"] = [version, list(internal), gauss]


def new_rng_state(seed: int) -> list:
    version, internal, gauss = random.Random(seed).getstate()
    return [version, list(internal), gauss]


class Game:
    """Base class: subclasses set ``id``, ``name``, player limits and the five methods."""

    id: str = ""
    name: str = ""
    min_players: int = 2
    max_players: int = 4
    data_file: str = ""          # controller/games/data/<data_file>.toml

    def __init__(self, data: dict[str, Any] | None = None):
        self.data = data if data is not None else self.default_data()

    @classmethod
    def default_data(cls) -> dict[str, Any]:
        return load_data(cls.data_file) if cls.data_file else {}

    # --- the contract -------------------------------------------------------
    def setup(self, players: list[str], seed: int, options: dict[str, Any] | None = None) -> State:
        raise NotImplementedError

    def legal_actions(self, state: State) -> list[Action]:
        raise NotImplementedError

    def apply(self, state: State, action: Action) -> tuple[State, list[Effect]]:
        """Return a *new* state; the argument is never modified (so a refusal changes nothing)."""
        raise NotImplementedError

    def view(self, state: State, seat: int | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def outcome(self, state: State) -> dict[str, Any] | None:
        raise NotImplementedError

    # --- helpers shared by engines -----------------------------------------
    def check_players(self, players: list[str]) -> None:
        if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
            raise BadSetup("players must be a list of names")
        if not self.min_players <= len(players) <= self.max_players:
            raise BadSetup(f"{self.name} is played by {self.min_players} to {self.max_players} players, not {len(players)}")
        if len({p.strip().casefold() for p in players}) != len(players):
            raise BadSetup("every player needs a different name")

    @staticmethod
    def copy(state: State) -> State:
        return copy.deepcopy(state)

    def info(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name,
                "min_players": self.min_players, "max_players": self.max_players}
