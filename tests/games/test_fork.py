"""What ``apply`` hands back is never changed by a later action, whatever states share
(``Game.shared_keys``: the RNG, the undo stack, the story, the seats' names, the options),
and an undo gives back exactly the state before the action it takes back: in play, after
many actions, and after a restart (the log replayed), for every game."""
from __future__ import annotations

import json
import random

import pytest

from controller import games
from controller.store import Store
from controller.table import Table
from tests.players import OPTIONS, PLAYERS, choose


def frozen(state: dict) -> str:
    return json.dumps(state, sort_keys=True)


#: what a game's ``on_undo`` sets anew: Mirakel Mix's count of moments of play (an undo is
#: a new one, so fixes offered for older warnings go stale)
RENEWED = {"mirakel-mix": {"stamp"}}


#: actions played before the restart (past the first snapshot, 100); Zaubercocktail's quick
#: players end a game in about 70 actions, Zauberwald's in about 100
REACH = {"zaubercocktail": 30, "zauberwald": 40}


def taken_back(engine: games.Game, before: dict, restored: dict) -> bool:
    """``restored`` is ``before`` again, but for the story (which tells the undo), what the
    game keeps across an undo (``undo_keeps``) and what its ``on_undo`` sets anew."""
    skip = {"told", *engine.undo_keeps, *RENEWED.get(engine.id, ())}
    return frozen({k: v for k, v in restored.items() if k not in skip}) == \
        frozen({k: v for k, v in before.items() if k not in skip})


@pytest.mark.parametrize("game_id", list(PLAYERS))
def test_no_action_changes_an_earlier_state_and_every_undo_restores_the_one_before(game_id):
    engine, rng = games.load(game_id), random.Random(11)
    state = engine.setup(PLAYERS[game_id], 11, OPTIONS.get(game_id, {}))
    seen: list[tuple[dict, str]] = [(state, frozen(state))]
    undone = 0
    for _ in range(300):
        if engine.outcome(state) is not None:
            break
        before = state
        state, _effects = engine.apply(state, choose(game_id, engine, state, rng))
        if engine.can_undo(state) and rng.random() < 0.3:
            back, _effects = engine.apply(state, {"type": "undo"})
            assert taken_back(engine, before, back)
            undone += 1
            state = back
        seen.append((state, frozen(state)))
    assert undone > 0, "the players never undid anything: the test proved nothing"
    for old, text in seen:                   # every state handed out is as it was
        assert frozen(old) == text


@pytest.mark.parametrize("game_id", list(PLAYERS))
def test_an_undo_after_a_restart_restores_the_state_before(tmp_path, game_id):
    """Over a hundred actions through the table, a restart (snapshot and log replayed), then
    every undo the game allows: each gives the state the live table had before that action."""
    path = tmp_path / "table.sqlite3"
    engine, rng = games.load(game_id), random.Random(5)
    table = Table(Store(path))
    table.start(game_id, PLAYERS[game_id], seed=5, options=OPTIONS.get(game_id, {}))
    history = [table.inspect(lambda _e, s: s)]
    for _ in range(1000):                    # past the first snapshot, to a moment with undos
        if engine.outcome(history[-1]) is not None or \
                (len(history) > REACH.get(game_id, 110) and engine.can_undo(history[-1])):
            break
        table.act(choose(game_id, engine, history[-1], rng))
        history.append(table.inspect(lambda _e, s: s))
    table.store.close()
    again = Table(Store(path))
    assert again.resume() is not None
    assert frozen(again.inspect(lambda _e, s: s)) == frozen(history[-1])
    steps = 0
    while again.inspect(lambda e, s: e.can_undo(s)):
        again.act({"type": "undo"})
        steps += 1
        assert taken_back(engine, history[-1 - steps], again.inspect(lambda _e, s: s))
    assert steps > 0, "nothing to undo after the restart: the test proved nothing"
    again.store.close()
