"""Mirakel Mix coach: odds of the next drop and the placement with the most expected potions.

The coach's look-ahead is checked against a plain expectimax that plays the real engine.
"""
import pytest

from controller.games.mirakel_mix import MirakelMix
from mirakel_support import BOWLS, play

@pytest.fixture(scope="module")
def game():
    return MirakelMix()


def started(game, coach=True):
    s = game.setup(["Ann", "Ben"], seed=1, options={"coach": coach})
    s = play(game, s, *[{"type": "drop", "colour": c} for c in BOWLS])
    return play(game, s, {"type": "place_apprentice", "space": "S1"}, {"type": "place_apprentice", "space": "S2"})


def brute_force(game, s):
    """Expected completed potions this turn by trying every choice and every drop in the engine."""
    if s["phase"] == "place_disk":
        return max(brute_force(game, game.apply(s, a)[0])
                   for a in game.legal_actions(s) if a["type"] == "place_disk")
    if s["phase"] == "dispense":
        total = sum(s["cauldron"].values())
        return sum(n / total * brute_force(game, game.apply(s, {"type": "drop", "colour": c})[0])
                   for c, n in s["cauldron"].items() if n)
    return len(s["turn"]["completed"]) if s["stage"] == "move" else 0


def test_the_coach_is_off_unless_asked_for(game):
    assert "coach" not in game.view(started(game, coach=False))


def test_chances_come_from_the_known_cauldron(game):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0})
    c = game.view(s)["coach"]["chances"]
    assert c == pytest.approx({"red": 0.3, "yellow": 0.1, "green": 0, "blue": 0, "purple": 0.3, "orange": 0.3})


def test_the_coach_suggests_the_disk_that_completes_a_potion(game):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0}, {"type": "drop", "colour": "red"})
    for i in (1, 2, 3):
        s["lab"]["flame_wall"][i] = 1
        s["disks"][1] -= 1
    coach = game.view(s)["coach"]
    assert coach["suggestion"]["flask"] == "flame_wall" and coach["suggestion"]["space"] == 0
    assert coach["expected"] >= 1
    assert len(coach["options"]) == 4  # one per free red space


@pytest.mark.parametrize("drops_before", [1, 2])
def test_the_coach_agrees_with_a_plain_search_over_the_engine(game, drops_before):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0})
    # A lab with a few nearly finished flasks, so choices matter.
    for f, i in [("flame_wall", 1), ("flame_wall", 2), ("poison_pit", 0), ("poison_pit", 1),
                 ("monster_crypt", 0), ("monster_crypt", 1), ("double_speed", 0)]:
        s["lab"][f][i] = 1
        s["disks"][1] -= 1
    for c, (f, i) in list(zip(["red", "purple"], [("monster_crypt", 3), ("poison_pit", 3)]))[:drops_before]:
        s = play(game, s, {"type": "drop", "colour": c}, {"type": "place_disk", "flask": f, "space": i})
    s = play(game, s, {"type": "drop", "colour": "orange"})
    coach = game.view(s)["coach"]
    for option in coach["options"]:
        after = game.apply(s, {"type": "place_disk", "flask": option["flask"], "space": option["space"]})[0]
        assert option["expected"] == pytest.approx(brute_force(game, after), abs=1e-3)
    assert coach["expected"] == pytest.approx(brute_force(game, s), abs=1e-3)


def test_the_coach_compares_the_bowls_at_the_start_of_a_turn(game):
    s = started(game)
    for i in (0, 1, 2):
        s["lab"]["double_speed"][i] = 1    # double speed needs yellow only
        s["disks"][1] -= 1
    coach = game.view(s)["coach"]
    assert [o["bowl"] for o in coach["options"]] == [0, 1, 2]
    # Bowl 1 brings 2 yellow into the cauldron: the best chance to finish double speed.
    assert coach["suggestion"]["bowl"] == 1
    values = {o["bowl"]: o["expected"] for o in coach["options"]}
    assert values[1] > values[0] and values[1] > values[2]


def test_with_no_disk_left_the_coach_expects_nothing_more(game):
    s = play(game, started(game), {"type": "empty_bowl", "bowl": 0})
    s["disks"][0] = 0
    s = play(game, s, {"type": "drop", "colour": "red"})
    coach = game.view(s)["coach"]
    assert coach["suggestion"] is None and coach["expected"] == 0
