"""Per-player statistics of the table's history, as BG Stats keeps them: plays, wins and win
rate per game and overall, the current and the longest winning streak, head-to-head, and
each game's wins and scores over time for the chart.

Everything comes from the games table alone (players, outcome, start time), never from the
actions, in one pass over the history oldest first (``Store.iter_games``), so the memory
is that of the answer, however many games were played. Only games that reached their end
count (a game replaced or damaged has no winner). Players are the same person when their
names match ignoring case and spaces, as in the BG Stats export.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Iterable

from . import bgstats, games

RECENT = 30          # plays of each game the chart shows (the newest)
CHARTED = 8          # players per chart at most (those with the most plays of that game)


key = bgstats.player_key      # " Ann  " and "ann" are one player, as in the export


@dataclass
class Record:
    """One player's plays of one game (or of all games: ``game`` None)."""

    player: str
    game: str | None
    plays: int = 0
    wins: int = 0
    streak: int = 0                  # > 0: wins in a row up to the newest play; < 0: plays without a win
    best: int = 0                    # the longest run of wins

    def add(self, won: bool) -> None:
        self.plays += 1
        self.wins += won
        self.streak = (max(self.streak, 0) + 1) if won else (min(self.streak, 0) - 1)
        self.best = max(self.best, self.streak)

    def to_json(self, names: dict[str, str], shown: str) -> dict[str, Any]:
        out: dict[str, Any] = {"player": shown, "plays": self.plays, "wins": self.wins,
                               "win_rate": round(self.wins / self.plays, 3), "streak": self.streak,
                               "best_streak": self.best}
        if self.game is not None:
            out = {"player": shown, "game": self.game, "name": names.get(self.game, self.game), **out}
        return out


@dataclass
class Versus:
    """How one player fared against another in the games both played: who placed ahead."""

    plays: int = 0
    ahead: int = 0
    behind: int = 0
    level: int = 0


@dataclass
class Chart:
    """One game's newest plays (the row and its players' keys) and every player's wins and
    plays of it; the wins so far after each newest play are counted back from the totals
    at the end, so a long history costs no copy per play."""

    plays: deque[tuple[dict[str, Any], list[str]]] = field(default_factory=lambda: deque(maxlen=RECENT))
    wins: dict[str, int] = field(default_factory=dict)
    count: dict[str, int] = field(default_factory=dict)
    total: int = 0


def finished(rows: Iterable[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    return (g for g in rows if g["status"] in bgstats.FINISHED and g["outcome"])


def places(game: dict[str, Any]) -> list[int]:
    """Each seat's place (1 = first; ties share it): the engine's ranking, else 1 for the
    winners and 2 for the others."""
    outcome = game["outcome"]
    seats = len(game["players"])
    ranked = {r["seat"]: r["place"] for r in outcome.get("ranking", []) if 0 <= r["seat"] < seats}
    winners = set(outcome.get("winners", []))
    return [ranked.get(s, 1 if s in winners else 2) for s in range(seats)]


def score_of(game: dict[str, Any], seat: int) -> int | float | None:
    """The seat's score as BG Stats gets it (``bgstats.toml``): a number, or None for a game
    without points (or a score that is not one number)."""
    rules = bgstats.settings(game["game"])
    placed = next((r for r in game["outcome"].get("ranking", []) if r["seat"] == seat), None)
    text = bgstats.score(game, seat, placed, rules)
    try:
        number = float(text)
    except ValueError:
        return None
    return int(number) if number.is_integer() else number


def table_stats(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The whole statistics of ``rows`` (store rows, oldest first): ``players`` (per player and
    game), ``overall`` (per player), ``head_to_head`` (per ordered pair of players) and
    ``charts`` (per game: its newest plays, with each charted player's wins so far and score)."""
    names = {p.id: p.name for p in games.plugins().values()}
    shown: dict[str, str] = {}                     # key -> its first spelling (as the BG Stats export)
    by_game: dict[tuple[str, str], Record] = {}
    overall: dict[str, Record] = {}
    versus: dict[tuple[str, str], Versus] = {}
    charts: dict[str, Chart] = {}
    for g in finished(rows):
        people = [key(n) for n in g["players"]]
        for k, name in zip(people, g["players"]):
            shown.setdefault(k, " ".join(name.split()))
        winners = set(g["outcome"].get("winners", []))
        place = places(g)
        chart = charts.get(g["game"]) or charts.setdefault(g["game"], Chart())
        for seat, k in enumerate(people):
            won = seat in winners
            record = by_game.get((k, g["game"])) or by_game.setdefault((k, g["game"]), Record(k, g["game"]))
            record.add(won)
            (overall.get(k) or overall.setdefault(k, Record(k, None))).add(won)
            chart.wins[k] = chart.wins.get(k, 0) + won
            chart.count[k] = chart.count.get(k, 0) + 1
            mine = place[seat]
            for other, k2 in enumerate(people):
                if other == seat or k2 == k:
                    continue
                v = versus.get((k, k2)) or versus.setdefault((k, k2), Versus())
                v.plays += 1
                theirs = place[other]
                if mine < theirs:
                    v.ahead += 1
                elif mine > theirs:
                    v.behind += 1
                else:
                    v.level += 1
        chart.total += 1
        chart.plays.append((g, people))
    order = sorted(shown, key=lambda k: shown[k].casefold())
    return {
        "players": [by_game[(k, gid)].to_json(names, shown[k]) for k in order
                    for gid in sorted({g for (p, g) in by_game if p == k}, key=lambda g: names.get(g, g))],
        "overall": [overall[k].to_json(names, shown[k]) for k in order],
        "head_to_head": [{"player": shown[a], "opponent": shown[b], "plays": v.plays, "ahead": v.ahead,
                          "behind": v.behind, "level": v.level}
                         for (a, b), v in sorted(versus.items(), key=lambda kv: (shown[kv[0][0]].casefold(),
                                                                                  shown[kv[0][1]].casefold()))],
        "charts": {gid: _chart(gid, c, shown, names) for gid, c in charts.items()},
    }


def _chart(game_id: str, chart: Chart, shown: dict[str, str], names: dict[str, str]) -> dict[str, Any]:
    rules = bgstats.settings(game_id)
    charted = sorted(chart.count, key=lambda k: (-chart.count[k], shown[k].casefold()))[:CHARTED]
    charted.sort(key=lambda k: shown[k].casefold())
    plays = []
    wins = dict(chart.wins)                       # after the newest play; counted back from there
    for g, people in reversed(chart.plays):
        winners = set(g["outcome"].get("winners", []))
        plays.append({"game_no": g["id"], "started": g["started"], "wins": dict(wins),
                      "scores": {k: score_of(g, seat) for seat, k in enumerate(people)},
                      "winners": [people[s] for s in sorted(winners) if 0 <= s < len(people)]})
        for seat, k in enumerate(people):
            wins[k] -= seat in winners
    plays.reverse()
    return {"game": game_id, "name": names.get(game_id, game_id), "highest_wins": rules["highest_wins"],
            "points": not rules["no_points"], "total_plays": chart.total,
            "plays": [{"game_no": p["game_no"], "started": p["started"],
                       "winners": [shown[k] for k in p["winners"]]} for p in plays],
            "players": [{"player": shown[k],
                         "wins": [p["wins"].get(k, 0) for p in plays],
                         "scores": [p["scores"].get(k) for p in plays]} for k in charted]}
