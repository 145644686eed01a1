"""A game that has ended, step by step from its log: what the table saw after each action
(the public session: the game's view, prompt and running score, never a seat's secrets and
never an action on offer) with the game log's words for that action; and the running score
over the whole game, for the end screen's chart.

The states come from the one replay there is (``table.replay_start`` / ``replay_steps``:
``state = replay(setup, actions)``), the words from the log book (``records.LogBook``). A game
still being played is never replayed: its steps would tell the table nothing it may not see,
but its log is still being written and a replay beside the live board only confuses; the
caller gets a sentence and a 409 instead.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Iterator

from . import games, records
from .contracts import Session, State
from .store import Store
from .table import ReplayFailed, build_session, replay_start, replay_steps

PAGE = 25            # steps per page unless asked otherwise
PAGE_MOST = 100      # steps per page at most (each carries a whole public view)
ENDED = ("finished", "done", "replaced")    # replays: reached their end, or stopped before it


class NotReplayable(Exception):
    """This game cannot be replayed now: a sentence for the person asking and the HTTP
    status that says why (404 no such game, 409 still being played or damaged)."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


def check(row: dict[str, Any] | None, game_no: int) -> dict[str, Any]:
    """The store row of a game that may be replayed, else NotReplayable."""
    if row is None:
        raise NotReplayable(f"there is no game #{game_no} in the table's history", 404)
    if row["status"] == "playing":
        raise NotReplayable(f"game #{game_no} is still being played: it can be replayed once it has ended", 409)
    if row["status"] not in ENDED:
        why = f": {row['damage']}" if row.get("damage") else ""
        raise NotReplayable(f"game #{game_no} was damaged and cannot be replayed{why}", 409)
    return row


def _steps(store: Store, game_no: int) -> tuple[dict[str, Any], games.Game, Iterator[tuple[dict[str, Any] | None, State]]]:
    """(row, engine, every step): the set-up (entry None), then each logged action and the
    state after it. NotReplayable if the log no longer replays to the end."""
    row = check(store.game(game_no), game_no)
    try:
        row, engine, state, _ = replay_start(store, game_no)
    except ReplayFailed as exc:
        raise NotReplayable(f"game #{game_no} does not replay: {exc}", 409) from None

    def every() -> Iterator[tuple[dict[str, Any] | None, State]]:
        yield None, state
        try:
            yield from replay_steps(store, row, engine, state)
        except ReplayFailed as exc:
            raise NotReplayable(f"game #{game_no} does not replay: {exc}", 409) from None
    return row, engine, every()


def step_session(engine: games.Game, row: dict[str, Any], state: State, version: int) -> Session:
    """What the table saw at this step: the public session, with nothing on offer."""
    return build_session(engine, state, game_id=row["id"], game=row["game"], version=version,
                         players=list(row["players"]), actions=False)


def page(store: Store, book: records.LogBook, game_no: int, start: int = 0, limit: int = PAGE) -> dict[str, Any]:
    """Steps ``start`` to ``start + limit - 1`` of a game that has ended (0: the set-up) with
    what the table saw and the log's words; ``total`` steps in all."""
    row, engine, steps = _steps(store, game_no)
    log = {e["version"]: e for e in book.entries(row, store.actions(game_no))}
    total = len([v for v in log if v]) + 1    # the set-up's own words (version 0) are step 0's
    if not 0 <= start < total:
        raise NotReplayable(f'"from" must be a step from 0 to {total - 1}: game #{game_no} has {total} steps', 400)
    out = []
    for index, (entry, state) in enumerate(steps):
        if index >= start + limit:
            break
        if index < start:
            continue
        said = log.get(entry["version"]) if entry else None
        out.append({"step": index, "version": entry["version"] if entry else 0,
                    "at": entry["at"] if entry else row["started"], "source": entry["source"] if entry else None,
                    "text": said["text"] if said else f"{engine.name}: the game is set up for {_and(row['players'])}",
                    "undone": bool(said and said["undone"]),
                    "session": step_session(engine, row, state, entry["version"] if entry else 0)})
    return {"game": row["id"], "game_id": row["game"], "name": engine.name, "players": list(row["players"]),
            "status": row["status"], "started": row["started"], "finished": row["finished"],
            "total": total, "from": start, "steps": out}


class ScoreBook:
    """The running score over the whole of each game asked for (replayed once, kept for the
    few most recent: a game that has ended no longer changes)."""

    KEPT = 8

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()

    def over_the_game(self, store: Store, game_no: int) -> dict[str, Any]:
        """Every score line of a game that has ended, as it changed: for each line the steps
        at which its values changed (and the first and the last), with those values."""
        row = check(store.game(game_no), game_no)
        key = (row["id"], row["started"], row["finished"], row["status"] != "replaced")
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        series = _series(store, game_no)
        with self._lock:
            self._kept[key] = series
            while len(self._kept) > self.KEPT:
                self._kept.popitem(last=False)
        return series


def _series(store: Store, game_no: int) -> dict[str, Any]:
    row, engine, steps = _steps(store, game_no)
    lines: list[dict[str, Any]] = []
    last_step = 0
    for index, (_entry, state) in enumerate(steps):
        scores = engine.scores(state)
        last_step = index
        if scores is None:
            continue
        for n, score in enumerate(scores.lines):
            if n == len(lines):
                lines.append({"key": score.key, "label": score.label, "better": score.better, "points": []})
            points = lines[n]["points"]
            values = list(score.values)
            if not points or points[-1]["values"] != values:
                points.append({"step": index, "values": values})
    for line in lines:                     # the last step too, so a line runs to the end
        last = line["points"][-1]
        if last["step"] != last_step:
            line["points"].append({"step": last_step, "values": last["values"]})
    return {"game": row["id"], "game_id": row["game"], "players": list(row["players"]),
            "steps": last_step + 1, "lines": lines}


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
