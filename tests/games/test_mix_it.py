"""Mix It, rule by rule (shared/rules/mix-it.txt and DEFAULTS.md, Mix It). The table of
docs/rules/mix-it.md names the test for each sentence."""
from __future__ import annotations

import json
import pathlib
import sys

import pytest

from controller import records
from controller.games import BadSetup, IllegalAction, InvalidAction

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from mix_it_support import GAME, PARTS, SPECIES, TOTAL, act, arrange, card, count, goal_for  # noqa: E402

B, F, Z, G, S, U = SPECIES          # blubbo fangor zizzle gloop spiko fuzzle


# --- components -----------------------------------------------------------------------------
def test_fifty_five_cards_36_parts_18_goals_1_extra_cookie():
    assert len(GAME.cards) == 36 and len(GAME.goals) == 18
    state = GAME.setup(["Ann", "Ben"], 1)
    assert GAME.accounted(state)["extra_cookie"] == 1 and count(state) == TOTAL


def test_six_species_in_the_defaults_order():
    assert [GAME.species[s]["name"] for s in SPECIES] == ["Blubbo", "Fangor", "Zizzle", "Gloop", "Spiko", "Fuzzle"]
    letters = [GAME.species[s]["letter"] for s in SPECIES]
    shapes = [GAME.species[s]["shape"] for s in SPECIES]
    assert len(set(letters)) == 6 and len(set(shapes)) == 6      # never colour alone


def test_parts_six_species_two_of_each_part_one_star_one_plain():
    assert len(SPECIES) == 6
    for s in SPECIES:
        for p in PARTS:
            cards = [c for c in GAME.cards.values() if c["species"] == s and c["part"] == p]
            assert sorted(c["star"] for c in cards) == [False, True]


def test_the_18_goals_are_the_pure_and_mixed_monsters_of_the_defaults():
    want = {(s, s, s) for s in range(6)}
    for s in range(6):
        want |= {(s, (s + 1) % 6, (s + 2) % 6), (s, (s + 2) % 6, (s + 5) % 6)}
    got = {tuple(SPECIES.index(g[p]) for p in PARTS) for g in GAME.goals.values()}
    assert got == want and len(want) == 18


# --- set-up -------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_each_player_gets_a_goal_and_three_parts_the_rest_is_the_deck(n):
    players = ["Ann", "Ben", "Cem", "Dana", "Eli"][:n]
    state = GAME.setup(players, 5)
    assert all(len(h) == 3 for h in state["hands"]) and all(g is not None for g in state["goals"])
    assert len(set(state["goals"])) == n
    assert len(state["deck"]) == 36 - 3 * n - 2
    view = GAME.view(state)
    assert view["deck"] == {"count": 36 - 3 * n - 2, "top": None}      # face down: no card shown
    assert [p["hand"] for p in view["players"]] == [3] * n


@pytest.mark.parametrize("players", [["Ann"], ["A", "B", "C", "D", "E", "F"]])
def test_two_to_five_players(players):
    with pytest.raises(BadSetup, match="2 to 5 players"):
        GAME.setup(players, 1)


def test_a_bad_variant_names_the_allowed_ones():
    with pytest.raises(BadSetup, match='"variant" must be "classic" or "express"'):
        GAME.setup(["Ann", "Ben"], 1, {"variant": "turbo"})


@pytest.mark.parametrize("seed", range(20))
def test_two_starters_follow_the_basic_rule(seed):
    state = GAME.setup(["Ann", "Ben", "Cem"], seed)
    for monster in state["monsters"]:
        cards = [(p, c) for p in PARTS for c in monster[p]]
        assert len(cards) == 1                               # one card each for Monster 1 and 2
        part, c = cards[0]
        assert GAME.cards[c]["part"] == part                 # eyes top, mouth centre, feet below


def test_the_basic_rule_is_never_broken_by_a_place_or_a_move():
    state = arrange(monsters=[{"eyes": [card(B, "eyes")]}, {"feet": [card(F, "feet")]}],
                    hands=[[card(Z, "mouth"), card(G, "feet"), card(S, "eyes")], [], []])
    state = act(state, type="place", seat=0, card=card(Z, "mouth"), monster=1)
    assert state["monsters"][1]["mouth"] == [card(Z, "mouth")]     # a mouth goes in the centre
    state = act(state, type="move", seat=1, monster=0, part="eyes")
    assert state["monsters"][1]["eyes"] == [card(B, "eyes")]       # eyes stay eyes on the other one
    with pytest.raises(InvalidAction, match="part"):
        act(state, type="move", seat=2, monster=1, part="nose")


# --- PLACE -----------------------------------------------------------------------------------
def test_place_in_a_free_space_then_draw_back_to_three():
    top = card(U, "feet", True)
    state = arrange(monsters=[{"eyes": [card(B, "eyes")]}, {"feet": [card(F, "feet")]}],
                    hands=[[card(Z, "mouth"), card(G, "feet"), card(S, "eyes")], [card(B, "feet")], [card(G, "eyes")]],
                    deck_top=[top])
    deck = len(state["deck"])
    state = act(state, type="place", seat=0, card=card(Z, "mouth"), monster=0)
    assert state["monsters"][0]["mouth"] == [card(Z, "mouth")]
    assert sorted(state["hands"][0]) == sorted([card(G, "feet"), card(S, "eyes"), top])
    assert len(state["deck"]) == deck - 1 and state["turn"] == 1


def test_place_over_another_card_only_the_top_counts():
    state = arrange(monsters=[{"eyes": [card(B, "eyes")], "mouth": [card(B, "mouth")], "feet": [card(F, "feet")]}, {}],
                    hands=[[card(B, "feet"), card(G, "feet"), card(S, "eyes")], [], []],
                    goals=[goal_for(B, B, B), goal_for(Z, Z, Z), goal_for(G, G, G)])
    assert state["showing"][0] is None                              # Fangor feet on top
    state = act(state, type="place", seat=0, card=card(B, "feet"), monster=0)
    assert state["monsters"][0]["feet"] == [card(F, "feet"), card(B, "feet")]
    assert GAME.view(state)["monsters"][0]["slots"]["feet"]["depth"] == 2
    assert state["showing"][0]["monster"] == 0                      # Blubbo feet over Fangor: complete


def test_place_only_a_card_in_your_hand_on_your_turn():
    state = arrange(hands=[[card(Z, "mouth"), card(G, "feet"), card(S, "eyes")], [card(B, "feet")], []])
    with pytest.raises(IllegalAction, match="Ann has no Blubbo feet in hand"):
        act(state, type="place", seat=0, card=card(B, "feet"), monster=0)
    with pytest.raises(IllegalAction, match="it is Ann's turn, not Ben's"):
        act(state, type="place", seat=1, card=card(B, "feet"), monster=0)
    with pytest.raises(InvalidAction, match="Monster 2"):
        act(state, type="place", seat=0, card=card(Z, "mouth"), monster=2)
    with pytest.raises(InvalidAction, match="card"):
        act(state, type="place", seat=0, card="dragon-tail", monster=0)


# --- MOVE ------------------------------------------------------------------------------------
def test_move_a_top_card_to_the_other_monster_same_slot():
    state = arrange(monsters=[{"mouth": [card(B, "mouth"), card(F, "mouth")]}, {"mouth": [card(G, "mouth")]}])
    state = act(state, type="move", seat=0, monster=0, part="mouth")
    assert state["monsters"][0]["mouth"] == [card(B, "mouth")]           # the card below shows again
    assert state["monsters"][1]["mouth"] == [card(G, "mouth"), card(F, "mouth")]
    with pytest.raises(IllegalAction, match="Monster 1 has no eyes to move"):
        act(state, type="move", seat=1, monster=0, part="eyes")


def test_the_card_moved_by_the_player_just_before_is_locked_for_one_turn():
    state = arrange(monsters=[{"mouth": [card(F, "mouth")]}, {"eyes": [card(G, "eyes")]}],
                    hands=[[], [card(B, "feet"), card(Z, "feet"), card(S, "feet")], []])
    state = act(state, type="move", seat=0, monster=0, part="mouth")         # Ann moves Fangor mouth
    view = GAME.view(state)
    assert view["locked"]["card"]["id"] == card(F, "mouth") and view["locked"]["by"] == 0
    with pytest.raises(IllegalAction, match="except the one moved by the player directly before you"):
        act(state, type="move", seat=1, monster=1, part="mouth")
    assert {"type": "move", "seat": 1, "monster": 1, "part": "mouth"} not in GAME.legal_actions(state)
    state = act(state, type="move", seat=1, monster=1, part="eyes")           # any other top card
    state = act(state, type="move", seat=2, monster=1, part="mouth")          # Cem may move it again
    assert state["monsters"][0]["mouth"] == [card(F, "mouth")]


def test_a_place_leaves_nothing_locked():
    state = arrange(monsters=[{"mouth": [card(F, "mouth")]}, {}],
                    hands=[[], [card(B, "feet"), card(Z, "feet"), card(S, "feet")], []])
    state = act(state, type="move", seat=0, monster=0, part="mouth")
    state = act(state, type="place", seat=1, card=card(B, "feet"), monster=0)
    assert GAME.view(state)["locked"] is None
    act(state, type="move", seat=2, monster=1, part="mouth")


# --- CHANGE goal ----------------------------------------------------------------------------------
def test_change_goal_only_once_per_game():
    state = arrange(players=("Ann", "Ben"))
    old = state["goals"][0]
    state = act(state, type="change_goal", seat=0)
    assert state["goals"][0] != old and state["goal_pile"][0] == old      # under the pile
    assert GAME.view(state)["players"][0]["changed_goal"] and count(state) == TOTAL
    state = act(state, type="move", seat=1, monster=0, part=next(p for p in PARTS if state["monsters"][0][p]))
    with pytest.raises(IllegalAction, match="only 1 time during the game"):
        act(state, type="change_goal", seat=0)
    assert {"type": "change_goal", "seat": 0} not in GAME.seat_actions(state, 0)


def test_one_action_per_turn_then_the_next_player():
    state = arrange(players=("Ann", "Ben", "Cem"), turn=2)
    state = act(state, type="change_goal", seat=2)
    assert state["turn"] == 0 and GAME.view(state)["turn"] == 0


# --- checks, MONSTER! and cookies ----------------------------------------------------------------
def built(goal_seat=1, star=False, turn=0):
    """Monster 1 lacks only Blubbo feet; Ann holds it; Ben's goal is pure Blubbo."""
    goals = [goal_for(G, G, G), goal_for(Z, Z, Z), goal_for(S, S, S)]
    goals[goal_seat] = goal_for(B, B, B)
    return arrange(monsters=[{"eyes": [card(B, "eyes", star)], "mouth": [card(B, "mouth", star)]}, {}],
                   hands=[[card(B, "feet", star), card(G, "feet"), card(S, "eyes")], [card(Z, "eyes")], [card(G, "eyes")]],
                   goals=goals, turn=turn)


def test_every_monster_is_checked_after_every_action_for_every_player():
    state = built(goal_seat=1)
    assert all(not [a for a in GAME.seat_actions(state, s) if a["type"] == "claim"] for s in range(3))
    state = act(state, type="place", seat=0, card=card(B, "feet"), monster=0)
    # Ann built it, but it is Ben's goal: Ben may shout, though it is not his action
    assert {"type": "claim", "seat": 1} in GAME.seat_actions(state, 1)
    assert GAME.private_view(state, 1)["showing"] == {"monster": 0, "star": False}
    assert not [a for a in GAME.seat_actions(state, 0) if a["type"] == "claim"]
    with pytest.raises(IllegalAction, match="Ann's goal is not on the table"):
        act(state, type="claim", seat=0)


def test_monster_is_shown_then_the_table_confirms_a_cookie_and_a_new_goal():
    state = act(built(goal_seat=1), type="place", seat=0, card=card(B, "feet"), monster=0)
    state = act(state, type="claim", seat=1)
    view = GAME.view(state)
    assert view["claims"][0]["goal"] == {"id": goal_for(B, B, B), "eyes": B, "mouth": B, "feet": B}
    assert view["players"][1]["claiming"] and "Check the goal card" in GAME.prompt(state)
    assert GAME.legal_actions(state)[0] == {"type": "confirm"}
    with pytest.raises(IllegalAction, match="first the table checks"):
        act(state, type="move", seat=1, monster=0, part="eyes")
    pile = len(state["goal_pile"])
    state = act(state, type="confirm")
    assert state["won"][1] == [goal_for(B, B, B)] and GAME.view(state)["players"][1]["cookies"] == 1
    assert state["goals"][1] not in (None, goal_for(B, B, B)) and len(state["goal_pile"]) == pile - 1
    assert GAME.view(state)["claims"] == [] and count(state) == TOTAL
    assert f'"{goal_for(B, B, B)}"' not in json.dumps(GAME.view(state))     # kept face down
    with pytest.raises(IllegalAction, match="nobody has shouted"):
        act(state, type="confirm")


def test_extra_cookie_for_an_all_star_monster():
    state = act(built(goal_seat=1, star=True), type="place", seat=0, card=card(B, "feet", True), monster=0)
    state = act(act(state, type="claim", seat=1), type="confirm")
    view = GAME.view(state)
    assert view["extra_cookie"] == 1 and view["players"][1]["cookies"] == 2     # 1 goal + the extra


def test_the_next_all_star_monster_takes_the_extra_cookie():
    state = built(goal_seat=1, star=True)
    state["extra"] = {"holder": 2, "since": -5, "before": None, "contested": None}
    state = act(state, type="place", seat=0, card=card(B, "feet", True), monster=0)
    state = act(act(state, type="claim", seat=1), type="confirm")
    assert state["extra"]["holder"] == 1 and GAME.cookies(state, 2) == 0


def test_an_all_plain_or_mixed_monster_does_not_take_it():
    state = built(goal_seat=1, star=False)
    state["extra"]["holder"] = 2
    state = act(state, type="place", seat=0, card=card(B, "feet"), monster=0)
    state = act(act(state, type="claim", seat=1), type="confirm")
    assert state["extra"]["holder"] == 2


def two_star_monsters(turn=0):
    """One MOVE completes two all-star monsters: Gloop feet ★ leaves Monster 1 (showing
    the Zizzle feet ★ under it: Ben's pure Zizzle) for Monster 2 (Ann's pure Gloop)."""
    monsters = [{"eyes": [card(Z, "eyes", True)], "mouth": [card(Z, "mouth", True)],
                 "feet": [card(Z, "feet", True), card(G, "feet", True)]},
                {"eyes": [card(G, "eyes", True)], "mouth": [card(G, "mouth", True)]}]
    state = arrange(monsters=monsters, goals=[goal_for(G, G, G), goal_for(Z, Z, Z), goal_for(S, S, S)],
                    hands=[[card(B, "eyes"), card(F, "eyes"), card(U, "eyes")], [], []], turn=turn)
    assert state["showing"] == [None, None, None]
    return act(state, type="move", seat=turn, monster=0, part="feet")


def test_two_star_monsters_at_the_same_time_the_extra_cookie_stays_where_it_was():
    state = two_star_monsters()
    state["extra"]["holder"] = 2
    assert state["showing"][0]["star"] and state["showing"][1]["star"]
    assert state["showing"][0]["since"] == state["showing"][1]["since"]
    state = act(act(act(state, type="claim", seat=0), type="claim", seat=1), type="confirm")
    assert state["extra"]["holder"] == 2                             # stays where it was
    assert GAME.cookies(state, 0) == 1 and GAME.cookies(state, 1) == 1 and GAME.cookies(state, 2) == 1


def test_two_star_monsters_at_the_same_time_confirmed_one_after_the_other():
    state = two_star_monsters()
    state = act(act(state, type="claim", seat=0), type="confirm")
    assert state["extra"]["holder"] == 0
    state = act(act(state, type="claim", seat=1), type="confirm")    # built at the same time
    assert state["extra"]["holder"] is None                          # back where it was
    assert GAME.cookies(state, 0) == 1 and GAME.cookies(state, 1) == 1


def test_three_cookies_win_and_the_extra_counts():
    state = built(goal_seat=1, star=True)
    state["won"][1] = [goal_for(U, U, U)]
    state = act(state, type="place", seat=0, card=card(B, "feet", True), monster=0)
    state = act(act(state, type="claim", seat=1), type="confirm")
    over = GAME.outcome(state)
    assert over is not None and over.winners == (1,) and over.details["cookies"] == [0, 3, 0]
    assert GAME.view(state)["outcome"]["winner_names"] == ["Ben"]
    assert GAME.legal_actions(state) == [] and GAME.seat_actions(state, 0) == []
    with pytest.raises(IllegalAction, match="the game is over"):
        act(state, type="move", seat=1, monster=0, part="eyes")


def test_two_cookies_do_not_win():
    state = built(goal_seat=1)
    state["won"][1] = [goal_for(U, U, U)]
    state = act(state, type="place", seat=0, card=card(B, "feet"), monster=0)
    state = act(act(state, type="claim", seat=1), type="confirm")
    assert GAME.outcome(state) is None and GAME.cookies(state, 1) == 2


# --- the deck runs out -------------------------------------------------------------------------
def test_taking_the_last_card_makes_the_table_the_new_deck_and_two_new_starters():
    state = arrange(hands=[[card(Z, "mouth"), card(G, "feet"), card(S, "eyes")], [], []], deck_size=1)
    on_table = sum(len(m[p]) for m in state["monsters"] for p in PARTS)
    state = act(state, type="place", seat=0, card=card(Z, "mouth"), monster=0)
    assert len(state["hands"][0]) == 3 and state["refills"] == 1
    tops = [(p, c) for m in state["monsters"] for p in PARTS for c in m[p]]
    assert len(tops) == 2 and all(GAME.cards[c]["part"] == p for p, c in tops)
    assert len(state["deck"]) == on_table + 1 - 2 and count(state) == TOTAL
    assert "new deck" in records.join(records.told("mix-it", state["told"], state["players"]))
    with pytest.raises(IllegalAction, match="nothing to undo"):
        act(state, type="undo")


# --- undo ------------------------------------------------------------------------------------------
def test_undo_takes_back_a_place_or_a_move_but_not_a_monster():
    state = built(goal_seat=1)
    before = state
    state = act(state, type="place", seat=0, card=card(B, "feet"), monster=0)
    assert {"type": "undo"} in GAME.legal_actions(state)
    back = act(state, type="undo")
    assert {k: v for k, v in back.items() if k not in ("undo", "told")} == \
        {k: v for k, v in before.items() if k not in ("undo", "told")}
    state = act(state, type="claim", seat=1)
    with pytest.raises(IllegalAction, match="nothing to undo"):
        act(state, type="undo")


# --- Express ------------------------------------------------------------------------------------
def test_express_one_goal_no_hands_place_from_the_face_up_deck():
    state = GAME.setup(["Ann", "Ben"], 3, {"variant": "express"})
    assert state["hands"] == [[], []] and all(state["goals"]) and len(state["deck"]) == 34
    view = GAME.view(state)
    assert view["deck"]["top"]["id"] == state["deck"][-1] and view["cookies_to_win"] == 1
    top = state["deck"][-1]
    places = [a for a in GAME.legal_actions(state) if a["type"] == "place"]
    assert {a["card"] for a in places} == {top}
    state = act(state, type="place", seat=0, monster=1)
    assert state["monsters"][1][GAME.cards[top]["part"]][-1] == top and len(state["deck"]) == 33
    with pytest.raises(IllegalAction, match="top card of the face-up deck"):
        act(state, type="place", seat=1, monster=0, card=next(c for c in GAME.cards if c != state["deck"][-1]))
    with pytest.raises(IllegalAction, match="only 1 goal card"):
        act(state, type="change_goal", seat=1)
    assert count(state) == TOTAL


def test_express_the_first_to_build_wins():
    state = arrange(players=("Ann", "Ben"), variant="express", hands=[[], []],
                    monsters=[{"eyes": [card(B, "eyes")], "mouth": [card(B, "mouth")]}, {}],
                    goals=[goal_for(G, G, G), goal_for(B, B, B)], deck_top=[card(B, "feet")])
    state = act(state, type="place", seat=0, monster=0)
    state = act(act(state, type="claim", seat=1), type="confirm")
    over = GAME.outcome(state)
    assert over is not None and over.winners == (1,) and over.reason == "built_goal"
    assert state["goals"][1] is None                                  # no second goal in Express


# --- secrets -----------------------------------------------------------------------------------
def test_the_public_view_and_actions_carry_no_hand_and_no_goal():
    from tests.leaks import assert_no_secrets
    state = GAME.setup(["Ann", "Ben", "Cem"], 9)
    for seat in range(3):
        secrets = [*state["hands"][seat], state["goals"][seat]]
        assert_no_secrets({"view": GAME.view(state), "actions": GAME.legal_actions(state)}, secrets)
        others = [GAME.private_view(state, s) for s in range(3) if s != seat]
        assert_no_secrets(others, secrets, what="another seat's private part")
    assert "hands" not in json.dumps(GAME.view(state)) and "goal_pile\": [" not in json.dumps(GAME.view(state))


def test_replay_is_deterministic():
    import random

    from mix_it_support import choose
    def play(seed):
        state, rng, log = GAME.setup(["Ann", "Ben", "Cem"], seed), random.Random(seed), []
        for _ in range(40):
            if GAME.outcome(state):
                break
            action = choose(state, rng)
            state = act(state, **action)
            log.append(json.dumps(GAME.view(state)))
        return log
    assert play(4) == play(4)
