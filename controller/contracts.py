"""The typed seams between the parts: what crosses from engines to the table, from the
table to the web and the devices, and from devices back to the table.

Engines keep their state as plain JSON data (``State``); everything else that crosses a
seam has a shape named here, so ``make lint`` (mypy) checks both sides of it.
"""
from __future__ import annotations

from typing import Any, Literal, NotRequired, Protocol, TypedDict, Union, final

State = dict[str, Any]
"""A game's whole state: plain JSON data, never changed once ``apply`` returned it."""

Action = dict[str, Any]
"""``{"type": <action type>, ...named fields}`` as a tablet or a sensor sends it."""

COLOURS = ("red", "yellow", "green", "blue", "purple", "orange")
"""The drops' colours as the cauldron names them (the box holds 3 of each): what the
colour sensor learns and reads, and what the simulated cauldron is filled with."""


Direction = Literal["clockwise", "counter_clockwise"]


# --- effects: what an action asks of a device, one small type per kind -------------------
class ResetEffect(TypedDict):
    """Every device back as at the start of a game (a new game, ``Game.device_sync``)."""

    device: Literal["*"]
    op: Literal["reset"]


class FillEffect(TypedDict):
    """Drops go back into the cauldron (``fill``: a bowl emptied into it), or come out
    again (``unfill``: that emptying undone). A real cauldron ignores both."""

    device: Literal["cauldron"]
    op: Literal["fill", "unfill"]
    drops: list[str]


class ContentsEffect(TypedDict):
    """The cauldron holds exactly these drops (a restart, an undo)."""

    device: Literal["cauldron"]
    op: Literal["set_contents"]
    contents: dict[str, int]


class RotateEffect(TypedDict):
    """The forest floor turns ``ants`` ants round the rim."""

    device: Literal["forest_floor"]
    op: Literal["rotate"]
    ants: int
    direction: Direction


class FloorEffect(TypedDict):
    """The forest floor finds its home mark, or stops where it is."""

    device: Literal["forest_floor"]
    op: Literal["home", "stop"]


@final                             # final: ``"type" in effect`` tells news from a device's effect
class StonesMoved(TypedDict):
    """Zaubercocktail's stones after a round's scoring: news for a listener of effects,
    no device's (docs/rules/zaubercocktail.md)."""

    type: Literal["stones_moved"]
    stones: list[int]


@final
class GameOver(TypedDict):
    """A game ended, and why (Zaubercocktail's): news for a listener of effects."""

    type: Literal["game_over"]
    reason: str


DeviceEffect = Union[ResetEffect, FillEffect, ContentsEffect, RotateEffect, FloorEffect]
"""Something an action asks of a device: ``device`` is the device's name (its plug-in's,
``"*"``: every device) and ``op`` what it is to do, e.g. ``{"device": "forest_floor",
"op": "rotate", "ants": 3, "direction": "clockwise"}``. A device ignores an op it cannot do."""

Effect = Union[DeviceEffect, StonesMoved, GameOver]
"""What an action returns besides its state: a device's effect, or news of the game
(``type``) that no device acts on."""


# --- statuses: what each device says of itself (/healthz, the tablet) ---------------------
class DeviceStatus(TypedDict):
    simulated: bool


class CauldronStatus(DeviceStatus):
    """The cauldron's encoder, beam and colour sensor (``Cauldron.status``)."""

    position: int                  # detents turned, clockwise positive
    revolutions: float
    direction: str | None          # the way the grip turned last
    beam: Literal["dark", "clear"]
    fault: str | None              # e.g. a beam dark for too long
    drops_seen: int
    glitches_ignored: int
    edges_lost: int
    last_drop_at: float | None     # wall time
    last_drop_colour: str | None
    colour_sensor: bool
    contents: NotRequired[dict[str, int]]    # the simulated cauldron's drops inside it
    total: NotRequired[int]


class MoveJSON(TypedDict, total=False):
    """A floor's move: a turn (``ants``, ``direction``), a nudge (``steps``) or a homing
    (``home``), and once it is the floor's ``last_move`` its ``result``."""

    ants: int
    direction: Direction
    steps: int
    home: bool
    result: Literal["moving", "done", "stopped", "fault"]


class FloorStatus(DeviceStatus):
    """The forest floor (``ForestFloor.status``), with what its back-end adds."""

    state: str                     # "idle", "moving", "homing" or "fault"
    position: float                # in ants, 0 .. ants_around
    ants_around: int
    fault: str | None
    last_move: dict[str, Any] | None    # a MoveJSON, with its result
    steps: NotRequired[int | None]           # gpio, serial: the motor's step count
    needs_home: bool               # where it stands is not trusted: home it before its next turn
    step_timing: NotRequired[str]            # gpio: "wave" or "thread"
    backend: NotRequired[str]                # serial
    homed: NotRequired[bool]                 # serial: the same fact (not needs_home), the Pico's word
    fault_code: NotRequired[str | None]
    position_lost: NotRequired[bool]
    goal: NotRequired[float]
    phase: NotRequired[str]                  # serial: the move in hand (floor_serial.Phase)
    link: NotRequired[dict[str, Any]]        # serial: the Pico's link (state, port, firmware...)


DevicesStatus = dict[str, Any]
"""``/healthz``'s ``devices``: ``simulated``, then each declared device's status
(``CauldronStatus``, ``FloorStatus``, a plug-in's own) by name; None where this table
has no such device."""


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


__all__ = ["Action", "CauldronStatus", "ContentsEffect", "DeviceStatus", "DevicesStatus", "Direction",
           "DeviceEffect", "Effect", "FillEffect", "FloorEffect", "FloorStatus", "GameOver", "MoveJSON",
           "Notice", "NoticeSink", "OutcomeJSON", "ResetEffect", "RevokedNotice", "RotateEffect", "SeatSession",
           "Session", "Sink", "State", "StonesMoved"]
