"""The secret-leak property: two games that differ only in hidden information give
byte-identical public sessions (what GET /api/v1/session answers and the public stream
sends) at every step, and a seat's session is the same whatever the others hide.

At each step of a random game the hidden information is dealt again at random (hands,
goals, the deck's order, face-down cookies; Zaubercocktail: the hidden lay-downs and the
recipe deck's order) and the public stream message compared byte for byte."""
from __future__ import annotations

import pathlib
import random
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller import records
from controller.games import Game, IllegalAction
from controller.games.zaubercocktail.engine import Zaubercocktail
from controller.table import build_seat_session, build_session
from tests.leaks import assert_seat_keeps_its_secrets, assert_told_no_secret, public_session
from tests.sizes import examples, timeout_for
from web_ui.stream import session_message

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from mix_it_support import GAME, choose  # noqa: E402

NAMES = ["Ann", "Ben", "Cem", "Dana", "Eli", "Fay", "Gus"]


def seat_session(game: Game, state: dict[str, Any], seat: int) -> dict[str, Any]:
    public = build_session(game, state, game_id=1, game=game.id, version=1, players=state["players"])
    return dict(build_seat_session(game, state, public, seat))


# --- Mix It ------------------------------------------------------------------------------------
def mix_it_redealt(state: dict[str, Any], rng: random.Random, keep: int | None = None,
                   keep_goal: bool = True) -> dict[str, Any]:
    """The same public table with the hidden cards dealt again (``keep``: that seat's own
    hand and, unless ``keep_goal`` is False, its goal stay)."""
    s = GAME.fork(state)
    express = s["options"]["variant"] == "express"
    seats = [i for i in range(len(s["players"])) if i != keep]
    face_up = s["deck"][-1:] if express else []
    parts = (s["deck"][:-1] if express else s["deck"]) + [c for i in seats for c in s["hands"][i]]
    rng.shuffle(parts)
    s["deck"], at = parts[:len(parts) - sum(len(s["hands"][i]) for i in seats)] + face_up, None
    at = len(s["deck"]) - len(face_up)
    for i in seats:
        s["hands"][i], at = parts[at:at + len(s["hands"][i])], at + len(s["hands"][i])
    shouting = {c["seat"] for c in s["claims"]}          # a goal shown to the table is public
    free = [i for i in seats if i not in shouting and s["goals"][i] is not None]
    if keep is not None and not keep_goal and keep not in shouting and s["goals"][keep] is not None:
        free.append(keep)
    goals = s["goal_pile"] + [s["goals"][i] for i in free] + [g for i in seats for g in s["won"][i]]
    rng.shuffle(goals)
    s["goal_pile"], at = goals[:len(s["goal_pile"])], len(s["goal_pile"])
    for i in free:
        s["goals"][i], at = goals[at], at + 1
    for i in seats:
        s["won"][i], at = goals[at:at + len(s["won"][i])], at + len(s["won"][i])
    GAME.settle(s, "redeal")
    assert GAME.accounted(s) == GAME.accounted(state)
    return s


def secrets_of(state: dict[str, Any], seat: int) -> list[Any]:
    return [*state["hands"][seat], *([state["goals"][seat]] if state["goals"][seat] else [])]


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 5))
@pytest.mark.parametrize("variant", ["classic", "express"])      # 2 x 100 = 200 random games
@timeout_for(examples(100) * 0.15)      # a classic game re-dealt at every step: 14 CPU s for 100
def test_mix_it_public_stream_is_the_same_whatever_is_hidden(variant, seed, n):
    rng = random.Random(seed)
    state = GAME.setup(NAMES[:n], seed, {"variant": variant})
    for _ in range(2000):
        pub = public_session(GAME, state)
        public = session_message(pub)
        twin = mix_it_redealt(state, rng)
        assert session_message(public_session(GAME, twin)) == public
        seat = rng.randrange(n)                       # one seat's stream: the others' secrets never change it
        own = seat_session(GAME, state, seat)
        assert session_message(seat_session(GAME, mix_it_redealt(state, rng, keep=seat), seat)) \
            == session_message(own)
        shouting = {c["seat"] for c in state["claims"]}   # a goal shown to the table is public
        secrets = [c for s in range(n) if s not in shouting for c in secrets_of(state, s)]
        others = [seat_session(GAME, state, s) for s in range(n) if s != seat]
        assert_seat_keeps_its_secrets(pub, others, secrets_of(state, seat)
                                      if seat not in shouting else state["hands"][seat])
        assert all(f'"{c}"' not in public for c in secrets)
        if GAME.outcome(state) is not None:
            break
        state, _ = GAME.apply(state, choose(state, rng))
    assert GAME.outcome(state) is not None


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(2, 5))
@pytest.mark.parametrize("variant", ["classic", "express"])      # 2 x 40 = 80 random games
def test_mix_it_tells_the_table_no_secret(variant, seed, n):
    """Every action of a whole game, and the same action in a twin game dealt otherwise,
    tell the table the same words (the game log, the tablet's line)."""
    rng = random.Random(seed)
    state = GAME.setup(NAMES[:n], seed, {"variant": variant})
    for _ in range(2000):
        if GAME.outcome(state) is not None:
            break
        action = choose(state, rng)
        mix_it_told_the_same(state, action, rng)
        state, _ = GAME.apply(state, action)
    assert GAME.outcome(state) is not None


def mix_it_told_the_same(state: dict[str, Any], action: dict[str, Any], rng: random.Random) -> None:
    """The same action in a twin game dealt otherwise tells the table the same, unless the
    rules showed the table something different (a card placed from the hand, a goal shouted).
    The actor keeps the hand card it places; changing goal, even its own goal is dealt again."""
    seat = action.get("seat")
    twin = mix_it_redealt(state, rng, keep=seat, keep_goal=action["type"] != "change_goal")
    try:
        assert_told_no_secret(GAME, (state, action), (twin, action))
    except IllegalAction:         # the twin's goal does not show: no "MONSTER!" there
        assert action["type"] == "claim"


# --- Zaubercocktail ------------------------------------------------------------------------------
ZC = Zaubercocktail()


def zc_redealt(state: dict[str, Any], rng: random.Random, keep: int | None = None) -> dict[str, Any]:
    """Hidden lay-downs swapped between the players who entered one, the unrevealed recipe
    deck shuffled again."""
    s = ZC.fork(state)
    rnd = s["round"]
    if not rnd["entries_revealed"]:
        entered = [i for i, e in enumerate(rnd["entries"]) if e is not None and i != keep]
        moved = [rnd["entries"][i] for i in entered]
        rng.shuffle(moved)
        for i, e in zip(entered, moved):
            rnd["entries"][i] = e
        for i in entered:                              # and a different hand altogether
            if rng.random() < 0.5:
                rnd["entries"][i] = {"cards": {"greenwurz": rng.randint(2, 6)}, "black": {}}
    if s["deck"] is not None:
        rng.shuffle(s["deck"])
    return s


def zc_step(state, rng):
    seats = range(len(state["players"]))
    actions = [a for a in ZC.legal_actions(state) + [a for s in seats for a in ZC.lay_downs(state, s)]
               if a["type"] != "undo"]
    return rng.choice(actions) if actions else None


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), n=st.integers(4, 7))
def test_zaubercocktail_hidden_lay_downs_never_reach_the_public_stream(seed, n):
    rng = random.Random(seed)
    state = ZC.setup(NAMES[:n], seed, {})
    for _ in range(80):
        public = session_message(public_session(ZC, state))
        redealt = zc_redealt(state, rng)
        assert session_message(public_session(ZC, redealt)) == public
        # the sample the lay-down screen asks for (open to anyone) is shaped by public facts
        assert [ZC.lay_downs(redealt, s) for s in range(n)] == [ZC.lay_downs(state, s) for s in range(n)]
        seat = rng.randrange(n)
        assert session_message(seat_session(ZC, zc_redealt(state, rng, keep=seat), seat)) == \
            session_message(seat_session(ZC, state, seat))
        entry = state["round"]["entries"][seat]
        same = [s for s, e in enumerate(state["round"]["entries"]) if s != seat and e == entry]
        if entry is not None and not state["round"]["entries_revealed"] and not same:
            others = [seat_session(ZC, state, s) for s in range(n) if s != seat]
            assert_seat_keeps_its_secrets(public_session(ZC, state), others,
                                          [ZC.private_view(state, seat)["entry"]])
        action = zc_step(state, rng)
        if action is None:
            break
        twin = zc_redealt(state, rng, keep=action.get("seat"))
        if ZC.is_legal(twin, action):                 # (the twin's lay-downs may use up the cards)
            assert_told_no_secret(ZC, (state, action), (twin, action))
        if action["type"] == "lay_down":              # another hidden lay-down: told the same
            other = {**action, "cards": {"greenwurz": rng.randint(2, 4)}, "black": {}}
            if ZC.is_legal(state, other):
                assert assert_told_no_secret(ZC, (state, action), (state, other))
        state, _ = ZC.apply(state, action)


def test_the_leak_check_catches_a_secret_in_the_words(monkeypatch):
    """The check above fails when the words name what is hidden: a lay-down's cards."""
    words = records._words("zaubercocktail")
    leaky = records.Words({**words.actions, "lay_down": "{player} entered {cards}"}, words.when_empty,
                          words.events, words.values)
    monkeypatch.setattr(records, "_words", lambda game_id: leaky)
    state = ZC.setup(NAMES[:4], 3, {})
    for action in ({"type": "reveal"}, {"type": "drop_out", "seat": 0}):
        state, _ = ZC.apply(state, action)
    mine = {"type": "lay_down", "seat": 0, "cards": {"troll_hair": 3}, "black": {}}
    other = {**mine, "cards": {"greenwurz": 3}}
    with pytest.raises(AssertionError, match="told a secret"):
        assert_told_no_secret(ZC, (state, mine), (state, other))
