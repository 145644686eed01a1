"""Mirakel Mix: set-up, bowls, drops and disk placement (the spine of a turn)."""
import copy

import pytest

from controller.games.base import BadSetup, IllegalAction, InvalidAction
from controller.games.mirakel_mix import MirakelMix
from mirakel_support import BOWLS, play

@pytest.fixture(scope="module")
def game():
    return MirakelMix()


def filled(game, players=("Ann", "Ben"), bowls=BOWLS):
    s = game.setup(list(players), seed=1, options={})
    return play(game, s, *[{"type": "drop", "colour": c} for c in bowls])


def started(game, players=("Ann", "Ben"), bowls=BOWLS):
    s = filled(game, players, bowls)
    return play(game, s, *[{"type": "place_apprentice", "space": f"S{i + 1}"} for i in range(len(players))])


def refused(game, state, action, words, exc_type=IllegalAction):
    """The rules refuse ``action`` (IllegalAction, or InvalidAction for a malformed one)
    in words that name the rule."""
    before = copy.deepcopy(state)
    with pytest.raises(exc_type) as exc:
        game.apply(state, action)
    assert words in str(exc.value)
    assert state == before  # a refusal changes nothing


def malformed(game, state, action, words):
    refused(game, state, action, words, InvalidAction)


# --- set-up ----------------------------------------------------------------------
def test_setup_starts_by_filling_the_bowls_with_all_drops_in_the_cauldron(game):
    s = game.setup(["Ann", "Ben"], seed=3, options={})
    v = game.view(s)
    assert v["phase"] == "fill_bowls"
    assert v["cauldron"] == {c: 3 for c in ["red", "yellow", "green", "blue", "purple", "orange"]}
    assert v["cauldron_total"] == 18
    assert [b["drops"] for b in v["bowls"]] == [[], [], []]
    assert "bowl 1" in game.prompt(s)
    assert all(p["disks_left"] == 10 for p in v["players"])
    assert all(f["pile"] == 6 for f in v["lab"])


def test_twelve_sensor_drops_fill_bowls_in_order_and_the_rest_stay_known(game):
    s = game.setup(["Ann", "Ben"], seed=3, options={})
    s = play(game, s, *[{"type": "drop", "colour": c} for c in BOWLS[:5]])
    assert s["bowls"] == [BOWLS[:4], BOWLS[4:5], []]
    assert game.prompt(s).startswith("Set-up") and "bowl 2" in game.prompt(s)
    s = play(game, s, *[{"type": "drop", "colour": c} for c in BOWLS[5:]])
    assert s["bowls"] == [BOWLS[0:4], BOWLS[4:8], BOWLS[8:12]]
    assert s["phase"] == "place_apprentices"
    assert game.view(s)["cauldron"] == {"red": 0, "yellow": 0, "green": 0, "blue": 0, "purple": 3, "orange": 3}


def test_random_fill_option_skips_the_sensor_and_is_repeatable(game):
    a = game.setup(["Ann", "Ben", "Cy"], seed=11, options={"fill": "random"})
    b = game.setup(["Ann", "Ben", "Cy"], seed=11, options={"fill": "random"})
    assert a == b
    assert a["phase"] == "place_apprentices"
    assert all(len(bowl) == 4 for bowl in a["bowls"])
    for c, n in a["cauldron"].items():
        assert n + sum(bowl.count(c) for bowl in a["bowls"]) == 3
    others = {tuple(map(tuple, game.setup(["Ann", "Ben", "Cy"], seed=k, options={"fill": "random"})["bowls"]))
              for k in range(5)}
    assert len(others) > 1


@pytest.mark.parametrize("players, message", [
    (["Ann"], "2 to 4 players"),
    (["A", "B", "C", "D", "E"], "2 to 4 players"),
    (["Ann", "ann"], "different name"),
])
def test_bad_player_lists_are_refused(game, players, message):
    with pytest.raises(BadSetup, match=message):
        game.setup(players, seed=1, options={})


def test_bad_options_are_refused(game):
    with pytest.raises(BadSetup, match="fill"):
        game.setup(["Ann", "Ben"], seed=1, options={"fill": "magic"})
    with pytest.raises(BadSetup, match="has no option 'speed'"):
        game.setup(["Ann", "Ben"], seed=1, options={"speed": 3})


@pytest.mark.parametrize("n, cave, starts", [(2, "small", 3), (3, "small", 3), (4, "large", 4)])
def test_board_side_follows_the_player_count(game, n, cave, starts):
    s = game.setup([f"P{i}" for i in range(n)], seed=1, options={"fill": "random"})
    v = game.view(s)
    assert v["cave"]["id"] == cave
    assert len(v["cave"]["start"]) == starts
    assert {a["space"] for a in game.legal_actions(s) if a["type"] == "place_apprentice"} == set(v["cave"]["start"])


# --- apprentices ----------------------------------------------------------------
def test_apprentices_are_placed_in_turn_on_free_start_spaces(game):
    s = filled(game, ("Ann", "Ben", "Cy"))
    assert s["active"] == 0 and "Ann" in game.prompt(s)
    s = play(game, s, {"type": "place_apprentice", "space": "S2"})
    assert s["active"] == 1
    refused(game, s, {"type": "place_apprentice", "space": "S2"}, "only one apprentice per space")
    refused(game, s, {"type": "place_apprentice", "space": "5"}, "start space")
    malformed(game, s, {"type": "place_apprentice", "space": "99"}, "no cave space")
    malformed(game, s, {"type": "place_apprentice", "space": 1}, "no cave space")
    s = play(game, s, {"type": "place_apprentice", "space": "S1"}, {"type": "place_apprentice", "space": "S3"})
    assert [p["apprentice"] for p in game.view(s)["players"]] == ["S2", "S1", "S3"]
    assert s["phase"] == "choose_bowl" and s["active"] == 0
    refused(game, s, {"type": "place_apprentice", "space": "S1"}, "start of the game")


# --- emptying a bowl ------------------------------------------------------------
def test_emptying_a_bowl_fills_the_cauldron_and_tells_the_device(game):
    s = started(game)
    assert {a["bowl"] for a in game.legal_actions(s) if a["type"] == "empty_bowl"} == {0, 1, 2}
    s2, effects = game.apply(s, {"type": "empty_bowl", "bowl": 1})
    assert effects == [{"device": "cauldron", "op": "fill", "drops": ["yellow", "yellow", "green", "green"]}]
    assert s2["bowls"][1] == [] and s2["phase"] == "dispense"
    assert s2["cauldron"]["yellow"] == 2 and s2["cauldron"]["green"] == 2
    assert game.view(s2)["cauldron_total"] == 10
    assert game.view(s2)["turn"]["bowl"] == 1
    refused(game, s2, {"type": "empty_bowl", "bowl": 0}, "start of your turn")


def test_bowl_numbers_outside_the_three_are_refused(game):
    s = started(game)
    malformed(game, s, {"type": "empty_bowl", "bowl": 3}, '"bowl" must be a whole number from 0 to 2')
    malformed(game, s, {"type": "empty_bowl", "bowl": "one"}, '"bowl" must be a whole number from 0 to 2')
    malformed(game, s, {"type": "empty_bowl", "bowl": True}, '"bowl" must be a whole number from 0 to 2')
    malformed(game, s, {"type": "empty_bowl"}, '"bowl" must be a whole number from 0 to 2')


def test_manual_drop_buttons_list_only_colours_the_cauldron_still_holds(game):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0})  # red x3, yellow
    drops = {a["colour"] for a in game.legal_actions(s) if a["type"] == "drop"}
    assert drops == {"red", "yellow", "purple", "orange"}
    s = play(game, s, {"type": "drop", "colour": "yellow"}, {"type": "place_disk", "flask": "flame_wall", "space": 1})
    drops = {a["colour"] for a in game.legal_actions(s) if a["type"] == "drop"}
    assert drops == {"red", "purple", "orange"}


# --- placing disks ---------------------------------------------------------------
def test_a_disk_goes_on_a_free_space_of_the_drops_colour(game):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0}, {"type": "drop", "colour": "red"})
    v = game.view(s)
    assert v["phase"] == "place_disk" and v["turn"]["pending"] == "red"
    assert game.prompt(s) == "Ann: put a disk on a free red space"
    spaces = {(a["flask"], a["space"]) for a in game.legal_actions(s) if a["type"] == "place_disk"}
    assert spaces == {("flame_wall", 0), ("monster_crypt", 3), ("double_speed", 2), ("place_swap", 1)}
    refused(game, s, {"type": "place_disk", "flask": "poison_pit", "space": 0}, "free red space")
    s = play(game, s, {"type": "place_disk", "flask": "monster_crypt", "space": 3})
    assert s["lab"]["monster_crypt"] == [None, None, None, 0]
    assert s["disks"] == [9, 10]
    assert game.view(s)["turn"]["disks_placed"] == 1 and s["phase"] == "dispense"


def test_an_occupied_space_is_refused(game):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0}, {"type": "drop", "colour": "red"},
             {"type": "place_disk", "flask": "flame_wall", "space": 0}, {"type": "drop", "colour": "red"})
    refused(game, s, {"type": "place_disk", "flask": "flame_wall", "space": 0}, "already taken")


def test_bad_flask_or_space_is_refused(game):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0}, {"type": "drop", "colour": "red"})
    malformed(game, s, {"type": "place_disk", "flask": "dragon", "space": 0}, "no mixing flask")
    malformed(game, s, {"type": "place_disk", "flask": "flame_wall", "space": 4}, "from 0 to 3")
    malformed(game, s, {"type": "place_disk", "flask": "flame_wall", "space": "0"}, "from 0 to 3")


def test_a_disk_is_placed_only_for_a_fallen_drop(game):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0})
    refused(game, s, {"type": "place_disk", "flask": "flame_wall", "space": 0}, "no drop waiting")


def test_when_no_space_of_the_colour_is_free_any_free_space_will_do(game):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0}, {"type": "drop", "colour": "red"})
    for f, i in [("monster_crypt", 3), ("double_speed", 2), ("place_swap", 1)]:
        s["lab"][f][i] = 1  # Ben's disks already sit on three red spaces
        s["disks"][1] -= 1
    s = play(game, s, {"type": "place_disk", "flask": "flame_wall", "space": 0}, {"type": "drop", "colour": "red"})
    v = game.view(s)
    assert game.prompt(s) == "Ann: no red space is free, put a disk on any free space"
    spaces = {(a["flask"], a["space"]) for a in game.legal_actions(s) if a["type"] == "place_disk"}
    assert len(spaces) == 24 - 4
    s = play(game, s, {"type": "place_disk", "flask": "lightning_grid", "space": 3})
    assert s["lab"]["lightning_grid"][3] == 0


def test_a_player_with_no_disk_left_places_nothing(game):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0})
    s["disks"][0] = 0
    s = play(game, s, {"type": "drop", "colour": "red"})
    assert s["phase"] == "dispense"
    assert s["turn"]["disks_placed"] == 1
    assert s["turn"]["placements"] == [{"skipped": "no disk left"}]
    assert all(seat is None for spaces in s["lab"].values() for seat in spaces)
    refused(game, s, {"type": "pass_disk"}, "skips the disk by itself")


def test_when_no_space_at_all_is_free_nothing_is_placed(game):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0})
    for f in s["lab"]:
        s["lab"][f] = [1, 1, 1, 1]  # pretend the whole lab is full, none completed yet counted
    s = play(game, s, {"type": "drop", "colour": "purple"})
    assert s["turn"]["placements"] == [{"skipped": "no free space in the lab"}]
    assert s["disks"][0] == 10


def test_four_drops_without_a_potion_pass_the_turn_and_disks_stay(game):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0})
    for c, (f, i) in zip(["red", "red", "yellow", "purple"],
                         [("flame_wall", 0), ("monster_crypt", 3), ("flame_wall", 1), ("poison_pit", 3)]):
        s = play(game, s, {"type": "drop", "colour": c}, {"type": "place_disk", "flask": f, "space": i})
    assert s["phase"] == "choose_bowl" and s["active"] == 1
    assert s["bowls"][0] == ["red", "red", "yellow", "purple"]
    assert s["disks"] == [6, 10]
    assert s["lab"]["flame_wall"] == [0, 0, None, None]
    assert game.prompt(s) == "Ben: empty a magic bowl into the cauldron and tap which one"


def test_the_refilled_bowl_goes_back_with_the_other_filled_bowls(game):
    # "Then put the refilled magic bowl back with the other filled magic bowls."
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0})
    assert s["bowls"][0] == []
    for c, (f, i) in zip(["purple", "purple", "orange", "orange"],
                         [("poison_pit", 3), ("lightning_grid", 2), ("lightning_grid", 3), ("monster_crypt", 2)]):
        s = play(game, s, {"type": "drop", "colour": c}, {"type": "place_disk", "flask": f, "space": i})
    assert s["bowls"][0] == ["purple", "purple", "orange", "orange"]
    assert s["phase"] == "choose_bowl" and s["active"] == 1
    assert {a["bowl"] for a in game.legal_actions(s) if a["type"] == "empty_bowl"} == {0, 1, 2}


# --- drops of unknown colour ------------------------------------------------------
def test_a_colourless_drop_is_named_by_the_players(game):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0}, {"type": "drop"})
    v = game.view(s)
    assert v["phase"] == "name_drop" and "colour" in game.prompt(s)
    assert v["cauldron_total"] == 9 and v["unnamed_drops"] == 1
    assert {a["colour"] for a in game.legal_actions(s)} >= {"red", "yellow", "purple", "orange"}
    assert all(a["type"] in ("name_drop", "undo", "dismiss_warning", "fix_drop") for a in game.legal_actions(s))
    refused(game, s, {"type": "name_drop", "colour": "blue"}, "cannot be blue")
    malformed(game, s, {"type": "name_drop", "colour": "pink"}, "no drop colour")
    malformed(game, s, {"type": "name_drop"}, '"colour" must be one of "red"')
    malformed(game, s, {"type": "drop", "colour": 3}, "no drop colour")
    s = play(game, s, {"type": "name_drop", "colour": "orange"})
    assert s["phase"] == "place_disk" and game.view(s)["turn"]["pending"] == "orange"
    assert s["cauldron"]["orange"] == 2


def test_colourless_drops_during_setup_are_named_too(game):
    s = game.setup(["Ann", "Ben"], seed=1, options={})
    s = play(game, s, {"type": "drop"})
    assert s["phase"] == "name_drop"
    s = play(game, s, {"type": "name_drop", "colour": "green"})
    assert s["bowls"][0] == ["green"] and s["phase"] == "fill_bowls"
    refused(game, s, {"type": "name_drop", "colour": "green"}, "no drop is waiting")


# --- the view ---------------------------------------------------------------------
def test_view_follows_the_agreed_schema(game):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 2}, {"type": "drop", "colour": "purple"})
    v = game.view(s)
    for key in ("phase", "active", "players", "bowls", "cauldron", "cauldron_total", "lab",
                "turn", "last_drop", "colours", "cave"):
        assert key in v
    assert v["players"][0] == {"seat": 0, "name": "Ann", "disks_left": 10, "apprentice": "S1",
                               "cards": {f: 0 for f in ["flame_wall", "poison_pit", "lightning_grid",
                                                        "monster_crypt", "double_speed", "place_swap"]}}
    assert v["bowls"][2] == {"index": 2, "drops": ["purple"], "full": False}
    assert v["turn"]["drops"] == ["purple"] and v["turn"]["pending"] == "purple" and v["turn"]["bowl"] == 2
    assert v["last_drop"] == "purple"
    assert {"id": "purple", "letter": "P"} in v["colours"]
    assert v["lab"][0]["spaces"][0] == {"index": 0, "colour": "red", "letter": "R", "disk": None}
    assert v["lab"][0]["pile"] == 6 and v["lab"][0]["complete"] is False
    assert isinstance(game.prompt(s), str) and game.prompt(s).count(".") <= 1
