"""Undo in Im großen Zauberwald: which entries a player may take back, and the facts
(the floor turning, "stop!", a completed check) that no undo reaches across."""
import json
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_zauberwald_support import (GAME, TOTAL, act, arrange, count_all, recipe,  # noqa: E402
                                     start_search, table)

from controller.games.base import IllegalAction  # noqa: E402

A, B, C = 0, 1, 2
UNDO = {"type": "undo"}


def undo(state):
    """One undo, which never asks a device for anything (the floor is never turned back)."""
    after, effects = act(state, UNDO)
    assert effects == []
    return after


def same(a, b) -> bool:
    """The same game, whatever the undo stacks hold and the last action told."""
    strip = lambda s: json.dumps({k: v for k, v in s.items() if k not in ("undo", "told")}, sort_keys=True)  # noqa: E731
    return strip(a) == strip(b)


def offers_undo(state) -> bool:
    listed = UNDO in GAME.legal_actions(state)
    assert GAME.can_undo(state) is listed is GAME.is_legal(state, UNDO)
    assert (GAME.undo_label(state) is not None) is listed
    return listed


def nothing_to_undo(state):
    assert not offers_undo(state)
    with pytest.raises(IllegalAction, match="nothing to take back"):
        GAME.apply(state, UNDO)


def searching(cards=((1, 2, 3), (4, 5, 6)), tile=3):
    state = table([list(c) for c in cards])
    state, _ = start_search(state, tile)
    return state


# --- what can be taken back ---------------------------------------------------------------
def test_a_recipe_card_typed_in_can_be_taken_back():
    state = GAME.setup(["Julie", "Linus"], seed=1, options={"cards": "physical"})
    nothing_to_undo(state)
    before = state
    state, _ = act(state, {"type": "enter_card", "seat": A, "slot": 0, "ingredients": recipe(1)})
    assert offers_undo(state) and GAME.undo_label(state) == "Julie's first recipe card"
    state = undo(state)
    assert same(state, before) and state["cards"][A][0] is None
    nothing_to_undo(state)


def test_the_last_recipe_card_can_be_taken_back_after_the_first_round_started():
    state = table([[1, 2, 3], [4, 5, 6]])
    assert state["phase"] == "choose" and state["round_number"] == 1
    assert GAME.undo_label(state) == "Linus's third recipe card"
    state = undo(state)
    assert state["phase"] == "cards" and state["round"] is None and state["cards"][B][2] is None
    # the entries before it are there to take back, one by one
    assert GAME.undo_label(state) == "Linus's second recipe card"
    state, _ = act(state, {"type": "enter_card", "seat": B, "slot": 2, "ingredients": recipe(7)})
    assert state["phase"] == "choose" and state["cards"][B][2]["number"] == 7


def test_a_magic_tile_can_be_taken_back_until_the_floor_turns():
    state = table([[1, 2, 3], [4, 5, 6]])
    before = state
    state, _ = act(state, {"type": "choose_tile", "seat": A, "tile": 4})
    assert GAME.undo_label(state) == "Julie's magic tile 4"
    state = undo(state)
    assert same(state, before) and state["tiles"][A] == [2, 2, 3, 3, 4] and state["phase"] == "choose"


def test_a_change_of_mind_is_taken_back_to_the_tile_before():
    state = table([[1, 2, 3], [4, 5, 6]])
    state, _ = act(state, {"type": "choose_tile", "seat": A, "tile": 4})
    state, _ = act(state, {"type": "choose_tile", "seat": A, "tile": 2})
    state = undo(state)
    assert state["phase"] == "turn" and state["round"]["tile"] == 4 and state["tiles"][A] == [2, 2, 3, 3]
    state = undo(state)
    assert state["phase"] == "choose" and state["round"]["tile"] is None


def test_end_your_search_can_be_taken_back():
    state = table([[1, 2, 6], [4, 5, 7]])
    state = arrange(state, A, potions=2, on_card={"red": 2, "yellow": 2, "black": 1})   # needs 2: counts 2 to 4
    state, _ = start_search(state, 4)
    before = state
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 4})          # a slip: she has 2
    assert GAME.undo_label(state) == "Julie's \u201cend your search!\u201d"
    state = undo(state)
    assert same(state, before) and state["phase"] == "search" and state["round"]["count"] is None
    nothing_to_undo(state)                 # the floor's turn before it stands
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 2})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"green": 2}})
    assert state["round"]["results"][0]["shortfall"] == 0


def test_baskets_can_be_taken_back_one_by_one_while_the_check_goes_on():
    state = table([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    state, _ = start_search(state, 3)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 3})
    checking = state
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"red": 1, "orange": 2}})
    after_julie = state
    assert GAME.undo_label(state) == "Julie's basket"
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": {"black": 1}})
    assert GAME.undo_label(state) == "Linus's basket"
    state = undo(state)
    assert same(state, after_julie) and state["round"]["to_check"] == [B, C]
    state = undo(state)
    assert same(state, checking) and state["cards"][A][0]["on_card"] == {}
    assert state["forest"] == {c: 9 for c in GAME.colours} and count_all(state) == TOTAL
    # entered again, rightly this time
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"red": 1, "yellow": 1, "green": 1}})
    assert state["cards"][A][0]["on_card"] == {"red": 1, "yellow": 1, "green": 1}


def test_a_penalty_choice_and_the_basket_before_it_can_be_taken_back():
    state = table([[1, 6, 9], [4, 5, 7]])          # Julie has no blue on any card
    state, _ = start_search(state, 4)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 4})
    checking = state
    state, _ = act(state, {"type": "basket", "seat": A,
                           "ingredients": {"red": 1, "orange": 1, "yellow": 1, "blue": 1}})
    choosing = state
    assert state["phase"] == "penalty"
    state, _ = act(state, {"type": "return_ingredients", "seat": A, "ingredients": {"orange": 1}})
    assert GAME.undo_label(state) == "Julie's choice of what goes back"
    state = undo(state)
    assert same(state, choosing) and state["phase"] == "penalty"
    state, _ = act(state, {"type": "return_ingredients", "seat": A, "ingredients": {"red": 1}})
    assert state["cards"][A][0]["on_card"] == {"yellow": 1, "orange": 1}
    state = undo(state)
    state = undo(state)
    assert same(state, checking) and state["phase"] == "check"


def test_an_undo_restores_a_state_the_game_plays_on_from():
    state = table([[1, 2, 3], [4, 5, 6]])
    state, _ = act(state, {"type": "choose_tile", "seat": A, "tile": 3})
    state = undo(state)
    replayed, effects = act(state, {"type": "choose_tile", "seat": A, "tile": 3})
    state, effects = act(replayed, {"type": "turn", "seat": A, "direction": "clockwise"})
    assert effects == [{"device": "forest_floor", "op": "rotate", "ants": 3, "direction": "clockwise"}]
    json.loads(json.dumps(state))


# --- the facts: nothing before them can be undone ----------------------------------------------
def test_the_floor_sent_turning_is_a_fact():
    state = table([[1, 2, 3], [4, 5, 6]])
    state, _ = act(state, {"type": "choose_tile", "seat": A, "tile": 3})
    state, effects = act(state, {"type": "turn", "seat": A, "direction": "clockwise"})
    assert effects[0]["op"] == "rotate"
    nothing_to_undo(state)            # taking the tile back now would mean turning the floor back


def test_the_floor_reporting_its_turn_is_a_fact():
    state = table([[1, 2, 3], [4, 5, 6]])
    state, _ = act(state, {"type": "choose_tile", "seat": A, "tile": 2})
    state, _ = act(state, {"type": "turn", "seat": A, "direction": "counter_clockwise"})
    for report in ({"type": "floor_turned"}, {"type": "floor_turned", "manual": True}):
        after, _ = act(state, report)
        assert after["floor"]["position"] == 14
        nothing_to_undo(after)


def test_an_undo_never_reaches_back_across_a_turn_of_the_floor():
    state = searching()
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 3})
    state = undo(state)
    assert state["phase"] == "search" and state["floor"]["position"] == 3
    nothing_to_undo(state)


def test_stop_is_a_fact():
    state = table([[1, 2, 3], [4, 5, 6]])
    state = arrange(state, B, potions=2, on_card={"red": 2, "yellow": 2, "green": 2})
    state, _ = start_search(state, 3)
    state, _ = act(state, {"type": "stop", "seat": B})
    nothing_to_undo(state)
    # the caller's basket after it is an entry again, until the check is complete
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": {"blue": 1}})
    assert state["round"]["results"][0]["stop"] == "wrong"
    assert GAME.undo_label(state) == "Linus's basket"


def test_stop_after_end_your_search_is_a_fact_for_the_baskets_before_it():
    state = table([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    state = arrange(state, C, potions=2, on_card={"red": 2, "orange": 1, "blue": 2, "white": 1})
    state, _ = start_search(state, 2)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 2})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {}})
    assert offers_undo(state)
    state, _ = act(state, {"type": "stop", "seat": C})
    assert state["round"]["to_check"] == [C, B]
    nothing_to_undo(state)


def test_a_completed_check_is_a_fact():
    state = searching()
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 3})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"orange": 2}})
    assert offers_undo(state)
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": {}})      # the last basket
    assert state["phase"] == "choose" and state["master"] == B
    nothing_to_undo(state)
    # the new master's tile is an entry of the new round: its undo stops there
    state, _ = act(state, {"type": "choose_tile", "seat": B, "tile": 2})
    state = undo(state)
    assert state["phase"] == "choose" and state["round_number"] == 2
    nothing_to_undo(state)


def test_a_penalty_choice_that_completes_the_check_is_a_fact():
    state = table([[4, 5, 7], [1, 6, 9]])          # Linus has no blue on any card
    state, _ = start_search(state, 4)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 4})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {}})
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": {"red": 1, "yellow": 1, "blue": 1}})
    assert state["phase"] == "penalty" and offers_undo(state)
    state, _ = act(state, {"type": "return_ingredients", "seat": B, "ingredients": {"red": 1}})
    assert state["phase"] == "choose"
    nothing_to_undo(state)


def test_the_game_won_by_stop_is_a_fact():
    state = table([[1, 2, 3], [4, 5, 6]])
    state = arrange(state, B, potions=2, on_card={"red": 2, "yellow": 2, "green": 2})
    state, _ = start_search(state, 3)
    state, _ = act(state, {"type": "stop", "seat": B})
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": {"black": 1}})
    assert GAME.outcome(state).winners == (B,)
    assert state["undo"] == [] and not GAME.can_undo(state)
    with pytest.raises(IllegalAction):
        GAME.apply(state, UNDO)


def test_dealt_cards_start_with_nothing_to_undo():
    nothing_to_undo(GAME.setup(["Julie", "Linus"], seed=4))


def test_undo_replays_from_the_log():
    """The table rebuilds a game by replaying its log, undos included."""
    state = GAME.setup(["Julie", "Linus"], seed=8)
    log = [{"type": "choose_tile", "seat": A, "tile": 4}, UNDO,
           {"type": "choose_tile", "seat": A, "tile": 2},
           {"type": "turn", "seat": A, "direction": "clockwise"}, {"type": "floor_turned"},
           {"type": "end_search", "seat": A, "count": 2}, {"type": "basket", "seat": A, "ingredients": {}}, UNDO,
           {"type": "basket", "seat": A, "ingredients": {"red": 1}}]
    runs = []
    for _ in range(2):
        s = state
        for action in log:
            s, _ = GAME.apply(s, action)
        runs.append(s)
    assert runs[0] == runs[1]
    assert runs[0]["tiles"][A] == [2, 3, 3, 4] and runs[0]["round"]["results"][0]["basket"] == {"red": 1}
