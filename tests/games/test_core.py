"""The engine core every game runs on: dispatch, copying, undo, refusals, outcome,
plug-in discovery. A tiny counting game stands in for a real one so each rule of the
core is seen on its own."""
from __future__ import annotations

import pytest

from controller import games
from controller.games.base import (BadSetup, Game, IllegalAction, InvalidAction, Outcome,
                                   Placing, new_rng_state)


class Tally(Game):
    """Two players add beans to a shared pot; the first to reach 5 wins."""

    id = "tally"
    name = "Tally"
    undoable = frozenset({"add"})
    undo_barrier = frozenset({"bell"})
    undo_keeps = ("bells",)
    nothing_to_undo = "nothing to take back since the bell"

    def __init__(self) -> None:
        super().__init__(data={})

    def setup(self, players, seed, options=None):
        self.check_players(players)
        return {"players": players, "rng": new_rng_state(seed), "pot": {"beans": [0, 0]},
                "bells": 0, "active": 0, "undo": []}

    def actions(self, state):
        return [{"type": "add", "seat": state["active"], "beans": n} for n in (1, 2)]

    def view(self, state, seat=None):
        return {"pot": state["pot"]}

    def outcome(self, state):
        beans = state["pot"]["beans"]
        if max(beans) < 5:
            return None
        best = max(beans)
        return Outcome(winners=tuple(s for s, b in enumerate(beans) if b == best),
                       reason="five_beans", message="a pot reached five beans",
                       ranking=Outcome.rank(beans))

    def settle(self, state, kind):
        if kind == "add":
            state["active"] = 1 - state["active"]
        return None

    def _do_add(self, state, action):
        seat = self.seat_of(state, action)
        beans = action.get("beans")
        if not isinstance(beans, int) or isinstance(beans, bool):
            raise InvalidAction('"beans" must be a whole number')
        if seat != state["active"]:
            raise IllegalAction("it is not your turn")
        if beans not in (1, 2):
            raise IllegalAction("a player adds one or two beans")
        state["pot"]["beans"][seat] += beans
        return [{"device": "pot", "op": "clink"}]

    def _do_bell(self, state, action):
        state["bells"] += 1


@pytest.fixture
def game():
    return Tally()


@pytest.fixture
def start(game):
    return game.setup(["Ann", "Ben"], seed=1)


def test_apply_never_changes_the_state_it_was_given(game, start):
    before = repr(start)
    after, effects = game.apply(start, {"type": "add", "seat": 0, "beans": 2})
    assert repr(start) == before
    assert after["pot"]["beans"] == [2, 0] and effects == [{"device": "pot", "op": "clink"}]
    assert after["active"] == 1, "settle runs after every handler"
    assert after["rng"] is start["rng"], "the RNG is shared, not copied"


@pytest.mark.parametrize("action, words", [
    ("add", "JSON object"), ({}, "type"), ({"type": 7}, "type"),
    ({"type": "jump"}, "no action called 'jump'"),
    ({"type": "add", "seat": 5, "beans": 1}, "seat"),
    ({"type": "add", "seat": 0, "beans": "two"}, "whole number"),
])
def test_a_malformed_action_is_invalid_not_illegal(game, start, action, words):
    with pytest.raises(InvalidAction, match=words) as err:
        game.apply(start, action)
    assert not isinstance(err.value, IllegalAction)


def test_a_rule_refusal_is_illegal_and_names_the_rule(game, start):
    with pytest.raises(IllegalAction, match="not your turn") as err:
        game.apply(start, {"type": "add", "seat": 1, "beans": 1})
    assert not isinstance(err.value, InvalidAction)


def test_is_legal_agrees_with_apply(game, start):
    assert all(game.is_legal(start, a) for a in game.legal_actions(start))
    assert not game.is_legal(start, {"type": "add", "seat": 1, "beans": 1})
    assert not game.is_legal(start, {"type": "add", "seat": 0, "beans": 3})
    assert not game.is_legal(start, {"nonsense": True})


def test_undo_steps_back_one_action_at_a_time(game, start):
    s1, _ = game.apply(start, {"type": "add", "seat": 0, "beans": 2})
    s2, _ = game.apply(s1, {"type": "add", "seat": 1, "beans": 1})
    assert game.undo_kind(s2) == "add"
    back, _ = game.apply(s2, {"type": "undo"})
    assert back["pot"]["beans"] == [2, 0] and back["active"] == 1
    back, _ = game.apply(back, {"type": "undo"})
    assert back["pot"] == start["pot"] and back["active"] == 0
    with pytest.raises(IllegalAction, match="nothing to take back since the bell"):
        game.apply(back, {"type": "undo"})


def test_a_barrier_action_ends_what_can_be_undone_and_kept_keys_survive(game, start):
    s1, _ = game.apply(start, {"type": "add", "seat": 0, "beans": 2})
    rung, _ = game.apply(s1, {"type": "bell"})
    assert not game.can_undo(rung)
    s3, _ = game.apply(rung, {"type": "add", "seat": 1, "beans": 1})
    s4, _ = game.apply(s3, {"type": "bell"})
    # a bell is a barrier: nothing before it can be undone
    assert not game.can_undo(s4)


def test_undo_depth_is_bounded(game, start):
    state = start
    for i in range(game.undo_depth + 10):
        state, _ = game.apply(state, {"type": "add", "seat": state["active"], "beans": 1}) \
            if max(state["pot"]["beans"]) < 4 else game.apply(state, {"type": "bell"})
    assert len(state["undo"]) <= game.undo_depth


def test_undo_keeps_what_the_game_says_survives(game, start):
    s1, _ = game.apply(start, {"type": "add", "seat": 0, "beans": 1})
    # a non-undoable, non-barrier action between: kept keys survive the undo
    class Keeper(Tally):
        undo_barrier = frozenset()
    keeper = Keeper()
    k1, _ = keeper.apply(start, {"type": "add", "seat": 0, "beans": 1})
    k2, _ = keeper.apply(k1, {"type": "bell"})
    back, _ = keeper.apply(k2, {"type": "undo"})
    assert back["pot"]["beans"] == [0, 0] and back["bells"] == 1
    assert s1["bells"] == 0


def test_the_game_over_refusal_names_how_it_ended(game, start):
    state = start
    for _ in range(5):
        state, _ = game.apply(state, {"type": "add", "seat": state["active"], "beans": 2})
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winners == (0,)
    with pytest.raises(IllegalAction, match="game is over .a pot reached five beans"):
        game.apply(state, {"type": "add", "seat": state["active"], "beans": 1})


def test_outcome_ranks_ties_as_shared_places():
    assert Outcome.rank([3, 7, 7, 1]) == (Placing(1, 1, 7), Placing(2, 1, 7),
                                          Placing(0, 3, 3), Placing(3, 4, 1))
    assert Outcome.rank([3, 1], higher_is_better=False)[0] == Placing(1, 1, 1)
    out = Outcome(winners=(1,), reason="r", message="m", ranking=Outcome.rank([1, 2]),
                  details={"turns": 9})
    assert out.to_json(["Ann", "Ben"]) == {
        "turns": 9, "winners": [1], "reason": "r", "message": "m",
        "ranking": [{"seat": 1, "place": 1, "score": 2}, {"seat": 0, "place": 2, "score": 1}],
        "winner_names": ["Ben"]}


def test_set_up_refuses_bad_player_lists(game):
    for players in (["Ann"], ["Ann", "ann"], ["Ann", ""], "Ann,Ben"):
        with pytest.raises(BadSetup):
            game.setup(players, seed=1)


def test_every_installed_game_is_a_plug_in_found_by_looking():
    found = games.plugins()
    assert {"mirakel-mix", "zaubercocktail", "zauberwald"} <= set(found)
    for gid, plugin in found.items():
        engine = games.load(gid)
        assert engine.id == gid and engine.name == plugin.name
        assert (engine.min_players, engine.max_players) == plugin.players
        assert plugin.static_dir().joinpath("tablet.js").is_file(), f"{gid} has no tablet"
        assert "undo" not in engine.action_types() or engine.undoable


def test_an_unknown_game_is_a_key_error():
    with pytest.raises(KeyError):
        games.load("chess")
