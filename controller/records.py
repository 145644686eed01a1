"""What the game log says to people: each action in players' words, past games, and
per-player statistics, all read from the store (so they survive restarts).

Words come from each game's ``log.toml`` beside its ``data.toml`` (one template per
action type, e.g. ``drop_out = "{player} is done trading"``); an action type without a
template is said plainly ("Ben: drop out").
"""
from __future__ import annotations

import csv
import io
import string
import threading
import time
from functools import cache
from typing import Any, Iterable, Iterator

from . import games
from .games.base import load_data

Entry = dict[str, Any]


@cache
def _words(game_id: str) -> tuple[dict[str, str], dict[str, str]]:
    """(words per action type, words when the action leaves a field of those words
    empty or out) from log.toml."""
    plugin = games.plugins().get(game_id)
    if plugin is None:
        return {}, {}
    try:
        data = load_data(plugin.package, "log.toml")
    except FileNotFoundError:
        return {}, {}
    return ({str(k): str(v) for k, v in data.get("actions", {}).items()},
            {str(k): str(v) for k, v in data.get("when_empty", {}).items()})


def _value(value: Any) -> str:
    """An action's field in words: ids to words, counts as "2 blue schlums"."""
    if isinstance(value, dict):
        parts = [f"{n} {_value(k)}" for k, n in value.items() if n]
        return ", ".join(parts) or "nothing"
    if isinstance(value, list):
        return ", ".join(_value(v) for v in value) or "nothing"
    if value is None:
        return ""
    return str(value).replace("_", " ")


class _Fields(dict):
    """Template fields: a field the action lacks reads as an empty string, never an error."""

    def __missing__(self, key: str) -> str:
        return ""


def say(game_id: str, action: dict[str, Any], players: list[str], actor: int | None = None) -> str:
    """One action in players' words; ``actor`` is who took it when the action names no seat."""
    kind = str(action.get("type", "?"))
    seat = action.get("seat", actor)
    player = players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else ""
    fields = _Fields({k: _value(v) for k, v in action.items()})
    for k, v in action.items():
        if isinstance(v, int) and not isinstance(v, bool):
            fields[f"{k}_no"] = str(v + 1)
    fields["player"] = player
    words, when_empty = _words(game_id)
    template = words.get(kind)
    if template is not None and kind in when_empty:
        named = [f for _, f, _, _ in string.Formatter().parse(template) if f and f != "player"]
        if any(action.get(f.removesuffix("_no")) in (None, "", {}, []) for f in named):
            template = when_empty[kind]
    if template is None:
        what = kind.replace("_", " ")
        return f"{player}: {what}" if player else what[:1].upper() + what[1:]
    text = " ".join(string.Formatter().vformat(template, (), fields).split())
    return text[:1].upper() + text[1:]


class LogBook:
    """The games' logs in words. Each game is replayed once through its engine (to know
    who acted when an action names no seat); later calls replay only the new actions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._books: dict[tuple[Any, ...], dict[str, Any]] = {}

    def entries(self, game: dict[str, Any], actions: list[dict[str, Any]]) -> list[Entry]:
        """The log of one game (a store row and its actions), newest first: version, time,
        words, source, and whether a later undo took it back (``undone``) or it is the
        undo itself (``undo``)."""
        # the row's id alone is not enough: another store (a test's, an imported one) has its
        # own game 1; its start time and seed tell the games apart
        key = (game["id"], game["game"], game.get("started"), game["seed"])
        with self._lock:
            book = self._books.get(game["id"])
            # one book per game id (bounded), for this game row only: a repaired log (shorter)
            # or another game with the same id starts it again
            if book is None or book["read"] > len(actions) or book["key"] != key:
                book = self._books[game["id"]] = self._open(game)
                book["key"] = key
            for a in actions[book["read"]:]:
                self._add(book, game, a)
            book["read"] = len(actions)
            return [dict(e) for e in reversed(book["entries"])]

    @staticmethod
    def _open(game: dict[str, Any]) -> dict[str, Any]:
        engine = games.load(game["game"])
        try:
            state: Any = engine.setup(list(game["players"]), game["seed"], dict(game["options"]))
        except Exception:                  # a log from an older engine: words without actors
            state = None
        return {"engine": engine, "state": state, "entries": [], "live": [], "read": 0}

    @staticmethod
    def _add(book: dict[str, Any], game: dict[str, Any], a: dict[str, Any]) -> None:
        engine, state, action = book["engine"], book["state"], a["action"]
        actor = engine.actor(state, action) if state is not None else None
        entry = {"version": a["version"], "at": a["at"], "source": a["source"], "type": action.get("type"),
                 "text": say(game["game"], action, game["players"], actor), "undone": False, "undo": False}
        if action.get("type") == "undo":
            entry["undo"] = True
            if book["live"]:
                taken = book["live"].pop()
                taken["undone"] = True
                entry["text"] = f"Undo – taken back: {taken['text']}"
        elif action.get("type") in engine.undoable:
            book["live"].append(entry)
        book["entries"].append(entry)
        if state is not None:
            try:
                book["state"] = engine.apply(state, action)[0]
            except Exception:              # cannot happen for a logged action; never fail the log
                book["state"] = None


def past_games(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Finished and unfinished games for the History screen: who played, who won, how long."""
    names = _names()
    return [_past_game(g, names) for g in rows]


def _names() -> dict[str, str]:
    return {p.id: p.name for p in games.plugins().values()}


def _past_game(g: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    outcome = g["outcome"] or {}
    winners = [g["players"][s] for s in outcome.get("winners", []) if 0 <= s < len(g["players"])]
    end = g["finished"]
    return {"id": g["id"], "game": g["game"], "name": names.get(g["game"], g["game"]),
            "players": g["players"], "winners": winners, "status": g["status"],
            "started": g["started"], "finished": end,
            "minutes": round((end - g["started"]) / 60) if end else None,
            "ranking": [{"name": g["players"][r["seat"]], "place": r["place"], "score": r.get("score")}
                        for r in outcome.get("ranking", []) if 0 <= r["seat"] < len(g["players"])]}


def player_stats(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per player and game: plays, wins and win rate, from finished games only (a game
    replaced before its end has no winner to count). Names are matched ignoring case.
    ``rows`` is read once, so the store's whole history can stream through it."""
    table: dict[tuple[str, str], dict[str, Any]] = {}
    names = _names()
    for g in rows:
        if not g["outcome"]:
            continue
        winners = set(g["outcome"].get("winners", []))
        for seat, name in enumerate(g["players"]):
            key = (name.strip().casefold(), g["game"])
            row = table.setdefault(key, {"player": name.strip(), "game": g["game"],
                                         "name": names.get(g["game"], g["game"]), "plays": 0, "wins": 0})
            row["plays"] += 1
            row["wins"] += seat in winners
    out = sorted(table.values(), key=lambda r: (r["player"].casefold(), r["name"]))
    for row in out:
        row["win_rate"] = round(row["wins"] / row["plays"], 3)
    return out


def known_players(rows: list[dict[str, Any]], limit: int = 30) -> list[str]:
    """Names from past games, most recent first, each once (case-insensitive)."""
    seen: dict[str, str] = {}
    for g in rows:                                   # newest game first
        for name in g["players"]:
            seen.setdefault(name.strip().casefold(), name.strip())
    return list(seen.values())[:limit]


CSV_FIELDS = ["game_no", "game", "date", "minutes", "player", "seat", "place", "score", "winner", "status"]


def history_csv(rows: Iterable[dict[str, Any]], lines: int = 500) -> Iterator[str]:
    """Past games as CSV for a spreadsheet: one line per player per game (place and score
    from the game's ranking; a score with several parts reads "potions=2 ingredients_on_card=5").
    Yielded ``lines`` lines at a time as ``rows`` is read: the download streams the store's
    whole history in constant memory."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    names = _names()
    written = 0
    for row in rows:
        g = _past_game(row, names)
        places = {r["name"]: r for r in g["ranking"]}
        for seat, name in enumerate(g["players"]):
            placed = places.get(name, {})
            score = placed.get("score")
            if isinstance(score, dict):
                score = " ".join(f"{k}={v}" for k, v in score.items())
            writer.writerow({"game_no": g["id"], "game": g["name"],
                             "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(g["started"])),
                             "minutes": "" if g["minutes"] is None else g["minutes"], "player": name,
                             "seat": seat + 1, "place": placed.get("place", ""),
                             "score": "" if score is None else score,
                             "winner": "yes" if name in g["winners"] else "no", "status": g["status"]})
            written += 1
        if written >= lines:
            yield out.getvalue()
            out.seek(0)
            out.truncate()
            written = 0
    yield out.getvalue()
