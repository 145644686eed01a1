"""The rulebook's worked examples, played on the engine word for word."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_zauberwald_support import GAME, TOTAL, act, count_all, play_round, recipe, table  # noqa: E402

JULIE, LINUS = 0, 1


def test_julies_card_is_the_rulebook_recipe():
    # "she needs one red, one yellow, and one green ingredient, as well as two orange and two black"
    assert recipe(1) == {"red": 1, "yellow": 1, "green": 1, "orange": 2, "black": 2}


def test_julie_picks_tile_three_and_turns_clockwise_three_ants():
    state = table([[1, 2, 3], [14, 12, 6]])
    assert state["master"] == JULIE and state["phase"] == "choose"
    state, effects = act(state, {"type": "choose_tile", "seat": JULIE, "tile": 3})
    assert effects == []
    state, effects = act(state, {"type": "turn", "seat": JULIE, "direction": "clockwise"})
    assert effects == [{"device": "forest_floor", "op": "rotate", "ants": 3, "direction": "clockwise"}]
    # the tile she selected is discarded from the game
    assert state["tiles"][JULIE] == [2, 2, 3, 4]
    assert state["used_tiles"][JULIE] == [3]
    assert state["phase"] == "turning"
    state, _ = act(state, {"type": "floor_turned"})
    assert state["floor"]["position"] == 3
    assert state["phase"] == "search"
    # "Julie can only call out 'end your search' once she has exactly three ingredients"
    for wrong in (0, 1, 2, 4):
        try:
            GAME.apply(state, {"type": "end_search", "seat": JULIE, "count": wrong})
        except Exception as exc:
            assert "exactly 3" in str(exc)
        else:
            raise AssertionError(f"end your search accepted with {wrong}")
    state, _ = act(state, {"type": "end_search", "seat": JULIE, "count": 3})
    assert state["phase"] == "check" and state["round"]["to_check"] == [JULIE, LINUS]


def linus_before_his_round():
    """Play the earlier rounds until Linus needs only one yellow and one blue."""
    state = table([[1, 2, 3], [14, 12, 6]])
    # card 14: red, yellow, black x2, blue x2, purple
    state = play_round(state, 3, {JULIE: {"red": 1, "yellow": 1, "green": 1}, LINUS: {"purple": 1}})
    state = play_round(state, 2, {LINUS: {"red": 1, "black": 1}})
    state = play_round(state, 2, {JULIE: {"orange": 2}})
    state = play_round(state, 2, {LINUS: {"black": 1, "blue": 1}})
    state = play_round(state, 2, {JULIE: {"black": 2}})
    assert state["master"] == LINUS
    linus = GAME.view(state)["players"][LINUS]
    assert linus["cards"][0]["missing"] == {"yellow": 1, "blue": 1}
    assert 2 not in linus["tiles"]          # "he doesn't have any magic tiles left with the number two"
    assert linus["tiles"] == [3, 3, 4]
    return state


def linus_turns(state):
    state, _ = act(state, {"type": "choose_tile", "seat": LINUS, "tile": 4})
    state, effects = act(state, {"type": "turn", "seat": LINUS, "direction": "counter_clockwise"})
    assert effects == [{"device": "forest_floor", "op": "rotate", "ants": 4, "direction": "counter_clockwise"}]
    before = state["floor"]["position"]
    state, _ = act(state, {"type": "floor_turned"})
    assert state["floor"]["position"] == (before - 4) % 16
    state, _ = act(state, {"type": "end_search", "seat": LINUS, "count": 4})
    assert state["round"]["to_check"][0] == LINUS  # the master's basket first
    return state


def test_linus_finishes_his_first_potion_and_starts_the_second():
    state = linus_turns(linus_before_his_round())
    forest_before = dict(state["forest"])
    basket = {"yellow": 1, "blue": 1, "white": 2}
    state, _ = act(state, {"type": "basket", "seat": LINUS, "ingredients": basket})
    first, second, third = state["cards"][LINUS]
    assert first["finished"] and first["on_card"] == {}      # the card is turned over
    assert second["on_card"] == {"white": 2}                  # the whites wait on the second card
    assert third["on_card"] == {}
    # the finished potion's seven ingredients went back to the forest; the basket came out of it
    for colour in forest_before:
        expected = forest_before[colour] - basket.get(colour, 0) + recipe(14).get(colour, 0)
        assert state["forest"].get(colour, 0) == expected
    result = state["round"]["results"][0]
    assert result["finished"] == [0] and result["penalty"] == {} and result["wrong"] == {}
    assert count_all(state) == TOTAL


def test_linus_with_a_wrong_first_card_ingredient_puts_the_whites_back():
    state = linus_turns(linus_before_his_round())
    on_first = dict(state["cards"][LINUS][0]["on_card"])
    forest_before = dict(state["forest"])
    # a purple instead of the blue: his one purple is already on the card
    basket = {"yellow": 1, "purple": 1, "white": 2}
    state, _ = act(state, {"type": "basket", "seat": LINUS, "ingredients": basket})
    first, second, _ = state["cards"][LINUS]
    assert not first["finished"]
    # the purple is wrong and costs the yellow he had just correctly collected
    assert first["on_card"] == on_first
    # the first card is not complete, so the two whites go back (without penalty)
    assert second["on_card"] == {}
    result = state["round"]["results"][0]
    assert result["wrong"] == {"purple": 1}
    assert result["free"] == {"white": 2}
    assert result["penalty"] == {"yellow": 1}
    assert state["forest"] == forest_before   # everything he raked is back in the forest
    assert any("without penalty" in n for n in result["notes"])
    assert any("penalty for 1 wrong" in n for n in result["notes"])
