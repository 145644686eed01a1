"""Mirakel Mix: the deadlock (DEFAULTS.md; issue 17, item 2).

The rulebook has no rule for a game in which nobody can get on: every card of the
obstacles in the apprentices' way is held by players who cannot get to those obstacles.
DEFAULTS.md: the game ends and the apprentice nearest the exit (fewest spaces, obstacles
ignored) wins; equal distance shares the win; the tablet says why.

The engine's test (``MirakelMix.deadlocked``) works with the cave's regions; the tests
below check it against a plain search over the cave (``someone_could_cross``), in the
issue's own position (seed 1217, 3 players), in positions one card or one space away
from it, and over random play, where it is reached about once in 100 games.
"""
import tempfile
from pathlib import Path

import pytest

from controller.games.base import IllegalAction, Placing
from controller.games.mirakel_mix import MirakelMix
from controller.store import Store
from mirakel_support import ended_for_good, play, position, random_game, table_game
from tests.sizes import examples

GAME = MirakelMix()
STAY = {"type": "move", "to": None}
NAMES = ["Ann", "Ben", "Cy"]


def someone_could_cross(s, game=GAME):
    """An independent check, by search: could any apprentice, with every card it holds and
    every card on the piles, walk (however far, through apprentices) across an obstacle or
    out of the cave?"""
    cave = game.cave_of(s)
    for seat, space in enumerate(s["apprentices"]):
        cards = {c: s["cards"][seat][c] + s["piles"][c] for c in game.obstacles}
        for dest, spent in cave.walks(space, len(cave.adjacent) + 1, cards):
            if spent or dest == cave.exit:
                return True
    return False


# The issue's position (seed 1217, 3 players): Ann on 11 holding every flame wall card,
# Ben and Cy before the flame wall, Cy holding every monster crypt card; every card held.
SEED_1217 = dict(
    apprentices=["11", "2", "1"],
    cards=[{"flame_wall": 6, "double_speed": 2, "place_swap": 2},
           {"poison_pit": 3, "lightning_grid": 6, "double_speed": 2, "place_swap": 2},
           {"poison_pit": 3, "monster_crypt": 6, "double_speed": 2, "place_swap": 2}],
)


def seed_1217(**changes):
    spec = {k: [dict(c) if isinstance(c, dict) else c for c in v] for k, v in SEED_1217.items()}
    for (seat, card), n in changes.get("cards", {}).items():
        spec["cards"][seat][card] = spec["cards"][seat].get(card, 0) + n
    for seat, space in changes.get("apprentices", {}).items():
        spec["apprentices"][seat] = space
    return position(spec["apprentices"], spec["cards"], [(2, 1)])


def test_the_issue_position_seed_1217_ends_the_game_and_the_apprentice_nearest_the_exit_wins():
    s = seed_1217()
    assert all(n == 0 for n in s["piles"].values()), "every potion card is held"
    assert GAME.outcome(s) is None, "the turn's moves are still played"
    stuck = s
    s = play(GAME, s, STAY)                      # Cy stays: the turn ends, and with it the game
    out = GAME.outcome(s)
    assert out is not None and out.reason == "deadlock"
    assert out.winners == (0,)
    assert out.message == (
        "Nobody can cross another obstacle: every flame wall potion is with Ann, who cannot get "
        "to the flame wall; every lightning grid potion is with Ben, who cannot get to the "
        "lightning grid; every monster crypt potion is with Cy, who cannot get to the monster "
        "crypt. Ann's apprentice is nearest the exit (4 spaces) and wins")
    assert out.ranking == (Placing(0, 1, 4), Placing(1, 2, 13), Placing(2, 3, 14))
    v = GAME.view(s)
    assert v["phase"] == "finished" and GAME.prompt(s) == out.message      # what the tablet shows
    assert v["outcome"]["reason"] == "deadlock" and v["outcome"]["winner_names"] == ["Ann"]
    assert GAME.legal_actions(s) == [{"type": "undo"}]   # the last move may be taken back
    with pytest.raises(IllegalAction, match="the game is over"):
        GAME.apply(s, {"type": "empty_bowl", "bowl": 0})
    assert GAME.deadlocked(stuck) and not someone_could_cross(stuck)


def test_four_players_in_the_large_cave():
    four = ["Ann", "Ben", "Cy", "Dee"]
    cards = [{"lightning_grid": 6, "monster_crypt": 6}, {"poison_pit": 6}, {"flame_wall": 6}, {}]
    # Cy on 5, between the flame wall and the poison pit, holds the flame wall cards: she can
    # go back across it, and the card goes back onto its pile
    s = position(["S1", "S2", "5", "S4"], cards, [(3, 1)], players=four)
    assert not GAME.deadlocked(s) and someone_could_cross(s)
    # Cy on 9, between the poison pit and the lightning grid, can use none of her cards
    s = position(["S1", "S2", "9", "S4"], cards, [(3, 1)], players=four)
    assert GAME.deadlocked(s) and not someone_could_cross(s)
    out = GAME.outcome(play(GAME, s, STAY))
    assert out.reason == "deadlock" and out.winners == (2,)
    assert out.message.endswith("Cy's apprentice is nearest the exit (10 spaces) and wins")
    assert out.ranking == (Placing(2, 1, 10), Placing(0, 2, 19), Placing(1, 2, 19), Placing(3, 2, 19))


def forked_game():
    """A cave from the data file with two ways to the exit: from space 1 either across the
    flame wall to a, then the lightning grid; or across the poison pit to b, then the
    monster crypt. a and b are both 2 spaces from the exit."""
    data = dict(GAME.data)
    data["caves"] = [{
        "id": "fork", "players": [2, 3], "start": ["S1", "S2", "S3"], "exit": "exit",
        "spaces": ["S1", "S2", "S3", "1", "a", "b", "2"],
        "edges": [["S1", "1"], ["S2", "1"], ["S3", "1"], ["1", "a"], ["1", "b"], ["a", "2"], ["b", "2"],
                  ["2", "exit"]],
        "obstacles": [{"between": ["1", "a"], "card": "flame_wall"}, {"between": ["1", "b"], "card": "poison_pit"},
                      {"between": ["a", "2"], "card": "lightning_grid"},
                      {"between": ["b", "2"], "card": "monster_crypt"}],
    }]
    return MirakelMix(data)


def test_apprentices_as_near_the_exit_share_the_win():
    # (In the default caves only start spaces are as far from the exit as each other, and
    # the flame wall cards are always with somebody who can use them there: a cave from the
    # data file with two equal ways out shows the sharing.)
    game = forked_game()
    s = position(["a", "b", "S1"],
                 [{"poison_pit": 6, "monster_crypt": 6}, {"flame_wall": 6, "lightning_grid": 6}, {}],
                 [(2, 1)], game=game)
    assert game.deadlocked(s) and not someone_could_cross(s, game)
    over = play(game, s, STAY)
    out = game.outcome(over)
    assert out.reason == "deadlock" and out.winners == (0, 1)
    assert out.message.endswith("Ann and Ben are nearest the exit (2 spaces each) and share the win")
    assert out.ranking == (Placing(0, 1, 2), Placing(1, 1, 2), Placing(2, 3, 4))
    assert game.view(over)["outcome"]["winner_names"] == ["Ann", "Ben"]
    # Ben holding one poison pit card could go back to 1 and on: not stuck
    s["cards"][0]["poison_pit"] -= 1
    s["cards"][1]["poison_pit"] += 1
    assert not game.deadlocked(s) and someone_could_cross(s, game)


@pytest.mark.parametrize("change, why", [
    # (Ann holding one lightning grid card could go back across it, and nobody could get
    # out: test_mirakel_no_way_out.py)
    ({"cards": {(0, "monster_crypt"): 1, (2, "monster_crypt"): -1}},
     "Ann on 11 could cross the monster crypt and leave"),
    ({"cards": {(1, "flame_wall"): 1, (0, "flame_wall"): -1}},
     "Ben before the flame wall holds one of its cards"),
    ({"cards": {(0, "flame_wall"): -1}},
     "a flame wall card is back on its pile: Ben or Cy can win it"),
    ({"apprentices": {0: "12"}},
     "Ann past the monster crypt can walk out of the cave"),
])
def test_one_card_or_one_space_away_from_it_the_game_goes_on(change, why):
    s = seed_1217(**change)
    assert not GAME.deadlocked(s), why
    assert someone_could_cross(s), why
    s = play(GAME, s, STAY)
    assert GAME.outcome(s) is None and s["phase"] == "choose_bowl", why


@pytest.mark.parametrize("change, why", [
    ({"cards": {(0, "double_speed"): -2, (1, "place_swap"): -1}},
     "double speed and place swap cards on their piles open no obstacle"),
    ({"cards": {(1, "poison_pit"): -3}},
     "poison pit cards on their pile: nobody stands next to the poison pit"),
])
def test_cards_that_open_nobodys_way_do_not_keep_the_game_going(change, why):
    s = seed_1217(**change)
    assert GAME.deadlocked(s) and not someone_could_cross(s), why
    s = play(GAME, s, STAY)
    assert GAME.outcome(s).reason == "deadlock", why


def test_the_moves_of_the_turn_in_which_it_happens_still_count():
    # Ben, before the flame wall, is still to move: the game ends when the turn's movement does.
    s = position(["11", "S1", "2"], SEED_1217["cards"], [(1, 1)])
    assert GAME.deadlocked(s) and GAME.outcome(s) is None
    s = play(GAME, s, {"type": "move", "to": "1", "spend": [], "double_speed": False})
    # Ben could still swap places with Cy on 2 (he holds place swap cards): his move is not over
    assert s["phase"] == "move" and GAME.outcome(s) is None
    s = play(GAME, s, {"type": "place_swap", "space": "2"})
    s = play(GAME, s, STAY)
    out = GAME.outcome(s)
    assert out.reason == "deadlock" and s["apprentices"] == ["11", "2", "1"]
    assert out.ranking == (Placing(0, 1, 4), Placing(1, 2, 13), Placing(2, 3, 14))


def test_the_action_that_ended_it_can_be_undone():
    s = seed_1217()
    over = play(GAME, s, STAY)
    back = play(GAME, over, {"type": "undo"})
    assert GAME.outcome(back) is None and back["phase"] == "move"


def test_every_default_cave_has_room_to_cross_into_each_region():
    # what makes the test exact: a holder of an obstacle's card can always get across
    for cave in GAME.caves.values():
        assert cave.roomy(max(cave.players)), cave.id


STUCK = (56, 67, 78)          # 3-player seeds that end by deadlock: always played


@pytest.mark.parametrize("n_players, seeds", [(2, range(0, 40)), (3, range(50, 100)), (4, range(0, 30))])
def test_random_games_end_by_deadlock_exactly_when_nobody_could_ever_cross(n_players, seeds):
    """At the start of every turn somebody could still cross an obstacle (else the game
    would have ended); a game that ends by deadlock ends where nobody could."""
    # the quick lane plays every tenth seed (tests/sizes.py), and the stuck ones
    step = max(1, round(len(seeds) / examples(len(seeds))))
    seeds = sorted(set(seeds[::step]) | ({*STUCK} if n_players == 3 else set()))
    ended = {"left_the_cave": 0, "deadlock": 0, "no_way_out": 0}
    for seed in seeds:
        for s in random_game(n_players, seed):
            out = GAME.outcome(s)
            if out is not None:
                ended[out.reason] += 1
                if out.reason == "deadlock":
                    assert not someone_could_cross(s), seed
                    nearest = min(GAME.steps_to_exit(s, p) for p in range(n_players))
                    assert all(GAME.steps_to_exit(s, w) == nearest for w in out.winners)
                elif out.reason == "no_way_out":
                    assert GAME.no_way_out(s) and someone_could_cross(s), seed
            elif s["phase"] == "choose_bowl":
                assert someone_could_cross(s), (seed, s["apprentices"], s["cards"], s["piles"])
    assert sum(ended.values()) == len(seeds), "every game ends"
    if n_players == 3:
        assert ended["deadlock"] >= 3           # seeds 56, 67, 78 and 93


def test_through_the_table_a_random_game_that_gets_stuck_ends_and_is_recorded():
    """Seed 56 (3 players, random taps) gets stuck after 106 turns; before the ruling the
    table went on asking for turns."""
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "db.sqlite3")
        try:
            table, session = table_game(store, ["P0", "P1", "P2"], 56)
            out = session["outcome"]
            assert out["reason"] == "deadlock"
            assert out["winner_names"] == ["P1"] and out["turns"] == 106
            assert out["message"].startswith("Nobody can cross another obstacle: every flame wall potion is with P1")
            ended_for_good(table, store, session, 56)
        finally:
            store.close()
