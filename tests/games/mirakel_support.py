"""Shared by the Mirakel Mix tests: bowl contents, ways to play a list of actions, a
position built by hand and games of random taps."""
import random

import pytest

from controller.games.base import IllegalAction
from controller.games.mirakel_mix import MirakelMix
from controller.table import Table

# Bowl contents used by most tests: the cauldron then keeps 3 purple and 3 orange.
BOWLS = ["red", "red", "red", "yellow",
         "yellow", "yellow", "green", "green",
         "green", "blue", "blue", "blue"]


def play(game, state, *actions):
    """Apply ``actions`` in turn; the state after the last."""
    for action in actions:
        state, _ = game.apply(state, action)
    return state


def play_effects(game, state, *actions):
    """Apply ``actions`` in turn; (state after the last, every effect in order)."""
    effects = []
    for action in actions:
        state, eff = game.apply(state, action)
        effects += eff
    return state, effects


def placed(game, players):
    """A new game (bowls dealt at random, seed 5) with every apprentice on its start space."""
    s = game.setup(list(players), seed=5, options={"fill": "random"})
    return play(game, s, *[{"type": "place_apprentice", "space": f"S{i + 1}"} for i in range(len(players))])


def about_to_move(game, s, queue):
    """``s`` in the movement phase, the queue [(seat, steps), ...] about to move."""
    s["stage"] = "move"
    s["active"] = queue[0][0]
    s["movement"] = {"queue": [{"seat": a, "steps": b} for a, b in queue], "used": 0,
                     "double": False, "moved": False}
    game.advance(s)
    return s


def position(apprentices, cards, queue, players=("Ann", "Ben", "Cy"), game=None):
    """A table in the movement phase: apprentices where given, each seat holding
    ``cards[seat]`` (every card not held lies on its pile), ``queue`` [(seat, steps)]
    about to move."""
    game = game or MirakelMix()
    s = placed(game, players)
    s["apprentices"] = list(apprentices)
    for seat, held in enumerate(cards):
        s["cards"][seat] = {f: held.get(f, 0) for f in game.flasks}
    for f in game.flasks:
        s["piles"][f] = game.cards_per_pile - sum(c[f] for c in s["cards"])
        assert s["piles"][f] >= 0
    return about_to_move(game, s, queue)


def random_game(n_players, seed, max_actions=20000, game=None, start=None):
    """A game of random taps (any listed action but undo): yields every state. From
    ``start`` when given, else from a new game."""
    game = game or MirakelMix()
    rng = random.Random(seed)
    s = start if start is not None else game.setup([f"P{i}" for i in range(n_players)], seed, {"fill": "random"})
    for _ in range(max_actions):
        yield s
        if game.outcome(s) is not None:
            return
        s, _ = game.apply(s, rng.choice([a for a in game.legal_actions(s) if a["type"] != "undo"]))


def table_game(store, players, seed):
    """A game of random taps (seeded by ``seed``) through a Table on ``store``, played to
    its end: (table, session). It ends: the taps are capped, so a game that never does fails."""
    rng = random.Random(seed)
    table = Table(store, load_game=lambda _id: MirakelMix())
    session = table.start("mirakel-mix", list(players), seed=seed, options={"fill": "random"})
    for _ in range(3000):
        if session["outcome"] is not None:
            return table, session
        session = table.act(rng.choice([a for a in session["legal_actions"] if a["type"] != "undo"]))
    raise AssertionError(f"seed {seed}: no end after 3000 taps")


def ended_for_good(table, store, session, seed):
    """A game that ended through ``table``: only its last tap may be taken back, the store
    has it finished, the table refuses play, and its log replays to the same end."""
    assert session["legal_actions"] == [{"type": "undo"}]
    assert store.history()[0]["status"] == "finished"
    with pytest.raises(IllegalAction, match="over"):
        table.act({"type": "empty_bowl", "bowl": 0})
    game = MirakelMix()
    players = session["players"]
    replayed = game.setup(players, seed, {"fill": "random"})
    for entry in store.actions(session["id"]):
        replayed, _ = game.apply(replayed, entry["action"])
    told = {k: v for k, v in session["outcome"].items() if k != "results"}    # (the scores in words: the table's)
    assert game.outcome(replayed).to_json(players) == told
