"""The typed seams between the parts: what crosses from engines to the table, from the
table to the web and the devices, and from devices back to the table.

Engines keep their state as plain JSON data (``State``); everything else that crosses a
seam has a shape named here, so ``make lint`` (mypy) checks both sides of it.
"""
from __future__ import annotations

from typing import Any, Literal, Protocol, TypedDict

State = dict[str, Any]
"""A game's whole state: plain JSON data, never changed once ``apply`` returned it."""

Action = dict[str, Any]
"""``{"type": <action type>, ...named fields}`` as a tablet or a sensor sends it."""

COLOURS = ("red", "yellow", "green", "blue", "purple", "orange")
"""The drops' colours as the cauldron names them (the box holds 3 of each): what the
colour sensor learns and reads, and what the simulated cauldron is filled with."""


class Effect(TypedDict, total=False):
    """Something an action asks of a device, e.g. ``{"device": "forest_floor", "op":
    "rotate", "ants": 3, "direction": "clockwise"}``. ``device`` is a device name or ``"*"``."""

    device: str
    op: str
    ants: int
    direction: str
    drops: list[str]
    contents: dict[str, int]
    type: str
    reason: str
    stones: list[int]


class Notice(TypedDict):
    """A passing message for every tablet that changes no game (``"turn gently"``)."""

    kind: str
    message: str


class RevokedNotice(Notice, total=False):
    """A seat's link ended by a new game: which game it is and where to join it."""

    game_name: str
    join: str


class OutcomeJSON(TypedDict, total=False):
    winners: list[int]
    winner_names: list[str]
    reason: str
    message: str
    ranking: list[dict[str, Any]]
    results: list[str]             # each seat's final score in words, by seat (log.toml [result])


class ScoreLineJSON(TypedDict):
    key: str
    label: str
    values: list[int | None]       # one per seat; None: the table cannot know it (yet)
    better: str                    # "higher" | "lower" | "neither" (a count: nobody is ahead on it)
    leaders: list[int]             # the seats ahead (none while all are level)
    note: str


class ScoresJSON(TypedDict):
    """The running score (``Game.scores``): its lines, the main one first, and the earlier
    rounds' main score where a game is scored round by round."""

    lines: list[ScoreLineJSON]
    rounds: list[dict[str, Any]]   # {"label": "Round 1 · 5/3/1/−2", "values": [...]}


class Session(TypedDict):
    """The running game as one client sees it (the public table unless a seat asked)."""

    id: int
    game: str
    version: int
    players: list[str]
    state: dict[str, Any]
    legal_actions: list[Action]
    legal_actions_complete: bool
    prompt: str                    # what the table does next, in a sentence (``Game.prompt``)
    told: list[str]                # what the last action did, sentence by sentence (``Game.announce``)
    can_undo: bool                 # {"type": "undo"} would be taken now (``Game.can_undo``)
    undo_label: str | None         # what it takes back, in words ("Linus's basket"), or None
    scores: ScoresJSON | None      # the running score, public (``Game.scores``); None: the game keeps none
    outcome: OutcomeJSON | None


class SeatSession(Session):
    """The running game as one seat's phone sees it: the public session plus that seat's
    ``private`` part (``Game.private_view`` and ``legal_actions``: ``Game.seat_actions``)."""

    seat: int
    private: dict[str, Any]


class Sink(Protocol):
    """Where a device reports what it saw: the table's ``sensor`` entry point."""

    def __call__(self, action: Action, /) -> None: ...


class NoticeSink(Protocol):
    """Where a device says something to the players without changing the game."""

    def __call__(self, notice: Notice, /) -> None: ...


Direction = Literal["clockwise", "counter_clockwise"]
__all__ = ["Action", "Direction", "Effect", "Notice", "NoticeSink", "OutcomeJSON", "RevokedNotice",
           "SeatSession", "Session", "Sink", "State"]
