""""Stop!" from a player who finishes his second and third magic potion in one search
(issue 17, item 1).

Rulebook: "As soon as a player has finished his third magic potion and has called out
'stop!' If he has collected all the right ingredients, he has won the game", and a player
who thinks his recipe card is complete "can collect further ingredients for the next
recipe card" (DEFAULTS.md: "and so on"). Nobody knows what is in a basket until it is
checked, so "stop!" is open to every player whose basket could finish the third potion;
the check says whether the call was right. A wrong call is checked like any basket:
the rulebook's wrong ingredients go back, each costing one collected correctly this
round, and the game goes on.
"""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_zauberwald_support import GAME, act, arrange, play_round, recipe, start_search, table  # noqa: E402

from controller.games.base import IllegalAction  # noqa: E402
from controller.store import Store  # noqa: E402
from controller.table import Table  # noqa: E402

A, B, C = 0, 1, 2          # Julie, Linus, Mia
STOP_LINUS = {"type": "stop", "seat": B}


def plus(*parts: dict[str, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in parts:
        for colour, n in part.items():
            out[colour] = out.get(colour, 0) + n
    return {c: n for c, n in out.items() if n}


def minus(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {c: n - b.get(c, 0) for c, n in a.items() if n - b.get(c, 0)}


def refused(state, action, words):
    with pytest.raises(IllegalAction) as exc:
        GAME.apply(state, action)
    assert words in str(exc.value), str(exc.value)
    assert not GAME.is_legal(state, action)
    assert action not in GAME.legal_actions(state)


# --- the reproducer, through the table (the API's one writer) --------------------
ROUND_1_LINUS = minus(plus(recipe(3), recipe(12)), {"white": 1})   # card 3 done, card 12 lacks a white


def api_round(table: Table, baskets: dict[int, dict[str, int]]) -> dict:
    s = table.session()
    m = s["state"]["master"]
    table.act({"type": "choose_tile", "seat": m, "tile": 2})
    table.act({"type": "turn", "seat": m, "direction": "clockwise"})
    table.act({"type": "floor_turned", "manual": True})
    s = table.act({"type": "end_search", "seat": m, "count": 2})
    while s["state"]["phase"] == "check":
        seat = s["state"]["round"]["to_check"][0]
        s = table.act({"type": "basket", "seat": seat, "ingredients": baskets.get(seat, {})})
    return s


@pytest.fixture
def reproducer(tmp_path):
    """Printed cards, first 0; Julie 1/6/14, Linus 3/12/10; round 1 (Julie, tile 2): Julie {},
    Linus card 3 + card 12 minus one white; round 2 (Linus, tile 2): both {}; round 3
    (Julie, tile 2): the floor has turned, everyone searches."""
    store = Store(tmp_path / "potionpi.sqlite3")
    t = Table(store)
    t.start("zauberwald", ["Julie", "Linus"], seed=1, options={"cards": "physical", "first": 0})
    for seat, numbers in enumerate([[1, 6, 14], [3, 12, 10]]):
        for slot, number in enumerate(numbers):
            t.act({"type": "enter_card", "seat": seat, "slot": slot, "ingredients": recipe(number)})
    s = api_round(t, {B: ROUND_1_LINUS})
    linus = s["state"]["players"][B]
    assert linus["potions"] == 1 and linus["cards"][1]["missing"] == {"white": 1}
    api_round(t, {})
    t.act({"type": "choose_tile", "seat": A, "tile": 2})
    t.act({"type": "turn", "seat": A, "direction": "clockwise"})
    s = t.act({"type": "floor_turned", "manual": True})
    assert s["state"]["phase"] == "search" and s["state"]["round_number"] == 3
    yield t
    store.close()


def test_stop_from_a_player_finishing_potions_two_and_three_in_one_search(reproducer):
    s = reproducer.session()
    assert s["state"]["players"][B]["may_stop"]
    assert STOP_LINUS in s["legal_actions"]
    s = reproducer.act(STOP_LINUS)                     # was 422: only "exactly two potions"
    assert s["state"]["phase"] == "check" and s["state"]["round"]["to_check"] == [B, A]
    # the white for card 12 and all seven for card 10: two potions in one check
    s = reproducer.act({"type": "basket", "seat": B, "ingredients": plus({"white": 1}, recipe(10))})
    result = s["state"]["round"]["results"][0]
    assert result["finished"] == [1, 2] and result["stop"] == "right"
    assert s["outcome"]["winners"] == [B] and s["outcome"]["reason"] == "stop"
    assert s["outcome"]["message"] == 'Linus called "stop!" with all three magic potions cooked'


def test_a_wrong_call_is_checked_as_the_rulebooks_wrong_ingredients(reproducer):
    s = reproducer.act(STOP_LINUS)
    # a red (on none of Linus's open cards) instead of one of card 10's purples
    basket = plus({"white": 1}, minus(recipe(10), {"purple": 1}), {"red": 1})
    s = reproducer.act({"type": "basket", "seat": B, "ingredients": basket})
    assert s["outcome"] is None
    assert s["state"]["phase"] == "penalty"            # one correct one goes back: Linus chooses
    pending = s["state"]["round"]["pending"]
    assert pending["wrong"] == {"red": 1} and pending["count"] == 1
    s = reproducer.act({"type": "return_ingredients", "seat": B, "ingredients": {"green": 1}})
    result = s["state"]["round"]["results"][0]
    assert result["stop"] == "wrong" and result["wrong"] == {"red": 1} and result["penalty"] == {"green": 1}
    assert '"stop!" was wrong: Linus has not cooked three magic potions, the game goes on' in result["notes"]
    linus = s["state"]["players"][B]
    assert linus["potions"] == 2                        # card 12 is finished all the same
    assert linus["cards"][2]["missing"] == {"green": 1, "purple": 1}
    # the game goes on: Julie's basket is checked as usual, then Linus is master
    s = reproducer.act({"type": "basket", "seat": A, "ingredients": {}})
    assert s["outcome"] is None and s["state"]["phase"] == "choose" and s["state"]["master"] == B


# --- who may call -----------------------------------------------------------------------
def one_potion_linus(cards=None, first=0):
    """Linus has cooked card 3 and lacks one white on card 12 (the reproducer's position)."""
    state = table(cards or [[1, 6, 14], [3, 12, 10]], first=first)
    return arrange(state, B, potions=1, on_card=minus(recipe(12), {"white": 1}))


def test_stop_after_end_your_search_from_a_player_with_one_potion():
    state = one_potion_linus()
    state, _ = start_search(state, 2)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 2})
    assert GAME.view(state)["players"][B]["may_stop"]
    state, _ = act(state, STOP_LINUS)
    assert state["round"]["to_check"] == [B, A]
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": plus({"white": 1}, recipe(10))})
    assert GAME.outcome(state).winners == (B,)


def test_all_three_potions_in_one_search_and_so_on():
    # DEFAULTS.md: "and so on": a player (not the master) may rake all three cards at once
    state = table([[1, 6, 14], [3, 12, 10]])
    state, _ = start_search(state, 4)
    assert GAME.view(state)["players"][B]["may_stop"]
    state, _ = act(state, STOP_LINUS)
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": plus(recipe(3), recipe(12), recipe(10))})
    assert GAME.outcome(state).winners == (B,)
    assert state["round"]["results"][0]["finished"] == [0, 1, 2]


def test_the_master_cannot_call_stop_when_his_basket_is_too_small_for_it():
    # Julie (master, tile 2) still needs all 21: no basket of hers can finish the third potion
    state = one_potion_linus()
    state, _ = start_search(state, 2)
    refused(state, {"type": "stop", "seat": A},
            'only a player whose basket can finish his third magic potion can call "stop!": Julie still '
            "needs 21 ingredients for it, and the master magician's basket holds only 2 this round")
    assert not GAME.view(state)["players"][A]["may_stop"]


def test_the_master_may_call_stop_finishing_two_potions_within_his_tile():
    # Julie, master with tile 4, lacks a green on card 6 and has all of card 14 but 2 blue
    state = table([[1, 6, 14], [3, 12, 10]])
    state = arrange(state, A, potions=1, on_card=minus(recipe(6), {"green": 1}))
    state = GAME.fork(state)
    card = state["cards"][A][2]
    for colour, n in minus(recipe(14), {"blue": 2}).items():   # test set-up: as if laid before
        state["forest"][colour] -= n
        card["on_card"][colour] = n
    state, _ = start_search(state, 4)
    state, _ = act(state, {"type": "stop", "seat": A})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"green": 1, "blue": 2}})
    assert GAME.outcome(state).winners == (A,)


def test_no_stop_when_the_forest_has_too_few_left_for_it():
    # Mia is master; Julie's basket is checked before Linus's and holds all eight whites
    # of the forest (the ninth lies on Linus's card 12), so none is left for Linus
    state = one_potion_linus([[1, 6, 14], [3, 12, 10], [2, 4, 5]], first=C)
    state, _ = start_search(state, 2)
    state, _ = act(state, {"type": "end_search", "seat": C, "count": 2})
    state, _ = act(state, {"type": "basket", "seat": C, "ingredients": {}})
    assert GAME.view(state)["players"][B]["may_stop"]
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"white": 8}})
    assert state["round"]["to_check"] == [B]
    refused(state, STOP_LINUS, "Linus still needs 2 white for it, and only 0 are left in the forest to collect")
    assert not GAME.view(state)["players"][B]["may_stop"]


def test_no_stop_once_all_three_potions_are_cooked():
    # Linus finished his third potion in an ordinary check: "stop!" came too late for it
    state = one_potion_linus()
    state = play_round(state, 2, {B: plus({"white": 1}, recipe(10))})
    assert GAME.view(state)["players"][B]["potions"] == 3 and GAME.outcome(state) is None
    state, _ = start_search(state, 2)
    refused(state, STOP_LINUS, "Linus has cooked all three magic potions already")
