"""What the game log says to people: each action in players' words, and past games, all
read from the store (so they survive restarts); the players' statistics are controller/stats.py.

Words come from each game's ``log.toml`` beside its ``data.toml``: ``[actions]`` has one
template per action type (``drop_out = "{player} is done trading"``; an action type without
one is said plainly, "Ben: drop out"; ``""`` says nothing, its events tell it), ``[events]``
one per event an engine announces while applying an action (``Game.announce``: "the red
potion is complete", "Cleo rolled 5"). ``told`` turns a state's ``told`` (what its last action
did) into those sentences: the game log and the tablet's "what just happened" line say the
same.
"""
from __future__ import annotations

import csv
import io
import string
import threading
import time
from dataclasses import dataclass
from functools import cache
from typing import Any, Iterable, Iterator

from . import games
from .games.base import load_data

Entry = dict[str, Any]


@dataclass(frozen=True)
class Words:
    """A game's log.toml: words per action type, per action whose field is empty, per event,
    and per value of a field (``[words.place]``: ``lab = "their own laboratory"``)."""

    actions: dict[str, str]
    when_empty: dict[str, str]
    events: dict[str, str]
    values: dict[str, dict[str, str]]
    result: str | None = None       # [result] score: one seat's score in the final ranking


@cache
def _words(game_id: str) -> Words:
    plugin = games.plugins().get(game_id)
    try:
        data = load_data(plugin.package, "log.toml") if plugin is not None else {}
    except FileNotFoundError:
        data = {}

    def table(key: str) -> dict[str, str]:
        return {str(k): str(v) for k, v in data.get(key, {}).items()}

    values = {str(field): {str(k): str(v) for k, v in said.items()}
              for field, said in data.get("words", {}).items()}
    score = data.get("result", {}).get("score")
    return Words(table("actions"), table("when_empty"), table("events"), values,
                 None if score is None else str(score))


def _value(value: object) -> str:
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


class _Formatter(string.Formatter):
    """Fields in words; ``{steps:step}`` counts a noun ("1 step", "2 steps")."""

    def format_field(self, value: Any, format_spec: str) -> str:
        noun = bool(format_spec) and format_spec.replace(" ", "").isalpha()
        if noun and not str(value).lstrip("-").isdigit():
            return str(value)               # a number already said in words ([words.<field>])
        if noun:
            n = str(value)
            return f"{n} {format_spec}{'' if n == '1' else 's'}"
        return super().format_field(value, format_spec)


_FORMAT = _Formatter()


@cache
def _counts_nouns(template: str) -> bool:
    """Does ``template`` count a noun (``{steps:step}``)? Only then is _Formatter needed:
    str.format_map says the rest the same (its parse is in C, string.Formatter's in Python,
    ~10 times slower, and the words are said for every version the table publishes)."""
    return any(spec and spec.replace(" ", "").isalpha() for _, _, spec, _ in string.Formatter().parse(template))


@cache
def _named(template: str) -> tuple[str, ...]:
    """The fields ``template`` names, but the player."""
    return tuple(f for _, f, _, _ in string.Formatter().parse(template) if f and f != "player")


def _name(players: list[str], seat: Any) -> str:
    return players[seat] if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players) else ""


def _fill(template: str, values: dict[str, Any], player: str, words: Words, sentence: bool = True) -> str:
    """``template`` with ``values`` in words ({x_no}: a 0-based whole number x plus one); a
    ``sentence`` starts with a capital."""
    fields = _Fields({k: words.values.get(k, {}).get(str(v)) or _value(v) for k, v in values.items()})
    for k, v in values.items():
        if isinstance(v, int) and not isinstance(v, bool):
            fields[f"{k}_no"] = str(v + 1)
    fields["player"] = player
    said = _FORMAT.vformat(template, (), fields) if _counts_nouns(template) else template.format_map(fields)
    text = " ".join(said.split())
    return text[:1].upper() + text[1:] if sentence else text


def say(game_id: str, action: dict[str, Any], players: list[str], actor: int | None = None) -> str:
    """One action in players' words (``""`` if its words are left to its events);
    ``actor`` is who took it when the action names no seat."""
    kind = str(action.get("type", "?"))
    player = _name(players, action.get("seat", actor))
    words = _words(game_id)
    template = words.actions.get(kind)
    if template is not None and kind in words.when_empty:
        if any(action.get(f.removesuffix("_no")) in (None, "", {}, []) for f in _named(template)):
            template = words.when_empty[kind]
    if template is None:
        what = kind.replace("_", " ")
        return f"{player}: {what}" if player else what[:1].upper() + what[1:]
    return _fill(template, action, player, words)


def tell(game_id: str, event: dict[str, Any], players: list[str], actor: int | None = None) -> str:
    """One announced event in players' words (``{player}``: its ``seat``, else ``actor``)."""
    kind = str(event.get("event", "?"))
    player = _name(players, event.get("seat", actor))
    words = _words(game_id)
    template = words.events.get(kind)
    if template is None:
        what = kind.replace("_", " ")
        return f"{player}: {what}" if player else what[:1].upper() + what[1:]
    return _fill(template, {k: v for k, v in event.items() if k != "event"}, player, words)


def told(game_id: str, story: dict[str, Any] | None, players: list[str]) -> list[str]:
    """What the last action did (a state's ``told``), sentence by sentence: the action, then
    every event it announced; an undo says what it took back."""
    if not story:
        return []
    action = story.get("action")
    if action is not None and action.get("type") == "undo":
        undone = told(game_id, story.get("undone"), players)
        return [f"Undo – taken back: {join(undone)}" if undone else "Undo"]
    by = story.get("by")
    lines = [say(game_id, action, players, by)] if action is not None else []
    lines += [tell(game_id, e, players, by) for e in story.get("events", ())]
    return [line for line in lines if line]


def results(game_id: str, outcome: dict[str, Any], players: list[str]) -> list[str] | None:
    """Each seat's final score in words ("2 cookies", "field 31"), by seat, from the outcome's
    ranking and the game's ``[result] score`` (None if the game words none)."""
    words = _words(game_id)
    if words.result is None:
        return None
    said = [""] * len(players)
    for placing in outcome.get("ranking", ()):
        seat, score = placing.get("seat"), placing.get("score")
        if isinstance(seat, int) and 0 <= seat < len(players) and score is not None:
            values = dict(score) if isinstance(score, dict) else {"score": score}
            said[seat] = _fill(words.result, values, players[seat], words, sentence=False)
    return said


def join(lines: list[str]) -> str:
    """Sentences as one line of the log ("A. B."); one sentence stays as it is."""
    if len(lines) <= 1:
        return "".join(lines)
    return " ".join(line if line[-1:] in ".!?…”\"" else line + "." for line in lines)


class LogBook:
    """The games' logs in words. Each game is replayed once through its engine (to know
    who acted when an action names no seat); later calls replay only the new actions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._books: dict[tuple[Any, ...], dict[str, Any]] = {}

    def entries(self, game: dict[str, Any], actions: list[dict[str, Any]]) -> list[Entry]:
        """The log of one game (a store row and its actions), newest first: version, time,
        words (``text``; ``lines``: its sentences, the action's and its events'), source, and
        whether a later undo took it back (``undone``) or it is the undo itself (``undo``).
        What the set-up told (Mix It's first monster parts) is entry 0."""
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
        entries = []
        lines = told(game["game"], state.get("told"), game["players"]) if state is not None else []
        if lines:
            entries.append({"version": 0, "at": game.get("started"), "source": "setup", "type": None,
                            "text": join(lines), "lines": lines, "undone": False, "undo": False})
        return {"engine": engine, "state": state, "entries": entries, "live": [], "read": 0}

    @staticmethod
    def _add(book: dict[str, Any], game: dict[str, Any], a: dict[str, Any]) -> None:
        engine, state, action = book["engine"], book["state"], a["action"]
        lines: list[str] | None = None
        if state is not None:
            try:
                book["state"] = engine.apply(state, action)[0]
                lines = told(game["game"], book["state"].get("told"), game["players"])
            except Exception:              # cannot happen for a logged action; never fail the log
                book["state"] = None
        if lines is None:                  # a log from an older engine: the action's words alone
            lines = [say(game["game"], action, game["players"])]
        entry = {"version": a["version"], "at": a["at"], "source": a["source"], "type": action.get("type"),
                 "text": join(lines), "lines": lines, "undone": False, "undo": False}
        if action.get("type") == "undo":
            entry["undo"] = True
            if book["live"]:
                taken = book["live"].pop()
                taken["undone"] = True
                if state is None:
                    entry["text"] = f"Undo – taken back: {taken['text']}"
                    entry["lines"] = [entry["text"]]
        elif action.get("type") in engine.undoable:
            book["live"].append(entry)
        book["entries"].append(entry)


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
