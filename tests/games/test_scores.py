"""The running score (``Game.scores``): what the tablet's score panel and the end screen show.

Every game's score lines hold one value per seat at every step of whole random games, agree
with how the game ends (the outcome's own numbers), and carry nothing the table cannot see;
Zaubercocktail's sheet keeps every round scored, and an undo takes a round's line back with it.
"""
from __future__ import annotations

import json
import random
from typing import Any, Iterator

import pytest

from controller.games import Game, Score, Scores, load
from tests.players import OPTIONS, PLAYERS, choose
from tests.games import elixir_support
from tests.games.mirakel_support import position
from tests.games.test_zauberwald_support import arrange as wald_arrange
from tests.games.test_zauberwald_support import table as wald_table

State = dict[str, Any]


def whole_game(game_id: str, seed: int, players: list[str] | None = None) -> Iterator[State]:
    """Every state of a game played to its end by the quick players (tests/players.py)."""
    game, rng = load(game_id), random.Random(seed)
    state = game.setup(players or PLAYERS[game_id], seed, OPTIONS.get(game_id, {}))
    for _ in range(8000):
        yield state
        if game.outcome(state) is not None:
            return
        state, _ = game.apply(state, choose(game_id, game, state, rng))
    raise AssertionError(f"{game.name}: no end after 8000 actions")


GAMES = list(PLAYERS)


def sheet(game: Game, state: State) -> Scores:
    scores = game.scores(state)
    assert scores is not None, f"{game.name} keeps no running score"
    return scores


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_line_has_a_value_per_seat_at_every_step_and_ends_as_the_outcome_counts(game_id, seed):
    game = load(game_id)
    last = None
    steps = 0
    for state in whole_game(game_id, seed):
        scores = sheet(game, state)
        seats = len(state["players"])
        assert scores.lines, "a score has at least its main line"
        for line in scores.lines:
            assert len(line.values) == seats, line
            assert line.better in ("higher", "lower", "neither") and line.label and line.key
            assert all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in line.values)
            known = [v for v in line.values if v is not None]
            ahead = max(known, default=None) if line.better == "higher" else min(known, default=None)
            assert line.leaders() == ([s for s, v in enumerate(line.values) if v == ahead]
                                      if len(set(known)) > 1 and line.better != "neither" else [])
        json.dumps(scores.to_json())                  # plain JSON, as the session carries it
        last, steps = state, steps + 1
    assert last is not None and steps > 10
    outcome = game.outcome(last)
    assert outcome is not None
    final = {line.key: list(line.values) for line in sheet(game, last).lines}
    # the end screen shows the numbers the game was decided by
    if game_id == "zaubercocktail":
        assert final["field"] == outcome.details["scores"]
        assert len(sheet(game, last).rounds) == outcome.details["rounds_scored"]
    elif game_id == "zauberwald":
        assert final["potions"] == outcome.details["scores"]["potions"]
        assert final["on_card"] == outcome.details["scores"]["ingredients_on_card"]
    elif game_id == "mix-it":
        assert final["cookies"] == outcome.details["cookies"]
    elif game_id == "mirakel-mix":
        # the ranking's score is the steps to go, however the game ended
        assert final["steps"] == [p.score for p in sorted(outcome.ranking, key=lambda p: p.seat)]
    elif game_id == "elixir":
        (winner,) = outcome.winners
        assert final["elixir_parts"] == [3 if s == winner else None for s in range(len(last["players"]))]
        assert final["gold"] == last["gold"]


def test_zaubercocktail_keeps_every_round_on_its_sheet_with_the_fields_the_stones_reached():
    game = load("zaubercocktail")
    states = list(whole_game("zaubercocktail", 7, ["Ann", "Ben", "Cem", "Dan"]))
    end = states[-1]
    rounds = sheet(game, end).rounds
    played = [r for r in [*end["history"], end["round"]] if r["results"]]
    assert len(rounds) == len(played) >= 3
    for row, rnd in zip(rounds, played):
        assert row.label.startswith(f"Round {rnd['number']} · ")
        assert list(row.values) == [res["to"] for res in rnd["results"]]
    assert list(rounds[-1].values) == end["stones"] or end["end"]["reason"] == "magic_bolt"
    # while a round is played its line is not there yet; once scored, it is
    for before, after in zip(states, states[1:]):
        if before["phase"] != "scored" and after["phase"] in ("scored", "over") and after["round"]["results"]:
            assert len(sheet(game, after).rounds) == len(sheet(game, before).rounds) + 1
            break
    else:
        raise AssertionError("no round was scored")


def test_zaubercocktail_an_undone_round_leaves_the_sheet():
    game = load("zaubercocktail")
    for before, after in zip(zc := list(whole_game("zaubercocktail", 3, ["Ann", "Ben", "Cem", "Dan"])), zc[1:]):
        if before["phase"] == "laying" and after["phase"] == "scored":
            break
    else:
        raise AssertionError("no round was scored by revealing the lay-downs")
    assert len(sheet(game, after).rounds) == len(sheet(game, before).rounds) + 1
    undone, _ = game.apply(after, {"type": "undo"})
    assert sheet(game, undone).to_json() == sheet(game, before).to_json()


def test_zauberwald_counts_potions_and_the_card_being_collected():
    game = load("zauberwald")
    state = wald_table([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    state = wald_arrange(state, 0, potions=2, on_card={"red": 2, "blue": 1})
    state = wald_arrange(state, 1, potions=1)
    lines = {line.key: line for line in sheet(game, state).lines}
    assert lines["potions"].values == (2, 1, 0) and lines["potions"].leaders() == [0]
    assert lines["on_card"].values == (3, 0, 0)


def test_mirakel_mix_counts_steps_to_the_exit_and_the_nearer_apprentice_leads():
    game = load("mirakel-mix")
    state = position(["S1", "S2", "S3"], [{}, {}, {}], [(0, 3)])
    steps = sheet(game, state).lines[0]
    assert steps.key == "steps" and steps.better == "lower"
    assert list(steps.values) == [game.steps_to_exit(state, s) for s in range(3)]
    moved = next(a for a in game.legal_actions(state) if a["type"] == "move" and a.get("to")
                 and game.cave_of(state).distance(a["to"], game.cave_of(state).exit) < steps.values[0])
    after, _ = game.apply(state, moved)
    assert sheet(game, after).lines[0].values[0] < steps.values[0]
    # before an apprentice is in the cave the table cannot count its steps
    fresh = game.setup(["Ann", "Ben"], 1, {})
    assert sheet(game, fresh).lines[0].values == (None, None)


def test_elixir_never_shows_the_parts_a_wizard_holds_face_down():
    game = elixir_support.GAME
    state = elixir_support.give_brews(elixir_support.start(3), 0, "elixir_1", "elixir_2")
    parts = {line.key: line for line in sheet(game, state).lines}["elixir_parts"]
    assert parts.values == (None, None, None) and parts.leaders() == []
    other = elixir_support.give_brews(elixir_support.start(3), 0, "fatal_brew", "lucky_liqueur")
    # two wizards holding different cards face down: the same score on the table
    assert sheet(game, other).to_json() == sheet(game, state).to_json()
    brews = {line.key: line for line in sheet(game, state).lines}["brew_cards"]
    assert brews.values[0] == len(state["wizards"][0]["brews"])


def test_a_score_line_names_nobody_ahead_while_all_are_level():
    assert Score("x", "X", (0, 0, 0)).leaders() == []
    assert Score("x", "X", (None, 2, 2)).leaders() == []
    assert Score("x", "X", (3, None, 1), better="lower").leaders() == [2]
    assert Score("x", "X", (3, 3, 1)).leaders() == [0, 1]
    assert Score("x", "X", (3, 5, 1), better="neither").leaders() == []      # a count: nobody ahead on it
