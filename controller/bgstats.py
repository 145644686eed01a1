"""Finished games as a BG Stats play file (``.bgsplay``), for the BG Stats app to import.

The file is the JSON BG Stats itself writes when it shares plays: four lists that refer to
each other by number: ``games``, ``players``, ``locations`` and ``plays``, each play with
``gameRefId``, ``locationRefId`` and ``playerScores`` (``playerRefId``, ``score``,
``winner``, ``rank``, ``seatOrder`` ...). Sources for the field names and types:

- BG Stats' own documentation of a play for import, "Push plays to BG Stats from other
  apps or websites", https://www.bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/
  (``playDate`` as "YYYY-MM-DD HH:MM:SS", ``durationMin``, the game's ``bggId``,
  ``highestWins`` and ``noPoints``, each player's ``score``, ``rank``, ``winner`` and
  ``startPlayer``; a location named after the app that sent the play);
- a play file shared by BG Stats, https://pastebin.com/iDbHyBui (its ``about`` line, the
  ``players``/``locations``/``games`` entries with ``uuid``, ``id``, ``name``,
  ``modificationDate``, ``isAnonymous``, ``bggUsername``, ``cooperative``), and the
  importer https://github.com/ctuncan/bga_bgstats (``plays`` with ``playerScores``,
  ``gameRefId``, ``locationRefId``, ``ignored``, ``manualWinner``, ``rounds``,
  ``usesTeams``, ``scoringSetting``; a score as a string).

tests/web/bgstats.schema.json holds those fields as a JSON Schema; docs/api.md says which
value each gets. Only finished games are written: a running game's log can hold secrets,
and a game replaced or damaged before its end has no result. Each game's BoardGameGeek id
and scoring settings come from its plug-in's ``bgstats.toml``.
"""
from __future__ import annotations

import json
import time
import uuid
from functools import cache
from typing import Any, Callable, Iterable, Iterator

from . import games
from .games.base import load_data

ABOUT = ("This is a Play file that can be read by Board Game Stats, written by a PotionPi table. "
         "Open it with BG Stats (share or open-in) to import its plays.")
LOCATION = "PotionPi table"          # BG Stats names the location after the app that sent the play
FINISHED = ("finished", "done")      # the store's statuses of a game that reached its end
# uuids from names, so importing the same file twice updates rather than doubles a play
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://potionpi.invalid/bgstats")
SETTINGS = {"bgg_id": int, "highest_wins": bool, "no_points": bool, "cooperative": bool, "score": str}


class ExportError(ValueError):
    """Nothing to export, or a game's bgstats.toml is wrong: a sentence for the person
    asking, and the HTTP status that says which (404 nothing finished, 409 the game is not
    finished, 500 the table's own file is wrong)."""

    def __init__(self, message: str, status: int = 500):
        super().__init__(message)
        self.status = status


@cache
def settings(game_id: str) -> dict[str, Any]:
    """A game's ``bgstats.toml``, checked (a wrong value names file, key and allowed values)."""
    plugin = games.plugins().get(game_id)
    if plugin is None:
        return {"bgg_id": 0, "highest_wins": True, "no_points": False, "cooperative": False}
    path = f"controller/games/{plugin.package.rsplit('.', 1)[-1]}/bgstats.toml"
    try:
        data = load_data(plugin.package, "bgstats.toml")
    except FileNotFoundError:
        raise ExportError(f"{path} is missing, so {plugin.name} cannot be exported to BG Stats") from None
    for key, kind in SETTINGS.items():
        value = data.get(key)
        if key == "score" and value is None:
            continue
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if not ok or (isinstance(value, int) and value < 0):
            allowed = {int: "a whole number, 0 or more (0: not known)", bool: "true or false",
                       str: "the name of a part of the score"}[kind]
            raise ExportError(f"{path}: {key} must be {allowed}, not {value!r}")
    unknown = sorted(set(data) - set(SETTINGS))
    if unknown:
        raise ExportError(f"{path}: unknown key {unknown[0]!r}; known keys: {', '.join(SETTINGS)}")
    return dict(data)


def _date(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t))


def score(game: dict[str, Any], seat: int, placed: dict[str, Any] | None, rules: dict[str, Any]) -> str:
    """The seat's score as BG Stats keeps it, a string ("" for games without points); the
    statistics' chart reads the same (controller/stats.py)."""
    if rules["no_points"]:
        return ""
    part = rules.get("score")
    outcome = game["outcome"]
    if part and isinstance(outcome.get(part), list) and seat < len(outcome[part]):
        value = outcome[part][seat]                   # a per-seat list of the outcome, e.g. cookies
    else:
        value = (placed or {}).get("score")
        if isinstance(value, dict):
            value = value.get(part) if part else None
    return "" if value is None or isinstance(value, (dict, list)) else str(value)


def finished(rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The games among ``rows`` that reached their end (a winner to count)."""
    return (g for g in rows if g["status"] in FINISHED and g["outcome"])


def play_file(plays: Callable[[], Iterable[dict[str, Any]]]) -> Iterator[str]:
    """The BG Stats play file of every finished game ``plays()`` gives (store rows, oldest
    first, as BG Stats lists plays), as pieces of JSON text; players are the same person
    when their names match ignoring case and spaces.

    Written in two passes over ``plays()``, so a long history never sits in memory whole:
    the first collects the players and games the plays refer to by number (a table has a
    few dozen) and checks each game's settings, the second writes one play at a time.
    Nothing finished, or a wrong ``bgstats.toml``, raises ExportError here, before any
    text: the download answers with a sentence instead of half a file.
    """
    names = {p.id: p.name for p in games.plugins().values()}
    player_ids: dict[str, int] = {}
    players: list[dict[str, Any]] = []
    game_ids: dict[str, int] = {}
    game_list: list[dict[str, Any]] = []
    newest: float | None = None
    for g in finished(plays()):
        end = g["finished"] or g["started"]
        newest = end if newest is None else max(newest, end)
        if g["game"] not in game_ids:
            rules = settings(g["game"])
            game_ids[g["game"]] = len(game_list) + 1
            game_list.append({"uuid": str(uuid.uuid5(NAMESPACE, f"game:{g['game']}")), "id": game_ids[g["game"]],
                              "name": names.get(g["game"], g["game"]), "modificationDate": "",
                              "bggId": rules["bgg_id"], "bggYear": 0, "cooperative": rules["cooperative"],
                              "highestWins": rules["highest_wins"], "noPoints": rules["no_points"],
                              "usesTeams": False})
        for name in g["players"]:
            key = player_key(name)
            if key not in player_ids:
                player_ids[key] = len(players) + 1
                players.append({"uuid": str(uuid.uuid5(NAMESPACE, f"player:{key}")), "id": player_ids[key],
                                "name": " ".join(name.split()), "isAnonymous": False,
                                "modificationDate": "", "bggUsername": ""})
    if newest is None:
        raise ExportError("no finished game to export yet: a game counts once it has a winner", 404)
    stamp = _date(newest)
    for entry in (*game_list, *players):
        entry["modificationDate"] = stamp
    head = {"about": ABOUT, "players": players,
            "locations": [{"uuid": str(uuid.uuid5(NAMESPACE, "location")), "id": 1, "name": LOCATION,
                           "modificationDate": stamp}],
            "games": game_list}
    return _pieces(_text(head)[:-1] + ',"plays":[', plays, game_ids, player_ids)


def _pieces(head: str, plays: Callable[[], Iterable[dict[str, Any]]], game_ids: dict[str, int],
            player_ids: dict[str, int], batch: int = 50) -> Iterator[str]:
    """The file's text: its head, then the plays ``batch`` at a time, then its end."""
    pending: list[str] = []
    yield head
    for n, g in enumerate(finished(plays())):
        pending.append(("," if n else "") + _text(_play(g, game_ids, player_ids)))
        if len(pending) >= batch:
            yield "".join(pending)
            pending.clear()
    yield "".join(pending) + "]}"


def _text(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def player_key(name: str) -> str:
    """The person behind a name: " Ann  " and "ann" are one player (the statistics too)."""
    return " ".join(name.split()).casefold()


def _play(g: dict[str, Any], game_ids: dict[str, int], player_ids: dict[str, int]) -> dict[str, Any]:
    rules = settings(g["game"])
    outcome = g["outcome"]
    winners = set(outcome.get("winners", []))
    placings = {r["seat"]: r for r in outcome.get("ranking", [])}
    scores = []
    for seat, name in enumerate(g["players"]):
        placed = placings.get(seat)
        # the engine's ranking (Elixir: the winner 1st, the others share 2nd); a game
        # with no ranking gives the winners 1 and the others 0, BG Stats' "no rank"
        rank = placed["place"] if placed else (1 if seat in winners else 0)
        scores.append({"playerRefId": player_ids[player_key(name)], "score": score(g, seat, placed, rules),
                       "winner": seat in winners, "rank": rank, "seatOrder": seat + 1,
                       "startPlayer": False, "newPlayer": False, "role": "", "team": ""})
    end = g["finished"] or g["started"]
    return {"uuid": str(uuid.uuid5(NAMESPACE, f"play:{g['id']}:{g['started']!r}")),
            "gameRefId": game_ids[g["game"]], "locationRefId": 1,
            "playDate": _date(g["started"]), "entryDate": _date(end), "modificationDate": _date(end),
            "durationMin": max(0, round((end - g["started"]) / 60)),
            "ignored": False, "manualWinner": False, "rounds": 0, "usesTeams": False,
            "scoringSetting": 0, "board": "", "comments": f"PotionPi game #{g['id']}",
            "playerScores": scores}


def one_game(row: dict[str, Any] | None, game_no: int) -> Iterator[str]:
    """The play file of game number ``game_no`` (its store row, or None); a game still
    running (its log may hold secrets) or unknown is refused with a sentence."""
    if row is None:
        raise LookupError(f"there is no game #{game_no} in the table's history")
    if row["status"] not in FINISHED or not row["outcome"]:
        why = "is still running" if row["status"] == "playing" else f"ended without a winner ({row['status']})"
        raise ExportError(f"game #{game_no} {why}; only finished games go to BG Stats", 409)
    return play_file(lambda: [row])


def filename(game_no: int | None = None, game_id: str = "") -> str:
    """The download's name: BG Stats opens files ending .bgsplay."""
    return f"potionpi-{game_id}-{game_no}.bgsplay" if game_no is not None else "potionpi-all.bgsplay"
