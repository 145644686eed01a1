"""Quick players for whole games of every kind: ``choose(game_id, engine, state, rng)`` picks
an action any seat may take now (secret ones too), steering each game to its end in a few
hundred actions. Shared by the score, replay and statistics tests (engine, web, browser)."""
from __future__ import annotations

import random
from typing import Any, Callable

from controller.games import Game

State = dict[str, Any]
Action = dict[str, Any]


def _zaubercocktail(game: Game, state: State, rng: random.Random) -> Action:
    """Each player lays down once a round (from the seat's own sample: a lay-down is hidden);
    no false trader, no undo."""
    seats = range(len(state["players"]))
    legal = [a for a in game.legal_actions(state) + [a for s in seats for a in game.lay_downs(state, s)]
             if a["type"] not in ("undo", "false_trader")]
    entered = [e is not None for e in state["round"]["entries"]]
    legal = [a for a in legal if not (a["type"] == "lay_down" and entered[a["seat"]])]
    for kind in ("reveal", "reveal_entries", "draw", "lay_down", "drop_out"):
        if any(a["type"] == kind for a in legal):
            return rng.choice([a for a in legal if a["type"] == kind])
    return rng.choice(legal)


def _zauberwald(game: Game, state: State, rng: random.Random) -> Action:
    """The fullest basket on offer most of the time, so potions get cooked."""
    legal = [a for a in game.legal_actions(state) if a["type"] != "undo"]
    baskets = sorted((a for a in legal if a["type"] == "basket"), key=lambda a: -sum(a["ingredients"].values()))
    if baskets and rng.random() < 0.8:
        return baskets[0]
    prefer = ("turn", "floor_turned", "end_search", "basket", "return_ingredients", "choose_tile", "stop")
    kind = next(k for k in (*prefer, legal[0]["type"]) if any(a["type"] == k for a in legal))
    return rng.choice([a for a in legal if a["type"] == kind])


def _mix_it(game: Game, state: State, rng: random.Random) -> Action:
    from tests.games import mix_it_support
    return mix_it_support.choose(state, rng)


def _elixir(game: Game, state: State, rng: random.Random) -> Action:
    from tests.games import elixir_support
    return elixir_support.choose(rng, state, elixir_support.all_actions(state))


def _mirakel_mix(game: Game, state: State, rng: random.Random) -> Action:
    """Random taps, but most of the time the move nearest the exit (random moves wander for
    thousands of actions)."""
    legal = [a for a in game.legal_actions(state) if a["type"] != "undo"]
    moves = [a for a in legal if a["type"] == "move" and a.get("to") is not None]
    if moves and rng.random() < 0.8:
        cave = game.cave_of(state)             # type: ignore[attr-defined]
        return min(moves, key=lambda a: cave.distance(a["to"], cave.exit))
    return rng.choice(legal)


CHOOSE: dict[str, Callable[[Game, State, random.Random], Action]] = {
    "zaubercocktail": _zaubercocktail, "zauberwald": _zauberwald, "mix-it": _mix_it,
    "elixir": _elixir, "mirakel-mix": _mirakel_mix,
}
PLAYERS = {"zaubercocktail": ["Ann", "Ben", "Cem", "Dan", "Eva"], "zauberwald": ["Ann", "Ben", "Cem"],
           "mix-it": ["Ann", "Ben", "Cem", "Dan"], "elixir": ["Ann", "Ben", "Cem"],
           "mirakel-mix": ["Ann", "Ben", "Cem", "Dan"]}
OPTIONS = {"mirakel-mix": {"fill": "random"}}


def choose(game_id: str, game: Game, state: State, rng: random.Random) -> Action:
    return CHOOSE[game_id](game, state, rng)
