"""The players' statistics (controller/stats.py) on a history built by hand: win rates per
game and overall, streaks, head-to-head with ties, names matched as one person, the chart's
wins and scores over time; and GET /api/v1/stats reads the games table only, in one pass."""
from __future__ import annotations

from typing import Any

import pytest

from controller import stats
from controller.store import Store

Row = dict[str, Any]
T0 = 1_700_000_000.0


def game(no: int, kind: str, players: list[str], places: list[int], *, scores: list[Any] | None = None,
         status: str = "finished") -> Row:
    """A store row: ``places`` is each seat's place (1 = won; equal places tie)."""
    winners = [s for s, p in enumerate(places) if p == 1]
    ranking = [{"seat": s, "place": p, "score": None if scores is None else scores[s]} for s, p in enumerate(places)]
    outcome = {"winners": winners, "ranking": ranking, "reason": "x", "message": "x"}
    if kind == "mix-it" and scores is not None:
        outcome["cookies"] = list(scores)
    return {"id": no, "game": kind, "players": players, "options": {}, "seed": no, "status": status,
            "started": T0 + 3600 * no, "finished": T0 + 3600 * no + 1200,
            "outcome": outcome if status in ("finished", "done") else None, "damage": None}


def row_of(rows: list[Row], **match: Any) -> Row:
    found = [r for r in rows if all(r[k] == v for k, v in match.items())]
    assert len(found) == 1, (match, rows)
    return found[0]


HISTORY = [
    game(1, "mix-it", ["Ann", "Ben", "Cem"], [1, 2, 3], scores=[3, 1, 0], status="done"),
    game(2, "mix-it", ["Ann", "Ben", "Cem"], [1, 3, 2], scores=[3, 0, 2], status="done"),
    game(3, "mix-it", ["ben", " ann ", "Cem"], [1, 2, 3], scores=[3, 2, 1], status="done"),      # same people
    game(4, "mix-it", ["Ann", "Ben", "Cem"], [1, 1, 3], scores=[3, 3, 0], status="done"),        # a shared win
    game(5, "zaubercocktail", ["Ann", "Ben", "Cem", "Dan"], [2, 1, 2, 4], status="done"),       # Ann and Cem level
    game(6, "mix-it", ["Ann", "Ben", "Cem"], [3, 2, 1], scores=[0, 1, 3], status="replaced"),    # never ended
    game(7, "elixir", ["Ann", "Cem"], [2, 1], status="finished"),                                # the others share 2nd
]


def test_win_rate_per_game_and_overall_count_finished_games_only():
    out = stats.table_stats(iter(HISTORY))                   # one pass: an iterator will do
    ann = row_of(out["players"], player="Ann", game="mix-it")
    assert (ann["plays"], ann["wins"], ann["win_rate"]) == (4, 3, 0.75)        # game 6 was replaced
    assert ann["name"] == "Mix It"
    ben = row_of(out["players"], player="Ben", game="mix-it")
    assert (ben["plays"], ben["wins"]) == (4, 2)              # ...and "ben" in game 3 is Ben
    overall = row_of(out["overall"], player="Ann")
    assert (overall["plays"], overall["wins"], overall["win_rate"]) == (6, 3, 0.5)
    assert [r["player"] for r in out["overall"]] == ["Ann", "Ben", "Cem", "Dan"]    # first spelling, in order


def test_streaks_count_wins_in_a_row_and_plays_without_one():
    out = stats.table_stats(HISTORY)
    ann = row_of(out["players"], player="Ann", game="mix-it")
    # Ann: won 1, won 2, lost 3, won 4 (shared): a streak of one now, two at best
    assert (ann["streak"], ann["best_streak"]) == (1, 2)
    cem = row_of(out["players"], player="Cem", game="mix-it")
    assert (cem["streak"], cem["best_streak"]) == (-4, 0)                  # never won Mix It
    overall = {r["player"]: r for r in out["overall"]}
    assert (overall["Ann"]["streak"], overall["Ann"]["best_streak"]) == (-2, 2)   # lost games 5 and 7
    assert (overall["Cem"]["streak"], overall["Cem"]["best_streak"]) == (1, 1)    # won the Elixir game
    assert (overall["Ben"]["streak"], overall["Ben"]["best_streak"]) == (3, 3)    # won 3, shared 4, won 5


def test_head_to_head_says_who_placed_ahead_and_counts_ties_as_level():
    out = stats.table_stats(HISTORY)
    ann_ben = row_of(out["head_to_head"], player="Ann", opponent="Ben")
    # 1 ahead, 2 ahead, 3 behind, 4 level (shared win), 5 behind
    assert (ann_ben["plays"], ann_ben["ahead"], ann_ben["behind"], ann_ben["level"]) == (5, 2, 2, 1)
    ben_ann = row_of(out["head_to_head"], player="Ben", opponent="Ann")
    assert (ben_ann["ahead"], ben_ann["behind"], ben_ann["level"]) == (2, 2, 1)      # the mirror image
    ann_cem = row_of(out["head_to_head"], player="Ann", opponent="Cem")
    # mix-it 1-4: ahead four times; Zaubercocktail: both 2nd (level); Elixir: behind
    assert (ann_cem["plays"], ann_cem["ahead"], ann_cem["behind"], ann_cem["level"]) == (6, 4, 1, 1)
    assert not [r for r in out["head_to_head"] if r["player"] == r["opponent"]]


def test_two_players_with_one_name_are_one_person_but_never_their_own_opponent():
    rows = [game(1, "mix-it", ["Ann", "ANN", "Ben"], [1, 2, 3], scores=[3, 1, 0])]
    out = stats.table_stats(rows)
    ann = row_of(out["players"], player="Ann", game="mix-it")
    assert (ann["plays"], ann["wins"]) == (2, 1)
    assert {(r["player"], r["opponent"]) for r in out["head_to_head"]} == {("Ann", "Ben"), ("Ben", "Ann")}


def test_the_chart_follows_each_games_wins_and_scores_over_its_plays():
    chart = stats.table_stats(HISTORY)["charts"]["mix-it"]
    assert [p["game_no"] for p in chart["plays"]] == [1, 2, 3, 4]
    assert chart["points"] is True and chart["highest_wins"] is True and chart["total_plays"] == 4
    lines = {p["player"]: p for p in chart["players"]}
    assert lines["Ann"]["wins"] == [1, 2, 2, 3]          # wins so far after each play
    assert lines["Ben"]["wins"] == [0, 0, 1, 2]
    assert lines["Ann"]["scores"] == [3, 3, 2, 3] and lines["Cem"]["scores"] == [0, 2, 1, 0]
    assert chart["plays"][3]["winners"] == ["Ann", "Ben"]
    # a game without points: no scores to draw, only wins
    elixir = stats.table_stats(HISTORY)["charts"]["elixir"]
    assert elixir["points"] is False and all(v is None for p in elixir["players"] for v in p["scores"])
    zc = stats.table_stats(HISTORY)["charts"]["zaubercocktail"]
    assert {p["player"]: p["wins"] for p in zc["players"]} == {"Ann": [0], "Ben": [1], "Cem": [0], "Dan": [0]}


def test_the_chart_keeps_the_newest_plays_and_counts_wins_from_the_first():
    many = [game(n, "mix-it", ["Ann", "Ben"], [1, 2] if n % 3 else [2, 1], scores=[3, 1] if n % 3 else [1, 3])
            for n in range(1, 101)]
    chart = stats.table_stats(many)["charts"]["mix-it"]
    assert len(chart["plays"]) == stats.RECENT and chart["total_plays"] == 100
    assert chart["plays"][-1]["game_no"] == 100
    ann = next(p for p in chart["players"] if p["player"] == "Ann")
    assert ann["wins"][-1] == sum(1 for n in range(1, 101) if n % 3)          # all 100 counted


def test_a_chart_shows_the_players_with_the_most_plays():
    rows = [game(n, "zaubercocktail", [f"P{n % 12}", f"P{(n + 1) % 12}", "Ann", "Ben"], [1, 2, 3, 4])
            for n in range(1, 40)]
    chart = stats.table_stats(rows)["charts"]["zaubercocktail"]
    names = [p["player"] for p in chart["players"]]
    assert len(names) == stats.CHARTED and {"Ann", "Ben"} <= set(names)


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    yield store
    store.close()


def finish(store: Store, kind: str, players: list[str], winners: list[int]) -> int:
    no = store.new_game(kind, players, seed=1, options={})
    store.append(no, 1, {"type": "x"}, "player",
                 outcome={"winners": winners, "ranking": [{"seat": s, "place": 1 if s in winners else 2, "score": None}
                                                          for s in range(len(players))]})
    return no


def test_the_stats_route_reads_the_games_table_only(store, monkeypatch):
    from tests.web.helpers import PIN, SECRET
    from controller.table import Table
    from web_ui import create_app
    finish(store, "mix-it", ["Ann", "Ben"], [0])
    finish(store, "mix-it", ["Ann", "Ben"], [1])
    finish(store, "mix-it", ["Ann", "Ben"], [1])
    store.new_game("mix-it", ["Ann", "Ben"], seed=1, options={})              # still running: not counted

    def no_actions(*_a, **_k):
        raise AssertionError("the statistics read a game's actions")
    monkeypatch.setattr(store, "actions", no_actions)
    monkeypatch.setattr(store, "iter_actions", no_actions)
    client = create_app(table=Table(store), pin=PIN, secret_key=SECRET).test_client()
    body = client.get("/api/v1/stats").get_json()
    ben = row_of(body["players"], player="Ben", game="mix-it")
    assert (ben["plays"], ben["wins"], ben["streak"], ben["best_streak"]) == (3, 2, 2, 2)
    assert row_of(body["head_to_head"], player="Ann", opponent="Ben")["behind"] == 2
    assert [p["wins"] for p in body["charts"]["mix-it"]["players"]] == [[1, 1, 1], [0, 1, 2]]
