"""Zaubercocktail lay-downs: points, the live preview, and the lay-down helper."""
from __future__ import annotations

from itertools import combinations, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.sizes import examples

from controller.games.base import IllegalAction, InvalidAction
from controller.games.zaubercocktail.laydown import (
    best_lay_downs, check_lay_down, default_data, kinds, points_table, preview, read_counts, score,
    set_points, single_card_value,
)

DATA = default_data()
KINDS = kinds(DATA)


@pytest.mark.parametrize("kind,n,points", [
    ("giraffe_extract", 4, 44), ("white_berries", 2, 42), ("faran_leaf", 3, 93),
    ("greenwurz", 7, 70), ("lead_earth", 2, 16), ("troll_hair", 3, 42), ("yellow_schlums", 3, 45),
    ("white_berries", 3, 66),                           # the rulebook example
    ("blue_schlums", 2, 8), ("blue_schlums", 7, 63), ("gold_rose", 2, 62), ("gold_rose", 3, 96),  # published
])
def test_points_match_the_rulebook_and_published_scales(kind, n, points):
    assert set_points(n, KINDS[kind]["k"]) == points
    assert points_table(DATA)[kind][n] == points


def test_box_contents():
    assert sum(k["cards"] for k in KINDS.values()) + DATA["black_something"]["cards"] == 155
    assert len(DATA["recipes"]) == 9


# Rulebook "The magic ingredients (number of cards in brackets)"; k and "most in one set"
# from DEFAULTS.md.
PRINTED = {
    "blue_schlums": ("Blue Schlums", 27, 2, 7), "greenwurz": ("Greenwurz", 23, 3, 7),
    "lead_earth": ("Lead Earth", 21, 6, 7), "giraffe_extract": ("Giraffe Extract", 19, 7, 6),
    "troll_hair": ("Troll Hair", 16, 11, 5), "yellow_schlums": ("Yellow Schlums", 14, 12, 5),
    "silver_grass": ("Silver Grass", 11, 15, 4), "white_berries": ("White Berries", 9, 19, 4),
    "faran_leaf": ("Faran Leaf", 6, 28, 3), "gold_rose": ("Gold Rose", 5, 29, 3),
}


def test_each_kind_has_its_printed_cards_and_the_defaults_scale():
    assert {kid: (k["name"], k["cards"], k["k"], k["most"]) for kid, k in KINDS.items()} == PRINTED
    assert list(KINDS) == list(PRINTED)  # most common first, as the rulebook lists them
    assert (DATA["black_something"]["name"], DATA["black_something"]["cards"]) == ("Black Something", 4)


def test_a_tie_break_card_is_worth_one_plus_k():
    assert {kid: single_card_value(k) for kid, k in KINDS.items()} == {
        kid: 1 + k for kid, (_, _, k, _) in PRINTED.items()}


@pytest.mark.parametrize("kind", list(PRINTED))
def test_a_black_something_counts_as_any_ingredient(kind):
    sets = check_lay_down({kind: 2}, {kind: 1}, DATA)
    assert sets[0]["n"] == 3 and sets[0]["points"] == set_points(3, PRINTED[kind][2])


def test_black_something_counts_towards_n():
    sets = check_lay_down({"white_berries": 2}, {"white_berries": 1}, DATA)
    assert sets[0]["n"] == 3 and score(sets) == {"points": 66, "cards_played": 3}


def test_single_card_values_order_the_kinds():
    values = [single_card_value(k) for k in KINDS.values()]
    assert values == sorted(values) and len(set(values)) == len(values)


def test_preview_never_raises_and_names_the_rule():
    bad = preview({"troll_hair": 1}, {}, DATA)
    assert not bad["ok"] and "at least 2 cards" in bad["refusal"] and bad["points"] is None
    # one more Troll Hair would make a set of two
    assert bad["one_more"]["troll_hair"]["adds"] == 2 * 13
    full = preview({"gold_rose": 3}, {}, DATA)
    assert full["points"] == 96 and full["one_more"]["gold_rose"]["adds"] is None
    assert "at most 3" in full["one_more"]["gold_rose"]["blocked"]
    assert full["one_more"]["faran_leaf"]["adds"] == 0  # one Faran Leaf alone is no set yet
    assert preview({"nonsense": 2}, {}, DATA)["refusal"]


def test_helper_on_a_worked_example_hand():
    hand = {"giraffe_extract": 4, "white_berries": 2, "blue_schlums": 1}
    result = best_lay_downs(hand, 0, DATA)
    assert result["best"]["points"] == 86
    assert result["best"]["cards"] == {"giraffe_extract": 4, "white_berries": 2}
    assert result["best"]["kept"] == {"blue_schlums": 1}
    assert result["runner_up"]["points"] == 44
    assert result["runner_up"]["cards"] == {"giraffe_extract": 4}


def test_helper_spends_black_somethings_on_the_best_kind():
    result = best_lay_downs({"gold_rose": 1, "blue_schlums": 9}, 2, DATA)
    best = result["best"]
    assert best["points"] == 96 + 63
    assert best["black"] == {"gold_rose": 2} and best["kept"] == {"blue_schlums": 2}
    # the answer is a valid lay_down action as it stands
    assert score(check_lay_down(best["cards"], best["black"], DATA))["points"] == best["points"]


def test_helper_keeps_black_somethings_it_does_not_need():
    best = best_lay_downs({"blue_schlums": 7}, 3, DATA)["best"]
    assert best["black"] == {} and best["kept_black"] == 3 and best["points"] == 63


def test_helper_with_nothing_to_lay():
    assert best_lay_downs({"troll_hair": 1, "gold_rose": 1}, 0, DATA) == {"best": None, "runner_up": None}
    assert best_lay_downs({}, 4, DATA) == {"best": None, "runner_up": None}
    only = best_lay_downs({"troll_hair": 1}, 1, DATA)
    assert only["best"]["points"] == 26 and only["runner_up"] is None


def test_helper_refuses_impossible_hands():
    with pytest.raises(IllegalAction, match="only 5 Gold Rose"):
        best_lay_downs({"gold_rose": 6}, 0, DATA)
    with pytest.raises(IllegalAction, match="only 4 Black Somethings"):
        best_lay_downs({"gold_rose": 1}, 5, DATA)


@pytest.mark.parametrize("cards,black,words", [
    ({"dragon_scale": 2}, None, "no ingredient called"),
    ({"greenwurz": 2.5}, None, "whole number"),
    ({"greenwurz": -1}, None, "0 or more"),
    ("greenwurz", None, "per ingredient"),
    ({"greenwurz": 2}, {"greenwurz": "one"}, "whole number"),
])
def test_what_is_not_a_lay_down_at_all_is_invalid(cards, black, words):
    with pytest.raises(InvalidAction, match=words):
        read_counts(cards, black, DATA)
    with pytest.raises(InvalidAction, match=words):
        check_lay_down(cards, black, DATA)
    shown = preview(cards, black, DATA)          # the live preview says so, never raises
    assert shown["ok"] is False and words in shown["refusal"]


def test_read_counts_drops_zero_counts_and_checks_no_rule():
    assert read_counts({"greenwurz": 9, "gold_rose": 0}, {"greenwurz": 0}, DATA) == ({"greenwurz": 9}, {})
    assert read_counts(None, None, DATA) == ({}, {})


# --- brute force: the helper is never beaten ------------------------------------------------

def all_lay_downs(hand, black):
    """Every legal lay-down of a hand, found the slow way through the rule checker."""
    held = [k for k, n in hand.items() if n]
    out = []
    for size in (1, 2, 3):
        for chosen in combinations(held, size):
            for naturals in product(*(range(1, hand[k] + 1) for k in chosen)):
                for jokers in product(range(black + 1), repeat=size):
                    if sum(jokers) > black:
                        continue
                    cards = dict(zip(chosen, naturals))
                    blk = {k: b for k, b in zip(chosen, jokers) if b}
                    try:
                        sets = check_lay_down(cards, blk, DATA)
                    except IllegalAction:
                        continue
                    total = score(sets)
                    out.append((frozenset(chosen), (total["points"], total["cards_played"])))
    return out


small_hands = st.fixed_dictionaries(
    {}, optional={kid: st.integers(0, min(5, k["cards"])) for kid, k in KINDS.items()})


@settings(max_examples=examples(120), deadline=None)
@given(hand=small_hands.filter(lambda h: sum(1 for n in h.values() if n) <= 4), black=st.integers(0, 2))
def test_helper_is_never_beaten_by_brute_force(hand, black):
    result = best_lay_downs(hand, black, DATA)
    every = all_lay_downs(hand, black)
    if not every:
        assert result["best"] is None
        return
    best = result["best"]
    best_key = (best["points"], best["cards_played"])
    assert best_key == max(k for _, k in every)
    assert score(check_lay_down(best["cards"], best["black"], DATA)) == \
        {"points": best["points"], "cards_played": best["cards_played"]}
    assert all(best["cards"][k] <= hand[k] for k in best["cards"])
    assert sum(best["black"].values()) <= black
    others = [k for choice, k in every if choice != frozenset(best["cards"])]
    if not others:
        assert result["runner_up"] is None
    else:
        runner = result["runner_up"]
        assert set(runner["cards"]) != set(best["cards"])
        assert (runner["points"], runner["cards_played"]) == max(others)
