"""Mirakel Mix: the cauldron as referee (warnings with one-tap fixes) and undo."""
import copy

import pytest

from controller.games.base import IllegalAction
from controller.games.mirakel_mix import MirakelMix
from mirakel_support import BOWLS, play_effects

@pytest.fixture(scope="module")
def game():
    return MirakelMix()


def started(game):
    s = game.setup(["Ann", "Ben"], seed=1, options={})
    s, _ = play_effects(game, s, *[{"type": "drop", "colour": c} for c in BOWLS])
    s, _ = play_effects(game, s, {"type": "place_apprentice", "space": "S1"}, {"type": "place_apprentice", "space": "S2"})
    return s


def game_part(s):
    """Everything but the warnings (a warning must never change the game) and what the last
    action told the table."""
    return {k: v for k, v in s.items() if k not in ("warnings", "next_warning", "stamp", "told")}


def four_drops(game, s):
    for c, (f, i) in zip(["red", "red", "yellow", "purple"],
                         [("flame_wall", 0), ("monster_crypt", 3), ("flame_wall", 1), ("poison_pit", 3)]):
        s, _ = play_effects(game, s, {"type": "drop", "colour": c})
        if c != "purple":
            s, _ = play_effects(game, s, {"type": "place_disk", "flask": f, "space": i})
    return s


def fixes(game, s):
    return game.view(s)["warnings"][-1]["fixes"]


# --- drops that cannot be ------------------------------------------------------------
def test_a_fifth_drop_is_a_warning_not_a_drop(game):
    s, _ = play_effects(game, started(game), {"type": "empty_bowl", "bowl": 0})
    s = four_drops(game, s)                      # the 4th disk is not placed yet
    s2, effects = play_effects(game, s, {"type": "drop", "colour": "orange"})
    assert game_part(s2) == game_part(s) and effects == []
    w = game.view(s2)["warnings"]
    assert [x["kind"] for x in w] == ["fifth_drop"] and "fifth drop" in w[0]["message"]
    assert fixes(game, s2) == [{"type": "dismiss_warning", "id": 1}]
    assert {"type": "dismiss_warning", "id": 1} in game.legal_actions(s2)
    s3, _ = play_effects(game, s2, {"type": "dismiss_warning", "id": 1})
    assert game.view(s3)["warnings"] == [] and game_part(s3) == game_part(s)


def test_a_drop_before_a_bowl_is_chosen_offers_to_record_the_bowl(game):
    s = started(game)
    s2, effects = play_effects(game, s, {"type": "drop", "colour": "red"})
    assert effects == [] and game_part(s2) == game_part(s)
    w = game.view(s2)["warnings"][0]
    assert w["kind"] == "outside_turn" and "before Ann chose a bowl" in w["message"]
    # Red can only have come out if bowl 0 (red, red, red, yellow) went in: purple/orange remain.
    assert w["fixes"] == [{"type": "dismiss_warning", "id": 1},
                          {"type": "fix_drop", "id": 1, "bowl": 0, "colour": "red"}]
    s3, effects = play_effects(game, s2, {"type": "fix_drop", "id": 1, "bowl": 0, "colour": "red"})
    assert effects == [{"device": "cauldron", "op": "fill", "drops": ["red", "red", "red", "yellow"]}]
    assert s3["bowls"][0] == ["red"] and s3["phase"] == "place_disk" and s3["warnings"] == []
    assert s3["cauldron"]["red"] == 2


def test_a_colourless_early_drop_can_be_fixed_and_named(game):
    s, _ = play_effects(game, started(game), {"type": "drop"})
    assert [f.get("bowl") for f in fixes(game, s)] == [None, 0, 1, 2]
    s, _ = play_effects(game, s, {"type": "fix_drop", "id": 1, "bowl": 2})
    assert s["phase"] == "name_drop" and s["turn"]["bowl"] == 2
    s, _ = play_effects(game, s, {"type": "name_drop", "colour": "blue"})
    assert game.view(s)["turn"]["pending"] == "blue"


def test_a_colour_the_cauldron_no_longer_holds_is_a_warning_with_other_colours_offered(game):
    s, _ = play_effects(game, started(game), {"type": "empty_bowl", "bowl": 0})   # no blue inside
    s2, _ = play_effects(game, s, {"type": "drop", "colour": "blue"})
    assert game_part(s2) == game_part(s)
    w = game.view(s2)["warnings"][0]
    assert w["kind"] == "colour" and "no blue drop" in w["message"]
    assert {f.get("colour") for f in w["fixes"]} == {None, "red", "yellow", "purple", "orange"}
    s3, _ = play_effects(game, s2, {"type": "fix_drop", "id": 1, "colour": "purple"})
    assert s3["bowls"][0] == ["purple"] and s3["cauldron"]["purple"] == 2 and s3["warnings"] == []


def test_drops_in_set_up_of_a_used_up_colour_warn_too(game):
    s = game.setup(["Ann", "Ben"], seed=1, options={})
    s, _ = play_effects(game, s, *[{"type": "drop", "colour": "red"}] * 3)
    s2, _ = play_effects(game, s, {"type": "drop", "colour": "red"})
    assert s2["bowls"][0] == ["red"] * 3 and s2["warnings"][0]["kind"] == "colour"


def test_drops_while_apprentices_are_placed_or_moving_are_warnings(game):
    s = game.setup(["Ann", "Ben"], seed=1, options={})
    s, _ = play_effects(game, s, *[{"type": "drop", "colour": c} for c in BOWLS])
    s2, _ = play_effects(game, s, {"type": "drop", "colour": "purple"})
    assert game_part(s2) == game_part(s) and s2["warnings"][0]["kind"] == "outside_turn"
    assert fixes(game, s2) == [{"type": "dismiss_warning", "id": 1}]
    s = started(game)
    s["stage"] = "move"
    s["movement"] = {"queue": [{"seat": 0, "steps": 1}], "used": 0, "double": False, "moved": False}
    game.advance(s)
    s2, _ = play_effects(game, s, {"type": "drop"})
    assert s2["warnings"][0]["kind"] == "fifth_drop" and game_part(s2) == game_part(s)


def test_a_thirteenth_drop_while_naming_the_twelfth_is_a_warning(game):
    s = game.setup(["Ann", "Ben"], seed=1, options={})
    s, _ = play_effects(game, s, *[{"type": "drop", "colour": c} for c in BOWLS[:11]], {"type": "drop"})
    assert s["phase"] == "name_drop"
    s2, _ = play_effects(game, s, {"type": "drop", "colour": "orange"})
    assert game_part(s2) == game_part(s) and s2["warnings"][0]["kind"] == "outside_turn"
    s3, _ = play_effects(game, s2, {"type": "name_drop", "colour": "blue"})
    assert s3["phase"] == "place_apprentices"


def test_sensor_faults_become_warnings(game):
    s = started(game)
    s2, _ = play_effects(game, s, {"type": "sensor_fault", "message": "drop beam dark for 2 s"})
    assert game_part(s2) == game_part(s)
    w = game.view(s2)["warnings"][0]
    assert w["kind"] == "sensor_fault" and w["message"] == "drop beam dark for 2 s"
    assert w["fixes"] == [{"type": "dismiss_warning", "id": 1}]


def test_a_fix_goes_stale_once_play_moves_on(game):
    s, _ = play_effects(game, started(game), {"type": "empty_bowl", "bowl": 0})
    s, _ = play_effects(game, s, {"type": "drop", "colour": "blue"})          # misread
    s, _ = play_effects(game, s, {"type": "drop", "colour": "red"})           # play goes on
    assert fixes(game, s) == [{"type": "dismiss_warning", "id": 1}]
    with pytest.raises(IllegalAction, match="does not fit the game any more"):
        game.apply(s, {"type": "fix_drop", "id": 1, "colour": "purple"})
    with pytest.raises(IllegalAction, match="no warning 7"):
        game.apply(s, {"type": "dismiss_warning", "id": 7})


# --- undo -------------------------------------------------------------------------------
def test_undo_takes_back_player_actions_until_the_last_drop(game):
    s0 = started(game)
    s1, _ = play_effects(game, s0, {"type": "empty_bowl", "bowl": 0})
    s2, _ = play_effects(game, s1, {"type": "drop", "colour": "red"})
    assert {"type": "undo"} not in game.legal_actions(s2)
    with pytest.raises(IllegalAction, match="nothing to undo since the last drop fell"):
        game.apply(s2, {"type": "undo"})
    s3, _ = play_effects(game, s2, {"type": "place_disk", "flask": "flame_wall", "space": 0})
    assert game.can_undo(s3) and {"type": "undo"} in game.legal_actions(s3)
    s4, effects = play_effects(game, s3, {"type": "undo"})
    assert effects == []
    assert game_part(s4) == game_part(s2) | {"undo": []}
    s5, _ = play_effects(game, s4, {"type": "place_disk", "flask": "place_swap", "space": 1})
    assert s5["lab"]["place_swap"][1] == 0 and s5["lab"]["flame_wall"][0] is None


def test_undoing_an_emptied_bowl_tells_the_cauldron(game):
    s0 = started(game)
    s1, _ = play_effects(game, s0, {"type": "empty_bowl", "bowl": 1})
    s2, effects = play_effects(game, s1, {"type": "undo"})
    assert effects == [{"device": "cauldron", "op": "unfill", "drops": ["yellow", "yellow", "green", "green"]}]
    assert s2["bowls"] == s0["bowls"] and s2["cauldron"] == s0["cauldron"] and s2["phase"] == "choose_bowl"


def test_undo_reaches_back_over_several_actions_and_keeps_warnings(game):
    s = started(game)
    s, _ = play_effects(game, s, {"type": "empty_bowl", "bowl": 0})
    s = four_drops(game, s)
    s, _ = play_effects(game, s, {"type": "sensor_fault", "message": "turn gently"})
    s, _ = play_effects(game, s, {"type": "place_disk", "flask": "poison_pit", "space": 3})
    assert s["active"] == 1 and s["phase"] == "choose_bowl"
    s, _ = play_effects(game, s, {"type": "empty_bowl", "bowl": 2})
    s, _ = play_effects(game, s, {"type": "undo"}, {"type": "undo"})
    assert s["active"] == 0 and s["phase"] == "place_disk" and game.view(s)["turn"]["pending"] == "purple"
    assert [w["kind"] for w in s["warnings"]] == ["sensor_fault"]
    with pytest.raises(IllegalAction, match="nothing to undo"):
        game.apply(s, {"type": "undo"})


def test_undo_a_move_gives_back_the_card_and_the_space(game):
    s = started(game)
    s["cards"][0]["flame_wall"] = 1
    s["piles"]["flame_wall"] = 5
    s["apprentices"] = ["2", "S2"]
    s["stage"] = "move"
    s["movement"] = {"queue": [{"seat": 0, "steps": 2}, {"seat": 1, "steps": 1}], "used": 0,
                     "double": False, "moved": False}
    game.advance(s)
    before = copy.deepcopy(s)
    s, _ = play_effects(game, s, {"type": "move", "to": "4", "spend": ["flame_wall"], "double_speed": False})
    assert s["apprentices"][0] == "4" and s["piles"]["flame_wall"] == 6
    s, _ = play_effects(game, s, {"type": "undo"})
    assert game_part(s) == game_part(before)
