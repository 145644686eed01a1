"""Elixir: E) the Unknowns — every one of the twelve cards — and G) robbery into the dead-end street."""
from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from elixir_support import (GAME, T, arrange, check_invariants, do, give_brews, give_ingredients,  # noqa: E402
                            in_use, start, told, top_unknown, wizard)

from controller.games.base import IllegalAction  # noqa: E402


def meet(uid, state=None):
    """Ann stops on the street and meets ``uid``."""
    state = top_unknown(state or start(2), uid)
    return do(state, "move", seat=0, to="street")


def test_on_the_street_the_top_unknown_is_drawn_and_read_aloud():
    state = start(2)
    top = state["unknowns"][0]
    state = do(state, "move", seat=0, to="street")
    view = GAME.view(state)
    assert view["unknown"]["id"] == top and view["unknown"]["text"] == T.unknowns[top].text
    assert view["unknown"]["name"] in told(state) and view["unknowns_left"] == 11


def test_twelve_unknowns_with_the_printed_dice_and_hire_prices():
    printed = {"fergus": ([4, 5, 6], 0), "helga": ([3, 4, 5, 6], 0), "norman": ([3, 4, 5, 6], 0),
               "phil": ([4, 5, 6], 0), "black_jack": ([3, 4, 5, 6], 2), "kitti": ([4, 5, 6], 2),
               "nick": ([3, 4, 5, 6], 3), "peter": ([4, 5, 6], 3)}
    assert len(T.unknowns) == 12
    for uid, (hits, price) in printed.items():
        assert list(T.unknowns[uid].hits) == hits and T.unknowns[uid].price == price
    assert (T.unknowns["marco"].price, T.unknowns["clotilda"].pays, T.unknowns["fool"].pays,
            T.unknowns["simeon"].price, T.unknowns["simeon"].count) == (4, 10, 4, 1, 2)


@pytest.mark.parametrize("uid", ["fergus", "helga", "norman", "phil"])
@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_an_attack_succeeds_only_on_the_stated_numbers(uid, value):
    state = give_brews(give_ingredients(start(2), 0, "carried", {"ruby": 1}), 0, "super_soda")
    state = meet(uid, state)
    assert state["pending"] == {"kind": "roll", "for": "attack", "seat": 0, "unknown": uid}
    after = do(state, "roll", seat=0, value=value)
    hit = value in T.unknowns[uid].hits
    assert after["unknown"]["result"] == ("hit" if hit else "miss")
    assert after["unknowns"][-1] == uid                      # back under the stack either way
    if not hit:
        assert after["wizards"][0] == state["wizards"][0] and after["pending"] is None
    check_invariants(after)


def test_fergus_sends_you_to_the_healer_and_one_carried_ingredient_to_the_dead_end():
    state = give_ingredients(start(2), 0, "carried", {"ruby": 1, "mandrake": 1})
    state = do(meet("fergus", state), "roll", seat=0, value=4)
    assert state["wizards"][0]["place"] == "healer" and state["wizards"][0]["at_healer"]
    assert state["pending"]["kind"] == "give" and state["pending"]["count"] == 1
    with pytest.raises(IllegalAction, match="1 of the ingredients"):
        do(state, "give", seat=0, ingredients={"ruby": 1, "mandrake": 1})
    state = do(state, "give", seat=0, ingredients={"mandrake": 1})
    assert state["dead_end"]["ingredients"] == {"mandrake": 1} and state["wizards"][0]["carried"] == {"ruby": 1}


def test_helga_curses_you_to_the_healer():
    state = do(meet("helga"), "roll", seat=0, value=3)
    assert state["wizards"][0]["at_healer"] and state["pending"] is None
    state = do(state, "end_turn", seat=0)
    state = do(do(state, "move", seat=1, to="lab"), "end_turn", seat=1)
    with pytest.raises(IllegalAction, match="pay 3 gold"):
        do(state, "move", seat=0, to="lab")


def test_norman_takes_two_carried_ingredients_or_all_if_fewer():
    state = give_ingredients(start(2), 0, "carried", {"ruby": 1, "mandrake": 2})
    state = do(meet("norman", state), "roll", seat=0, value=6)
    assert state["pending"]["count"] == 2 and not state["wizards"][0]["at_healer"]
    state = do(state, "give", seat=0, ingredients={"mandrake": 2})
    assert state["dead_end"]["ingredients"] == {"mandrake": 2}
    one = give_ingredients(start(2), 0, "carried", {"emerald": 1})
    one = do(meet("norman", one), "roll", seat=0, value=3)
    assert one["pending"] is None and one["dead_end"]["ingredients"] == {"emerald": 1}   # no choice to make
    none = do(meet("norman"), "roll", seat=0, value=3)
    assert none["pending"] is None and "nothing" in told(none)


def test_phil_puts_a_brew_card_of_the_victims_choice_in_the_dead_end():
    state = give_brews(start(2), 0, "super_soda", "elixir_2")
    state = do(meet("phil", state), "roll", seat=0, value=5)
    assert state["pending"] == {"kind": "give", "seat": 0, "what": "brew", "count": 1, "unknown": "phil"}
    assert [a for a in GAME.legal_actions(state) if a["type"] == "give"] == [
        {"type": "give", "seat": 0, "brew": "any"}]                          # the choice itself is secret
    blind = do(state, "give", seat=0, brew="any")
    assert len(blind["wizards"][0]["brews"]) == 1 and len(blind["dead_end"]["brews"]) == 1
    assert {"type": "give", "seat": 0, "brew": "super_soda"} in GAME.seat_actions(state, 0)
    state = do(state, "give", seat=0, brew="super_soda")
    assert state["wizards"][0]["brews"] == ["elixir_2"]
    assert GAME.view(state)["dead_end"]["brews"] == [{"from": 0, "round": 1}]   # face down


def test_a_hired_unknown_is_paid_and_kept_a_declined_one_goes_under_the_stack():
    state = meet("black_jack")
    hired = do(state, "accept", seat=0)
    assert hired["wizards"][0]["hired"] == ["black_jack"] and hired["gold"][0] == 7 - 2
    assert "black_jack" not in hired["unknowns"]
    declined = do(state, "decline", seat=0)
    assert declined["unknowns"][-1] == "black_jack" and declined["wizards"][0]["hired"] == []
    broke = meet("nick", arrange(start(2), gold=[2, 6], supply=start(2)["supply"] + 5))
    with pytest.raises(IllegalAction, match="costs 3 gold"):
        do(broke, "accept", seat=0)


def hire(state, seat, uid):
    new = arrange(state)
    new["unknowns"] = [u for u in new["unknowns"] if u != uid]
    new["wizards"][seat]["hired"].append(uid)
    return new


def test_black_jack_ambushes_only_on_the_street_and_brings_a_carried_ingredient():
    state = hire(give_ingredients(start(2), 1, "carried", {"ruby": 1, "mandrake": 1}), 0, "black_jack")
    with pytest.raises(IllegalAction, match="only ambush on the street"):
        do(state, "play_unknown", seat=0, unknown="black_jack", target=1)
    state = wizard(state, 1, place="street")
    played = do(state, "play_unknown", seat=0, unknown="black_jack", target=1)
    missed = do(played, "roll", seat=0, value=2)
    assert missed["unknowns"][-1] == "black_jack" and missed["wizards"][0]["hired"] == []
    hit = do(played, "roll", seat=0, value=3)
    assert hit["wizards"][1]["at_healer"] and hit["pending"]["kind"] == "loot"
    looted = do(hit, "loot", seat=0, ingredients={"ruby": 1}, to_lab=True)
    assert looted["wizards"][0]["racks"] == {"ruby": 1} and looted["wizards"][1]["carried"] == {"mandrake": 1}
    check_invariants(looted)


def test_kitti_steals_two_gems_from_the_racks_never_from_the_lab_table():
    state = give_ingredients(start(2), 1, "racks", {"ruby": 1, "emerald": 2, "mandrake": 1})
    state = hire(state, 0, "kitti")
    state["wizards"][1]["table"] = {"gems": {"amethyst": 1}, "herb": "nightshade", "special": "toad_eye",
                                    "doubtful": True}
    for k in ("amethyst", "nightshade", "toad_eye"):
        state["shops"][k] -= 1
    hit = do(do(state, "play_unknown", seat=0, unknown="kitti", target=1), "roll", seat=0, value=4)
    assert hit["pending"]["count"] == 2
    with pytest.raises(IllegalAction, match="gemstones from the racks"):
        do(hit, "loot", seat=0, ingredients={"amethyst": 1, "ruby": 1})
    looted = do(hit, "loot", seat=0, ingredients={"ruby": 1, "emerald": 1}, to_lab=False)
    assert looted["wizards"][0]["carried"] == {"ruby": 1, "emerald": 1}
    assert looted["wizards"][1]["racks"] == {"emerald": 1, "mandrake": 1}
    assert looted["wizards"][1]["table"]["gems"] == {"amethyst": 1}
    check_invariants(looted)


def test_nick_steals_a_random_brew_anywhere_but_in_a_laboratory():
    state = hire(give_brews(start(2), 1, "super_soda", "antidote"), 0, "nick")
    with pytest.raises(IllegalAction, match="except in a laboratory"):
        do(state, "play_unknown", seat=0, unknown="nick", target=1)
    state = wizard(state, 1, place="herbalist")
    hit = do(do(state, "play_unknown", seat=0, unknown="nick", target=1), "roll", seat=0, value=3)
    assert len(hit["wizards"][0]["brews"]) == 1 and len(hit["wizards"][1]["brews"]) == 1
    assert sorted(hit["wizards"][0]["brews"] + hit["wizards"][1]["brews"]) == ["antidote", "super_soda"]
    stolen = hit["wizards"][0]["brews"][0]
    assert "stolen" in GAME.private_view(hit, 0)["news"][-1] and T.brews[stolen].name in GAME.private_view(hit, 1)["news"][-1]
    check_invariants(hit)


def test_peter_sends_herbs_and_specials_back_and_the_wizard_in_his_lab_to_the_healer():
    state = hire(give_ingredients(start(2), 1, "racks", {"ruby": 1, "mandrake": 2, "bat_wing": 1}), 0, "peter")
    shops = dict(state["shops"])
    hit = do(do(state, "play_unknown", seat=0, unknown="peter", target=1), "roll", seat=0, value=6)
    assert hit["wizards"][1]["racks"] == {"ruby": 1}
    assert hit["shops"]["mandrake"] == shops["mandrake"] + 2 and hit["shops"]["bat_wing"] == shops["bat_wing"] + 1
    assert hit["wizards"][1]["at_healer"]                     # Ben was in his laboratory
    away = wizard(state, 1, place="jeweller")
    hit = do(do(away, "play_unknown", seat=0, unknown="peter", target=1), "roll", seat=0, value=4)
    assert not hit["wizards"][1]["at_healer"]


def test_a_hired_unknown_is_played_on_ones_own_turn_only():
    state = hire(start(2), 1, "peter")
    with pytest.raises(IllegalAction, match="Ann's turn"):
        do(state, "play_unknown", seat=1, unknown="peter", target=0)


def test_marco_sells_the_top_brew_card_for_four_gold():
    state = meet("marco")
    top = state["stack"][0]
    bought = do(state, "accept", seat=0)
    assert bought["gold"][0] == 7 - 4 and bought["wizards"][0]["brews"] == [top] and bought["stack"] == state["stack"][1:]
    with pytest.raises(IllegalAction, match="nothing to take back"):
        do(bought, "undo")                                    # the card was seen
    empty = meet("marco", arrange(start(2), stack=[]))
    with pytest.raises(IllegalAction, match="stack of brew cards is empty"):
        do(arrange(empty, stack=[]), "accept", seat=0)


def test_clotilda_buys_a_brew_card_for_ten_gold_and_puts_it_on_top_of_the_stack():
    state = meet("clotilda", give_brews(start(4), 0, "antidote"))   # 4 players: 11 in the supply
    assert [a for a in GAME.legal_actions(state) if a["type"] == "accept"] == []   # which card is a secret
    sold = do(state, "accept", seat=0, brew="antidote")
    assert sold["gold"][0] == 17 and sold["stack"][0] == "antidote" and sold["wizards"][0]["brews"] == []
    gold = list(state["gold"])
    gold[1] += state["supply"] - 4
    short = arrange(state, supply=4, gold=gold)
    assert do(short, "accept", seat=0, brew="antidote")["gold"][0] == 7 + 4    # what the supply has
    with pytest.raises(IllegalAction, match="only a brew card of his own"):
        do(state, "accept", seat=0, brew="super_soda")


def test_the_fool_pays_four_gold_per_ingredient_which_returns_to_its_shop():
    state = meet("fool", give_ingredients(start(2), 0, "carried", {"mandrake": 2, "ruby": 1}))
    sold = do(state, "accept", seat=0, ingredients={"mandrake": 2})
    assert sold["gold"][0] == 7 + 8 and sold["shops"]["mandrake"] == state["shops"]["mandrake"] + 2
    assert sold["wizards"][0]["carried"] == {"ruby": 1}


def test_simeon_sells_two_herbs_or_two_specials_for_one_gold():
    state = meet("simeon")
    bought = do(state, "accept", seat=0, ingredients={"mandrake": 1, "wolfsbane": 1})
    assert bought["gold"][0] == 6 and bought["wizards"][0]["carried"] == {"mandrake": 1, "wolfsbane": 1}
    for wrong in ({"mandrake": 1, "bat_wing": 1}, {"ruby": 2}, {"mandrake": 3}):
        with pytest.raises(IllegalAction, match="2 herb cards or 2 special products"):
            do(state, "accept", seat=0, ingredients=wrong)
    assert do(state, "accept", seat=0, ingredients={"toad_eye": 2})["wizards"][0]["carried"] == {"toad_eye": 2}


def test_lucky_liqueur_takes_two_off_an_attack_and_adds_two_to_a_hired_unknown():
    state = in_use(start(2), 0, "lucky_liqueur")
    missed = do(meet("fergus", state), "roll", seat=0, value=5)     # counts 3: Fergus needs 4-6
    assert missed["unknown"]["result"] == "miss" and missed["die"]["last"]["counts"] == 3
    state = wizard(hire(state, 0, "kitti"), 1, racks={"ruby": 1})
    state["shops"]["ruby"] -= 1
    hit = do(do(state, "play_unknown", seat=0, unknown="kitti", target=1), "roll", seat=0, value=2)
    assert hit["pending"]["kind"] == "loot"                          # 2 + 2 = 4: Kitti succeeds
    both = in_use(wizard(hire(start(2), 0, "black_jack"), 1, place="street"), 1, "lucky_liqueur")
    both = in_use(both, 0, "lucky_liqueur")
    even = do(do(both, "play_unknown", seat=0, unknown="black_jack", target=1), "roll", seat=0, value=2)
    assert even["die"]["last"]["counts"] == 2 and not even["wizards"][1]["at_healer"]   # +2 -2


def test_dizziness_slides_attackers_back_unrolled():
    state = in_use(start(2), 0, "dizziness")
    met = meet("helga", state)
    assert met["pending"] is None and met["unknown"]["result"] == "slid back" and met["unknowns"][-1] == "helga"
