"""Zaubercocktail engine: set-up, rounds, lay-downs, ranking, tie-breaks, moves, end, undo."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from controller.games import load
from controller.games.base import BadSetup, IllegalAction, InvalidAction, Outcome, Placing
from controller.games.zaubercocktail import Zaubercocktail
from controller.games.zaubercocktail.laydown import check_lay_down, score
from tests.sizes import examples

GAME = Zaubercocktail()
DATA = GAME.data
NAMES = ["Arne", "Babs", "Chris", "Doro", "Erni", "Fritz", "Gabi"]
START, TARGET = DATA["path"]["start"], DATA["path"]["target"]


def recipe(forward, back):
    """The id of the recipe card with these values (so tests read like the rulebook)."""
    return next(r["id"] for r in DATA["recipes"] if r["forward"] == forward and r["back"] == back)


def new_game(n=5, deck="physical", seed=1):
    return GAME.setup(NAMES[:n], seed=seed, options={"deck": deck})


def act(state, **action):
    new, _ = GAME.apply(state, action)
    return new


def to_laying(state, dropouts, card=None):
    """Reveal a recipe card and let these seats drop out (ring first)."""
    if state["options"]["deck"] == "physical":
        state = act(state, type="reveal", card=card or recipe([5, 3, 1], 2))
    else:
        state = act(state, type="reveal")
    for seat in dropouts:
        if state["phase"] == "trading":  # with four players two dropouts end the round
            state = act(state, type="drop_out", seat=seat)
    assert state["phase"] == "laying"
    return state


def lay_all(state, entries):
    for seat, (cards, black) in enumerate(entries):
        state = act(state, type="lay_down", seat=seat, cards=cards, black=black)
    return state


def results(state):
    return {r["name"]: r for r in state["round"]["results"]}


def fields(state):
    return {r["name"]: r["moved"] for r in state["round"]["results"]}


# The rulebook's worked example, Arne to Erni in seat order.
EXAMPLE = [
    ({"giraffe_extract": 4, "white_berries": 2}, {}),
    ({"faran_leaf": 3}, {}),
    ({"greenwurz": 7, "lead_earth": 2}, {}),
    ({"troll_hair": 3, "yellow_schlums": 3}, {}),
    ({"white_berries": 2}, {"white_berries": 1}),
]
ARNE, BABS, CHRIS, DORO, ERNI = range(5)


def example_round(stones=None, doro=None, dropouts=(DORO, ARNE, ERNI)):
    state = new_game(5)
    if stones is not None:
        state["stones"] = list(stones)
    state = to_laying(state, dropouts)
    entries = list(EXAMPLE)
    if doro is not None:
        entries[DORO] = doro
    state = lay_all(state, entries)
    return act(state, type="reveal_entries")


# --- the rulebook's worked example ------------------------------------------------

def test_worked_example_points():
    state = example_round()
    r = results(state)
    assert [r[n]["points"] for n in ("Arne", "Babs", "Chris", "Doro", "Erni")] == [86, 93, 86, 87, 66]
    assert [s["points"] for s in r["Arne"]["sets"]] == [44, 42]
    assert [s["points"] for s in r["Chris"]["sets"]] == [70, 16]
    assert [s["points"] for s in r["Doro"]["sets"]] == [42, 45]
    assert r["Chris"]["cards_played"] == 9 and r["Arne"]["cards_played"] == 6
    assert r["Babs"]["cards_played"] == 3 and r["Erni"]["cards_played"] == 3
    assert r["Doro"]["cards_played"] == 6


def test_worked_example_moves():
    state = example_round(stones=[10] * 5)
    r = results(state)
    recipe_moves = {n: sum(m["fields"] for m in r[n]["moves"] if m["why"] == "recipe") for n in r}
    assert recipe_moves == {"Babs": 5, "Doro": 3, "Chris": 1, "Arne": 0, "Erni": -2}
    assert r["Chris"]["rank"] == 3 and r["Arne"]["rank"] == 4
    assert r["Chris"]["tie_break"] == "cards" and r["Arne"]["tie_break"] == "cards"
    # Doro dropped out first (the ring) and is among the best three: 2 more.
    assert {"why": "ring", "fields": 2} in r["Doro"]["moves"]
    assert fields(state) == {"Babs": 5, "Doro": 5, "Chris": 1, "Arne": 0, "Erni": -2}
    assert state["stones"] == [10, 15, 11, 15, 8]


def test_worked_example_doro_last_goes_back_four():
    # Had Doro finished last: 2 back for the ring and 2 for the recipe card.
    state = example_round(stones=[10] * 5, doro=({"blue_schlums": 2}, {}))
    r = results(state)
    assert r["Doro"]["rank"] == 5
    assert r["Doro"]["moved"] == -4 and state["stones"][DORO] == 6
    assert r["Erni"]["moved"] == 0


# --- set-up --------------------------------------------------------------------------

def test_registry_offers_the_game():
    assert isinstance(load("zaubercocktail"), Zaubercocktail)
    assert GAME.info() == {"id": "zaubercocktail", "name": "Zaubercocktail", "min_players": 4, "max_players": 7}


@pytest.mark.parametrize("n", [3, 8])
def test_player_count_refused(n):
    with pytest.raises(BadSetup, match="4 to 7 players"):
        GAME.setup(NAMES[:n] if n <= 7 else NAMES + ["Hans"], seed=1)


def test_unknown_deck_option_refused():
    with pytest.raises(BadSetup):
        GAME.setup(NAMES[:4], seed=1, options={"deck": "tarot"})


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_everyone_starts_on_the_start_field(n):
    state = GAME.setup(NAMES[:n], seed=3)
    assert state["stones"] == [START] * n
    assert [p["field"] for p in GAME.view(state)["players"]] == [START] * n


def test_recipe_cards_and_magic_path_are_the_defaults():
    assert [GAME.card_view(c)["name"] for c in GAME.recipes] == [
        "6/4/2/−3", "5/4/2/−3", "5/3/2/−2", "5/3/1/−2", "6/3/1/−2", "4/3/2/−2", "4/3/1/−2", "4/2/1/−1",
        "3/2/1/−1"]
    assert [c["name"] for c in GAME.recipe_cards()][-1] == "Magic Bolt"
    assert (START, TARGET) == (0, 40)


@pytest.mark.parametrize("seed", range(40))
def test_magic_bolt_is_among_the_bottom_four(seed):
    deck = GAME.setup(NAMES[:4], seed=seed)["deck"]
    assert sorted(deck) == sorted([r["id"] for r in DATA["recipes"]] + ["magic_bolt"])
    assert deck.index("magic_bolt") >= len(deck) - 4


def test_deck_is_seeded_and_varies():
    decks = {tuple(GAME.setup(NAMES[:4], seed=s)["deck"]) for s in range(20)}
    assert len(decks) > 5
    assert GAME.setup(NAMES[:4], seed=9)["deck"] == GAME.setup(NAMES[:4], seed=9)["deck"]


def test_deck_order_is_not_in_the_public_view():
    state = GAME.setup(NAMES[:4], seed=2)
    view = GAME.view(state)
    assert view["recipe_deck"]["remaining"] == 10 and view["recipe_deck"]["revealed"] == []
    assert "recipe_1" not in json.dumps(view)


def test_state_is_plain_json():
    state = example_round()
    assert json.loads(json.dumps(state)) == state


# --- rounds and dropouts ---------------------------------------------------------------

def test_deal_reminder_ten_then_five():
    state = new_game(4, deck="digital")
    assert GAME.view(state)["round"]["deal"] == 10
    assert "Deal 10" in GAME.prompt(state)
    state = to_laying(state, [0, 1])
    state = act(lay_all(state, LADDER[:4]), type="reveal_entries")
    assert GAME.view(state)["next_deal"] == 5
    state = act(state, type="reveal")
    assert GAME.view(state)["round"]["number"] == 2
    assert GAME.view(state)["round"]["deal"] == 5
    assert GAME.view(state)["rounds_before"] == 1 and len(GAME.history(state)) == 1


def test_the_recipe_card_is_revealed_after_the_deal_and_decides_the_moves():
    state = new_game(5)
    assert "When everyone has looked at their cards, reveal the recipe card" in GAME.prompt(state)
    with pytest.raises(IllegalAction, match="only while the trading"):
        GAME.apply(state, {"type": "drop_out", "seat": 0})        # no trading before the card
    state["stones"] = [10] * 5
    state = to_laying(state, (DORO, ARNE, ERNI), card=recipe([6, 4, 2], 3))
    state = act(lay_all(state, EXAMPLE), type="reveal_entries")
    assert GAME.view(state)["round"]["recipe"]["name"] == "6/4/2/−3"
    assert fields(state) == {"Babs": 6, "Doro": 4 + 2, "Chris": 2, "Arne": 0, "Erni": -3}


def test_magic_stones_come_back_for_the_next_round():
    state = example_round()                      # Doro in the ring, Arne and Erni in the goblet
    state = act(state, type="reveal", card="recipe_1")
    view = GAME.view(state)
    assert view["round"]["ring"] is None and view["round"]["goblet"] == []
    assert [p["dropped_out"] for p in view["players"]] == [None] * 5
    state = act(state, type="drop_out", seat=ARNE)
    assert GAME.view(state)["round"]["ring"] == ARNE


@pytest.mark.parametrize("n,stones", [(4, 2), (5, 3), (6, 3), (7, 3)])
def test_round_ends_at_the_third_dropout_second_with_four(n, stones):
    state = act(new_game(n), type="reveal", card="recipe_1")
    for seat in range(stones - 1):
        state = act(state, type="drop_out", seat=seat)
        assert state["phase"] == "trading"
    state = act(state, type="drop_out", seat=stones - 1)
    assert state["phase"] == "laying"
    view = GAME.view(state)
    assert view["round"]["ring"] == 0
    assert view["round"]["goblet"] == list(range(1, stones))
    assert [p["dropped_out"] for p in view["players"]][:stones] == ["ring"] + ["goblet"] * (stones - 1)


def test_dropout_refusals():
    state = act(new_game(5), type="reveal", card="recipe_1")
    state = act(state, type="drop_out", seat=2)
    with pytest.raises(IllegalAction, match="already stopped trading"):
        GAME.apply(state, {"type": "drop_out", "seat": 2})
    with pytest.raises(InvalidAction, match="must be a seat at this table, 0 to 4"):
        GAME.apply(state, {"type": "drop_out", "seat": 9})
    with pytest.raises(IllegalAction, match="only while the trading"):
        GAME.apply(new_game(5), {"type": "drop_out", "seat": 0})


def test_false_trader_goes_back_one_at_any_moment_but_not_below_start():
    state = new_game(5)
    state["stones"] = [3, 0, 0, 0, 0]
    state = act(state, type="false_trader", seat=0)                # before the reveal
    state = act(state, type="reveal", card="recipe_1")
    state = act(state, type="false_trader", seat=0)                # while trading
    state = act(state, type="false_trader", seat=1)                # already on start
    assert state["stones"][:2] == [1, 0]
    for seat in (2, 3, 4):
        state = act(state, type="drop_out", seat=seat)
    state = act(state, type="false_trader", seat=0)                # while laying down
    assert state["stones"][0] == 0
    assert [(f["seat"], f["from"], f["to"]) for f in GAME.view(state)["round"]["false_traders"]] == \
        [(0, 3, 2), (0, 2, 1), (1, 0, 0), (0, 1, 0)]


# --- lay-down entry --------------------------------------------------------------------

def laying_state():
    return to_laying(new_game(5), [0, 1, 2])


@pytest.mark.parametrize("cards,black,rule", [
    ({"greenwurz": 2, "lead_earth": 2, "gold_rose": 2}, {}, "at most 2 different kinds"),
    ({"troll_hair": 1}, {}, "at least 2 cards: Troll Hair has only 1"),
    ({"troll_hair": 3, "gold_rose": 1}, {}, "at least 2 cards: Gold Rose has only 1"),
    ({"troll_hair": 3}, {"gold_rose": 2}, "Black Something may never be laid down alone"),
    ({}, {"white_berries": 2}, "Black Something may never be laid down alone"),
    ({"gold_rose": 4}, {}, "At most 3 Gold Rose cards count in one set"),
    ({"gold_rose": 2}, {"gold_rose": 2}, "At most 3 Gold Rose cards count in one set"),
    ({"blue_schlums": 8}, {}, "At most 7 Blue Schlums"),
    ({"greenwurz": 7}, {"greenwurz": 2}, "At most 7 Greenwurz"),
])
def test_lay_down_refusals_name_the_rule(cards, black, rule):
    state = laying_state()
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction, match=rule):
        GAME.apply(state, {"type": "lay_down", "seat": 3, "cards": cards, "black": black})
    assert state == before


@pytest.mark.parametrize("cards,black,words", [
    ({"dragon_scale": 2}, {}, "no ingredient called"),
    ({"troll_hair": 3}, {"dragon_scale": 1}, "no ingredient called"),
    ({"troll_hair": -2}, {}, "0 or more"),
    ({"troll_hair": "2"}, {}, "whole number"),
    ({"troll_hair": True}, {}, "whole number"),
    ({"troll_hair": 2.0}, {}, "whole number"),
    (["troll_hair"], {}, "per ingredient"),
    ({"troll_hair": 3}, 1, "per ingredient"),
])
def test_a_malformed_lay_down_is_invalid_not_a_rule_refusal(cards, black, words):
    """Not a lay-down at all (HTTP 400), even in a phase where none may be entered."""
    for state in (laying_state(), new_game(5)):
        before = copy.deepcopy(state)
        with pytest.raises(InvalidAction, match=words):
            GAME.apply(state, {"type": "lay_down", "seat": 3, "cards": cards, "black": black})
        assert state == before


@pytest.mark.parametrize("action,words", [
    ({"type": "drop_out"}, '"seat" must be a seat'),
    ({"type": "drop_out", "seat": "2"}, '"seat" must be a seat'),
    ({"type": "drop_out", "seat": True}, '"seat" must be a seat'),
    ({"type": "drop_out", "seat": -1}, '"seat" must be a seat'),
    ({"type": "false_trader", "seat": 5}, '"seat" must be a seat'),
    ({"type": "lay_down", "seat": 1.0, "cards": {}}, '"seat" must be a seat'),
    ({"type": "draw", "seat": 9, "kind": "gold_rose"}, '"seat" must be a seat'),
    ({"type": "draw", "seat": 1}, '"kind" must be one of'),
    ({"type": "draw", "seat": 1, "kind": "dragon_scale"}, '"kind" must be one of'),
    ({"type": "reveal", "card": "recipe_99"}, '"card" must be one of "recipe_1"'),
    ({"type": "reveal"}, '"card" must be one of "recipe_1"'),       # the printed deck needs the card
    ({"type": "shuffle"}, "no action called 'shuffle'"),
    ({"seat": 1}, 'needs a "type"'),
])
def test_malformed_actions_are_invalid(action, words):
    state = act(new_game(5), type="reveal", card="recipe_1")
    with pytest.raises(InvalidAction, match=words):
        GAME.apply(state, action)
    assert not GAME.is_legal(state, action)


def test_joker_with_one_natural_card_is_a_set():
    sets = check_lay_down({"gold_rose": 1}, {"gold_rose": 1}, DATA)
    assert score(sets) == {"points": 2 * (2 + 29), "cards_played": 2}


def test_still_trading_players_cannot_lay_down_yet():
    state = act(new_game(5), type="reveal", card="recipe_1")
    state = act(state, type="drop_out", seat=1)
    with pytest.raises(IllegalAction, match="still trading"):
        GAME.apply(state, {"type": "lay_down", "seat": 0, "cards": {"faran_leaf": 2}})
    # A player who dropped out has fixed their cards and may enter early.
    state = act(state, type="lay_down", seat=1, cards={"faran_leaf": 2})
    assert state["round"]["entries"][1] == {"cards": {"faran_leaf": 2}, "black": {}}


def test_entries_are_hidden_until_the_host_reveals_them():
    state = lay_all(laying_state(), EXAMPLE[:4])
    public = GAME.view(state)
    assert public["round"]["entries"] == [None] * 5
    assert public["round"]["results"] is None
    assert [p["entered"] for p in public["players"]] == [True, True, True, True, False]
    babs = GAME.view(state, BABS)
    assert babs["you"]["entry"]["points"] == 93
    assert babs["round"]["entries"] == [None] * 5
    assert "giraffe_extract" not in json.dumps(babs["you"]["entry"])
    with pytest.raises(IllegalAction, match="still waiting for Erni"):
        GAME.apply(state, {"type": "reveal_entries"})
    state = act(act(state, type="lay_down", seat=ERNI, cards=EXAMPLE[ERNI][0], black=EXAMPLE[ERNI][1]),
                type="reveal_entries")
    assert [e["points"] for e in GAME.view(state)["round"]["entries"]] == [86, 93, 86, 87, 66]


def test_seat_view_shows_live_points_and_one_more_card():
    state = act(laying_state(), type="lay_down", seat=0, cards={"giraffe_extract": 4, "white_berries": 2})
    you = GAME.view(state, 0)["you"]
    preview = you["preview"]
    assert preview["points"] == 86
    assert preview["one_more"]["giraffe_extract"]["adds"] == 5 * 12 - 44
    assert preview["one_more"]["white_berries"]["adds"] == 3 * 22 - 42
    assert preview["one_more"]["gold_rose"]["adds"] is None  # would be a third kind
    assert "different kinds" in preview["one_more"]["gold_rose"]["blocked"]


def test_re_entering_replaces_the_entry():
    state = act(laying_state(), type="lay_down", seat=0, cards={"greenwurz": 2})
    state = act(state, type="lay_down", seat=0, cards={"greenwurz": 3})
    assert GAME.view(state, 0)["you"]["entry"]["points"] == 18


# --- ranking and tie-breaks ------------------------------------------------------------

def test_laid_nothing_all_count_lowest_and_move_back():
    state = new_game(5)
    state["stones"] = [10] * 5
    state = to_laying(state, [0, 1, 2], card=recipe([5, 3, 1], 2))
    state = lay_all(state, [({"blue_schlums": 2}, {}), ({"greenwurz": 2}, {}), ({}, {}),
                            ({"lead_earth": 2}, {}), ({}, {})])
    state = act(state, type="reveal_entries")
    r = results(state)
    assert r["Chris"]["laid_nothing"] and r["Erni"]["laid_nothing"]
    assert r["Chris"]["moved"] == -2 and r["Erni"]["moved"] == -2
    # Arne (the ring) is third of those who laid: +1 from the card, +2 for the ring.
    assert fields(state) == {"Doro": 5, "Babs": 3, "Arne": 3, "Chris": -2, "Erni": -2}


def test_lowest_layer_does_not_move_back_when_someone_laid_nothing():
    state = new_game(5)
    state["stones"] = [10] * 5
    state = to_laying(state, [4, 0, 1], card=recipe([5, 3, 1], 2))
    state = lay_all(state, [({"gold_rose": 3}, {}), ({"faran_leaf": 3}, {}), ({"troll_hair": 3}, {}),
                            ({"blue_schlums": 2}, {}), ({}, {})])
    state = act(state, type="reveal_entries")
    assert results(state)["Doro"]["moved"] == 0
    # Erni (the ring) laid nothing: back 2 for the card and 2 for the ring.
    assert results(state)["Erni"]["moved"] == -4


def tie_round(entries, dropouts=(0, 1, 2), card=None, stones=10):
    n = len(entries)
    state = new_game(n)
    state["stones"] = [stones] * n
    state = to_laying(state, list(dropouts), card=card or recipe([5, 3, 1], 2))
    return act(lay_all(state, entries), type="reveal_entries")


def test_tie_on_points_and_cards_at_the_top_asks_for_a_draw():
    same = ({"troll_hair": 3}, {})                                   # 42 points, 3 cards
    state = tie_round([({"blue_schlums": 2}, {}), same, ({"greenwurz": 2}, {}), same, ({"lead_earth": 2}, {})],
                      dropouts=(4, 0, 2))
    assert state["phase"] == "tiebreak"
    assert {a["seat"] for a in GAME.legal_actions(state) if a["type"] == "draw"} == {1, 3}
    assert [p["to_draw"] for p in GAME.view(state)["players"]] == [False, True, False, True, False]
    with pytest.raises(IllegalAction, match="not in a tie"):
        GAME.apply(state, {"type": "draw", "seat": 0, "kind": "gold_rose"})
    state = act(state, type="draw", seat=3, kind="gold_rose")         # single card 30
    with pytest.raises(IllegalAction, match="already drawn"):
        GAME.apply(state, {"type": "draw", "seat": 3, "kind": "gold_rose"})
    state = act(state, type="draw", seat=1, kind="faran_leaf")        # single card 29
    assert state["phase"] == "scored"
    r = results(state)
    assert (r["Doro"]["rank"], r["Babs"]["rank"]) == (1, 2)
    assert r["Doro"]["moved"] == 5 and r["Babs"]["moved"] == 3
    assert r["Doro"]["tie_break"] == "draw" and r["Doro"]["drew"] == ["gold_rose"]


def test_a_drawn_black_something_is_drawn_again():
    same = ({"troll_hair": 3}, {})
    state = tie_round([({"blue_schlums": 2}, {}), same, ({"greenwurz": 2}, {}), same, ({"lead_earth": 2}, {})],
                      dropouts=(4, 0, 2))
    state = act(state, type="draw", seat=1, kind="black_something")
    assert state["phase"] == "tiebreak"
    assert 1 in {a["seat"] for a in GAME.legal_actions(state) if a["type"] == "draw"}
    state = act(state, type="draw", seat=1, kind="blue_schlums")      # 3
    state = act(state, type="draw", seat=3, kind="greenwurz")         # 4
    assert results(state)["Doro"]["rank"] == 1
    assert results(state)["Babs"]["drew"] == ["black_something", "blue_schlums"]


def test_equal_draws_are_repeated():
    same = ({"troll_hair": 3}, {})
    state = tie_round([({"blue_schlums": 2}, {}), same, ({"greenwurz": 2}, {}), same, ({"lead_earth": 2}, {})],
                      dropouts=(4, 0, 2))
    state = act(state, type="draw", seat=1, kind="lead_earth")
    state = act(state, type="draw", seat=3, kind="lead_earth")
    assert state["phase"] == "tiebreak"
    state = act(state, type="draw", seat=1, kind="white_berries")
    state = act(state, type="draw", seat=3, kind="silver_grass")
    assert results(state)["Babs"]["rank"] == 1 and results(state)["Babs"]["moved"] == 5


def test_tie_for_lowest_is_drawn_for():
    low = ({"blue_schlums": 2}, {})                                  # 8 points, 2 cards
    state = tie_round([({"gold_rose": 3}, {}), ({"faran_leaf": 3}, {}), ({"troll_hair": 3}, {}), low, low],
                      dropouts=(0, 1, 2))
    assert {a["seat"] for a in GAME.legal_actions(state) if a["type"] == "draw"} == {3, 4}
    state = act(state, type="draw", seat=3, kind="blue_schlums")
    state = act(state, type="draw", seat=4, kind="greenwurz")
    assert results(state)["Doro"]["moved"] == -2 and results(state)["Erni"]["moved"] == 0


def test_tie_that_changes_no_move_is_shared_without_a_draw():
    mid = ({"lead_earth": 2}, {})
    state = tie_round([({"gold_rose": 3}, {}), ({"faran_leaf": 3}, {}), ({"troll_hair": 3}, {}),
                       mid, mid, ({"blue_schlums": 2}, {})], dropouts=(0, 1, 2))
    assert state["phase"] == "scored"
    r = results(state)
    assert r["Doro"]["rank"] == r["Erni"]["rank"] == 4
    assert r["Doro"]["tie_break"] == r["Erni"]["tie_break"] == "shared"
    assert r["Doro"]["moved"] == r["Erni"]["moved"] == 0


def test_tie_across_the_ring_line_is_drawn_for_when_the_ring_holder_is_in_it():
    # Six players: the ring holder must be among the best four.
    mid = ({"lead_earth": 2}, {})
    entries = [({"gold_rose": 3}, {}), ({"faran_leaf": 3}, {}), ({"troll_hair": 3}, {}),
               mid, mid, ({"blue_schlums": 2}, {})]
    state = tie_round(entries, dropouts=(3, 1, 2))
    assert state["phase"] == "tiebreak"
    state = act(state, type="draw", seat=3, kind="blue_schlums")
    state = act(state, type="draw", seat=4, kind="gold_rose")
    r = results(state)
    assert r["Doro"]["rank"] == 5 and r["Doro"]["moved"] == -2


# --- the ring bonus for each player count ------------------------------------------------

LADDER = [({"gold_rose": 3}, {}), ({"faran_leaf": 3}, {}), ({"white_berries": 3}, {}), ({"troll_hair": 3}, {}),
          ({"giraffe_extract": 3}, {}), ({"lead_earth": 3}, {}), ({"blue_schlums": 3}, {})]
# points:              96                 93                  66                  42
#                      30                 27                  15


@pytest.mark.parametrize("n,best", [(4, 3), (5, 3), (6, 4), (7, 4)])
def test_ring_bonus_for_each_player_count(n, best):
    others = [s for s in range(n) if s != best - 1][:2]
    inside = tie_round(LADDER[:n], dropouts=(best - 1, *others))
    ring_move = [m for m in inside["round"]["results"][best - 1]["moves"] if m["why"] == "ring"]
    assert ring_move == [{"why": "ring", "fields": 2}]
    others = [s for s in range(n) if s != best][:2]
    outside = tie_round(LADDER[:n], dropouts=(best, *others))
    ring_move = [m for m in outside["round"]["results"][best]["moves"] if m["why"] == "ring"]
    assert ring_move == [{"why": "ring", "fields": -2}]


def test_only_the_best_three_move_forward_with_seven_players():
    state = tie_round(LADDER, dropouts=(6, 5, 4), card=recipe([6, 4, 2], 3))
    r = results(state)
    assert [r[NAMES[s]]["rank"] for s in range(7)] == [1, 2, 3, 4, 5, 6, 7]
    recipe_moves = [sum(m["fields"] for m in r[NAMES[s]]["moves"] if m["why"] == "recipe") for s in range(7)]
    assert recipe_moves == [6, 4, 2, 0, 0, 0, -3]


# --- the path: floor and target, and the end --------------------------------------------

def test_nobody_goes_below_the_start_field():
    state = example_round(stones=[START] * 5, doro=({"blue_schlums": 2}, {}))
    assert state["stones"][DORO] == START and results(state)["Doro"]["to"] == START
    assert min(state["stones"]) == START


def test_game_ends_when_a_stone_reaches_the_target():
    state = example_round(stones=[TARGET - 5, TARGET - 3, 0, 0, 0])
    assert state["phase"] == "over"
    assert state["stones"][BABS] == TARGET   # 37 + 5, stopped on the target field
    out = GAME.outcome(state)
    assert out.winners == (BABS,) and out.reason == "target"
    assert out.message == "A stone reached the target field: Babs wins"
    # everyone is ranked by their field: Babs on the target, Arne stayed, the rest moved
    assert out.ranking == (Placing(BABS, 1, TARGET), Placing(ARNE, 2, TARGET - 5), Placing(DORO, 3, 5),
                           Placing(CHRIS, 4, 1), Placing(ERNI, 5, 0))
    assert out.details == {"scores": state["stones"], "rounds_scored": 1}
    with pytest.raises(IllegalAction, match="game is over"):
        GAME.apply(state, {"type": "reveal", "card": "recipe_1"})


def test_target_reached_by_two_is_a_shared_win():
    state = example_round(stones=[0, TARGET - 5, 0, TARGET - 5, 0])
    out = GAME.outcome(state)
    assert out.winners == (BABS, DORO)
    assert out.message == "A stone reached the target field: Babs and Doro share the win"
    # stones level share a place; the next place skips (the rulebook has no tie-break)
    assert [(p.seat, p.place) for p in out.ranking[:3]] == [(BABS, 1), (DORO, 1), (CHRIS, 3)]


def test_game_ends_when_the_magic_bolt_is_revealed_digital():
    state = new_game(4, deck="digital", seed=5)
    state = act(state, type="reveal")
    while state["phase"] != "over":
        state = act(act(state, type="drop_out", seat=0), type="drop_out", seat=1)
        turn = len(state["revealed"])  # the best lay-down moves round the table
        state = lay_all(state, [LADDER[(seat + turn) % 4] for seat in range(4)])
        state = act(state, type="reveal_entries")
        state = act(state, type="reveal")
    assert state["revealed"][-1] == "magic_bolt"
    assert len(state["revealed"]) >= 7
    out = GAME.outcome(state)
    assert out.reason == "magic_bolt"
    assert out.message.startswith("The Magic Bolt is out: ")
    assert out.winners == tuple(s for s in range(4) if state["stones"][s] == max(state["stones"]))
    assert out.details["rounds_scored"] == len(state["revealed"]) - 1
    assert GAME.legal_actions(state) == []


def test_game_ends_at_once_on_the_bolt_physical_with_shared_win():
    state = new_game(4)
    state["stones"] = [7, 7, 3, 0]
    assert len([a for a in GAME.legal_actions(state) if a["type"] == "reveal"]) == 10
    state = act(state, type="reveal", card="magic_bolt")
    out = GAME.outcome(state)
    assert out.winners == (0, 1)
    assert out.message == "The Magic Bolt is out: Arne and Babs share the win on field 7"
    assert out.ranking == (Placing(0, 1, 7), Placing(1, 1, 7), Placing(2, 3, 3), Placing(3, 4, 0))
    assert out.details == {"scores": [7, 7, 3, 0], "rounds_scored": 0}
    assert GAME.prompt(state) == "The Magic Bolt is out: Arne and Babs win!"


def test_outcome_in_the_view_keeps_the_tablets_keys():
    state = new_game(4)
    state["stones"] = [2, 9, 3, 0]
    view = GAME.view(act(state, type="reveal", card="magic_bolt"))
    out = view["outcome"]
    assert json.loads(json.dumps(out)) == out
    assert out["winners"] == [1] and out["winner_names"] == ["Babs"]
    assert out["reason"] == "magic_bolt" and out["scores"] == [2, 9, 3, 0] and out["rounds_scored"] == 0
    assert out["message"] == "The Magic Bolt is out: Babs wins on field 9"
    assert out["ranking"][0] == {"seat": 1, "place": 1, "score": 9}
    assert GAME.view(new_game(4))["outcome"] is None


def test_physical_deck_lists_only_cards_not_yet_revealed():
    state = new_game(4)
    state = to_laying(state, [0, 1], card="recipe_3")
    state = act(lay_all(state, [({"gold_rose": 3}, {})] + [({}, {})] * 3), type="reveal_entries")
    reveals = [a for a in GAME.legal_actions(state) if a["type"] == "reveal"]
    assert {"type": "reveal", "card": "recipe_3"} not in reveals and len(reveals) == 9
    with pytest.raises(IllegalAction, match="not been revealed"):
        GAME.apply(state, {"type": "reveal", "card": "recipe_3"})
    with pytest.raises(IllegalAction, match="just tap reveal"):
        GAME.apply(new_game(4, deck="digital"), {"type": "reveal", "card": "recipe_3"})


# --- undo and history ------------------------------------------------------------------
def game(state):
    """The game, whatever its last action told the table (an undo tells what it took back)."""
    return {k: v for k, v in state.items() if k != "told"}


def test_undo_takes_back_the_last_entry_until_the_next_reveal():
    state = lay_all(laying_state(), EXAMPLE)
    undone = act(state, type="undo")
    assert undone["round"]["entries"][ERNI] is None
    scored = act(state, type="reveal_entries")
    assert {"type": "undo"} in GAME.legal_actions(scored)
    back = act(scored, type="undo")
    assert back["stones"] == [0] * 5 and back["phase"] == "laying"
    assert back["round"]["entries"] == state["round"]["entries"]
    nxt = act(scored, type="reveal", card="recipe_1")
    assert {"type": "undo"} not in GAME.legal_actions(nxt)
    with pytest.raises(IllegalAction, match="nothing to undo"):
        GAME.apply(nxt, {"type": "undo"})


def test_undo_reverses_a_dropout_and_a_false_trader():
    state = act(new_game(5), type="reveal", card="recipe_1")
    state["stones"] = [4] * 5
    a = act(state, type="drop_out", seat=2)
    b = act(a, type="false_trader", seat=0)
    assert game(act(b, type="undo")) == game(a)
    assert game(act(a, type="undo")) == game(state)


def test_history_keeps_every_round():
    state = example_round()
    state = act(state, type="reveal", card="recipe_1")
    state = to_laying_same(state)
    state = act(lay_all(state, EXAMPLE), type="reveal_entries")
    state = act(state, type="reveal", card="recipe_2")
    hist = GAME.history(state)
    assert [h["number"] for h in hist] == [1, 2]
    # the live view carries only the count while playing (the box asks for the rounds)
    assert GAME.view(state)["history"] == [] and GAME.view(state)["rounds_before"] == 2
    assert hist[0]["recipe"]["forward"] == [5, 3, 1] and hist[0]["ring"] == DORO
    assert [sum(m["fields"] for m in r["moves"]) for r in hist[0]["results"]] == [0, 5, 1, 5, -2]
    assert hist[1]["recipe"]["id"] == "recipe_1"


def to_laying_same(state):
    for seat in (0, 1, 2):
        state = act(state, type="drop_out", seat=seat)
    return state


def test_apply_never_changes_its_argument_and_replays_identically():
    actions = [{"type": "reveal"}, {"type": "drop_out", "seat": 1}, {"type": "drop_out", "seat": 0},
               {"type": "false_trader", "seat": 3}]
    actions += [{"type": "lay_down", "seat": s, "cards": c, "black": b} for s, (c, b) in enumerate(EXAMPLE[:4])]
    actions += [{"type": "reveal_entries"}, {"type": "reveal"}]
    runs = []
    for _ in range(2):
        state = GAME.setup(NAMES[:4], seed=11)
        for action in actions:
            before = copy.deepcopy(state)
            state, _ = GAME.apply(state, action)
            assert before != state
        runs.append(state)
    assert runs[0] == runs[1]


def test_every_listed_action_is_accepted():
    same = ({"troll_hair": 3}, {})
    tied = tie_round([({"blue_schlums": 2}, {}), same, ({"greenwurz": 2}, {}), same, ({"lead_earth": 2}, {})],
                     dropouts=(4, 0, 2))
    trading = act(act(new_game(5, deck="digital"), type="reveal"), type="drop_out", seat=1)
    states = [new_game(5), trading, laying_state(), example_round(), lay_all(laying_state(), EXAMPLE), tied]
    for state in states:
        seats = range(len(state["players"]))
        for action in GAME.legal_actions(state) + [a for s in seats for a in GAME.seat_actions(state, s)]:
            assert GAME.is_legal(state, action), action
            GAME.apply(state, action)


def test_the_table_s_actions_list_no_lay_downs_each_seat_has_its_sample():
    """The live message carries the table's actions; a player's lay-downs are asked for
    (``lay_downs``: the lay-down screen) or come on that seat's own session."""
    trading = act(act(new_game(5, deck="digital"), type="reveal"), type="drop_out", seat=1)
    for state in (trading, laying_state()):
        assert not [a for a in GAME.legal_actions(state) if a["type"] == "lay_down"]
    assert GAME.lay_downs(trading, 0) == [] and GAME.lay_downs(trading, 1)[0] == \
        {"type": "lay_down", "seat": 1, "cards": {}, "black": {}}
    laying = laying_state()
    assert all(GAME.lay_downs(laying, s) for s in range(5))
    assert [a for a in GAME.seat_actions(laying, 2) if a["type"] == "lay_down"] == GAME.lay_downs(laying, 2)
    assert GAME.lay_downs(act(new_game(5), type="reveal", card="recipe_1"), 0) == []


def test_lay_downs_are_a_sample_and_is_legal_is_the_truth():
    assert GAME.legal_actions_complete is False
    state = laying_state()
    listed = GAME.legal_actions(state) + GAME.lay_downs(state, 2)
    # legal lay-downs the sample leaves out: two kinds, Black Somethings
    unlisted = [{"type": "lay_down", "seat": 2, "cards": c, "black": b} for c, b in EXAMPLE]
    for action in unlisted:
        if len(action["cards"]) > 1 or action["black"]:
            assert action not in listed
        assert GAME.is_legal(state, action)
    illegal = [
        {"type": "lay_down", "seat": 2, "cards": {"greenwurz": 2, "lead_earth": 2, "gold_rose": 2}},
        {"type": "lay_down", "seat": 2, "cards": {"troll_hair": 1}},
        {"type": "lay_down", "seat": 2, "cards": {}, "black": {"white_berries": 2}},
        {"type": "lay_down", "seat": 2, "cards": {"gold_rose": 3}, "black": {"gold_rose": 1}},
        {"type": "lay_down", "seat": 2, "cards": {"dragon_scale": 2}},
        {"type": "lay_down", "seat": 7, "cards": {}},
        {"type": "drop_out", "seat": 4},                 # the round has ended
        {"type": "reveal_entries"},                      # nobody has laid down yet
        {"type": "draw", "seat": 0, "kind": "gold_rose"},
        {"type": "reveal", "card": "recipe_2"},
    ]
    for action in illegal:
        assert action not in listed
        assert not GAME.is_legal(state, action), action
    still_trading = act(new_game(5), type="reveal", card="recipe_1")
    assert not GAME.is_legal(still_trading, {"type": "lay_down", "seat": 0, "cards": {"greenwurz": 2}})


def test_undo_keeps_the_earlier_states_instead_of_copying_them():
    """The undo stack holds the earlier states themselves (shared, never copied), so an
    action costs the same after 300 taps as after one."""
    state = act(new_game(5), type="reveal", card="recipe_1")
    state["stones"] = [TARGET - 1] * 5
    states = [state]
    for i in range(300):
        states.append(act(states[-1], type="false_trader", seat=i % 5))
    last = states[-1]
    assert len(last["undo"]) == GAME.undo_depth
    assert last["undo"][-1]["state"]["stones"] is states[-2]["stones"]
    assert last["undo"][0]["state"]["round"] is states[-GAME.undo_depth - 1]["round"]
    assert last["history"] is state["history"]
    back = last
    for i in range(GAME.undo_depth):
        back = act(back, type="undo")
        assert back["stones"] == states[-2 - i]["stones"]
    with pytest.raises(IllegalAction, match="nothing to undo since the recipe card was revealed"):
        GAME.apply(back, {"type": "undo"})


def test_undo_takes_back_a_win_on_the_target_field():
    state = example_round(stones=[TARGET - 5, TARGET - 3, 0, 0, 0])
    assert GAME.outcome(state) is not None
    back = act(state, type="undo")
    assert back["phase"] == "laying" and GAME.outcome(back) is None
    assert back["stones"] == [TARGET - 5, TARGET - 3, 0, 0, 0]


def test_undo_after_a_win_on_the_target_field_lets_the_table_correct_a_lay_down():
    """The most common entry error: a mistyped final lay-down. Undo takes back the reveal
    of the lay-downs (the whole scoring of the round), keeps every entry, and the game
    goes on from there."""
    state = example_round(stones=[TARGET - 5, TARGET - 3, 0, 0, 0])
    assert {"type": "undo"} in GAME.legal_actions(state) and GAME.can_undo(state)
    with pytest.raises(IllegalAction, match="game is over"):
        GAME.apply(state, {"type": "false_trader", "seat": BABS})
    back = act(state, type="undo")
    assert back["round"]["entries"] == state["round"]["entries"]
    assert back["round"]["results"] is None and back["round"]["order"] is None
    assert back["undo"] == state["undo"][:-1]
    # Babs really laid 2 Faran Leaves, not 3: 62 points, the lowest, 2 back; Arne third.
    fixed = act(act(back, type="lay_down", seat=BABS, cards={"faran_leaf": 2}), type="reveal_entries")
    assert GAME.outcome(fixed) is None and fixed["phase"] == "scored"
    assert fixed["stones"][BABS] == TARGET - 3 - 2 and fixed["stones"][ARNE] == TARGET - 5 + 1


def test_undo_after_a_win_decided_by_a_tie_break_draw_takes_back_that_draw():
    same = ({"troll_hair": 3}, {})
    state = tie_round([({"blue_schlums": 2}, {}), same, ({"greenwurz": 2}, {}), same, ({"lead_earth": 2}, {})],
                      dropouts=(4, 0, 2), stones=TARGET - 5)
    state = act(state, type="draw", seat=3, kind="gold_rose")
    won = act(state, type="draw", seat=1, kind="faran_leaf")
    assert GAME.outcome(won).winners == (DORO,)
    back = act(won, type="undo")
    assert game(back) == game(state) and back["phase"] == "tiebreak" and GAME.outcome(back) is None
    assert [a["seat"] for a in GAME.legal_actions(back) if a["type"] == "draw"][:1] == [BABS]


def test_the_magic_bolt_cannot_be_undone():
    """A revealed card is a fact: the Magic Bolt ends the game for good."""
    state = example_round()
    state = act(state, type="false_trader", seat=ARNE)
    state = act(state, type="reveal", card="magic_bolt")
    assert GAME.outcome(state) is not None and not GAME.can_undo(state)
    assert GAME.legal_actions(state) == []
    with pytest.raises(IllegalAction, match="nothing to undo since the recipe card was revealed"):
        GAME.apply(state, {"type": "undo"})


# --- random rounds -----------------------------------------------------------------------

KINDS = list(GAME.kinds)


@st.composite
def lay_downs(draw):
    """Any legal lay-down, or nothing."""
    if draw(st.integers(0, 5)) == 0:
        return {}, {}
    chosen = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=2, unique=True))
    cards, black, jokers = {}, {}, DATA["black_something"]["cards"]
    for kid in chosen:
        most = GAME.kinds[kid]["most"]
        n = draw(st.integers(2, most))
        b = draw(st.integers(0, min(n - 1, jokers)))
        jokers -= b
        cards[kid] = n - b
        if b:
            black[kid] = b
    return cards, black


def key(entry):
    total = score(check_lay_down(entry["cards"], entry["black"], DATA))
    return total["points"], total["cards_played"]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_rounds_keep_stones_on_the_path_and_move_the_right_players(data):
    n = data.draw(st.integers(4, 7), label="players")
    state = GAME.setup(NAMES[:n], seed=data.draw(st.integers(0, 10**6)),
                       options={"deck": data.draw(st.sampled_from(["digital", "physical"]))})
    for _ in range(data.draw(st.integers(1, 4), label="rounds")):
        if state["phase"] == "over":
            break
        reveal = data.draw(st.sampled_from([a for a in GAME.legal_actions(state) if a["type"] == "reveal"]))
        state = act(state, **reveal)
        if state["phase"] == "over":
            assert reveal.get("card", state["revealed"][-1]) == "magic_bolt"
            break
        order = data.draw(st.permutations(range(n)))
        while state["phase"] == "trading":
            if data.draw(st.integers(0, 9)) == 9:  # now and then a false trader
                state = act(state, type="false_trader", seat=data.draw(st.integers(0, n - 1)))
            else:
                state = act(state, type="drop_out", seat=order[len(state["round"]["dropouts"])])
        for seat in range(n):
            cards, black = data.draw(lay_downs())
            state = act(state, type="lay_down", seat=seat, cards=cards, black=black)
        for seat in range(n):                      # more cards than the deck has: some lay nothing
            try:
                GAME.apply(state, {"type": "reveal_entries"})
                break
            except IllegalAction as refused:
                assert "together use more than the game's" in str(refused)
                state = act(state, type="lay_down", seat=seat, cards={}, black={})
        public = GAME.view(state)
        assert public["round"]["entries"] == [None] * n and public["round"]["order"] is None
        for seat in range(n):
            own = GAME.view(state, seat)
            assert own["you"]["entry"]["cards"] == state["round"]["entries"][seat]["cards"]
            assert own["round"]["entries"] == [None] * n and own["you"]["preview"]["ok"]
        before = list(state["stones"])
        state = act(state, type="reveal_entries")
        event("tie drawn for" if state["phase"] == "tiebreak" else "no draw needed")
        for turn in range(40):
            if state["phase"] != "tiebreak":
                break
            draws = [a for a in GAME.legal_actions(state) if a["type"] == "draw"]
            if turn < 20:
                state = act(state, **data.draw(st.sampled_from(draws)))
            else:  # ties that keep repeating: different kinds settle them
                seat = draws[0]["seat"]
                state = act(state, type="draw", seat=seat, kind=KINDS[seat])
        assert state["phase"] in ("scored", "over")
        assert GAME.view(state)["round"]["results"] == state["round"]["results"]
        event("someone laid nothing" if any(r["laid_nothing"] for r in state["round"]["results"]) else "all laid")
        check_round(state, before)


def check_round(state, before):
    rnd = state["round"]
    n = len(state["players"])
    res = rnd["results"]
    assert all(START <= f <= TARGET for f in state["stones"])
    for r in res:
        assert r["from"] == before[r["seat"]] and r["to"] == state["stones"][r["seat"]]
        assert r["to"] == min(TARGET, max(START, r["from"] + sum(m["fields"] for m in r["moves"])))
    layers = [r for r in res if not r["laid_nothing"]]
    nothing = [r for r in res if r["laid_nothing"]]
    forward = [r for r in res if any(m["why"] == "recipe" and m["fields"] > 0 for m in r["moves"])]
    back = [r for r in res if any(m["why"] in ("recipe", "laid_nothing") and m["fields"] < 0 for m in r["moves"])]
    # exactly the best three (or all who laid, if fewer) move forward, and they beat everyone else
    assert len(forward) == min(DATA["scoring"]["forward_places"], len(layers))
    entries = rnd["entries"]
    for f in forward:
        for other in layers:
            if other not in forward:
                assert key(entries[f["seat"]]) >= key(entries[other["seat"]])
    # the lowest moves back: all who laid nothing, otherwise exactly one lowest layer
    if nothing:
        assert back == nothing
    else:
        assert len(back) == 1
        assert all(key(entries[back[0]["seat"]]) <= key(entries[r["seat"]]) for r in layers)
    ring = [r for r in res if r["ring"]]
    assert len(ring) == 1 and sum(r["goblet"] for r in res) == DATA["dropouts"]["stones_to_end"][str(n)] - 1
    assert json.loads(json.dumps(state)) == state


# --- the data file decides -------------------------------------------------------------------

def test_a_table_with_a_different_copy_edits_only_the_data():
    data = Zaubercocktail.default_data()
    data["path"]["target"] = 5
    data["dropouts"]["stones_to_end"]["5"] = 1
    game = Zaubercocktail(data)
    state = game.setup(NAMES[:5], seed=1, options={"deck": "physical"})
    state, _ = game.apply(state, {"type": "reveal", "card": recipe([5, 3, 1], 2)})
    state, _ = game.apply(state, {"type": "drop_out", "seat": DORO})
    assert state["phase"] == "laying"  # one stone ends the round in this copy
    for seat, (cards, black) in enumerate(EXAMPLE):
        state, _ = game.apply(state, {"type": "lay_down", "seat": seat, "cards": cards, "black": black})
    state, _ = game.apply(state, {"type": "reveal_entries"})
    assert game.outcome(state).winners == (BABS, DORO)
    assert GAME.data["path"]["target"] == TARGET  # the default data is untouched


def test_a_broken_data_file_is_named():
    data = Zaubercocktail.default_data()
    del data["dropouts"]["ring_best"]["6"]
    with pytest.raises(BadSetup, match="ring_best needs a value for 6 players"):
        Zaubercocktail(data)


# --- card conservation: lay-downs that cannot exist are refused ---------------------------------
def test_lay_downs_that_cannot_exist_together_are_refused_at_the_reveal_not_before():
    """27 Blue Schlums exist: three players laying 7 and a fourth 7 more (28) cannot be. The
    fourth entry is taken (refusing it would tell what the others entered: anyone could
    probe their hidden counts, issue 22); the reveal says so, to the whole table."""
    state = to_laying(new_game(4), (0, 1))
    for seat in range(3):
        state = act(state, type="lay_down", seat=seat, cards={"blue_schlums": 7}, black={})
    state = act(state, type="lay_down", seat=3, cards={"blue_schlums": 7}, black={})
    with pytest.raises(IllegalAction, match=r"together use more than the game's 27 Blue Schlums cards") as refused:
        act(state, type="reveal_entries")
    assert "28" not in str(refused.value) and "21" not in str(refused.value)    # no count is told
    # the listed lay-downs are shaped only by how many entered (public), never by what
    offered = [a["cards"].get("blue_schlums") for a in GAME.lay_downs(state, 3)]
    assert 6 in offered and 7 not in offered
    assert GAME.seat_actions(state, 3)[-len(GAME.lay_downs(state, 3)):] == GAME.lay_downs(state, 3)
    state = act(state, type="lay_down", seat=3, cards={"blue_schlums": 6}, black={})   # seat 3 corrects
    state = act(state, type="reveal_entries")
    assert state["round"]["entries_revealed"]


def test_an_entry_is_taken_whatever_the_others_entered():
    """The same entry gets the same answer whatever is hidden: the refusals never tell."""
    answers = set()
    for others in ({"blue_schlums": 7}, {"blue_schlums": 2}, {"greenwurz": 3}):
        state = to_laying(new_game(4), (0, 1))
        for seat in range(3):
            state = act(state, type="lay_down", seat=seat, cards=others, black={})
        try:
            act(state, type="lay_down", seat=3, cards={"blue_schlums": 7}, black={})
            answers.add("taken")
        except IllegalAction as refused:
            answers.add(str(refused))
    assert answers == {"taken"}


def test_a_player_changing_their_own_entry_is_not_counted_twice():
    state = to_laying(new_game(4), (0, 1))
    state = act(state, type="lay_down", seat=0, cards={"blue_schlums": 7}, black={})
    state = act(state, type="lay_down", seat=1, cards={"blue_schlums": 7}, black={})
    state = act(state, type="lay_down", seat=2, cards={"blue_schlums": 7}, black={})
    state = act(state, type="lay_down", seat=2, cards={"blue_schlums": 6}, black={})   # seat 2 corrects
    assert state["round"]["entries"][2]["cards"] == {"blue_schlums": 6}
    state = act(state, type="lay_down", seat=3, cards={"blue_schlums": 7}, black={})
    assert act(state, type="reveal_entries")["round"]["entries_revealed"]      # 7 + 7 + 6 + 7 = 27


def test_more_black_somethings_than_the_game_has_are_refused():
    state = to_laying(new_game(4), (0, 1))
    state = act(state, type="lay_down", seat=0, cards={"blue_schlums": 2}, black={"blue_schlums": 2})
    state = act(state, type="lay_down", seat=1, cards={"greenwurz": 2}, black={"greenwurz": 2})
    state = act(state, type="lay_down", seat=2, cards={"lead_earth": 2}, black={"lead_earth": 1})
    state = act(state, type="lay_down", seat=3, cards={}, black={})
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction, match="more than the game's 4 Black Somethings"):
        GAME.apply(state, {"type": "reveal_entries"})
    assert state == before                      # refused: nothing changed
