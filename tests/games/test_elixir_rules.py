"""Elixir: set-up, gold, moving, the healer, shops, the laboratory, the dead-end street,
the order of a turn, the die, undo and bad input (rulebook sections A-D, F, G)."""
from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from elixir_support import (GAME, NAMES, T, act, arrange, do, give_ingredients, gold_total,  # noqa: E402
                            in_use, start, wizard)

from controller.games.base import BadSetup, IllegalAction, InvalidAction  # noqa: E402


# --- set-up ----------------------------------------------------------------------------------
@pytest.mark.parametrize("n,gold,copies", [(2, 22, 3), (3, 30, 3), (4, 36, 4)])
def test_setup_gold_ingredients_and_brew_cards_by_player_count(n, gold, copies):
    state = GAME.setup(NAMES[:n], seed=3)
    assert state["gold"] == [6] * n                          # 6 gold pieces each
    assert gold_total(state) == gold and state["supply"] == gold - 6 * n
    assert state["shops"] == {i: copies for i in T.ingredients}   # 4 of each (3 with 2-3 players)
    assert len(state["stack"]) == 9 * copies and all(state["stack"].count(b) == copies for b in T.brews)
    assert len(state["unknowns"]) == 12
    view = GAME.view(state)
    assert view["supply"] == gold - 6 * n and view["stack"] == 9 * copies and view["unknowns_left"] == 12


def test_setup_shuffles_the_formula_cards_onto_the_nine_pairs():
    orders = set()
    for seed in range(6):
        state = GAME.setup(NAMES[:2], seed=seed)
        assert sorted(state["formulas"]) == sorted(T.pairs) and sorted(state["formulas"].values()) == sorted(T.brews)
        orders.add(tuple(state["formulas"][p] for p in T.pairs))
        assert all(w["place"] == "lab" and not w["brews"] for w in state["wizards"])
    assert len(orders) > 1                                   # shuffled, not a fixed table


def test_setup_shuffles_the_unknowns_and_the_brew_stack_face_down():
    decks = {tuple(GAME.setup(NAMES[:4], seed=seed)["unknowns"]) for seed in range(6)}
    stacks = {tuple(GAME.setup(NAMES[:4], seed=seed)["stack"]) for seed in range(6)}
    assert len(decks) > 1 and len(stacks) > 1
    view = GAME.view(GAME.setup(NAMES[:4], seed=1))
    assert view["unknowns_left"] == 12 and view["stack"] == 36 and view["unknown"] is None


def test_setup_refuses_bad_player_counts_and_options():
    with pytest.raises(BadSetup, match="2 to 4"):
        GAME.setup(["Ann"], seed=1)
    with pytest.raises(BadSetup, match="2 to 4"):
        GAME.setup(NAMES + ["Eve"], seed=1)
    with pytest.raises(BadSetup, match='the option "dice" must be'):
        GAME.setup(NAMES[:2], seed=1, options={"dice": "loaded"})
    with pytest.raises(BadSetup, match="no option 'speed'"):
        GAME.setup(NAMES[:2], seed=1, options={"speed": 2})


def test_highest_roll_begins_ties_roll_again_then_clockwise():
    state = GAME.setup(NAMES[:3], seed=1, options={"dice": "physical"})
    assert GAME.view(state)["step"] == "opening"
    state = do(state, "roll", seat=0, value=5)
    with pytest.raises(IllegalAction, match="Ben and Cem still roll"):
        do(state, "roll", seat=0, value=5)
    state = do(do(state, "roll", seat=1, value=2), "roll", seat=2, value=5)
    assert state["opening"]["rolling"] == [0, 2]             # Ann and Cem tied on 5: they roll again
    state = do(do(state, "roll", seat=0, value=3), "roll", seat=2, value=4)
    assert state["turn"] == 2 and state["first"] == 2 and state["step"] == "move"
    for expected in (0, 1):                                  # then clockwise
        state = do(do(state, "move", seat=state["turn"], to="lab"), "end_turn", seat=state["turn"])
        assert state["turn"] == expected and state["round"] == 1
    state = do(do(state, "move", seat=1, to="lab"), "end_turn", seat=1)
    assert state["turn"] == 2 and state["round"] == 2        # a round ends back at Cem


# --- A) gold ----------------------------------------------------------------------------------
def test_a_gold_piece_from_the_supply_at_the_start_of_each_turn():
    state = start(2)
    assert state["gold"] == [7, 6] and state["supply"] == 22 - 12 - 1
    state = do(do(state, "move", seat=0, to="lab"), "end_turn", seat=0)
    assert state["gold"] == [7, 7] and state["supply"] == 22 - 14


def test_no_gold_when_the_supply_is_used_up_and_none_later():
    state = start(2)
    ben = state["gold"][1] + state["supply"]
    state = arrange(state, supply=0, gold=[state["gold"][0], ben])
    state = do(do(state, "move", seat=0, to="lab"), "end_turn", seat=0)
    assert state["gold"][1] == ben and state["supply"] == 0   # nothing now
    state = arrange(state, supply=4, gold=[state["gold"][0], 12])
    state = do(do(state, "move", seat=1, to="lab"), "end_turn", seat=1)
    assert state["gold"][0] == 7 + 1                          # one piece: the missed one is never claimed


def test_paid_gold_returns_to_the_supply_and_cannot_be_borrowed():
    state = do(start(2), "move", seat=0, to="jeweller")
    supply = state["supply"]
    state = do(state, "buy", seat=0, ingredient="ruby")      # 5 gold
    assert state["gold"][0] == 2 and state["supply"] == supply + 5
    with pytest.raises(IllegalAction, match="cannot be borrowed"):
        do(state, "buy", seat=0, ingredient="amethyst")


# --- B) moving and F) the healer ----------------------------------------------------------
def test_a_wizard_stops_once_per_turn_and_the_table_records_where():
    state = do(start(2), "move", seat=0, to="herbalist")
    assert GAME.view(state)["players"][0]["place"] == "herbalist"
    with pytest.raises(IllegalAction, match="may not be moved again"):
        do(state, "move", seat=0, to="lab")
    with pytest.raises(IllegalAction, match="Ann's turn"):
        do(state, "move", seat=1, to="lab")
    assert GAME.view(start(2))["players"][0]["range"] == 4


def test_several_wizards_may_share_a_space():
    state = do(do(do(start(2), "move", seat=0, to="herbalist"), "end_turn", seat=0), "move", seat=1, to="herbalist")
    assert [p["place"] for p in GAME.view(state)["players"]] == ["herbalist", "herbalist"]


def test_the_healer_is_entered_only_after_a_curse():
    with pytest.raises(IllegalAction, match="after he has been cursed"):
        do(start(2), "move", seat=0, to="healer")


def test_the_healer_costs_three_gold_before_moving_and_unpaid_cannot_leave():
    state = wizard(start(2), 0, place="healer", at_healer=True)
    with pytest.raises(IllegalAction, match="pay 3 gold pieces to the healer before moving"):
        do(state, "move", seat=0, to="lab")
    stay = do(state, "move", seat=0, to="healer")              # does not pay: stays
    assert stay["wizards"][0]["place"] == "healer" and stay["gold"][0] == 7
    paid = do(state, "pay_healer", seat=0)
    assert paid["gold"][0] == 4 and paid["supply"] == state["supply"] + 3 and not paid["wizards"][0]["at_healer"]
    assert do(paid, "move", seat=0, to="lab")["wizards"][0]["place"] == "lab"
    broke = arrange(state, gold=[2, state["gold"][1]], supply=state["supply"] + state["gold"][0] - 2)
    with pytest.raises(IllegalAction, match="costs 3 gold"):
        do(broke, "pay_healer", seat=0)
    assert {"type": "pay_healer", "seat": 0} not in GAME.legal_actions(broke)


# --- C) ingredients ------------------------------------------------------------------------------
def test_buying_in_the_shop_where_the_wizard_stopped_as_many_as_he_can_pay():
    state = do(start(2), "move", seat=0, to="herbalist")
    state = do(state, "buy", seat=0, ingredient="mandrake", count=3)
    assert state["wizards"][0]["carried"] == {"mandrake": 3} and state["gold"][0] == 4
    assert state["shops"].get("mandrake", 0) == 0 and GAME.view(state)["shops"][0]["stock"] == 0
    with pytest.raises(IllegalAction, match="only 0 mandrake left"):
        do(state, "buy", seat=0, ingredient="mandrake")
    with pytest.raises(IllegalAction, match="sold at the jeweller"):
        do(state, "buy", seat=0, ingredient="ruby")
    state = do(state, "buy", seat=0, ingredient="wolfsbane", count=3)
    assert state["gold"][0] == 1 and state["wizards"][0]["carried"] == {"mandrake": 3, "wolfsbane": 3}


def test_prices_and_gem_values_are_the_defaults():
    assert {i: (T.ingredients[i].price, T.ingredients[i].value) for i in T.ingredients} == {
        "mandrake": (1, 0), "nightshade": (1, 0), "wolfsbane": (1, 0), "bat_wing": (2, 0), "toad_eye": (2, 0),
        "unicorn_hair": (2, 0), "amethyst": (3, 1), "emerald": (4, 2), "ruby": (5, 3)}


# --- D) the laboratory ------------------------------------------------------------------------------
def test_racks_are_filled_only_in_ones_own_laboratory_with_everything_carried():
    state = give_ingredients(start(2), 0, "carried", {"ruby": 1, "mandrake": 2, "bat_wing": 1})
    street = do(state, "move", seat=0, to="herbalist")
    with pytest.raises(IllegalAction, match="own laboratory"):
        do(street, "deposit", seat=0)
    before = do(state, "move", seat=0, to="lab")
    lab = do(before, "deposit", seat=0)
    w = lab["wizards"][0]
    assert w["carried"] == {} and w["racks"] == {"ruby": 1, "mandrake": 2, "bat_wing": 1}
    assert lab["gold"] == before["gold"] and w["brews"] == before["wizards"][0]["brews"]   # carried always
    assert GAME.view(lab)["players"][0]["racks"] == {"ruby": 1, "mandrake": 2, "bat_wing": 1}
    with pytest.raises(IllegalAction, match="carries no ingredients"):
        do(lab, "deposit", seat=0)


# --- G) the dead-end street ----------------------------------------------------------------------------
def test_dead_end_street_draws_no_unknown_and_its_products_are_free():
    state = arrange(start(2), dead_end={"ingredients": {"ruby": 1, "mandrake": 1},
                                        "brews": [{"brew": "elixir_1", "from": 1, "round": 1}]})
    state["shops"]["ruby"] -= 1
    state["shops"]["mandrake"] -= 1
    state["stack"].remove("elixir_1")
    arrived = do(state, "move", seat=0, to="dead_end")
    assert arrived["pending"] is None and arrived["unknown"] is None and arrived["unknowns"] == state["unknowns"]
    one = do(arrived, "take", seat=0, ingredients={"ruby": 1})
    assert one["wizards"][0]["carried"] == {"ruby": 1} and one["gold"] == arrived["gold"]
    both = do(one, "take", seat=0, ingredients={"mandrake": 1}, brews=[0])
    assert both["wizards"][0]["brews"] == ["elixir_1"] and both["dead_end"] == {"ingredients": {}, "brews": []}
    with pytest.raises(IllegalAction, match="arrives in the dead-end"):
        do(do(state, "move", seat=0, to="lab"), "take", seat=0, ingredients={"ruby": 1})


# --- the order of a turn ------------------------------------------------------------------------------
def test_the_steps_of_a_turn_come_in_order():
    state = give_ingredients(start(2), 0, "racks", {"ruby": 2, "mandrake": 1, "bat_wing": 1})
    state = give_ingredients(state, 0, "carried", {"amethyst": 1})
    with pytest.raises(IllegalAction, match="move your wizard first"):
        do(state, "brew", seat=0, gems={"ruby": 2}, herb="mandrake", special="bat_wing")
    state = do(do(state, "move", seat=0, to="lab"), "deposit", seat=0)   # step 5
    state = do(state, "brew", seat=0, gems={"ruby": 2}, herb="mandrake", special="bat_wing")
    state = do(state, "roll", seat=0, value=3)                        # 3 + 6: success (step 7)
    state = give_ingredients(state, 0, "carried", {"emerald": 1})
    state["stage"] = 7
    with pytest.raises(IllegalAction, match="step 5 of a turn"):
        do(state, "deposit", seat=0)
    assert do(state, "end_turn", seat=0)["turn"] == 1


def test_steps_one_and_two_happen_on_their_own_timers_then_gold():
    state = in_use(start(2), 1, "antidote", chip=0)          # Ben drank the antidote last turn
    state = do(do(state, "move", seat=0, to="lab"), "end_turn", seat=0)
    assert state["wizards"][1]["in_use"] == [{"brew": "antidote", "chip": 1}]   # chip moved first
    assert state["gold"][1] == 6 + 3                           # then 3 gold, not 1


# --- the die ------------------------------------------------------------------------------------------
def test_the_digital_die_is_seeded_logged_and_refuses_a_typed_number():
    a = GAME.setup(NAMES[:2], seed=9)
    b = GAME.setup(NAMES[:2], seed=9)
    with pytest.raises(InvalidAction, match="tablet's die"):
        do(a, "roll", seat=0, value=6)
    a, b = do(a, "roll", seat=0), do(b, "roll", seat=0)
    assert a["die"] == b["die"] and 1 <= a["die"]["last"]["value"] <= 6   # same seed, same roll
    view = GAME.view(a)
    assert view["dice"] == "digital" and view["die"]["value"] == a["die"]["last"]["value"] and view["rolls"] == 1


def test_a_physical_die_takes_the_number_tapped():
    state = GAME.setup(NAMES[:2], seed=9, options={"dice": "physical"})
    with pytest.raises(InvalidAction, match="1 to 6"):
        do(state, "roll", seat=0)
    with pytest.raises(InvalidAction, match="1 to 6"):
        do(state, "roll", seat=0, value=7)
    assert do(state, "roll", seat=0, value=4)["die"]["last"]["value"] == 4
    assert {"type": "roll", "seat": 0, "value": 6} in GAME.legal_actions(state)


# --- undo -------------------------------------------------------------------------------------------
def test_undo_takes_back_a_purchase_but_never_a_roll_or_a_drawn_unknown():
    state = do(do(start(2), "move", seat=0, to="herbalist"), "buy", seat=0, ingredient="mandrake")
    back = do(state, "undo")
    assert back["wizards"][0]["carried"] == {} and back["gold"][0] == 7
    assert do(back, "undo")["step"] == "move"                   # and the move before it
    with pytest.raises(IllegalAction, match="nothing to take back"):
        do(start(2), "undo")                                    # the opening roll is a barrier
    street = do(start(2), "move", seat=0, to="street")
    with pytest.raises(IllegalAction, match="nothing to take back"):
        do(street, "undo")                                      # an Unknown was drawn
    brewing = give_ingredients(start(2), 0, "racks", {"ruby": 1, "mandrake": 1, "bat_wing": 1})
    brewing = do(do(brewing, "move", seat=0, to="lab"), "brew", seat=0, gems={"ruby": 1},
                 herb="mandrake", special="bat_wing")
    assert do(brewing, "undo")["wizards"][0]["racks"] == {"ruby": 1, "mandrake": 1, "bat_wing": 1}
    rolled = do(brewing, "roll", seat=0, value=1)
    with pytest.raises(IllegalAction, match="nothing to take back"):
        do(rolled, "undo")                                      # nobody re-rolls by undo


def test_notes_survive_an_undo_of_the_table():
    state = do(do(start(2), "move", seat=0, to="herbalist"), "note", seat=1, pair="mandrake+bat_wing",
               text="super soda?")
    back = do(state, "undo")
    assert back["notes"][1] == {"mandrake+bat_wing": "super soda?"} and back["step"] == "move"


# --- bad input -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("action,error,words", [
    ({"type": "fly"}, InvalidAction, "no action called 'fly'"),
    ({"type": "move", "seat": 0, "to": "moon"}, InvalidAction, '"to" must be one of "jeweller"'),
    ({"type": "move", "seat": 7, "to": "lab"}, InvalidAction, "a seat at this table"),
    ({"type": "buy", "seat": 0, "ingredient": "gold"}, InvalidAction, '"ingredient" must be one of'),
    ({"type": "brew", "seat": 0, "gems": {"ruby": -1}}, InvalidAction, '"gems" must be how many of each gemstone'),
    ({"type": "drink", "seat": 0, "brew": "tea"}, InvalidAction, '"brew" must be one of'),
    ({"type": "note", "seat": 0, "pair": "x+y", "text": ""}, InvalidAction, '"pair" must be one of "mandrake\\+bat_wing"'),
    ({"type": "note", "seat": 0, "pair": "mandrake+bat_wing", "text": "x" * 41}, InvalidAction, "at most 40"),
    ({"type": "deposit", "seat": 0}, IllegalAction, "move your wizard first"),
])
def test_bad_actions_say_why_and_change_nothing(action, error, words):
    state = start(2)
    before = GAME.view(state)
    with pytest.raises(error, match=words):
        act(state, action)
    assert GAME.view(state) == before
