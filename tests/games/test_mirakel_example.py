"""The rulebook's worked example, replayed action by action.

Merlina Pinkana turns yellow, red, red (placed on green) and blue, completing two
potions. She moves 2 and gives up the poison pit card she has just won; Houdini
Orangebeard stops after 1 because Magianca Lilacanca blocks; Balduin Brown has no disk
in either potion and does not move; Magianca gives up double speed for 4 steps through
the poison pit and wastes the last one because Balduin stands there.

The rulebook shows no board, so the test builds the cave and lab the example needs:
a path 1-12 with poison pits on the edges 2-3 and 8-9.
"""
import copy

import pytest

from controller.games.base import IllegalAction, load_data
from controller.games.mirakel_mix import MirakelMix
from mirakel_support import play_effects

PLAYERS = ["Merlina Pinkana", "Houdini Orangebeard", "Balduin Brown", "Magianca Lilacanca"]
MERLINA, HOUDINI, BALDUIN, MAGIANCA = range(4)


def example_game():
    data = copy.deepcopy(load_data("controller.games.mirakel_mix"))
    spaces = [str(i) for i in range(1, 13)]
    data["caves"] = [{
        "id": "example", "players": [2, 3, 4], "start": ["S1", "S2", "S3", "S4"], "exit": "exit",
        "spaces": ["S1", "S2", "S3", "S4"] + spaces,
        "edges": [[f"S{i}", "1"] for i in range(1, 5)]
                 + [[spaces[i], spaces[i + 1]] for i in range(11)] + [["12", "exit"]],
        "obstacles": [{"between": ["2", "3"], "card": "poison_pit"},
                      {"between": ["8", "9"], "card": "poison_pit"}],
    }]
    return MirakelMix(data=data)


def legal(game, s, kind):
    return [{k: v for k, v in a.items() if k != "type"} for a in game.legal_actions(s) if a["type"] == kind]


def put(s, flask, index, seat):
    s["lab"][flask][index] = seat
    s["disks"][seat] -= 1


def give(s, seat, card):
    s["piles"][card] -= 1
    s["cards"][seat][card] += 1


@pytest.fixture
def before_merlinas_turn():
    game = example_game()
    s = game.setup(PLAYERS, seed=2024, options={})
    bowls = ["yellow", "red", "red", "blue",
             "green", "green", "green", "purple",
             "purple", "purple", "orange", "orange"]
    s, _ = play_effects(game, s, *[{"type": "drop", "colour": c} for c in bowls])
    s, _ = play_effects(game, s, *[{"type": "place_apprentice", "space": f"S{i}"} for i in range(1, 5)])
    # The table as the example finds it.
    s["apprentices"] = ["1", "4", "10", "6"]
    put(s, "poison_pit", 0, HOUDINI)      # yellow
    put(s, "poison_pit", 2, MAGIANCA)     # blue
    put(s, "poison_pit", 3, HOUDINI)      # purple  -> only green is free
    put(s, "flame_wall", 1, MAGIANCA)     # yellow
    put(s, "flame_wall", 2, HOUDINI)      # green   -> red and blue are free
    put(s, "monster_crypt", 3, BALDUIN)   # red
    put(s, "double_speed", 2, BALDUIN)    # red
    put(s, "place_swap", 1, BALDUIN)      # red     -> flame wall has the last free red space
    give(s, MAGIANCA, "poison_pit")
    give(s, MAGIANCA, "double_speed")
    return game, s


def test_the_rulebook_example_turn(before_merlinas_turn):
    game, s = before_merlinas_turn
    assert s["phase"] == "choose_bowl" and s["active"] == MERLINA
    s, effects = play_effects(game, s, {"type": "empty_bowl", "bowl": 0})
    assert effects == [{"device": "cauldron", "op": "fill", "drops": ["yellow", "red", "red", "blue"]}]

    # A yellow drop: a disk on a yellow space of her choice.
    s, _ = play_effects(game, s, {"type": "drop", "colour": "yellow"})
    assert sorted((a["flask"], a["space"]) for a in legal(game, s, "place_disk")) == \
        [("double_speed", 3), ("place_swap", 2)]
    s, _ = play_effects(game, s, {"type": "place_disk", "flask": "place_swap", "space": 2})

    # A red drop: only one red space is left, so that is where the disk goes.
    s, _ = play_effects(game, s, {"type": "drop", "colour": "red"})
    assert legal(game, s, "place_disk") == [{"flask": "flame_wall", "space": 0}]
    s, _ = play_effects(game, s, {"type": "place_disk", "flask": "flame_wall", "space": 0})

    # Another red: no red space left, so any free space; she picks green and completes a potion.
    s, _ = play_effects(game, s, {"type": "drop", "colour": "red"})
    assert game.prompt(s) == "Merlina Pinkana: no red space is free, put a disk on any free space"
    assert {"flask": "poison_pit", "space": 1} in legal(game, s, "place_disk")
    s, _ = play_effects(game, s, {"type": "place_disk", "flask": "poison_pit", "space": 1})
    assert game.view(s)["lab"][1]["complete"] is True

    # The last drop is blue and completes another potion.
    s, _ = play_effects(game, s, {"type": "drop", "colour": "blue"})
    s, _ = play_effects(game, s, {"type": "place_disk", "flask": "flame_wall", "space": 3})

    # Two completed potions: one card from each pile for Merlina.
    v = game.view(s)
    assert v["turn"]["completed"] == ["flame_wall", "poison_pit"]
    assert v["players"][MERLINA]["cards"]["poison_pit"] == 1
    assert v["players"][MERLINA]["cards"]["flame_wall"] == 1
    assert [(q["name"], q["steps"]) for q in v["movement"]["queue"]] == [
        ("Merlina Pinkana", 2), ("Houdini Orangebeard", 2), ("Magianca Lilacanca", 2)]
    assert game.prompt(s) == "Merlina Pinkana moves next: 2 steps"

    # Merlina moves 2 and gives up the poison pit card she has just won.
    moves = legal(game, s, "move")
    assert {"to": "3", "spend": ["poison_pit"], "double_speed": False} in moves
    with pytest.raises(IllegalAction, match="costs a poison pit potion"):
        game.apply(s, {"type": "move", "to": "3", "spend": [], "double_speed": False})
    pile_before = s["piles"]["poison_pit"]
    s, _ = play_effects(game, s, {"type": "move", "to": "3", "spend": ["poison_pit"], "double_speed": False})
    assert s["apprentices"][MERLINA] == "3"
    assert s["cards"][MERLINA]["poison_pit"] == 0
    assert s["piles"]["poison_pit"] == pile_before + 1

    # Houdini may go 2, but Magianca stands on the second space: he stops after 1.
    assert game.view(s)["movement"]["text"] == "Houdini Orangebeard moves next: 2 steps"
    destinations = {m["to"] for m in legal(game, s, "move") if m["to"] is not None}
    assert "5" in destinations and "6" not in destinations
    with pytest.raises(IllegalAction, match="only one apprentice per space: Magianca Lilacanca stands on 6"):
        game.apply(s, {"type": "move", "to": "6", "spend": [], "double_speed": False})
    s, _ = play_effects(game, s, {"type": "move", "to": "5", "spend": [], "double_speed": False})

    # Balduin has no disk in either potion: Magianca moves next.
    assert game.view(s)["movement"]["mover"] == MAGIANCA
    assert [q["seat"] for q in game.view(s)["movement"]["queue"]] == [MAGIANCA]

    # Magianca doubles to 4 steps, through the poison pit; Balduin stands on the 4th space.
    moves = legal(game, s, "move")
    assert {"to": "9", "spend": ["poison_pit"], "double_speed": True} in moves
    assert not any(m["to"] == "10" for m in moves)
    with pytest.raises(IllegalAction, match="Balduin Brown stands on 10"):
        game.apply(s, {"type": "move", "to": "10", "spend": ["poison_pit"], "double_speed": True})
    s, _ = play_effects(game, s, {"type": "move", "to": "9", "spend": ["poison_pit"], "double_speed": True})
    assert s["apprentices"] == ["3", "5", "10", "9"]
    assert s["cards"][MAGIANCA] == {f: 0 for f in s["cards"][MAGIANCA]}
    assert s["piles"]["double_speed"] == 6 and s["piles"]["poison_pit"] == 6

    # Disks go back to their owners, cards turn back, Houdini's turn.
    v = game.view(s)
    assert v["phase"] == "choose_bowl" and v["active"] == HOUDINI
    assert s["lab"]["flame_wall"] == [None] * 4 and s["lab"]["poison_pit"] == [None] * 4
    assert s["lab"]["place_swap"][2] == MERLINA  # her first disk was not in a completed potion
    assert [p["disks_left"] for p in v["players"]] == [9, 10, 7, 10]
    assert not any(f["complete"] for f in v["lab"])
    assert v["players"][MERLINA]["cards"]["flame_wall"] == 1
