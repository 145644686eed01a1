"""Elixir keeps its secrets: the formula cards, the brew stack, every wizard's brew cards.

- the public view (the tablet, the public stream) and the public actions are the same,
  byte for byte, whatever the secrets are (formula order, stack order, other hands);
- a wizard's phone view is the same whatever the other wizards' secrets are;
- two games differing only in secrets, played with the same public taps, stream the
  same public sessions until a secret is revealed by the rules (a brew drunk, the fatal
  brew stolen, a search that finds no card);
- a wizard's formula table never shows a formula that wizard has not brewed.
"""
from __future__ import annotations

import json
import pathlib
import random
import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from elixir_support import (GAME, NAMES, T, act, all_actions, arrange, choose, do, give_brews,  # noqa: E402
                            give_ingredients, start)

from controller.games.base import new_rng_state  # noqa: E402
from tests.leaks import assert_told_no_secret, public_session  # noqa: E402
from tests.sizes import examples  # noqa: E402

SECRET_ACTIONS = {"drink"}


def dump(value):
    return json.dumps(value, sort_keys=True)


def perturb(state, rng, keep=None):
    """The same game with every secret changed, except those of seat ``keep``: the formula
    cards dealt otherwise, the stack reordered and refilled, other hands and the dead-end
    brew cards swapped for other brews (same counts), notes and secret news rewritten."""
    new = arrange(state, secret_rng=new_rng_state(rng.randrange(2**30)))
    new["undo"] = state["undo"]
    brews = list(T.brews)
    formulas = list(brews)
    rng.shuffle(formulas)
    new["formulas"] = dict(zip(T.pairs, formulas))
    new["stack"] = [rng.choice(brews) for _ in state["stack"]]
    for seat, w in enumerate(new["wizards"]):
        if seat == keep:
            continue
        w["brews"] = [rng.choice(brews) for _ in w["brews"]]
        w["seen"] = {p: rng.choice(brews) for p in w["seen"]}          # who looked is public; what, not
        w["secret_log"] = [f"secret {rng.random()}" for _ in w["secret_log"]]
        new["notes"][seat] = {rng.choice(T.pairs): f"note {rng.random()}"}
    new["dead_end"]["brews"] = [{**b, "brew": rng.choice(brews)} for b in new["dead_end"]["brews"]]
    return new


def positions(seed, steps=400, every=7):
    """Positions of a purposeful random game with physical dice, every ``every`` actions."""
    rng = random.Random(seed)
    state = GAME.setup(NAMES[:2 + seed % 3], seed=seed, options={"dice": "physical" if seed % 2 else "digital"})
    for i in range(steps):
        if GAME.outcome(state) is not None:
            return
        state = act(state, choose(rng, state, all_actions(state)))
        if i % every == 0:
            yield state


@settings(max_examples=examples(8), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), salt=st.integers(0, 2**30))
def test_the_public_view_and_actions_do_not_depend_on_any_secret(seed, salt):
    rng = random.Random(salt)
    for state in positions(seed):
        other = perturb(state, rng)
        assert dump(GAME.view(other)) == dump(GAME.view(state))
        assert dump(GAME.legal_actions(other)) == dump(GAME.legal_actions(state))
        assert dump(GAME.scores(other).to_json()) == dump(GAME.scores(state).to_json())   # the score panel


@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), salt=st.integers(0, 2**30))
def test_a_wizards_phone_view_does_not_depend_on_other_wizards_secrets(seed, salt):
    rng = random.Random(salt)
    for state in positions(seed, every=11):
        for seat in range(len(state["players"])):
            other = perturb(state, rng, keep=seat)
            assert dump(GAME.private_view(other, seat)) == dump(GAME.private_view(state, seat))


def revealed(a, b):
    """True once the rules have shown a secret to everyone in either game (a brew drunk,
    the fatal brew stolen, a search that found no card, a win)."""
    for state in (a, b):
        if state["winner"] is not None or any(w["fatal"] or w["in_use"] for w in state["wizards"]):
            return True
    return [len(w["brews"]) for w in a["wizards"]] != [len(w["brews"]) for w in b["wizards"]]


@pytest.mark.parametrize("seed", range(12))
def test_games_differing_only_in_secrets_stream_the_same_public_sessions(seed):
    """Same seed (dice, Unknowns), different formula cards and brew stack: the same
    public taps give byte-identical public views and action lists."""
    n = 2 + seed % 3
    a = GAME.setup(NAMES[:n], seed=seed)
    b = GAME.setup(NAMES[:n], seed=seed)
    b["secret_rng"] = new_rng_state(seed + 1000)
    GAME.deal_secrets(b, T.copies[n])
    assert a["formulas"] != b["formulas"] or a["stack"] != b["stack"]
    rng = random.Random(seed)
    compared = 0
    for _ in range(300):
        public = GAME.legal_actions(a)
        assert dump(public) == dump(GAME.legal_actions(b))
        assert dump(GAME.view(a)) == dump(GAME.view(b))
        assert dump(public_session(GAME, a)) == dump(public_session(GAME, b))     # what the table is told too
        assert dump(GAME.scores(a).to_json()) == dump(GAME.scores(b).to_json())
        compared += 1
        taps = [x for x in public if x["type"] not in SECRET_ACTIONS]
        if not taps:
            break          # a secret choice (which brew card) is due: the games part here
        action = choose(rng, a, taps)
        a, b = act(a, action), act(b, action)
        if revealed(a, b):
            break
    assert compared >= 10


@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), salt=st.integers(0, 2**30))
@example(seed=6666, salt=0)        # a position where the game was just won (no note is written then)
def test_what_the_table_is_told_names_no_secret(seed, salt):
    """Every action in a twin game whose secrets differ (formulas, the stack, other hands),
    and every secret choice against another one (which brew card goes to the dead-end street
    or to Clotilda, which note is written), tells the table the same words, unless the
    rules showed the table something different."""
    rng = random.Random(salt)
    compared = 0
    for state in positions(seed, every=3):
        for action in rng.sample(all_actions(state), min(4, len(all_actions(state)))):
            twin = perturb(state, rng, keep=action.get("seat"))
            if GAME.is_legal(twin, action):
                compared += assert_told_no_secret(GAME, (state, action), (twin, action))
        for seat in range(len(state["players"])):
            secret = [a for a in GAME.seat_actions(state, seat) if a["type"] in ("give", "accept") and a.get("brew")]
            for one, other in zip(secret, secret[1:]):
                if one["type"] == other["type"]:
                    compared += assert_told_no_secret(GAME, (state, one), (state, other))
            if GAME.outcome(state) is not None:
                continue                      # the game is over: no note is written any more
            pair = rng.choice(T.pairs)
            compared += assert_told_no_secret(GAME, (state, {"type": "note", "seat": seat, "pair": pair, "text": "wolf"}),
                                              (state, {"type": "note", "seat": seat, "pair": T.pairs[0], "text": ""}))
    assert compared


def test_a_wizard_never_sees_a_formula_he_has_not_brewed():
    for seed in range(4):
        rng = random.Random(seed)
        state = GAME.setup(NAMES[:3], seed=seed, options={"dice": "physical"})
        brewed = [set() for _ in range(3)]
        for _ in range(1500):
            if GAME.outcome(state) is not None:
                break
            action = choose(rng, state, all_actions(state))
            pending = state["pending"]
            before = state
            state = act(state, action)
            if action["type"] == "roll" and pending and pending.get("for") == "brew" \
                    and state["die"]["last"]["result"] == "success":
                table = before["wizards"][pending["seat"]]["table"]
                brewed[pending["seat"]].add(f"{table['herb']}+{table['special']}")
            for seat in range(3):
                learnt = {f["pair"] for f in GAME.private_view(state, seat)["formula_table"] if f["learnt"]}
                assert learnt == brewed[seat]
        assert any(brewed)


def test_no_secret_value_in_the_public_dump_or_another_wizards_phone():
    state = give_brews(start(3), 0, "elixir_1", "fatal_brew")
    state = give_brews(state, 1, "lucky_liqueur")
    state = give_ingredients(state, 0, "racks", {"ruby": 1, "mandrake": 1, "toad_eye": 1})
    state = do(do(state, "move", seat=0, to="lab"), "brew", seat=0, gems={"ruby": 1}, herb="mandrake",
               special="toad_eye")
    state = do(state, "roll", seat=0, value=6)
    learnt = state["formulas"]["mandrake+toad_eye"]
    state = do(state, "note", seat=0, pair="wolfsbane+bat_wing", text="antidote")
    ann = {"elixir_1", "fatal_brew", learnt, "antidote"}
    public = dump(GAME.view(state)) + dump(GAME.legal_actions(state)) + dump(GAME.scores(state).to_json())
    for secret in ann | {"lucky_liqueur"}:
        assert secret not in public, secret
        assert T.brews[secret].name not in public, secret
    assert all(s not in dump(GAME.private_view(state, 2)) for s in ann | {"lucky_liqueur"})
    bens = dump(GAME.private_view(state, 1)) + dump(GAME.seat_actions(state, 1))
    assert all(s not in bens for s in ann - {"lucky_liqueur"})       # Ben holds a lucky liqueur himself
    mine = GAME.private_view(state, 0)
    assert {b["id"] for b in mine["brews"]} == {"elixir_1", "fatal_brew", learnt}
    assert {f["pair"]: f["note"] for f in mine["formula_table"]}["wolfsbane+bat_wing"] == "antidote"
    # a note is written from the wizard's own phone: a seat action of his, any time of the game
    assert {"type": "note", "seat": 1} in GAME.seat_actions(state, 1)
    assert {a["brew"] for a in GAME.seat_actions(state, 0) if a["type"] == "drink"} == \
        {b["id"] for b in mine["brews"] if b["drinkable"]}
