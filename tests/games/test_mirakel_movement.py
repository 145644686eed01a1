"""Mirakel Mix: completed potions, the movement queue and every movement rule.

Uses the default 2-3 player cave (path 1-14, flame wall 2-3, poison pit 5-6, lightning
grid 8-9, monster crypt 11-12, exit after 14) and the 4 player cave for turn order.
"""
import copy

import pytest

from controller.games.base import IllegalAction, InvalidAction
from controller.games.mirakel_mix import MirakelMix
from mirakel_support import about_to_move, placed, play


@pytest.fixture(scope="module")
def game():
    return MirakelMix()


def start(game, n=3):
    return placed(game, [f"P{i}" for i in range(n)])


def give(s, seat, card, n=1):
    s["piles"][card] -= n
    s["cards"][seat][card] += n


def moving(game, positions, queue, cards=None, n=3):
    """A table where the queue [(seat, steps), ...] is about to move."""
    s = start(game, n)
    s["apprentices"] = list(positions)
    for seat, held in (cards or {}).items():
        for card, k in held.items():
            give(s, seat, card, k)
    return about_to_move(game, s, queue)


def moves(game, s):
    return [(a["to"], sorted(a["spend"]), a["double_speed"]) for a in game.legal_actions(s)
            if a["type"] == "move" and a["to"] is not None]


def go(to, spend=(), double=False):
    return {"type": "move", "to": to, "spend": list(spend), "double_speed": double}


def refused(game, s, action, words, exc_type=IllegalAction):
    """A rule refuses ``action`` (IllegalAction, or InvalidAction for a malformed one),
    naming the rule, and nothing changes."""
    before = copy.deepcopy(s)
    with pytest.raises(exc_type) as exc:
        game.apply(s, action)
    assert words in str(exc.value), str(exc.value)
    assert s == before


def malformed(game, s, action, words):
    refused(game, s, action, words, InvalidAction)


def finish_turn(game, s, drops_and_spaces):
    for colour, (flask, index) in drops_and_spaces:
        s = play(game, s, {"type": "drop", "colour": colour}, {"type": "place_disk", "flask": flask, "space": index})
    return s


# --- completed potions ------------------------------------------------------------
def lab_ready(game, n=4, active=0):
    """Seat `active` is about to complete flame wall (needs blue) and poison pit (needs purple)."""
    s = start(game, n)
    s["active"] = active
    s["bowls"][0] = ["blue", "purple", "red", "yellow"]
    others = [c for b in s["bowls"][1:] for c in b]
    s["cauldron"] = {c: 3 - others.count(c) - s["bowls"][0].count(c) for c in game.colours}
    assert min(s["cauldron"].values()) >= 0  # the seed's other bowls leave room for these drops
    layout = {("flame_wall", 0): 1, ("flame_wall", 1): 1, ("flame_wall", 2): (active + 2) % n,
              ("poison_pit", 0): 1, ("poison_pit", 1): active, ("poison_pit", 2): active}
    for (f, i), seat in layout.items():
        s["lab"][f][i] = seat
        s["disks"][seat] -= 1
    return s


def test_completed_potions_give_cards_and_moves_in_rulebook_order(game):
    s = lab_ready(game, n=4, active=2)
    s = play(game, s, {"type": "empty_bowl", "bowl": 0})
    s = finish_turn(game, s, [("blue", ("flame_wall", 3)), ("purple", ("poison_pit", 3)),
                              ("red", ("monster_crypt", 3)), ("yellow", ("double_speed", 3))])
    v = game.view(s)
    assert v["phase"] == "move"
    assert sorted(v["turn"]["won"]) == ["flame_wall", "poison_pit"]
    assert v["players"][2]["cards"]["flame_wall"] == 1 and v["players"][2]["cards"]["poison_pit"] == 1
    assert v["lab"][0]["pile"] == 5 and v["lab"][1]["pile"] == 5
    # Active first (2 potions), then clockwise from the left neighbour: seat 3 none,
    # seat 0 has a disk in flame wall (1 step), seat 1 has 3 disks in both (still 2 steps).
    assert [(q["seat"], q["steps"]) for q in v["movement"]["queue"]] == [(2, 2), (0, 1), (1, 2)]


def test_a_potion_completed_before_the_fourth_disk_takes_effect_only_after_it(game):
    # "As soon as you have refilled the magic bowl with 4 drops (and have placed 4
    # miracle-mix disks), completed magic potions become effective."
    s = lab_ready(game, n=4, active=0)
    s = play(game, s, {"type": "empty_bowl", "bowl": 0})
    s = finish_turn(game, s, [("blue", ("flame_wall", 3))])     # the flame wall is complete now
    assert game.view(s)["lab"][0]["complete"] is True
    assert s["phase"] == "dispense" and s["movement"] is None
    assert s["cards"][0]["flame_wall"] == 0 and s["piles"]["flame_wall"] == 6
    s = finish_turn(game, s, [("purple", ("poison_pit", 3)), ("red", ("monster_crypt", 3))])
    assert s["movement"] is None and s["cards"][0]["flame_wall"] == 0
    s = finish_turn(game, s, [("yellow", ("double_speed", 3))])  # the 4th disk
    assert s["phase"] == "move" and s["cards"][0]["flame_wall"] == 1


def test_only_the_player_whose_turn_it_is_takes_cards(game):
    # "You get cards only if you have completed magic potions on your own game turn!"
    s = lab_ready(game, n=4, active=2)
    s = play(game, s, {"type": "empty_bowl", "bowl": 0})
    s = finish_turn(game, s, [("blue", ("flame_wall", 3)), ("purple", ("poison_pit", 3)),
                              ("red", ("monster_crypt", 3)), ("yellow", ("double_speed", 3))])
    # seats 0 and 1 have disks in the completed potions and move, but take no card
    assert {q["seat"] for q in s["movement"]["queue"]} == {0, 1, 2}
    assert [sum(cards.values()) for cards in s["cards"]] == [0, 0, 2, 0]


def test_an_empty_pile_gives_no_card_but_the_potion_still_moves(game):
    s = lab_ready(game, n=4, active=0)
    s["cards"][3]["flame_wall"] = 6
    s["piles"]["flame_wall"] = 0
    s = play(game, s, {"type": "empty_bowl", "bowl": 0})
    s = finish_turn(game, s, [("blue", ("flame_wall", 3)), ("purple", ("poison_pit", 3)),
                              ("red", ("monster_crypt", 3)), ("yellow", ("double_speed", 3))])
    assert s["cards"][0]["flame_wall"] == 0 and s["cards"][0]["poison_pit"] == 1
    assert s["movement"]["queue"][0] == {"seat": 0, "steps": 2}


def test_after_moving_disks_return_and_the_next_player_starts(game):
    s = lab_ready(game, n=4, active=0)
    s = play(game, s, {"type": "empty_bowl", "bowl": 0})
    s = finish_turn(game, s, [("blue", ("flame_wall", 3)), ("purple", ("poison_pit", 3)),
                              ("red", ("monster_crypt", 3)), ("yellow", ("double_speed", 3))])
    while s["phase"] == "move":
        s = play(game, s, {"type": "move", "to": None})
    assert s["phase"] == "choose_bowl" and s["active"] == 1
    assert s["lab"]["flame_wall"] == [None] * 4 and s["lab"]["poison_pit"] == [None] * 4
    assert s["lab"]["monster_crypt"][3] == 0 and s["lab"]["double_speed"][3] == 0
    assert s["disks"] == [8, 10, 10, 10]


# --- moving -----------------------------------------------------------------------
def test_one_step_per_potion_in_any_direction(game):
    s = moving(game, ["4", "S1", "S2"], [(0, 1)])
    assert sorted(moves(game, s)) == [("3", [], False), ("5", [], False)]
    s = moving(game, ["7", "S1", "S2"], [(0, 2)])
    # 7 -> 6 -> 5 crosses the poison pit (no card), 7 -> 8 -> 9 crosses the lightning grid.
    assert {m[0] for m in moves(game, s)} == {"6", "8"}


def test_passing_an_apprentice_costs_the_step_and_you_cannot_end_on_it(game):
    s = moving(game, ["3", "4", "S2"], [(0, 2)])
    dest = {m[0] for m in moves(game, s)}
    assert "4" not in dest and "5" in dest
    refused(game, s, go("4"), "only one apprentice per space: P1 stands on 4")
    s1 = moving(game, ["3", "4", "S2"], [(0, 1)])
    assert {m[0] for m in moves(game, s1)} == set()  # behind: flame wall without a card
    s = play(game, s, go("5"))
    assert s["apprentices"][0] == "5" and s["apprentices"][1] == "4"


def test_steps_may_go_to_waste(game):
    s = moving(game, ["7", "S1", "S2"], [(0, 2), (1, 1)])
    assert {"type": "move", "to": None} in game.legal_actions(s)
    s2 = play(game, s, {"type": "move", "to": None})
    assert s2["apprentices"][0] == "7" and game.view(s2)["movement"]["mover"] == 1
    s3 = play(game, s, go("8"))  # only one of the two steps used
    assert s3["apprentices"][0] == "8" and game.view(s3)["movement"]["mover"] == 1


def test_an_obstacle_costs_its_card_which_goes_back_to_the_pile(game):
    s = moving(game, ["4", "S1", "S2"], [(0, 2)])
    assert ("6", [], False) not in moves(game, s)
    refused(game, s, go("6"), "cannot cross the poison pit without a poison pit potion")
    s = moving(game, ["4", "S1", "S2"], [(0, 2)], cards={0: {"poison_pit": 1}})
    assert ("6", ["poison_pit"], False) in moves(game, s)
    refused(game, s, go("6"), "costs a poison pit potion")
    s = play(game, s, go("6", ["poison_pit"]))
    assert s["apprentices"][0] == "6"
    assert s["cards"][0]["poison_pit"] == 0 and s["piles"]["poison_pit"] == 6


def test_several_obstacles_in_one_move(game):
    cards = {0: {"flame_wall": 1, "poison_pit": 1}}
    s = moving(game, ["2", "S1", "S2"], [(0, 4)], cards=cards)
    assert ("6", ["flame_wall", "poison_pit"], False) in moves(game, s)
    s = play(game, s, go("6", ["poison_pit", "flame_wall"]))
    assert s["apprentices"][0] == "6"
    assert s["cards"][0]["flame_wall"] == 0 and s["cards"][0]["poison_pit"] == 0
    assert s["piles"]["flame_wall"] == 6 and s["piles"]["poison_pit"] == 6


def test_refusals_name_the_rule(game):
    s = moving(game, ["4", "S1", "S2"], [(0, 1)], cards={0: {"double_speed": 1}})
    malformed(game, s, go("space-x"), "no cave space")
    refused(game, s, go("4"), "already there")
    refused(game, s, go("7"), "7 is 3 steps away; you may move 1")
    refused(game, s, go("5", ["flame_wall"]), "do not have enough flame wall")
    refused(game, s, go("5", ["double_speed"]), "not an obstacle potion")
    refused(game, s, go("5", [], True), "you reach 5 without double speed")
    refused(game, s, go("5", ["poison_pit"]), "do not have enough poison pit")
    s = moving(game, ["4", "S1", "S2"], [(0, 1)], cards={0: {"poison_pit": 1}})
    refused(game, s, go("5", ["poison_pit"]), "no poison pit lies on your way to 5")
    malformed(game, s, {"type": "move", "to": "5", "spend": "x", "double_speed": False}, "a list")
    malformed(game, s, {"type": "move", "to": "5", "spend": ["dragon"], "double_speed": False}, "no potion card")
    malformed(game, s, {"type": "move", "to": "5", "spend": [], "double_speed": "yes"}, "true or false")
    malformed(game, s, {"type": "move", "to": None, "spend": ["poison_pit"]}, "gives up no potion")
    malformed(game, s, {"type": "move", "to": ["5"]}, "no cave space")
    refused(game, s, {"type": "empty_bowl", "bowl": 0}, "start of your turn")
    malformed(game, s, {"type": "move"}, '"to" must be one of')
    t = start(game)
    refused(game, t, go("1"), "nobody is moving")


# --- potions for moving -------------------------------------------------------------
def test_double_speed_doubles_the_move_in_one_go(game):
    s = moving(game, ["6", "S1", "S2"], [(0, 2)], cards={0: {"double_speed": 2}})
    m = moves(game, s)
    assert ("8", [], False) in m and ("10", [], True) not in m   # lightning grid 8-9
    s = moving(game, ["9", "S1", "S2"], [(0, 2)], cards={0: {"double_speed": 2}})
    assert ("11", [], False) in moves(game, s) and ("13", [], True) not in moves(game, s)
    s = moving(game, ["12", "S1", "S2"], [(0, 1)], cards={0: {"double_speed": 2}})
    assert ("14", [], True) in moves(game, s)
    s = play(game, s, go("14", [], True))
    assert s["apprentices"][0] == "14"
    assert s["cards"][0]["double_speed"] == 1 and s["piles"]["double_speed"] == 5
    assert s["phase"] != "move"  # the whole go is over, no second double speed


def test_double_speed_is_never_offered_where_plain_steps_do(game):
    s = moving(game, ["12", "S1", "S2"], [(0, 2)], cards={0: {"double_speed": 1}})
    assert not any(d for _, _, d in moves(game, s) if _ in ("13", "14"))
    assert ("exit", [], True) in moves(game, s)


def test_only_one_double_speed_per_player_per_turn(game):
    s = moving(game, ["12", "S1", "S2"], [(0, 1)], cards={0: {"double_speed": 2}})
    s["turn"]["double_used"] = [0]
    assert not any(d for _, _, d in moves(game, s))
    refused(game, s, go("14", [], True), "only one double-speed potion per player per turn")


def test_double_speed_is_refused_without_the_card(game):
    s = moving(game, ["12", "S1", "S2"], [(0, 1)])
    refused(game, s, go("14", [], True), "no double-speed potion")


def test_place_swap_with_an_adjacent_apprentice_costs_no_step(game):
    s = moving(game, ["7", "8", "S2"], [(0, 1)], cards={0: {"place_swap": 1}})
    assert {"type": "place_swap", "space": "8", "spend": []} in game.legal_actions(s)
    s = play(game, s, {"type": "place_swap", "space": "8"})
    assert s["apprentices"][:2] == ["8", "7"]
    assert s["cards"][0]["place_swap"] == 0 and s["piles"]["place_swap"] == 6
    assert game.view(s)["movement"]["steps_left"] == 1 and s["movement"]["queue"][0]["seat"] == 0
    # The step is still there, but the lightning grid is in the way: only back past P1.
    assert {m[0] for m in moves(game, s)} == set()
    s = play(game, s, {"type": "move", "to": None})
    assert s["phase"] == "choose_bowl"


def test_place_swap_across_a_barrier_also_costs_the_obstacle_card(game):
    s = moving(game, ["8", "9", "S2"], [(0, 1)], cards={0: {"place_swap": 1}})
    assert not any(a["type"] == "place_swap" for a in game.legal_actions(s))
    refused(game, s, {"type": "place_swap", "space": "9"}, "a lightning grid lies between you")
    s = moving(game, ["8", "9", "S2"], [(0, 1)], cards={0: {"place_swap": 1, "lightning_grid": 1}})
    assert {"type": "place_swap", "space": "9", "spend": ["lightning_grid"]} in game.legal_actions(s)
    refused(game, s, {"type": "place_swap", "space": "9", "spend": []}, "costs the place-swap potion and a lightning grid")
    s = play(game, s, {"type": "place_swap", "space": "9", "spend": ["lightning_grid"]})
    assert s["apprentices"][:2] == ["9", "8"]
    assert s["cards"][0]["lightning_grid"] == 0 and s["piles"]["lightning_grid"] == 6


def test_place_swap_refusals(game):
    s = moving(game, ["7", "9", "S2"], [(0, 1)], cards={0: {"place_swap": 1}})
    refused(game, s, {"type": "place_swap", "space": "9"}, "adjacent space")
    refused(game, s, {"type": "place_swap", "space": "8"}, "nobody stands on 8")
    s = moving(game, ["7", "8", "S2"], [(0, 1)], cards={0: {"place_swap": 1}})
    malformed(game, s, {"type": "place_swap", "space": "8", "spend": True}, '"spend" must be a list, each one of "flame_wall"')
    malformed(game, s, {"type": "place_swap", "space": 8}, "no cave space")
    refused(game, s, {"type": "place_swap", "space": "8", "spend": ["flame_wall"]}, "nothing else")
    s = moving(game, ["7", "8", "S2"], [(0, 1)])
    refused(game, s, {"type": "place_swap", "space": "8"}, "no place-swap potion")


def test_a_move_can_stop_short_to_swap_and_go_on(game):
    s = moving(game, ["4", "6", "S2"], [(0, 3)], cards={0: {"place_swap": 1}})
    s2 = play(game, s, go("5"))               # a swap across the poison pit needs its card too
    assert s2["phase"] == "choose_bowl"
    s = moving(game, ["4", "6", "S2"], [(0, 3)], cards={0: {"place_swap": 1, "poison_pit": 1}})
    s = play(game, s, go("5"))                # one step; the swap with P1 on 6 is still possible
    assert s["phase"] == "move" and game.view(s)["movement"]["steps_left"] == 2
    assert not any(d for _, _, d in moves(game, s))  # no double speed after a stop-over
    s = moving(game, ["4", "6", "S2"], [(0, 3)], cards={0: {"place_swap": 1, "double_speed": 1, "poison_pit": 1}})
    s = play(game, s, go("5"))
    refused(game, s, go("9", ["poison_pit"], True), "before taking any step")
    s = play(game, s, {"type": "place_swap", "space": "6", "spend": ["poison_pit"]})
    assert s["apprentices"][:2] == ["6", "5"]
    s = play(game, s, go("8"))
    assert s["apprentices"][0] == "8" and s["phase"] == "choose_bowl"


def test_a_place_swap_may_still_be_played_after_the_last_step(game):
    # DEFAULTS.md: a place swap may be played until the player's movement ends, including
    # after the last step (issue 17: it was refused, "nobody is moving an apprentice now").
    s = moving(game, ["6", "8", "S2"], [(0, 1), (1, 1)], cards={0: {"place_swap": 1}})
    s = play(game, s, go("7"))                       # the one step: now next to P1 on 8
    assert s["phase"] == "move" and game.mover(s) == 0
    assert game.prompt(s) == "P0: your steps are used up: swap places, or stay to end your move"
    assert game.view(s)["movement"]["steps_left"] == 0 and moves(game, s) == []
    assert {"type": "place_swap", "space": "8", "spend": []} in game.legal_actions(s)
    refused(game, s, go("6"), "your steps are used up: you may still swap places, or stay")
    swapped = play(game, s, {"type": "place_swap", "space": "8"})
    assert swapped["apprentices"][:2] == ["8", "7"]
    assert game.mover(swapped) == 1, "no swap left: P0's movement ended by itself"
    stayed = play(game, s, {"type": "move", "to": None})  # or P0 ends the movement and keeps the card
    assert stayed["apprentices"][:2] == ["7", "8"] and stayed["cards"][0]["place_swap"] == 1
    assert game.mover(stayed) == 1


def test_a_place_swap_may_follow_a_double_speed_move(game):
    # the double-speed move is made without a stop-over; after its last step the movement
    # has not ended yet, so a swap is still allowed (4-player cave: 4-7 is free of obstacles)
    s = moving(game, ["4", "7", "S2", "S3"], [(0, 1)], cards={0: {"place_swap": 1, "double_speed": 1}}, n=4)
    s = play(game, s, go("6", [], True))
    assert s["phase"] == "move" and game.view(s)["movement"]["steps_left"] == 0 and moves(game, s) == []
    s = play(game, s, {"type": "place_swap", "space": "7"})
    assert s["apprentices"][:2] == ["7", "6"] and s["phase"] == "choose_bowl"


def test_the_go_ends_by_itself_when_nothing_is_left_to_do(game):
    s = moving(game, ["4", "S1", "S2"], [(0, 1), (1, 1)])
    s = play(game, s, go("5"))
    assert game.view(s)["movement"]["mover"] == 1


# --- the end ------------------------------------------------------------------------
def test_the_first_apprentice_out_of_the_cave_wins_at_once_even_when_not_active(game):
    s = moving(game, ["3", "14", "13"], [(0, 2), (1, 1), (2, 2)])
    s = play(game, s, go("4"))
    assert game.view(s)["movement"]["mover"] == 1
    assert ("exit", [], False) in moves(game, s)
    s = play(game, s, go("exit"))
    out = game.outcome(s)
    assert out.winners == (1,) and out.reason == "left_the_cave" and "P1" in out.message
    v = game.view(s)
    assert v["phase"] == "finished" and game.prompt(s) == "P1 has left the cave and wins!"
    assert v["movement"] is None and s["apprentices"][2] == "13"  # P2 never moved
    assert game.legal_actions(s) == [{"type": "undo"}], "only the winning move may be taken back"
    refused(game, s, go("12"), "the game is over")


def test_the_movement_queue_is_shown(game):
    s = moving(game, ["3", "10", "13"], [(0, 2), (2, 1)], cards={0: {"flame_wall": 1}})
    mv = game.view(s)["movement"]
    assert mv["text"] == "P0 moves next: 2 steps"
    assert [(q["name"], q["steps"]) for q in mv["queue"]] == [("P0", 2), ("P2", 1)]
    assert {"to": "2", "spend": ["flame_wall"], "double_speed": False, "steps": 1} in mv["reachable"]
    s = play(game, s, go("5"))
    assert game.view(s)["movement"]["text"] == "P2 moves next: 1 step"
