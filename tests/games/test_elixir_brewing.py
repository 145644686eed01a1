"""Elixir: H) brewing, I) drinking, every brew card's effect, and the win."""
from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from elixir_support import (GAME, T, arrange, check_invariants, do, give_brews, give_ingredients,  # noqa: E402
                            in_use, start, told, wizard)

from controller.games.base import IllegalAction  # noqa: E402

KIT = {"ruby": 1, "emerald": 1, "mandrake": 1, "bat_wing": 1}      # gem values 3 + 2 = 5
PAIR = "mandrake+bat_wing"


def lab(state=None, racks=KIT):
    """Ann at home with ``racks`` in her laboratory."""
    state = give_ingredients(state or start(2), 0, "racks", racks)
    return do(state, "move", seat=0, to="lab")


def brew(state, gems=None, herb="mandrake", special="bat_wing", value=None):
    state = do(state, "brew", seat=0, gems=gems or {"ruby": 1, "emerald": 1}, herb=herb, special=special)
    return state if value is None else do(state, "roll", seat=0, value=value)


def next_round(state):
    """End Ann's turn and Ben's (Ben stays in his lab): Ann's turn again, one round later."""
    state = do(state, "end_turn", seat=0)
    return do(do(state, "move", seat=1, to="lab"), "end_turn", seat=1)


# --- H) brewing -----------------------------------------------------------------------------------
def test_only_ingredients_in_ones_own_racks_brew_not_those_carried():
    state = give_ingredients(start(2), 0, "carried", KIT)
    state = do(state, "move", seat=0, to="herbalist")
    with pytest.raises(IllegalAction, match="racks of one's own laboratory"):
        brew(state)


def test_an_experiment_needs_a_gemstone_a_herb_and_a_special_product():
    state = lab()
    with pytest.raises(IllegalAction, match="one or more gemstones, a herb and a special"):
        do(state, "brew", seat=0, gems={}, herb="mandrake", special="bat_wing")
    with pytest.raises(IllegalAction, match="one or more gemstones, a herb and a special"):
        do(state, "brew", seat=0, gems={"ruby": 1}, herb="mandrake")
    assert brew(state)["pending"] == {"kind": "roll", "for": "brew", "seat": 0}


def test_the_figure_need_not_be_in_the_laboratory_to_brew():
    state = give_ingredients(start(2), 0, "racks", KIT)
    state = do(state, "move", seat=0, to="jeweller")
    assert brew(state, value=2)["wizards"][0]["brewed_round"] == 1


@pytest.mark.parametrize("value,result", [(1, "failed"), (2, "doubtful"), (3, "doubtful"), (4, "success"),
                                          (6, "success")])
def test_die_plus_gemstones_fail_doubtful_or_succeed(value, result):
    state = brew(lab(), gems={"ruby": 1}, value=value)                 # ruby 3 + die
    assert state["die"]["last"]["counts"] == value + 3 and state["die"]["last"]["result"] == result
    assert GAME.view(state)["die"]["result"] == result
    check_invariants(state)


def test_a_failed_experiment_returns_every_ingredient_to_its_shop():
    before = lab()
    state = brew(before, gems={"ruby": 1}, value=1)                    # 1 + 3 = 4: failed
    assert state["wizards"][0]["table"] is None and state["wizards"][0]["racks"] == {"emerald": 1}
    for k in ("ruby", "mandrake", "bat_wing"):
        assert state["shops"][k] == before["shops"].get(k, 0) + 1


def test_a_doubtful_experiment_stays_on_the_table_and_rolls_again_next_round_with_more_gems():
    state = brew(lab(), gems={"ruby": 1}, value=2)                     # 2 + 3 = 5: doubtful
    w = state["wizards"][0]
    assert w["table"] == {"gems": {"ruby": 1}, "herb": "mandrake", "special": "bat_wing", "doubtful": True}
    with pytest.raises(IllegalAction, match="only one experiment"):
        do(state, "brew", seat=0, gems={})
    state = do(next_round(state), "move", seat=0, to="lab")
    with pytest.raises(IllegalAction, match="only gemstones may be added"):
        do(state, "brew", seat=0, gems={}, herb="nightshade")
    state = do(state, "brew", seat=0, gems={"emerald": 1})
    assert state["wizards"][0]["table"]["gems"] == {"ruby": 1, "emerald": 1}
    state = do(state, "roll", seat=0, value=2)                         # 2 + 5 = 7: success
    assert state["wizards"][0]["table"] is None and state["die"]["last"]["result"] == "success"


def test_success_shows_the_formula_to_that_wizard_only_and_takes_the_brew_card():
    before = lab(start(3))
    secret = before["formulas"][PAIR]
    state = brew(before, value=6)
    assert state["wizards"][0]["brews"] == [secret] and state["stack"].count(secret) == 2
    mine = GAME.private_view(state, 0)
    assert {f["pair"]: f["learnt"] for f in mine["formula_table"]}[PAIR] == secret
    for other in (1, 2):
        assert all(f["learnt"] is None for f in GAME.private_view(state, other)["formula_table"])
    public = GAME.view(state)
    assert {f["pair"]: f["seen_by"] for f in public["formulas"]}[PAIR] == [0]
    assert public["players"][0]["brew_cards"] == 1 and secret not in str(public)
    for k in KIT:
        assert state["shops"][k] == before["shops"].get(k, 0) + 1      # every ingredient back to its shop


def test_success_with_no_matching_card_left_loses_the_ingredients_anyway():
    before = lab()
    secret = before["formulas"][PAIR]
    before = arrange(before, stack=[b for b in before["stack"] if b != secret])
    before["wizards"][1]["brews"] = [secret] * 3                        # Ben holds every copy
    state = brew(before, value=6)
    assert state["wizards"][0]["brews"] == [] and state["wizards"][0]["racks"] == {}
    assert "no matching brew card is left" in told(state)
    assert {f["pair"]: f["learnt"] for f in GAME.private_view(state, 0)["formula_table"]}[PAIR] == secret


def test_one_experiment_per_round_the_same_one_again_later():
    state = brew(lab(racks={"ruby": 2, "mandrake": 2, "bat_wing": 2}), gems={"ruby": 1}, value=6)
    with pytest.raises(IllegalAction, match="only one experiment"):
        brew(state, gems={"ruby": 1})
    again = brew(do(next_round(state), "move", seat=0, to="lab"), gems={"ruby": 1}, value=6)
    assert again["wizards"][0]["brews"] == [state["formulas"][PAIR]] * 2


def test_the_stack_is_shuffled_before_each_search():
    state = lab(start(4))
    after = brew(state, value=6)
    rest = list(state["stack"])
    rest.remove(state["formulas"][PAIR])
    assert sorted(after["stack"]) == sorted(rest) and after["stack"] != rest


def test_nobody_searches_the_stack_the_public_sees_only_its_size():
    view = GAME.view(brew(lab(), value=6))
    assert view["stack"] == 26 and isinstance(view["stack"], int)


# --- I) drinking -----------------------------------------------------------------------------------
def test_a_drunk_brew_works_from_the_next_round_and_returns_to_the_stack_after_its_rounds():
    state = give_brews(lab(), 0, "super_soda")
    state = do(state, "drink", seat=0, brew="super_soda")
    use = GAME.view(state)["players"][0]["in_use"]
    assert use == [{"brew": "super_soda", "name": "super soda", "chip": 0, "rounds": 4, "active": False,
                    "effect": T.brews["super_soda"].effect}]
    assert not GAME.active(state, 0, "super_soda")
    for chip in (1, 2, 3, 4):
        state = next_round(state)
        assert state["wizards"][0]["in_use"] == [{"brew": "super_soda", "chip": chip}]
        assert GAME.view(state)["players"][0]["range"] == 8
        state = do(state, "move", seat=0, to="lab")
    state = next_round(state)
    assert state["wizards"][0]["in_use"] == [] and state["stack"][0] == "super_soda"
    assert GAME.view(state)["players"][0]["range"] == 4


def test_thieves_fluid_runs_two_rounds():
    state = do(give_brews(lab(), 0, "thieves_fluid"), "drink", seat=0, brew="thieves_fluid")
    for _ in range(2):
        state = do(next_round(state), "move", seat=0, to="lab")
        assert state["wizards"][0]["in_use"]
    assert next_round(state)["wizards"][0]["in_use"] == []


def test_several_potions_at_once():
    state = give_brews(lab(), 0, "super_soda", "antidote")
    state = do(do(state, "drink", seat=0, brew="super_soda"), "drink", seat=0, brew="antidote")
    gold = state["gold"][0]
    state = next_round(state)
    assert {u["brew"] for u in state["wizards"][0]["in_use"]} == {"super_soda", "antidote"}
    assert state["gold"][0] == gold + 3


def test_drinking_is_the_last_step_and_the_elixir_and_fatal_brew_are_not_drunk():
    state = give_brews(lab(), 0, "elixir_1", "fatal_brew", "antidote")
    with pytest.raises(IllegalAction, match="cannot be drunk"):
        do(state, "drink", seat=0, brew="elixir_1")
    with pytest.raises(IllegalAction, match="fatal brew is best not drunk"):
        do(state, "drink", seat=0, brew="fatal_brew")
    with pytest.raises(IllegalAction, match="no unused super soda"):
        do(state, "drink", seat=0, brew="super_soda")
    drunk = do(state, "drink", seat=0, brew="antidote")
    with pytest.raises(IllegalAction, match="step 7 of a turn"):
        brew(drunk)


def test_thieves_fluid_steals_once_a_round_from_a_wizard_on_the_same_space():
    state = give_brews(in_use(start(2), 0, "thieves_fluid"), 1, "super_soda", "antidote")
    state = wizard(state, 1, place="herbalist")
    with pytest.raises(IllegalAction, match="after you have moved"):
        do(state, "steal", seat=0, target=1)
    there = do(state, "move", seat=0, to="herbalist")
    stolen = do(there, "steal", seat=0, target=1)
    assert len(stolen["wizards"][0]["brews"]) == 1 and len(stolen["wizards"][1]["brews"]) == 1
    with pytest.raises(IllegalAction, match="once in each round"):
        do(stolen, "steal", seat=0, target=1)
    with pytest.raises(IllegalAction, match="same space"):
        do(do(state, "move", seat=0, to="jeweller"), "steal", seat=0, target=1)
    home = wizard(do(state, "move", seat=0, to="lab"), 1, place="lab")     # each in his own laboratory
    with pytest.raises(IllegalAction, match="same space"):
        do(home, "steal", seat=0, target=1)
    with pytest.raises(IllegalAction, match="only a wizard under thieves' fluid"):
        do(do(give_brews(start(2), 1, "antidote"), "move", seat=0, to="lab"), "steal", seat=0, target=1)


def test_lucky_liqueur_adds_two_to_an_experiment():
    state = brew(in_use(lab(), 0, "lucky_liqueur"), gems={"ruby": 1}, value=2)   # 2 + 3 + 2 = 7
    assert state["die"]["last"]["counts"] == 7 and state["die"]["last"]["result"] == "success"


def test_the_antidote_gives_three_gold_each_round_instead_of_one():
    state = in_use(start(2), 1, "antidote", chip=0)
    state = do(do(state, "move", seat=0, to="lab"), "end_turn", seat=0)
    assert state["gold"][1] == 9


def test_dizziness_gives_one_free_ingredient_in_a_shop_each_round():
    state = do(in_use(start(2), 0, "dizziness"), "move", seat=0, to="jeweller")
    free = do(state, "buy", seat=0, ingredient="ruby", free=True)
    assert free["gold"][0] == state["gold"][0] and free["wizards"][0]["carried"] == {"ruby": 1}
    with pytest.raises(IllegalAction, match="one free ingredient in each round"):
        do(free, "buy", seat=0, ingredient="ruby", free=True)
    with pytest.raises(IllegalAction, match="only the solution to dizziness"):
        do(do(start(2), "move", seat=0, to="jeweller"), "buy", seat=0, ingredient="ruby", free=True)


def test_super_soda_doubles_the_range():
    assert GAME.view(in_use(start(2), 0, "super_soda"))["players"][0]["range"] == 8
    assert "up to 8 spaces" in GAME.prompt(in_use(start(2), 0, "super_soda"))


def test_the_fatal_brew_strikes_the_thief_and_returns_once_he_paid_the_healer():
    state = give_brews(in_use(start(2), 0, "thieves_fluid"), 1, "fatal_brew")
    state = do(wizard(state, 1, place="herbalist"), "move", seat=0, to="herbalist")
    struck = do(state, "steal", seat=0, target=1)
    assert struck["wizards"][0]["at_healer"] and struck["wizards"][0]["fatal"] == "fatal_brew"
    assert GAME.view(struck)["players"][0]["fatal"] and "fatal brew" in told(struck)
    struck = next_round(struck)
    paid = do(struck, "pay_healer", seat=0)
    assert paid["wizards"][0]["fatal"] is None and paid["stack"][0] == "fatal_brew"
    check_invariants(paid)


def test_the_fatal_brew_strikes_the_wizard_who_hired_nick():
    state = give_brews(start(2), 1, "fatal_brew")
    state = wizard(state, 1, place="street")
    state["unknowns"].remove("nick")
    state["wizards"][0]["hired"] = ["nick"]
    struck = do(do(state, "play_unknown", seat=0, unknown="nick", target=1), "roll", seat=0, value=6)
    assert struck["wizards"][0]["at_healer"] and struck["unknowns"][-1] == "nick"   # Nick slid back
    assert struck["wizards"][1]["brews"] == [] and struck["wizards"][0]["brews"] == []


def test_the_first_wizard_with_the_three_different_elixir_parts_wins():
    state = give_brews(lab(), 0, "elixir_1", "elixir_2")
    pair = next(p for p, b in state["formulas"].items() if b == "elixir_3")
    herb, special = pair.split("+")
    state = give_ingredients(state, 0, "racks", {herb: 1, special: 1})
    won = do(do(state, "brew", seat=0, gems={"ruby": 1}, herb=herb, special=special), "roll", seat=0, value=6)
    outcome = GAME.outcome(won)
    assert outcome is not None and outcome.winners == (0,) and outcome.reason == "elixir_of_life"
    # the final standings: the rules rank only the winner; the other wizard shares second place
    assert [(p.seat, p.place) for p in outcome.ranking] == [(0, 1), (1, 2)]
    assert GAME.seat_actions(won, 1) == []                   # nothing left to do, not even a note
    assert GAME.view(won)["winner"] == 0 and "Ann" in GAME.prompt(won)
    with pytest.raises(IllegalAction, match="the game is over"):
        do(won, "end_turn", seat=0)
    two_same = give_brews(start(2), 0, "elixir_1", "elixir_1", "elixir_2")
    assert GAME.outcome(two_same) is None                    # three different parts, not three cards


def test_brew_cards_and_their_rounds_are_the_rulebooks():
    assert {b: T.brews[b].rounds for b in T.brews} == {
        "thieves_fluid": 2, "lucky_liqueur": 4, "antidote": 4, "dizziness": 4, "super_soda": 4,
        "fatal_brew": 0, "elixir_1": 0, "elixir_2": 0, "elixir_3": 0}
    assert T.elixir_parts == ["elixir_1", "elixir_2", "elixir_3"]
