"""A game that has ended, replayed step by step from its log (controller/replays.py): every
step is the public session the table saw after that action (nothing on offer, never a
seat's secret) with the log's words for it; the running score over the whole game; and a
game still being played, damaged or unknown is refused with a sentence."""
from __future__ import annotations

import json
import random

import pytest

from controller import games, records, replays
from controller.store import Store
from controller.table import Table, build_session
from tests.players import OPTIONS, PLAYERS, choose


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "table.sqlite3")
    yield s
    s.close()


def play_whole(table: Table, game_id: str, seed: int) -> tuple[int, list[dict]]:
    """A whole game through the table (each action stored as the daemon stores it): its
    number and every state from the set-up to the end."""
    engine, rng = games.load(game_id), random.Random(seed)
    session = table.start(game_id, PLAYERS[game_id], seed=seed, options=OPTIONS.get(game_id, {}))
    states = [table.inspect(lambda _e, s: s)]
    for _ in range(8000):
        if engine.outcome(states[-1]) is not None:
            return session["id"], states
        table.act(choose(game_id, engine, states[-1], rng))
        states.append(table.inspect(lambda _e, s: s))
    raise AssertionError(f"{game_id}: no end")


@pytest.mark.parametrize("game_id", list(PLAYERS))
def test_every_step_is_the_public_session_after_that_action_with_the_logs_words(store, game_id):
    table = Table(store)
    game_no, states = play_whole(table, game_id, seed=3)
    engine = games.load(game_id)
    book = records.LogBook()
    words = {e["version"]: e["text"] for e in book.entries(store.game(game_no), store.actions(game_no))}
    steps, start = [], 0
    while True:
        page = replays.page(store, book, game_no, start, replays.PAGE_MOST)
        steps += page["steps"]
        start += len(page["steps"])
        if start == page["total"]:
            break
    assert page["total"] == len(states) and [s["step"] for s in steps] == list(range(len(states)))
    assert steps[0]["text"].endswith(f"set up for {', '.join(PLAYERS[game_id][:-1])} and {PLAYERS[game_id][-1]}")
    for step, state in zip(steps, states):
        public = build_session(engine, state, game_id=game_no, game=game_id, version=step["version"],
                               players=PLAYERS[game_id], actions=False)
        # the same bytes the public stream would have sent: nothing a seat alone may see
        assert json.dumps(step["session"], sort_keys=True) == json.dumps(public, sort_keys=True)
        assert step["session"]["legal_actions"] == [] and step["session"]["can_undo"] is False
        if step["step"]:
            assert step["text"] == words[step["version"]]
    # the stored outcome, and each seat's score in words for the phones' end screen beside it
    told = dict(steps[-1]["session"]["outcome"])
    assert told.pop("results", None) is not None
    assert told == store.game(game_no)["outcome"]


def test_a_page_is_the_same_steps_however_the_game_is_paged(store):
    table = Table(store)
    game_no, states = play_whole(table, "mix-it", seed=5)
    book = records.LogBook()
    whole = replays.page(store, book, game_no, 0, replays.PAGE_MOST)["steps"]
    middle = replays.page(store, book, game_no, 7, 5)
    assert [s["step"] for s in middle["steps"]] == [7, 8, 9, 10, 11]
    assert middle["steps"] == whole[7:12]
    last = replays.page(store, book, game_no, len(states) - 1, 25)
    assert [s["step"] for s in last["steps"]] == [len(states) - 1]


def lay_down_then_replaced(tmp_path, name: str, cards: dict[str, int]) -> tuple[Store, int]:
    """A Zaubercocktail game in which Ann lays down ``cards`` (hidden until revealed), then a
    new game starts before the reveal: the first is replaced, so it may be replayed."""
    store = Store(tmp_path / f"{name}.sqlite3")
    table = Table(store)
    game_no = table.start("zaubercocktail", ["Ann", "Ben", "Cem", "Dan"], seed=11)["id"]
    table.act({"type": "reveal"})
    table.act({"type": "drop_out", "seat": 0})
    table.act({"type": "lay_down", "seat": 0, "cards": cards, "black": {}})
    table.start("mix-it", ["Ann", "Ben"], seed=1)
    return store, game_no


def test_a_replay_never_shows_a_lay_down_before_it_was_revealed(tmp_path):
    one, game_one = lay_down_then_replaced(tmp_path, "one", {"troll_hair": 3})
    two, game_two = lay_down_then_replaced(tmp_path, "two", {"greenwurz": 2, "gold_rose": 2})
    pages = [replays.page(s, records.LogBook(), n, 0, 25) for s, n in ((one, game_one), (two, game_two))]
    sessions = [[json.dumps(step["session"], sort_keys=True) for step in p["steps"]] for p in pages]
    assert len(sessions[0]) == 4 and sessions[0] == sessions[1]
    assert [step["text"] for step in pages[0]["steps"]] == [step["text"] for step in pages[1]["steps"]]
    assert '"troll_hair": 3' not in json.dumps(pages[0]) and '"greenwurz": 2' not in json.dumps(pages[1])
    assert pages[0]["steps"][-1]["text"] == "Ann entered a lay-down (hidden)"
    scores = [replays.ScoreBook().over_the_game(s, n) for s, n in ((one, game_one), (two, game_two))]
    assert json.dumps(scores[0]["lines"]) == json.dumps(scores[1]["lines"])


def test_a_game_still_played_unknown_or_damaged_is_refused_with_a_sentence(store):
    table = Table(store)
    running = table.start("mix-it", ["Ann", "Ben"], seed=1)["id"]
    with pytest.raises(replays.NotReplayable) as still:
        replays.page(store, records.LogBook(), running, 0, 25)
    assert still.value.status == 409 and "still being played" in str(still.value)
    with pytest.raises(replays.NotReplayable) as unknown:
        replays.ScoreBook().over_the_game(store, 99)
    assert unknown.value.status == 404 and "no game #99" in str(unknown.value)
    store.close_damaged(running, "the log was cut short")
    with pytest.raises(replays.NotReplayable) as damaged:
        replays.page(store, records.LogBook(), running, 0, 25)
    assert damaged.value.status == 409 and "the log was cut short" in str(damaged.value)


def test_a_step_past_the_end_names_the_steps_there_are(store):
    table = Table(store)
    game_no, states = play_whole(table, "mix-it", seed=2)
    with pytest.raises(replays.NotReplayable) as past:
        replays.page(store, records.LogBook(), game_no, len(states), 25)
    assert past.value.status == 400 and f"from 0 to {len(states) - 1}" in str(past.value)


def test_the_score_over_the_game_has_a_point_wherever_a_value_changed(store):
    table = Table(store)
    game_no, states = play_whole(table, "zauberwald", seed=4)
    engine = games.load("zauberwald")
    book = replays.ScoreBook()
    over = book.over_the_game(store, game_no)
    assert over["steps"] == len(states) and over["players"] == PLAYERS["zauberwald"]
    potions = next(line for line in over["lines"] if line["key"] == "potions")
    changes = [0] + [i for i in range(1, len(states))
                     if engine.scores(states[i]).lines[0].values != engine.scores(states[i - 1]).lines[0].values]
    assert [p["step"] for p in potions["points"]] == changes + [len(states) - 1]
    assert potions["points"][-1]["values"] == list(engine.scores(states[-1]).lines[0].values)
    assert max(potions["points"][-1]["values"]) >= 1, "the quick players cook potions"
    assert book.over_the_game(store, game_no) is over        # a game that has ended is replayed once
