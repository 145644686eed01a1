"""Mirakel Mix: random whole games (hypothesis) with the bookkeeping checked after every action.

After every action: the 18 drops, every player's 10 disks and the 36 cards are all
accounted for, no two apprentices share a space, every listed legal action is accepted
and a random action that is not listed is refused without changing the state.
Sensor events (colourless drops, stray drops, faults) are mixed in like a real table.
"""
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from controller.games.base import Refusal
from controller.games.mirakel_mix import MirakelMix
from tests.sizes import examples

GAME = MirakelMix()
COLOURS = GAME.colours
FLASKS = GAME.flasks
MAX_ACTIONS = 1200


def check_bookkeeping(s):
    bowls = s["bowls"]
    for c in COLOURS:
        in_bowls = sum(b.count(c) for b in bowls)
        assert s["cauldron"][c] >= 0
        assert s["cauldron"][c] + in_bowls == 3, f"{c} drops lost"
    inside = sum(s["cauldron"].values()) - sum(b.count(None) for b in bowls)
    assert inside >= 0
    assert sum(len(b) for b in bowls) + inside == 18
    assert all(len(b) <= 4 for b in bowls)
    for seat in range(len(s["players"])):
        on_lab = sum(spaces.count(seat) for spaces in s["lab"].values())
        assert s["disks"][seat] >= 0
        assert s["disks"][seat] + on_lab == 10, f"seat {seat} disks lost"
    for f in FLASKS:
        held = [cards[f] for cards in s["cards"]]
        assert s["piles"][f] >= 0 and min(held) >= 0
        assert s["piles"][f] + sum(held) == 6, f"{f} cards lost"
    placed = [p for p in s["apprentices"] if p is not None]
    assert len(placed) == len(set(placed)), "two apprentices on one space"


def fingerprint(s):
    return json.dumps({k: v for k, v in s.items() if k != "rng"}, sort_keys=True), s["rng"][1][:8]


def norm(a):
    a = dict(a)
    if isinstance(a.get("spend"), list):
        a["spend"] = sorted(a["spend"])
    return json.dumps(a, sort_keys=True)


def random_candidate(rng, s):
    """An action drawn from everything a confused tablet might send."""
    cave = GAME.cave_of(s)
    spaces = cave.spaces + [cave.exit, "99"]
    kind = rng.choice(["place_disk", "place_apprentice", "empty_bowl", "name_drop", "move", "place_swap",
                       "undo", "dismiss_warning", "fix_drop", "pass_disk", "fly"])
    if kind == "place_disk":
        return {"type": kind, "flask": rng.choice(FLASKS + ["cupboard"]), "space": rng.randrange(-1, 5)}
    if kind == "place_apprentice":
        return {"type": kind, "space": rng.choice(spaces)}
    if kind == "empty_bowl":
        return {"type": kind, "bowl": rng.randrange(-1, 4)}
    if kind == "name_drop":
        return {"type": kind, "colour": rng.choice(COLOURS + ["pink"])}
    if kind == "move":
        spend = rng.sample(GAME.obstacles, rng.randrange(0, 3))
        return {"type": kind, "to": rng.choice(spaces), "spend": spend, "double_speed": rng.random() < 0.3}
    if kind == "place_swap":
        return {"type": kind, "space": rng.choice(spaces), "spend": rng.sample(GAME.obstacles, rng.randrange(0, 2))}
    if kind in ("dismiss_warning", "fix_drop"):
        a = {"type": kind, "id": rng.randrange(0, 6)}
        if kind == "fix_drop":
            a["colour"] = rng.choice(COLOURS)
            if rng.random() < 0.5:
                a["bowl"] = rng.randrange(0, 3)
        return a
    return {"type": kind}


def sensor_event(rng, s):
    r = rng.random()
    if r < 0.5:
        return {"type": "drop"}  # beam only, colour unknown
    if r < 0.9:
        return {"type": "drop", "colour": rng.choice(COLOURS)}  # maybe impossible: becomes a warning
    return {"type": "sensor_fault", "message": "beam stuck dark for 2 s"}


def choose(rng, s, legal, noise=0.03):
    """A policy that mostly heads for the exit so that games end; ``noise`` is the share
    of sensor events (stray and colourless drops, faults) mixed in."""
    if rng.random() < noise:
        return sensor_event(rng, s)
    plain = [a for a in legal if a["type"] not in ("undo",)] or legal
    if rng.random() < 0.04 and any(a["type"] == "undo" for a in legal):
        return {"type": "undo"}
    moves = [a for a in plain if a["type"] == "move" and a["to"] is not None]
    if moves and rng.random() < 0.75:
        order = GAME.cave_of(s).spaces + [GAME.cave_of(s).exit]
        return max(moves, key=lambda a: order.index(a["to"]))
    return rng.choice(plain)


def play_game(n_players, seed, options, check_all=True, noise=0.03, max_actions=MAX_ACTIONS):
    rng = random.Random(seed)
    s = GAME.setup([f"P{i}" for i in range(n_players)], seed, options)
    check_bookkeeping(s)
    for _ in range(max_actions):
        if GAME.outcome(s) is not None:
            break
        legal = GAME.legal_actions(s)
        assert legal, f"no legal action in phase {s['phase']}"
        keys = {norm(a) for a in legal}
        assert len(keys) == len(legal), "duplicate legal actions"
        if check_all:
            for a in legal:
                GAME.apply(s, json.loads(json.dumps(a)))  # each one accepted as-is
        bad = random_candidate(rng, s)
        if norm(bad) not in keys:
            before = fingerprint(s)
            with pytest.raises(Refusal):
                GAME.apply(s, bad)
            assert fingerprint(s) == before
        s, effects = GAME.apply(s, choose(rng, s, legal, noise))
        check_bookkeeping(s)
        if s["options"]["coach"] or rng.random() < 0.2:
            json.dumps(GAME.view(s))
        assert isinstance(effects, list)
    out = GAME.outcome(s)
    if out is not None:
        if out.reason == "deadlock":  # nobody can cross another obstacle (DEFAULTS.md)
            assert GAME.deadlocked(s)
        elif out.reason == "no_way_out":  # nobody can ever reach the exit (DEFAULTS.md)
            assert GAME.no_way_out(s) and not GAME.deadlocked(s)
        else:
            assert s["apprentices"][out.winners[0]] == GAME.cave_of(s).exit
        assert s["phase"] == "finished"
        # only the action that ended the game may still be taken back
        assert [a["type"] for a in GAME.legal_actions(s)] in ([], ["undo"])
    else:
        assert s["winner"] is None and s["phase"] != "finished"
    return s, out


SETTINGS = settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("n_players", [2, 3, 4])
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), fill=st.sampled_from(["sensor", "random"]))
def test_random_games_keep_every_drop_disk_card_and_apprentice(n_players, seed, fill):
    play_game(n_players, seed, {"fill": fill})


@settings(max_examples=examples(15), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_players=st.sampled_from([2, 3, 4]))
def test_a_noisy_cauldron_never_loses_a_drop(seed, n_players):
    play_game(n_players, seed, {}, noise=0.35, max_actions=250)


def test_a_game_with_the_coach_on_keeps_its_books_too():
    s, _ = play_game(3, 99, {"fill": "random", "coach": True}, check_all=False)
    assert "coach" in GAME.view(s)


def test_random_games_do_reach_a_winner():
    winners = 0
    for seed in range(12):
        _, out = play_game(2 + seed % 3, seed, {"fill": "random"}, check_all=False)
        winners += out is not None
    assert winners >= 9


def test_replaying_the_same_actions_gives_the_same_state():
    rng = random.Random(4)
    s = GAME.setup(["Ann", "Ben", "Cy"], 4, {})
    log = []
    while GAME.outcome(s) is None and len(log) < 300:
        a = choose(rng, s, GAME.legal_actions(s))
        log.append(a)
        s, _ = GAME.apply(s, a)
    r = GAME.setup(["Ann", "Ben", "Cy"], 4, {})
    for a in log:
        r, _ = GAME.apply(r, json.loads(json.dumps(a)))
    assert json.dumps(r, sort_keys=True) == json.dumps(s, sort_keys=True)


JUNK = [None, 3, -1, "x", [], ["red"], {"a": 1}, True, 2.5, "exit", "S1"]


@settings(max_examples=examples(60), deadline=None)
@given(kind=st.sampled_from(["drop", "name_drop", "place_apprentice", "empty_bowl", "place_disk", "pass_disk",
                             "move", "place_swap", "undo", "dismiss_warning", "fix_drop", "sensor_fault"]),
       fields=st.dictionaries(st.sampled_from(["colour", "space", "bowl", "flask", "to", "spend", "double_speed",
                                               "id", "message"]), st.sampled_from(JUNK), max_size=4),
       at=st.integers(0, 200))
def test_junk_actions_are_refused_in_words_or_handled(kind, fields, at):
    rng = random.Random(at)
    s = GAME.setup(["Ann", "Ben"], at, {"fill": "random"})
    for _ in range(at):
        if GAME.outcome(s) is not None:
            break
        s, _ = GAME.apply(s, choose(rng, s, GAME.legal_actions(s)))
    before = fingerprint(s)
    try:
        s2, _ = GAME.apply(s, dict(fields, type=kind))
    except Refusal as exc:
        assert str(exc)
        assert fingerprint(s) == before
    else:
        check_bookkeeping(s2)
        json.dumps(s2)
