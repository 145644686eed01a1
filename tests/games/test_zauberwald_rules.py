"""Every rule of Im großen Zauberwald as the engine plays it."""
import json
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_zauberwald_support import (GAME, TOTAL, act, arrange, count_all, play_round,  # noqa: E402
                                     quiet_rounds, recipe, start_search, table)

from controller.games import load  # noqa: E402
from controller.games.base import BadSetup, IllegalAction, InvalidAction, Outcome, Placing  # noqa: E402

A, B, C = 0, 1, 2


def refused(state, action, words, kind=IllegalAction):
    """``action`` is refused with ``kind`` (IllegalAction: a rule, 422; InvalidAction:
    malformed, 400) and a message containing ``words``."""
    with pytest.raises(kind) as exc:
        GAME.apply(state, action)
    assert type(exc.value) is kind, type(exc.value)
    assert words in str(exc.value), str(exc.value)
    assert not GAME.is_legal(state, action)


def malformed(state, action, words):
    refused(state, action, words, InvalidAction)


# --- set-up ---------------------------------------------------------------------
def test_registry_offers_the_game():
    assert load("zauberwald").info() == {"id": "zauberwald", "name": "Im großen Zauberwald",
                                         "min_players": 2, "max_players": 4}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_dealt_set_up(n):
    state = GAME.setup(["Ann", "Ben", "Cem", "Dan"][:n], seed=5)
    numbers = [card["number"] for cards in state["cards"] for card in cards]
    assert len(numbers) == 3 * n and len(set(numbers)) == 3 * n   # three distinct cards each
    assert all(sum(c["recipe"].values()) == 7 for cards in state["cards"] for c in cards)
    assert state["tiles"] == [[2, 2, 3, 3, 4]] * n
    assert state["forest"] == {c: 9 for c in GAME.colours}
    assert state["phase"] == "choose" and state["master"] == 0
    json.loads(json.dumps(state))  # plain JSON


def test_a_broken_data_file_names_the_card():
    data = GAME.default_data()
    data["recipes"][3]["ingredients"] = {"red": 8}
    with pytest.raises(ValueError, match="recipe card 4 in the Zauberwald data.toml"):
        type(GAME)(data)


def test_all_numbers_come_from_the_data_file():
    data = GAME.default_data()
    data["magic_tiles"] = [1, 5]
    data["ants_around"] = 12
    game = type(GAME)(data)
    state = game.setup(["Ann", "Ben"], seed=3)
    assert state["tiles"] == [[1, 5], [1, 5]]
    state, effects = game.apply(state, {"type": "choose_tile", "seat": 0, "tile": 5})
    state, effects = game.apply(state, {"type": "turn", "seat": 0, "direction": "counter_clockwise"})
    state, _ = game.apply(state, {"type": "floor_turned"})
    assert effects[0]["ants"] == 5 and state["floor"] == {"position": 7, "ants_around": 12}


def test_same_seed_same_cards_other_seed_other_cards():
    a = GAME.setup(["Ann", "Ben"], seed=11)
    assert a == GAME.setup(["Ann", "Ben"], seed=11)
    assert any(GAME.setup(["Ann", "Ben"], seed=s)["cards"] != a["cards"] for s in range(12, 20))


@pytest.mark.parametrize("players", [["Ann"], ["A", "B", "C", "D", "E"]])
def test_two_to_four_players(players):
    with pytest.raises(BadSetup):
        GAME.setup(players, seed=1)


def test_bad_options():
    with pytest.raises(BadSetup):
        GAME.setup(["Ann", "Ben"], seed=1, options={"cards": "imagined"})
    with pytest.raises(BadSetup):
        GAME.setup(["Ann", "Ben"], seed=1, options={"first": 2})


def test_youngest_player_starts():
    state = GAME.setup(["Ann", "Ben", "Cem"], seed=1, options={"first": 2})
    assert state["master"] == 2


def test_physical_cards_are_entered_by_hand():
    state = GAME.setup(["Ann", "Ben"], seed=1, options={"cards": "physical"})
    assert state["phase"] == "cards"
    refused(state, {"type": "choose_tile", "seat": A, "tile": 2}, "chooses a magic tile")
    refused(state, {"type": "enter_card", "seat": A, "slot": 0, "ingredients": {"red": 6}}, "exactly 7")
    malformed(state, {"type": "enter_card", "seat": A, "slot": 0, "ingredients": {"red": 6, "gold": 1}},
              "no ingredient called 'gold'")
    malformed(state, {"type": "enter_card", "seat": A, "slot": 3, "ingredients": recipe(1)}, "3 recipe cards")
    state, _ = act(state, {"type": "enter_card", "seat": A, "slot": 0, "ingredients": recipe(1)})
    assert state["cards"][A][0]["number"] == 1          # recognised from the deck
    refused(state, {"type": "enter_card", "seat": A, "slot": 0, "ingredients": recipe(2)}, "already entered")
    refused(state, {"type": "enter_card", "seat": B, "slot": 0, "ingredients": recipe(1)}, "different")
    own = {"red": 3, "white": 4}                          # a card from a printing that differs
    state, _ = act(state, {"type": "enter_card", "seat": B, "slot": 2, "ingredients": own})
    assert state["cards"][B][2]["number"] is None
    for seat, slot, number in [(A, 1, 2), (A, 2, 3), (B, 0, 4)]:
        state, _ = act(state, {"type": "enter_card", "seat": seat, "slot": slot, "ingredients": recipe(number)})
    assert state["phase"] == "cards"
    state, _ = act(state, {"type": "enter_card", "seat": B, "slot": 1, "ingredients": recipe(5)})
    assert state["phase"] == "choose"                    # all six in: the game starts


# --- magic tiles and the floor ------------------------------------------------------
def test_only_the_master_chooses_and_turns():
    state = table([[1, 2, 3], [4, 5, 6]])
    refused(state, {"type": "choose_tile", "seat": B, "tile": 2}, "only the master magician (Julie)")
    state, _ = act(state, {"type": "choose_tile", "seat": A, "tile": 2})
    refused(state, {"type": "turn", "seat": B, "direction": "clockwise"}, "only the master magician")
    malformed(state, {"type": "turn", "seat": A, "direction": "sideways"}, '"clockwise" or "counter_clockwise"')


def test_turn_needs_a_tile_first_and_floor_done_needs_a_turn():
    state = table([[1, 2, 3], [4, 5, 6]])
    refused(state, {"type": "turn", "seat": A, "direction": "clockwise"}, "chooses a magic tile first")
    refused(state, {"type": "floor_turned"}, "not been told to turn")
    refused(state, {"type": "end_search", "seat": A, "count": 2}, "while everyone is searching")


def test_master_may_change_his_mind_before_turning():
    state = table([[1, 2, 3], [4, 5, 6]])
    state, _ = act(state, {"type": "choose_tile", "seat": A, "tile": 4})
    assert state["tiles"][A] == [2, 2, 3, 3]
    state, _ = act(state, {"type": "choose_tile", "seat": A, "tile": 2})
    assert state["tiles"][A] == [2, 3, 3, 4]
    state, effects = act(state, {"type": "turn", "seat": A, "direction": "counter_clockwise"})
    assert effects[0]["ants"] == 2
    refused(state, {"type": "choose_tile", "seat": A, "tile": 3}, "chooses a magic tile before the floor turns")


def test_used_tiles_leave_the_game():
    state = table([[1, 2, 3], [4, 5, 6]])
    state = play_round(state, 4)
    state = play_round(state, 2)
    assert state["master"] == A
    refused(state, {"type": "choose_tile", "seat": A, "tile": 4}, "has only 2, 2, 3, 3 left")


def test_floor_turned_by_hand_when_there_is_no_motor():
    state = table([[1, 2, 3], [4, 5, 6]])
    state, _ = act(state, {"type": "choose_tile", "seat": A, "tile": 3})
    state, _ = act(state, {"type": "turn", "seat": A, "direction": "counter_clockwise"})
    assert {"type": "floor_turned", "manual": True} in GAME.legal_actions(state)
    state, _ = act(state, {"type": "floor_turned", "manual": True})
    assert state["phase"] == "search" and state["round"]["turned_by_hand"]
    assert state["floor"]["position"] == 13  # three ants counter-clockwise from 0, round the 16


def test_master_passes_clockwise():
    state = table([[1, 2, 3], [4, 5, 6], [7, 8, 9]], first=1)
    seen = []
    for _ in range(4):
        seen.append(state["master"])
        state = play_round(state, state["tiles"][state["master"]][0])
    assert seen == [1, 2, 0, 1]


# --- "end your search!" ------------------------------------------------------------
def test_end_search_only_with_exactly_the_tile():
    state = table([[1, 2, 3], [4, 5, 6]])
    state, _ = start_search(state, 4)
    refused(state, {"type": "end_search", "seat": A, "count": 3}, "exactly 4")
    refused(state, {"type": "end_search", "seat": B, "count": 4}, "only the master magician")
    assert [a for a in GAME.legal_actions(state) if a["type"] == "end_search"] == \
        [{"type": "end_search", "seat": A, "count": 4}]


def test_special_case_fewer_for_the_third_potion():
    state = table([[1, 2, 6], [4, 5, 7]])
    # Julie has two potions and needs only 2 more for the third (card 6: red2 yellow2 green2 black)
    state = arrange(state, A, potions=2, on_card={"red": 2, "yellow": 2, "black": 1})
    state, _ = start_search(state, 4)
    refused(state, {"type": "end_search", "seat": A, "count": 1}, "2 to 4")
    for count in (2, 3, 4):
        GAME.apply(state, {"type": "end_search", "seat": A, "count": count})
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 2})
    # no ingredient returned although she collected fewer than the tile
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"green": 2}})
    result = state["round"]["results"][0]
    assert result["shortfall"] == 0 and result["penalty"] == {}
    assert result["finished"] == [2]


def test_special_case_does_not_apply_before_the_third_potion():
    state = table([[1, 2, 6], [4, 5, 7]])
    state = arrange(state, A, potions=1, on_card={"yellow": 2, "green": 1, "orange": 1, "black": 1, "white": 1})
    state, _ = start_search(state, 3)   # needs 1 purple + 7 for the third card
    refused(state, {"type": "end_search", "seat": A, "count": 1}, "exactly 3")


# --- checking baskets ---------------------------------------------------------------
def test_baskets_are_checked_master_first_then_clockwise():
    state = table([[1, 2, 3], [4, 5, 6], [7, 8, 9]], first=1)
    state, _ = start_search(state, 2)
    state, _ = act(state, {"type": "end_search", "seat": B, "count": 2})
    assert state["round"]["to_check"] == [B, C, A]
    refused(state, {"type": "basket", "seat": C, "ingredients": {}}, "master magician's basket comes next")


def test_basket_cannot_hold_what_the_forest_did_not_have():
    state = table([[1, 2, 3], [4, 5, 6]])
    state, _ = start_search(state, 2)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 2})
    refused(state, {"type": "basket", "seat": A, "ingredients": {"red": 10}}, "only 9 red")
    refused(state, {"type": "basket", "seat": A, "ingredients": {"red": 1, "blue": 2}}, "ended the search with 2")
    malformed(state, {"type": "basket", "seat": A, "ingredients": {"mud": 1}}, "no ingredient called 'mud'")
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"red": 1, "green": 1}})
    # Ben cannot have raked the red Julie has, nor those she just put back
    state2 = GAME.fork(state)
    refused(state2, {"type": "basket", "seat": B, "ingredients": {"red": 9}}, "only 8 red")


def test_correct_ingredients_go_on_the_leftmost_card():
    state = table([[1, 2, 3], [4, 5, 6]])
    state = play_round(state, 3, {A: {"orange": 2, "red": 1}, B: {"black": 2}})
    assert state["cards"][A][0]["on_card"] == {"orange": 2, "red": 1}
    assert state["cards"][B][0]["on_card"] == {"black": 2}    # card 4 needs black x2
    assert count_all(state) == TOTAL


def test_wrong_ingredient_costs_a_correct_one_the_player_chooses():
    state = table([[1, 6, 9], [4, 5, 7]])  # Julie has no blue on any card
    state, _ = start_search(state, 4)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 4})
    # card 1 + later cards 2, 3 hold no blue: the blue is wrong
    state, _ = act(state, {"type": "basket", "seat": A,
                           "ingredients": {"red": 1, "orange": 1, "yellow": 1, "blue": 1}})
    assert state["phase"] == "penalty"
    view = GAME.view(state)["round"]["pending"]
    assert view == {"seat": A, "basket": {"red": 1, "orange": 1, "yellow": 1, "blue": 1}, "count": 1,
                    "choose_from": {"red": 1, "yellow": 1, "orange": 1}, "wrong": {"blue": 1}, "shortfall": 0}
    choices = [a["ingredients"] for a in GAME.legal_actions(state) if a["type"] == "return_ingredients"]
    assert sorted(map(sorted, choices)) == [["orange"], ["red"], ["yellow"]]
    refused(state, {"type": "return_ingredients", "seat": A, "ingredients": {"red": 2}}, "exactly 1")
    refused(state, {"type": "return_ingredients", "seat": A, "ingredients": {"green": 1}}, "just correctly")
    refused(state, {"type": "return_ingredients", "seat": B, "ingredients": {"red": 1}}, "Julie is choosing")
    refused(state, {"type": "basket", "seat": B, "ingredients": {}}, "after the search has ended")
    state, _ = act(state, {"type": "return_ingredients", "seat": A, "ingredients": {"orange": 1}})
    assert state["cards"][A][0]["on_card"] == {"red": 1, "yellow": 1}
    assert state["phase"] == "check" and state["round"]["to_check"] == [B]
    assert state["round"]["results"][0]["penalty"] == {"orange": 1}


def test_penalty_never_more_than_collected_this_round():
    state = table([[1, 2, 3], [4, 5, 6]])
    state = arrange(state, B, on_card={"black": 2})
    state, _ = start_search(state, 2)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 2})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {}})
    # Ben: one correct yellow, three wrong (his cards 4, 5, 6 hold no more black, no blue for card 4...)
    on_before = dict(state["cards"][B][0]["on_card"])
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": {"yellow": 1, "black": 3}})
    result = state["last_round"]["results"][1]
    # one black fits card 6 (back without penalty), two are wrong: a penalty of two,
    # but only the one yellow was correctly collected this round, never what was on the card before
    assert result["free"] == {"black": 1} and result["wrong"] == {"black": 2}
    assert result["penalty"] == {"yellow": 1}
    assert state["cards"][B][0]["on_card"] == on_before


def test_wrong_with_nothing_correct_costs_nothing_more():
    state = table([[1, 6, 9], [4, 5, 7]])  # Julie has no blue on any card
    state = arrange(state, A, on_card={"red": 1})
    state, _ = start_search(state, 2)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 2})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"red": 1, "blue": 1}})
    result = state["round"]["results"][0]
    assert result["wrong"] == {"blue": 1} and result["free"] == {"red": 1}
    assert result["penalty"] == {} and state["cards"][A][0]["on_card"] == {"red": 1}
    assert any("no penalty" in n for n in result["notes"])


def test_more_of_a_colour_than_any_open_card_needs_is_wrong():
    # card 1 needs 2 orange; card 2 needs 1 orange; card 3 none -> a fourth orange is wrong
    state = table([[1, 2, 3], [4, 5, 6]])
    state = arrange(state, A, on_card={"orange": 1})
    state, _ = start_search(state, 4)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 4})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"orange": 3, "red": 1}})
    # 1 orange + red on card 1 (still incomplete), 1 orange fits card 2 (free), 1 orange wrong
    assert state["phase"] == "penalty"
    pending = state["round"]["pending"]
    assert pending["wrong"] == {"orange": 1} and pending["free"] == {"orange": 1}
    state, _ = act(state, {"type": "return_ingredients", "seat": A, "ingredients": {"red": 1}})
    assert state["cards"][A][0]["on_card"] == {"orange": 2}


def test_penalty_from_the_next_card_keeps_the_finished_potion():
    # Julie needs one black to finish card 1; she rakes black, red (for card 2) and a wrong blue
    state = table([[1, 6, 9], [4, 5, 7]])
    state = arrange(state, A, on_card={"red": 1, "yellow": 1, "green": 1, "orange": 2, "black": 1})
    state, _ = start_search(state, 3)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 3})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"black": 1, "red": 1, "blue": 1}})
    assert state["phase"] == "penalty"
    keep, lose = GAME.apply(state, {"type": "return_ingredients", "seat": A, "ingredients": {"red": 1}})[0], \
        GAME.apply(state, {"type": "return_ingredients", "seat": A, "ingredients": {"black": 1}})[0]
    assert keep["cards"][A][0]["finished"] and keep["cards"][A][1]["on_card"] == {}
    assert not lose["cards"][A][0]["finished"]
    assert lose["cards"][A][0]["on_card"] == {"red": 1, "yellow": 1, "green": 1, "orange": 2, "black": 1}
    assert lose["round"]["results"][0]["free"] == {"red": 1}   # card 1 incomplete: red back free
    assert count_all(keep) == count_all(lose) == TOTAL


def test_no_choice_means_no_question():
    state = table([[1, 6, 9], [4, 5, 7]])  # Julie has no blue on any card
    state, _ = start_search(state, 3)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 3})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"orange": 2, "blue": 1}})
    assert state["phase"] == "check"                       # both correct ones are orange
    assert state["round"]["results"][0]["penalty"] == {"orange": 1}
    assert state["cards"][A][0]["on_card"] == {"orange": 1}


def test_master_who_collected_too_few_returns_one_per_missing():
    # Julie called "end your search!" with 3 but one fell out of the box before the check
    state = table([[1, 2, 3], [4, 5, 6]])
    state, _ = start_search(state, 3)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 3})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"orange": 2}})
    result = state["round"]["results"][0]
    assert result["shortfall"] == 1 and result["penalty"] == {"orange": 1}
    assert any("1 fewer" in n for n in result["notes"])


def test_master_too_few_and_wrong_add_up():
    state = table([[1, 6, 9], [4, 5, 7]])  # Julie has no blue on any card
    state, _ = start_search(state, 4)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 4})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"red": 1, "green": 1, "blue": 1}})
    # 1 wrong + 1 missing = 2, and only the red and the green were correct: no choice to make
    assert state["phase"] == "check"
    result = state["round"]["results"][0]
    assert result["penalty"] == {"red": 1, "green": 1}
    assert "penalty for 1 wrong and 1 missing: 1 red, 1 green collected correctly this round back to the forest" \
        in result["notes"]
    assert state["cards"][A][0]["on_card"] == {}


def test_special_case_master_still_short_of_what_he_needs():
    state = table([[1, 2, 6], [4, 5, 7]])
    state = arrange(state, A, potions=2, on_card={"red": 2, "yellow": 2, "black": 1})   # needs green x2
    state, _ = start_search(state, 4)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 2})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"green": 1}})
    result = state["round"]["results"][0]
    assert result["shortfall"] == 1 and result["penalty"] == {"green": 1}


def test_a_finished_potion_returns_its_ingredients_and_turns_its_card():
    state = table([[1, 2, 3], [4, 5, 6]])
    state = arrange(state, B, on_card={"yellow": 1, "green": 1, "orange": 1, "black": 2, "white": 1})
    forest = dict(state["forest"])
    state = play_round(state, 2, {B: {"purple": 1}})
    assert state["cards"][B][0]["finished"] and state["cards"][B][0]["on_card"] == {}
    for colour, n in recipe(4).items():
        assert state["forest"][colour] == forest.get(colour, 0) + n - (1 if colour == "purple" else 0)
    assert GAME.view(state)["players"][B]["potions"] == 1
    assert GAME.view(state)["players"][B]["current_card"] == 1


# --- "stop!" -----------------------------------------------------------------------
def third_potion_table():
    state = table([[1, 2, 3], [4, 5, 6]])
    # Ben is cooking his third (card 6: red2 yellow2 green2 black) and misses one black
    return arrange(state, B, potions=2, on_card={"red": 2, "yellow": 2, "green": 2})


def test_only_a_player_cooking_the_third_potion_may_call_stop():
    state = third_potion_table()
    state, _ = start_search(state, 3)
    refused(state, {"type": "stop", "seat": A}, "third magic potion")
    assert {"type": "stop", "seat": B} in GAME.legal_actions(state)
    assert {"type": "stop", "seat": A} not in GAME.legal_actions(state)


def test_stop_right_ends_the_game_at_once():
    state = third_potion_table()
    state, _ = start_search(state, 3)
    state, _ = act(state, {"type": "stop", "seat": B})
    assert state["round"]["to_check"] == [B, A]            # the caller's basket first
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": {"black": 1}})
    assert state["phase"] == "over"
    out = GAME.outcome(state)
    assert out.winners == (B,) and out.reason == "stop" and out.details["ended_by"] == "stop"
    assert out.message == 'Linus called "stop!" with all three magic potions cooked'
    assert out.details["scores"]["potions"] == [0, 3]
    assert out.ranking == (Placing(B, 1, {"potions": 3, "ingredients_on_card": 0}),
                           Placing(A, 2, {"potions": 0, "ingredients_on_card": 0}))
    assert GAME.legal_actions(state) == []
    refused(state, {"type": "basket", "seat": A, "ingredients": {}}, "game is over")


def test_stop_wrong_goes_on_with_penalties_and_no_master_shortfall():
    state = third_potion_table()
    state, _ = start_search(state, 3)
    state, _ = act(state, {"type": "stop", "seat": B})
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": {"blue": 1}})
    assert GAME.outcome(state) is None
    result = state["round"]["results"][0]
    assert result["stop"] == "wrong" and result["wrong"] == {"blue": 1}
    assert state["phase"] == "check" and state["round"]["to_check"] == [A]
    # the search was cut short by Ben: Julie is not punished for having fewer than 3
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"red": 1}})
    assert state["last_round"]["results"][1]["shortfall"] == 0
    assert state["cards"][A][0]["on_card"] == {"red": 1}
    assert state["phase"] == "choose" and state["master"] == B


def test_stop_with_a_wrong_ingredient_beside_the_right_ones_is_wrong():
    state = third_potion_table()
    state, _ = start_search(state, 3)
    state, _ = act(state, {"type": "stop", "seat": B})
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": {"black": 1, "blue": 1}})
    assert GAME.outcome(state) is None
    assert not state["cards"][B][2]["finished"]            # the penalty took the black back


def test_stop_after_the_master_ended_the_search_but_before_the_check():
    # Ben had his last black in the basket when Julie called "end your search!"
    state = third_potion_table()
    state, _ = start_search(state, 2)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 2})
    assert {"type": "stop", "seat": B} in GAME.legal_actions(state)
    state, _ = act(state, {"type": "stop", "seat": B})
    assert state["round"]["to_check"] == [B, A]
    refused(state, {"type": "stop", "seat": B}, "already")
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": {"black": 1}})
    assert GAME.outcome(state).winners == (B,)


def test_stop_after_ones_own_basket_was_checked_is_too_late():
    state = table([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    state = arrange(state, B, potions=2, on_card={"red": 2, "yellow": 2, "green": 2})
    state, _ = start_search(state, 2)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 2})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {}})
    # finishing the third potion in the ordinary check does not end the game ...
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": {"black": 1}})
    assert GAME.outcome(state) is None
    assert GAME.view(state)["players"][B]["potions"] == 3
    # ... and "stop!" after one's basket was checked is too late
    refused(state, {"type": "stop", "seat": B}, "checked already")
    state = table([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    state = arrange(state, B, potions=2, on_card={"red": 2, "yellow": 2, "green": 2})
    state, _ = start_search(state, 2)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 2})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {}})
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": {"blue": 1}})
    refused(state, {"type": "stop", "seat": B}, "checked already")
    assert not GAME.view(state)["players"][B]["may_stop"]


def test_master_calling_stop_on_his_last_potion():
    state = table([[1, 2, 3], [4, 5, 6]])
    state = arrange(state, A, potions=2, on_card={"yellow": 1, "green": 2, "black": 1, "white": 2})
    state, _ = start_search(state, 2)   # Julie needs only the blue
    state, _ = act(state, {"type": "stop", "seat": A})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"blue": 1}})
    assert GAME.outcome(state).winners == (A,)


# --- the end when every tile is used -----------------------------------------------------
def test_game_ends_when_every_tile_is_used_once():
    state = table([[1, 2, 3], [4, 5, 6]])
    state = quiet_rounds(state)
    assert state["round_number"] == 10
    assert state["tiles"] == [[], []]
    assert sorted(state["used_tiles"][A]) == sorted(state["used_tiles"][B]) == [2, 2, 3, 3, 4]
    assert GAME.outcome(state).reason == "tiles"


def test_most_potions_wins():
    state = table([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    state = arrange(state, A, potions=1)
    state = arrange(state, B, potions=2, on_card={"red": 1})
    state = arrange(state, C, potions=1, on_card={"red": 2, "orange": 1, "black": 1, "white": 2})
    out = GAME.outcome(quiet_rounds(state))
    assert out.winners == (B,) and out.details["scores"]["potions"] == [1, 2, 1]
    assert out.message == "Every magic tile has been used: Linus wins with 2 magic potions"
    # Julie and Mia share second place on potions; Mia has more on her card
    assert [(p.seat, p.place) for p in out.ranking] == [(B, 1), (C, 2), (A, 3)]


def test_tie_on_potions_broken_by_ingredients_on_the_card():
    state = table([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    state = arrange(state, A, potions=1, on_card={"yellow": 2})
    state = arrange(state, B, potions=1, on_card={"yellow": 1, "green": 1, "orange": 1})
    state = arrange(state, C, potions=0, on_card={"red": 2, "orange": 1, "blue": 2, "white": 1})
    out = GAME.outcome(quiet_rounds(state))
    assert out.winners == (B,)
    assert out.details["scores"]["ingredients_on_card"] == [2, 3, 6]
    assert out.message == ("Every magic tile has been used: Linus wins with 1 magic potion "
                           "and 3 ingredients on the recipe card")
    assert [(p.seat, p.place) for p in out.ranking] == [(B, 1), (A, 2), (C, 3)]


def test_still_tied_means_shared_win():
    state = table([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    state = arrange(state, A, potions=1, on_card={"yellow": 2})
    state = arrange(state, B, potions=1, on_card={"yellow": 1, "green": 1})
    state = arrange(state, C, potions=0, on_card={"red": 1})
    out = GAME.outcome(quiet_rounds(state))
    assert out.winners == (A, B)
    assert out.message.endswith("Julie and Linus share the win with 1 magic potion and 2 ingredients on the recipe card")
    assert [(p.seat, p.place) for p in out.ranking] == [(A, 1), (B, 1), (C, 3)]
    data = out.to_json(state["players"])     # the tablet's keys are still there
    assert data["ended_by"] == "tiles" and data["winner_names"] == ["Julie", "Linus"]
    assert data["scores"]["potions"] == [1, 1, 0] and data["reason"] == "tiles"


# --- plumbing ------------------------------------------------------------------------
def test_apply_never_changes_its_argument_and_refusal_changes_nothing():
    state = table([[1, 2, 3], [4, 5, 6]])
    snapshot = json.dumps(state, sort_keys=True)
    GAME.apply(state, {"type": "choose_tile", "seat": A, "tile": 3})
    with pytest.raises(IllegalAction):
        GAME.apply(state, {"type": "turn", "seat": A, "direction": "clockwise"})
    with pytest.raises(InvalidAction):
        GAME.apply(state, {"type": "choose_tile", "seat": A, "tile": 5})
    assert json.dumps(state, sort_keys=True) == snapshot


def test_unknown_actions_are_refused_in_words():
    state = table([[1, 2, 3], [4, 5, 6]])
    malformed(state, {"type": "dance"}, "no action called 'dance'")
    malformed(state, {"seat": 0}, 'needs a "type"')
    malformed(state, {"type": "choose_tile", "tile": 2}, '"seat" must be a seat at this table')


def test_view_shows_the_table_and_what_is_missing():
    state = table([[1, 2, 3], [4, 5, 6]])
    state = play_round(state, 3, {A: {"red": 1, "orange": 2}})
    view = GAME.view(state)
    julie = view["players"][A]
    assert julie["cards"][0]["missing"] == {"yellow": 1, "green": 1, "black": 2}
    assert julie["tiles"] == [2, 2, 3, 4] and julie["used_tiles"] == [3]
    assert view["floor"] == {"position": 3, "ants_around": 16}
    assert [c["letter"] for c in view["colours"]] == ["R", "Y", "G", "O", "K", "B", "W", "P"]
    assert view["last_round"]["results"][0]["notes"] == ["1 red, 2 orange laid on the first recipe card"]
    assert GAME.view(state, seat=B) == view              # everything lies face up
    json.dumps(view)
