"""Mix It played at random to the end: the 55 cards always accounted for, every listed
action (the table's and every seat's) accepted, the basic rule never broken."""
from __future__ import annotations

import pathlib
import random
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.sizes import examples

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from mix_it_support import GAME, PARTS, TOTAL, choose, count, every_action  # noqa: E402

NAMES = ["Ann", "Ben", "Cem", "Dana", "Eli"]
LIMIT = 2000          # turns; a game that does not end by then is a failure


def basic_rule_holds(state) -> bool:
    return all(GAME.cards[c]["part"] == p for m in state["monsters"] for p in PARTS for c in m[p])


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 5), variant=st.sampled_from(["classic", "express"]))
def test_random_games_to_the_end(seed, n, variant):
    rng = random.Random(seed)
    state = GAME.setup(NAMES[:n], seed, {"variant": variant})
    for _ in range(LIMIT):
        if GAME.outcome(state) is not None:
            break
        actions = every_action(state)
        assert actions, "a running game always lets someone act"
        for action in actions:                     # every listed action is accepted
            assert GAME.is_legal(state, action), action
        state, _ = GAME.apply(state, choose(state, rng))
        assert count(state) == TOTAL and GAME.accounted(state)["extra_cookie"] == 1
        assert basic_rule_holds(state)
        assert len(set(c for h in state["hands"] for c in h) | set(state["deck"])) == \
            sum(len(h) for h in state["hands"]) + len(state["deck"])       # no card twice
    over = GAME.outcome(state)
    assert over is not None, "the game did not end"
    if variant == "classic":
        assert all(GAME.cookies(state, w) >= 3 for w in over.winners)
    else:
        assert all(len(state["won"][w]) == 1 for w in over.winners)
