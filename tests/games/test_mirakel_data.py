"""Mirakel Mix: the data file holds the defaults from DEFAULTS.md, and the cave graph works."""
from collections import Counter

import pytest

from controller.games import plugin
from controller.games.base import load_data
from controller.games.mirakel_mix.cave import Cave
from controller.games.mirakel_mix import MirakelMix

DATA = load_data("controller.games.mirakel_mix")


def test_drops_disks_and_cards():
    assert {c["id"]: c["drops"] for c in DATA["colours"]} == {
        "red": 3, "yellow": 3, "green": 3, "blue": 3, "purple": 3, "orange": 3}
    assert [c["letter"] for c in DATA["colours"]] == ["R", "Y", "G", "B", "P", "O"]
    assert DATA["game"]["disks_per_player"] == 10
    assert DATA["game"]["bowls"] * DATA["game"]["drops_per_bowl"] == 12
    assert DATA["game"]["cards_per_pile"] * len(DATA["flasks"]) == 36


def test_the_box_contents():
    # "36 magic potions (cards)", "18 drops (balls)", "40 miracle-mix disks",
    # "3 magic bowls", "4 apprentices (game figures)"
    game = MirakelMix()
    assert game.cards_per_pile * len(game.flasks) == 36
    assert game.total_drops == 18
    assert game.disks_per_player * game.max_players == 40        # 4 colours of 10
    assert game.n_bowls == 3
    assert game.max_players == 4 and len(game.cave_for(4).start) == 4  # one apprentice each


def test_the_lab_is_the_defaults_table():
    assert {f["id"]: f["spaces"] for f in DATA["flasks"]} == {
        "flame_wall": ["red", "yellow", "green", "blue"],
        "poison_pit": ["yellow", "green", "blue", "purple"],
        "lightning_grid": ["green", "blue", "purple", "orange"],
        "monster_crypt": ["blue", "purple", "orange", "red"],
        "double_speed": ["purple", "orange", "red", "yellow"],
        "place_swap": ["orange", "red", "yellow", "green"],
    }


def test_every_colour_is_four_times_in_the_lab_and_never_twice_in_a_flask():
    spaces = [c for f in DATA["flasks"] for c in f["spaces"]]
    assert Counter(spaces) == {c: 4 for c in ["red", "yellow", "green", "blue", "purple", "orange"]}
    assert all(len(set(f["spaces"])) == 4 for f in DATA["flasks"])
    assert [f["id"] for f in DATA["flasks"] if f["obstacle"]] == [
        "flame_wall", "poison_pit", "lightning_grid", "monster_crypt"]


@pytest.mark.parametrize("cid, last, starts, obstacles", [
    ("small", 14, 3, {("2", "3"): "flame_wall", ("5", "6"): "poison_pit",
                      ("8", "9"): "lightning_grid", ("11", "12"): "monster_crypt"}),
    ("large", 18, 4, {("3", "4"): "flame_wall", ("7", "8"): "poison_pit",
                      ("11", "12"): "lightning_grid", ("15", "16"): "monster_crypt"}),
])
def test_default_caves(cid, last, starts, obstacles):
    cave = MirakelMix().caves[cid]
    assert len(cave.start) == starts and all(cave.adjacent[s] == ["1"] for s in cave.start)
    assert cave.adjacent[cave.exit] == [str(last)]
    assert cave.distance("S1", cave.exit) == last + 1
    for (a, b), card in obstacles.items():
        assert cave.barrier(a, b) == card and cave.barrier(b, a) == card
    assert len(cave.barriers) == 4
    assert set(cave.positions) == set(cave.spaces) | {cave.exit}


def test_walks_count_steps_and_cards():
    cave = MirakelMix().caves["small"]
    w = cave.walks("1", 3, {})
    assert w == {("S1", ()): 1, ("S2", ()): 1, ("S3", ()): 1, ("2", ()): 1}
    w = cave.walks("1", 3, {"flame_wall": 1})
    assert w[("3", ("flame_wall",))] == 2 and w[("4", ("flame_wall",))] == 3
    assert cave.walks("14", 3, {})[("exit", ())] == 1
    # From 13 without cards: back to 12 (the monster crypt 11-12 stops you), on to 14 and out.
    assert cave.walks("13", 3, {}) == {("12", ()): 1, ("14", ()): 1, ("exit", ()): 2}


def test_a_cave_with_a_bad_edge_is_refused():
    with pytest.raises(ValueError, match="unknown space"):
        Cave({"id": "x", "players": [2], "start": ["S1"], "exit": "exit", "spaces": ["S1", "1"],
              "edges": [["S1", "1"], ["1", "2"]]})
    with pytest.raises(ValueError, match="not on an edge"):
        Cave({"id": "x", "players": [2], "start": ["S1"], "exit": "exit", "spaces": ["S1", "1"],
              "edges": [["S1", "1"], ["1", "exit"]],
              "obstacles": [{"between": ["S1", "exit"], "card": "flame_wall"}]})


def test_a_branching_cave_from_the_data_file_is_walked_in_every_direction():
    cave = Cave({"id": "fork", "players": [2], "start": ["S1"], "exit": "exit",
                 "spaces": ["S1", "1", "2a", "2b", "3"],
                 "edges": [["S1", "1"], ["1", "2a"], ["1", "2b"], ["2a", "3"], ["2b", "3"], ["3", "exit"]],
                 "obstacles": [{"between": ["1", "2a"], "card": "monster_crypt"}]})
    w = cave.walks("1", 2, {"monster_crypt": 1})
    # Two ways to 3: the open one and the one through the crypt; both are two steps.
    assert w[("3", ())] == 2 and w[("3", ("monster_crypt",))] == 2


def test_player_counts_come_from_the_players_table():
    assert DATA["players"] == {"min": 2, "max": 4}
    assert "min_players" not in DATA["game"] and "colors" not in DATA
    game = MirakelMix()
    assert (game.min_players, game.max_players) == (2, 4)
    assert plugin("mirakel-mix").players == (2, 4) and plugin("mirakel-mix").engine_class() is MirakelMix
