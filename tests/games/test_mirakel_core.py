"""Mirakel Mix on the engine core: legal_actions against is_legal, the undo policy,
malformed actions (400) apart from rule refusals (422), the outcome, device sync, and
old logs that still say "color"."""
import json
import random
from itertools import combinations_with_replacement

import pytest

from controller.games.base import IllegalAction, InvalidAction, Outcome, Placing
from controller.games.mirakel_mix import MirakelMix
from mirakel_support import BOWLS, play, play_effects

GAME = MirakelMix()
SPENDS = [list(c) for k in range(3) for c in combinations_with_replacement(GAME.obstacles, k)]


def started(players=("Ann", "Ben")):
    s = GAME.setup(list(players), seed=1, options={})
    s = play(GAME, s, *[{"type": "drop", "colour": c} for c in BOWLS])
    return play(GAME, s, *[{"type": "place_apprentice", "space": f"S{i + 1}"} for i in range(len(players))])


def norm(a):
    a = dict(a)
    if isinstance(a.get("spend"), list):
        a["spend"] = sorted(a["spend"])
    return json.dumps(a, sort_keys=True)


# --- legal_actions is complete: it agrees with is_legal ------------------------------
def nearby_moves(s):
    """Every move and swap the mover might try, worked out from the cave alone: each
    space within twice the steps left, with each set of up to two obstacle cards the
    mover holds, with and without double speed; a swap with each neighbouring space."""
    m = s["movement"]
    if not m:
        return []
    seat, cave = m["queue"][0]["seat"], GAME.cave_of(s)
    here, left = s["apprentices"][seat], m["queue"][0]["steps"] - m["used"]
    held = [c for c in GAME.obstacles for _ in range(min(2, s["cards"][seat][c]))]
    spends = {tuple(sorted(c)) for k in range(3) for c in combinations_with_replacement(held, k)
              if all(c.count(x) <= held.count(x) for x in c)}
    near = [sp for sp in cave.spaces + [cave.exit] if (cave.distance(here, sp) or 99) <= 2 * left]
    return ([{"type": "move", "to": sp, "spend": list(spend), "double_speed": d}
             for sp in near for spend in spends for d in (False, True)]
            + [{"type": "place_swap", "space": sp, "spend": list(spend)}
               for sp in cave.adjacent[here] for spend in spends if len(spend) < 2])


def fixes_for(wid):
    """Every fix_drop a tablet could send for warning ``wid``."""
    out = []
    for bowl in (None, *range(GAME.n_bowls)):
        for colour in (None, *GAME.colours):
            fix = {"type": "fix_drop", "id": wid}
            if bowl is not None:
                fix["bowl"] = bowl
            if colour is not None:
                fix["colour"] = colour
            out.append(fix)
    return out


def candidates(s, rng, n=20):
    """Player actions to try: every one this phase is about (each name, space, bowl,
    place, move near the mover; each fix of a warning raised just now), the few that are
    always about, and ``n`` drawn from everything else there is."""
    cave = GAME.cave_of(s)
    spaces = cave.spaces + [cave.exit]
    by_phase = {
        "name_drop": [{"type": "name_drop", "colour": c} for c in GAME.colours],
        "place_apprentices": [{"type": "place_apprentice", "space": sp} for sp in spaces],
        "choose_bowl": [{"type": "empty_bowl", "bowl": i} for i in range(GAME.n_bowls)],
        "place_disk": [{"type": "place_disk", "flask": f, "space": i} for f in GAME.flasks for i in range(4)],
    }
    ids = range(0, s["next_warning"] + 1)
    focus = [{"type": "undo"}, {"type": "pass_disk"}, {"type": "move", "to": None}]
    focus += by_phase.get(s["phase"], []) + nearby_moves(s)
    focus += [{"type": "dismiss_warning", "id": i} for i in ids]
    focus += [fix for w in s["warnings"] if w["stamp"] == s["stamp"] for fix in fixes_for(w["id"])]
    rest = [a for kind in by_phase.values() for a in kind]
    rest += [fix for i in ids for fix in fixes_for(i)]
    rest += [{"type": "move", "to": sp, "spend": spend, "double_speed": d}
             for sp in spaces for spend in SPENDS for d in (False, True)]
    rest += [{"type": "place_swap", "space": sp, "spend": spend} for sp in spaces for spend in SPENDS[:5]]
    return focus + rng.sample(rest, n)


def walk(seed, n_players, steps):
    """A seeded random game (heading for the exit, with stray and colourless drops and
    undos mixed in); yields every state on the way."""
    rng = random.Random(seed)
    s = GAME.setup([f"P{i}" for i in range(n_players)], seed, {"fill": rng.choice(["sensor", "random"])})
    for _ in range(steps):
        yield s, rng
        legal = GAME.legal_actions(s)
        if not legal:
            return
        r = rng.random()
        if r < 0.08:  # a sensor drop, often one that cannot be: used up, or out of turn
            gone = [c for c in GAME.colours if s["cauldron"][c] == 0]
            colour = rng.choice([None, rng.choice(GAME.colours), rng.choice(gone or GAME.colours)])
            action = {"type": "drop", **({"colour": colour} if colour else {})}
        elif r < 0.11 and {"type": "undo"} in legal:
            action = {"type": "undo"}
        else:
            moves = [a for a in legal if a["type"] == "move" and a["to"] is not None]
            if moves and rng.random() < 0.75:
                order = GAME.cave_of(s).spaces + [GAME.cave_of(s).exit]
                action = max(moves, key=lambda a: order.index(a["to"]))
            else:
                action = rng.choice([a for a in legal if a["type"] != "undo"] or legal)
        s, _ = GAME.apply(s, action)


@pytest.mark.parametrize("seed, n_players", [(1, 2), (2, 3), (3, 4)])
def test_is_legal_agrees_with_legal_actions_over_random_play(seed, n_players):
    phases = set()
    for s, rng in walk(seed, n_players, 150):
        phases.add(s["phase"])
        legal = GAME.legal_actions(s)
        listed = {norm(a) for a in legal}
        for a in legal:
            assert GAME.is_legal(s, json.loads(json.dumps(a))), a
        for a in candidates(s, rng):
            assert GAME.is_legal(s, a) == (norm(a) in listed), (s["phase"], a)
        # The devices' reports are always taken while the game runs (a drop that
        # cannot be becomes a warning), and never once it is over.
        running = GAME.outcome(s) is None
        for report in ({"type": "drop"}, {"type": "drop", "colour": rng.choice(GAME.colours)},
                       {"type": "sensor_fault", "message": "beam dark"}):
            assert GAME.is_legal(s, report) == running
    assert {"place_apprentices", "choose_bowl", "place_disk", "dispense", "move"} <= phases
    assert GAME.legal_actions_complete is True


# --- malformed (400) apart from refused by the rules (422) ---------------------------
@pytest.mark.parametrize("action", [
    {"type": "fly"},
    {"colour": "red"},
    {"type": "drop", "colour": "pink"},
    {"type": "drop", "colour": ["red"]},
    {"type": "drop", "colour": "red", "color": "blue"},
    {"type": "name_drop"},
    {"type": "empty_bowl", "bowl": 3},
    {"type": "place_disk", "flask": "cupboard", "space": 0},
    {"type": "place_apprentice", "space": "99"},
    {"type": "dismiss_warning", "id": "1"},
    {"type": "dismiss_warning", "id": True},
    {"type": "fix_drop", "id": 1, "bowl": -1},
    {"type": "move", "to": "5", "spend": "flame_wall"},
    {"type": "place_swap", "space": "5", "spend": ["dragon"]},
])
def test_an_action_that_is_not_one_of_this_game_is_invalid_not_illegal(action):
    with pytest.raises(InvalidAction) as exc:
        GAME.apply(started(), action)
    assert str(exc.value)


@pytest.mark.parametrize("action, words", [
    ({"type": "name_drop", "colour": "red"}, "no drop is waiting"),
    ({"type": "place_disk", "flask": "flame_wall", "space": 0}, "no drop waiting"),
    ({"type": "place_apprentice", "space": "S3"}, "start of the game"),
    ({"type": "dismiss_warning", "id": 4}, "no warning 4"),
    ({"type": "move", "to": "5", "spend": [], "double_speed": False}, "nobody is moving"),
    ({"type": "pass_disk"}, "skips the disk by itself"),
])
def test_a_well_formed_action_the_rules_refuse_now_is_illegal(action, words):
    with pytest.raises(IllegalAction, match=words) as exc:
        GAME.apply(started(), action)
    assert not isinstance(exc.value, InvalidAction)


# --- undo ---------------------------------------------------------------------------
def test_a_stray_drop_is_no_barrier_but_a_fixed_drop_is():
    s, _ = play_effects(GAME, started(), {"type": "empty_bowl", "bowl": 0}, {"type": "drop", "colour": "red"},
                        {"type": "place_disk", "flask": "flame_wall", "space": 0})
    stray, _ = play_effects(GAME, s, {"type": "drop", "colour": "blue"})     # no blue inside: a warning
    assert stray["warnings"][0]["kind"] == "colour" and GAME.undo_kind(stray) == "place_disk"
    undone, _ = play_effects(GAME, stray, {"type": "undo"})
    assert undone["lab"]["flame_wall"][0] is None and undone["warnings"] == stray["warnings"]
    fixed, _ = play_effects(GAME, stray, {"type": "fix_drop", "id": 1, "colour": "purple"})
    assert fixed["bowls"][0] == ["red", "purple"] and not GAME.can_undo(fixed)


def test_an_undone_tap_makes_the_fixes_of_older_warnings_stale_for_good():
    s = started()
    early, _ = play_effects(GAME, s, {"type": "drop", "colour": "red"})      # before a bowl was chosen
    assert any(f["type"] == "fix_drop" for f in GAME.view(early)["warnings"][0]["fixes"])
    again = play(GAME, early, {"type": "empty_bowl", "bowl": 1}, {"type": "undo"})
    assert again["phase"] == "choose_bowl" and again["bowls"] == s["bowls"]
    # The table looks as it did, but the warning is from before: only dismiss remains.
    assert GAME.view(again)["warnings"][0]["fixes"] == [{"type": "dismiss_warning", "id": 1}]
    with pytest.raises(IllegalAction, match="does not fit"):
        GAME.apply(again, {"type": "fix_drop", "id": 1, "bowl": 0, "colour": "red"})


def test_the_winning_move_can_be_undone_when_it_was_mistyped():
    # A wrong last tap is the commonest entry error: the undo policy covers "move", so the
    # move that ended the game is taken back like any other (DEFAULTS/issue 17).
    s = started()
    s["apprentices"] = ["14", "S2"]
    s["stage"] = "move"
    s["movement"] = {"queue": [{"seat": 0, "steps": 1}], "used": 0, "double": False, "moved": False}
    GAME.advance(s)
    before = s
    s = play(GAME, s, {"type": "move", "to": "exit", "spend": [], "double_speed": False})
    assert GAME.outcome(s) is not None and GAME.legal_actions(s) == [{"type": "undo"}]
    assert GAME.can_undo(s) is True and GAME.undo_kind(s) == "move"
    back, _ = GAME.apply(s, {"type": "undo"})
    assert GAME.outcome(back) is None and back["apprentices"] == before["apprentices"]
    assert back["stamp"] == s["stamp"] + 1, "a fresh moment: fixes of older warnings go stale"


# --- the outcome -----------------------------------------------------------------------
def test_the_outcome_ranks_the_others_by_how_close_they_came_to_the_exit():
    s = started(("Ann", "Ben", "Cy", "Dee"))                  # the 4-player cave: path 1-18
    s["apprentices"] = ["10", "18", "3", "10"]
    s["apprentices"][3] = "12"
    s["stage"] = "move"
    s["active"] = 0
    s["movement"] = {"queue": [{"seat": 1, "steps": 1}], "used": 0, "double": False, "moved": False}
    GAME.advance(s)
    assert GAME.outcome(s) is None
    s = play(GAME, s, {"type": "move", "to": "exit", "spend": [], "double_speed": False})
    out = GAME.outcome(s)
    assert isinstance(out, Outcome)
    assert out.winners == (1,) and out.reason == "left_the_cave"
    assert out.message == "Ben's apprentice left the cave first"
    assert out.ranking == (Placing(1, 1, 0), Placing(3, 2, 7), Placing(0, 3, 9), Placing(2, 4, 16))
    data = out.to_json(s["players"])
    assert data["winner_names"] == ["Ben"] and data["turns"] == 1 and data["reason"] == "left_the_cave"
    assert GAME.view(s)["outcome"] == data


def test_apprentices_as_far_from_the_exit_share_a_place():
    s = started(("Ann", "Ben", "Cy"))
    s["apprentices"] = ["13", "S1", "S3"]                     # both start spaces are 15 from the exit
    s["stage"] = "move"
    s["movement"] = {"queue": [{"seat": 0, "steps": 2}], "used": 0, "double": False, "moved": False}
    GAME.advance(s)
    s = play(GAME, s, {"type": "move", "to": "exit", "spend": [], "double_speed": False})
    assert GAME.outcome(s).ranking == (Placing(0, 1, 0), Placing(1, 2, 15), Placing(2, 2, 15))


# --- devices ----------------------------------------------------------------------------
def test_device_sync_puts_the_drops_the_game_knows_of_into_the_cauldron():
    s = GAME.setup(["Ann", "Ben"], seed=1, options={})
    assert GAME.device_sync(s) == [{"device": "cauldron", "op": "set_contents",
                                    "contents": {c: 3 for c in GAME.colours}}]
    s = play(GAME, started(), {"type": "empty_bowl", "bowl": 0}, {"type": "drop", "colour": "red"})
    assert GAME.device_sync(s)[0]["contents"] == {"red": 2, "yellow": 1, "green": 0, "blue": 0,
                                                  "purple": 3, "orange": 3}


# --- colour, and "color" in old logs ------------------------------------------------------
def test_the_view_and_the_actions_spell_colour():
    s, _ = play_effects(GAME, started(), {"type": "empty_bowl", "bowl": 0}, {"type": "drop", "colour": "blue"})
    v = GAME.view(s)
    assert v["colours"][0] == {"id": "red", "letter": "R"} and "colors" not in v
    assert v["lab"][0]["spaces"][0]["colour"] == "red"
    assert v["warnings"][0]["colour"] == "blue" and v["warnings"][0]["kind"] == "colour"
    assert {"type": "fix_drop", "id": 1, "colour": "purple"} in v["warnings"][0]["fixes"]
    assert {"type": "drop", "colour": "red"} in GAME.legal_actions(s)
    assert "color" not in json.dumps(v) and "color" not in json.dumps(GAME.legal_actions(s))


OLD_LOG = [  # as a tablet and the cauldron logged a game before "colour" was the one spelling
    *[{"type": "drop", "color": c} for c in BOWLS[:11]],
    {"type": "drop"}, {"type": "name_drop", "color": "blue"},
    {"type": "place_apprentice", "space": "S1"}, {"type": "place_apprentice", "space": "S2"},
    {"type": "drop", "color": "red"},                          # before a bowl was tapped
    {"type": "fix_drop", "id": 1, "bowl": 0, "color": "red"},
    {"type": "place_disk", "flask": "flame_wall", "space": 0},
    {"type": "drop", "color": "blue"},                         # misread: no blue inside
    {"type": "fix_drop", "id": 2, "color": "purple"},
    {"type": "place_disk", "flask": "poison_pit", "space": 3},
]


def test_a_game_logged_with_color_resumes_as_it_was_played():
    """The daemon resumes a game by replaying its log; a log written before the upgrade
    says "color", and the game it holds must come back exactly."""
    new_log = [{("colour" if k == "color" else k): v for k, v in a.items()} for a in OLD_LOG]
    old = play(GAME, GAME.setup(["Ann", "Ben"], seed=1, options={}), *OLD_LOG)
    new = play(GAME, GAME.setup(["Ann", "Ben"], seed=1, options={}), *new_log)
    def game(value):                       # the story tells each action as it was sent
        if isinstance(value, dict):
            return {k: game(v) for k, v in value.items() if k != "told"}
        return [game(v) for v in value] if isinstance(value, list) else value
    assert json.dumps(game(old), sort_keys=True) == json.dumps(game(new), sort_keys=True)
    assert new["bowls"][0] == ["red", "purple"] and new["turn"]["disks_placed"] == 2
    assert new["warnings"] == [] and new["next_warning"] == 3
