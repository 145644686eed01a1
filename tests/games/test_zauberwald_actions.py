"""The shape of Zauberwald's actions: malformed fields are InvalidAction (HTTP 400) in any
phase, rule refusals IllegalAction (422); legal_actions is a sample and is_legal the truth."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_zauberwald_support import GAME, act, recipe, start_search, table  # noqa: E402

from controller.games import plugin  # noqa: E402
from controller.games.base import IllegalAction, InvalidAction  # noqa: E402

A, B = 0, 1

MALFORMED = [
    # seat: not a whole number, a bool, not at this table
    ({"type": "choose_tile", "seat": "0", "tile": 2}, '"seat"'),
    ({"type": "choose_tile", "seat": True, "tile": 2}, '"seat"'),
    ({"type": "stop", "seat": 2}, '"seat"'),
    ({"type": "stop", "seat": -1}, '"seat"'),
    ({"type": "basket", "ingredients": {}}, '"seat"'),
    # slot
    ({"type": "enter_card", "seat": 0, "slot": "first", "ingredients": {"red": 7}}, '"slot"'),
    ({"type": "enter_card", "seat": 0, "slot": 3, "ingredients": {"red": 7}}, '"slot"'),
    ({"type": "enter_card", "seat": 0, "slot": False, "ingredients": {"red": 7}}, '"slot"'),
    # tile: a number no magic tile shows
    ({"type": "choose_tile", "seat": 0, "tile": "3"}, '"tile"'),
    ({"type": "choose_tile", "seat": 0, "tile": 5}, "2, 3, 4"),
    ({"type": "choose_tile", "seat": 0, "tile": 3.0}, '"tile"'),
    # direction
    ({"type": "turn", "seat": 0, "direction": "cw"}, '"direction"'),
    ({"type": "turn", "seat": 0}, '"direction"'),
    # count, manual
    ({"type": "end_search", "seat": 0, "count": "3"}, '"count"'),
    ({"type": "end_search", "seat": 0, "count": True}, '"count"'),
    ({"type": "end_search", "seat": 0, "count": -1}, '"count"'),
    ({"type": "floor_turned", "manual": "yes"}, '"manual"'),
    # ingredients: not a count, a wrong kind of number, a colour this forest lacks
    ({"type": "basket", "seat": 0, "ingredients": ["red"]}, '"ingredients"'),
    ({"type": "basket", "seat": 0}, '"ingredients"'),
    ({"type": "basket", "seat": 0, "ingredients": {"red": -1}}, '"ingredients"'),
    ({"type": "basket", "seat": 0, "ingredients": {"red": 1.5}}, '"ingredients"'),
    ({"type": "basket", "seat": 0, "ingredients": {"red": True}}, '"ingredients"'),
    ({"type": "basket", "seat": 0, "ingredients": {"gold": 1}}, "no ingredient called 'gold'"),
    ({"type": "basket", "seat": 0, "ingredients": {"colour": "red"}}, '"ingredients"'),
    ({"type": "return_ingredients", "seat": 0, "ingredients": {"Red": 1}}, "no ingredient called 'Red'"),
    ({"type": "enter_card", "seat": 0, "slot": 0, "ingredients": {"red": 6, "mud": 1}}, "no ingredient called 'mud'"),
    # not an action of this game at all
    ({"type": "rotate", "ants": 3}, "no action called 'rotate'"),
    ({"type": ""}, '"type"'),
    ("stop", "JSON object"),
]


def phases():
    """One state in every phase a round goes through (and the cards phase)."""
    cards = GAME.setup(["Julie", "Linus"], seed=1, options={"cards": "physical"})
    choose = table([[1, 2, 3], [4, 5, 6]])
    turn, _ = act(choose, {"type": "choose_tile", "seat": A, "tile": 3})
    turning, _ = act(turn, {"type": "turn", "seat": A, "direction": "clockwise"})
    search, _ = act(turning, {"type": "floor_turned"})
    check, _ = act(search, {"type": "end_search", "seat": A, "count": 3})
    return {"cards": cards, "choose": choose, "turn": turn, "turning": turning, "search": search, "check": check}


@pytest.mark.parametrize("phase", ["cards", "choose", "turn", "turning", "search", "check"])
def test_a_malformed_action_is_invalid_in_every_phase(phase):
    state = phases()[phase]
    for action, words in MALFORMED:
        with pytest.raises(InvalidAction) as exc:
            GAME.apply(state, action)
        assert words in str(exc.value), (action, str(exc.value))
        assert not GAME.is_legal(state, action)


def test_well_formed_but_against_the_rules_is_illegal():
    state = table([[1, 2, 3], [4, 5, 6]])
    for action in ({"type": "turn", "seat": A, "direction": "clockwise"},          # no tile yet
                   {"type": "choose_tile", "seat": B, "tile": 2},                 # not the master
                   {"type": "basket", "seat": A, "ingredients": {"red": 1}},      # nobody searched
                   {"type": "floor_turned", "manual": True}):
        with pytest.raises(IllegalAction) as exc:
            GAME.apply(state, action)
        assert type(exc.value) is IllegalAction
    state, _ = start_search(state, 2)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 2})
    with pytest.raises(IllegalAction, match="only 9 red"):
        GAME.apply(state, {"type": "basket", "seat": A, "ingredients": {"red": 10}})


def test_a_recipe_card_of_the_wrong_size_is_a_rule_not_a_malformed_action():
    state = GAME.setup(["Julie", "Linus"], seed=1, options={"cards": "physical"})
    with pytest.raises(IllegalAction, match="exactly 7") as exc:
        GAME.apply(state, {"type": "enter_card", "seat": A, "slot": 0, "ingredients": {"red": 6}})
    assert type(exc.value) is IllegalAction


# --- legal_actions is a sample; is_legal is the truth ----------------------------------------------
def test_legal_actions_are_a_sample():
    assert GAME.legal_actions_complete is False


def test_every_listed_action_is_legal_in_every_phase():
    for state in phases().values():
        listed = GAME.legal_actions(state)
        assert listed
        assert all(GAME.is_legal(state, a) for a in listed)


def test_a_printed_card_not_in_the_deck_is_legal_though_not_listed():
    state = GAME.setup(["Julie", "Linus"], seed=1, options={"cards": "physical"})
    own = {"type": "enter_card", "seat": A, "slot": 0, "ingredients": {"red": 3, "white": 4}}
    assert own not in GAME.legal_actions(state)
    assert GAME.is_legal(state, own)
    deck = {"type": "enter_card", "seat": A, "slot": 0, "ingredients": recipe(1)}
    assert deck in GAME.legal_actions(state) and GAME.is_legal(state, deck)
    state, _ = act(state, deck)
    taken = {"type": "enter_card", "seat": B, "slot": 0, "ingredients": recipe(1)}
    assert taken not in GAME.legal_actions(state) and not GAME.is_legal(state, taken)


def test_a_basket_not_in_the_sample_is_legal_and_one_too_full_is_not():
    state = table([[1, 2, 3], [4, 5, 6]])
    state, _ = start_search(state, 4)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 4})
    sample = [a["ingredients"] for a in GAME.legal_actions(state) if a["type"] == "basket"]
    odd = {"purple": 1, "blue": 2, "white": 1}
    assert odd not in sample
    assert GAME.is_legal(state, {"type": "basket", "seat": A, "ingredients": odd})
    assert not GAME.is_legal(state, {"type": "basket", "seat": A, "ingredients": {"purple": 5}})   # over 4
    assert not GAME.is_legal(state, {"type": "basket", "seat": B, "ingredients": {}})            # not his turn
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": odd})
    # Linus (no limit) may bring in whatever the forest still held
    assert GAME.is_legal(state, {"type": "basket", "seat": B, "ingredients": {"red": 9, "yellow": 9}})
    assert not GAME.is_legal(state, {"type": "basket", "seat": B, "ingredients": {"purple": 9}})


def test_the_other_phases_list_everything():
    """Outside the baskets and the printed cards the list is whole: every tile, direction,
    count, "stop!" and penalty choice."""
    state = table([[1, 2, 3], [4, 5, 6]])
    assert [a for a in GAME.legal_actions(state) if a["type"] != "undo"] == [
        {"type": "choose_tile", "seat": A, "tile": t} for t in (2, 3, 4)]
    state, _ = act(state, {"type": "choose_tile", "seat": A, "tile": 3})
    kinds = sorted((a["type"], a.get("tile") or a.get("direction")) for a in GAME.legal_actions(state))
    assert kinds == [("choose_tile", 2), ("choose_tile", 3), ("choose_tile", 4),
                     ("turn", "clockwise"), ("turn", "counter_clockwise"), ("undo", None)]


def test_the_player_limits_come_from_the_data_file():
    assert plugin("zauberwald").players == (2, 4)
    assert (GAME.min_players, GAME.max_players) == (2, 4)
    data = GAME.default_data()
    data["players"] = {"min": 3, "max": 3}
    game = type(GAME)(data)
    assert game.info()["min_players"] == 3
    with pytest.raises(IllegalAction, match="3 to 3 players"):
        game.setup(["Ann", "Ben"], seed=1)
