"""Random whole games of Elixir: they end with a winner, nothing is created or lost
(gold, ingredients, brew cards, Unknowns), the secrets never reach the public view, and
whatever ``legal_actions`` offers is accepted."""
from __future__ import annotations

import json
import os
import pathlib
import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from elixir_support import GAME, NAMES, act, all_actions, check_invariants, choose, play  # noqa: E402
from test_elixir_secrets import perturb  # noqa: E402

from tests.sizes import examples  # noqa: E402

LIMIT = 20_000      # actions; purposeful random games take 300 to 7000


def whole_game(n, seed, moves, dice="digital", leak_every=0):
    """Play to a winner; every ``leak_every`` actions, the public view must not change
    when every secret does. Returns the final state and how many actions it took."""
    rng = random.Random(moves)
    state = GAME.setup(NAMES[:n], seed=seed, options={"dice": dice})
    check_invariants(state)
    for i in range(LIMIT):
        if GAME.outcome(state) is not None:
            return state, i
        actions = all_actions(state)
        assert actions, GAME.prompt(state)
        state = act(state, choose(rng, state, actions))
        check_invariants(state)
        if leak_every and i % leak_every == 0:
            other = perturb(state, rng)
            assert json.dumps(GAME.view(other), sort_keys=True) == json.dumps(GAME.view(state), sort_keys=True)
    raise AssertionError(f"no winner after {LIMIT} actions (round {state['round']})")


@settings(max_examples=examples(3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 4), seed=st.integers(0, 100_000), moves=st.integers(0, 2**32), physical=st.booleans())
def test_random_games_end_with_a_winner_and_conserve_everything(n, seed, moves, physical):
    state, _ = whole_game(n, seed, moves, "physical" if physical else "digital")
    outcome = GAME.outcome(state)
    assert outcome is not None and len(outcome.winners) == 1
    winner = state["wizards"][outcome.winners[0]]
    assert {"elixir_1", "elixir_2", "elixir_3"} <= set(winner["brews"])


def test_replaying_the_actions_gives_the_same_game():
    rng = random.Random(5)
    state = GAME.setup(NAMES[:3], seed=5)
    start, actions = state, []
    for _ in range(400):
        action = choose(rng, state, all_actions(state))
        actions.append(action)
        state = act(state, action)
    again = start
    for action in actions:
        again = act(again, action)
    assert again == state


def test_every_offered_action_is_accepted():
    rng = random.Random(11)
    state = GAME.setup(NAMES[:4], seed=11, options={"dice": "physical"})
    for _ in range(300):
        actions = all_actions(state)
        for action in actions:
            assert GAME.is_legal(state, action), action
        state = play(state, rng, limit=1)


#: whole games in `make test` (seconds each); ELIXIR_GAMES=200 runs the issue's full bar
#: (minutes on 2 shared cores; bench/bench_elixir.py prints the figures)
GAMES = int(os.environ.get("ELIXIR_GAMES", examples(12)))


@pytest.mark.timeout(1800)
def test_many_random_games_end_with_a_winner_and_no_leak():
    """Every kind of table (2-4 wizards, both dice) ends with a winner and 0 leaks."""
    for k in range(GAMES):
        whole_game(2 + k % 3, seed=k, moves=k * 7919, dice="physical" if k % 2 else "digital", leak_every=25)
