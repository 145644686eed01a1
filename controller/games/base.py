"""The engine core every game is built on (python-chess's ``Board`` is the model).

An engine is pure: no devices, no clock, no files, no network. State is plain
JSON-serialisable data and all randomness comes from a seeded RNG whose state lives
inside the game state, so ``replay(setup, actions)`` is deterministic.

    game = MirakelMix()                          # data from the plug-in's data.toml
    state = game.setup(players=["Ann", "Ben"], seed=7, options={})
    game.legal_actions(state)        # every legal action (or a sample: see ``legal_actions_complete``)
    game.prompt(state)               # what the table does next, in a sentence
    game.can_undo(state), game.undo_label(state)   # the one undo button
    game.is_legal(state, action)     # the truth, always
    state, effects = game.apply(state, action)   # InvalidAction (malformed) or IllegalAction (rules)
    game.view(state)                 # the public table: no seat's secrets
    game.private_view(state, seat)   # one seat's secrets (its hand, its goal)
    game.seat_actions(state, seat)   # what that seat may do, secrets included
    game.outcome(state)              # None while playing, else an ``Outcome``
    state["told"]                    # what the last action did: the table's story (``announce``)
    game.scores(state)               # the running score (public), else None: ``Scores``

A game subclasses :class:`Game`, lists what the rules allow now in ``actions(state)`` and
writes one handler per action type::

    def _do_place_disk(self, state, action) -> list[Effect] | None: ...

What each action's fields and the set-up options may hold is declared (``fields()``,
``options``: ``controller/games/fields.py``) and read by the core, so a handler never
checks a field's type.

The core owns everything around them: ``apply`` (the shape check, dispatch, the one copy
strategy :meth:`Game.fork`, the undo policy the game declares: ``undoable``,
``undo_barrier``, ``undo_keeps``; the "game is over" refusal and :meth:`Game.settle`) and
``legal_actions`` (the game's ``actions`` while it runs, plus the undo whenever one would
be taken), so no game builds an undo entry or guard of its own; and ``state["told"]``,
what the last action did for the game log and the tablet's "what just happened" line: the
action, who took it (``actor``) and the events its handler announced (``announce``), told in
the words of the game's ``log.toml`` (``controller/records.py``).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Iterable, Mapping, Protocol

from ..contracts import Action, Effect, State
from . import fields as F
from .fields import Choice, Counts, Field, Fields, Flag, ListOf, Seat, Text, Whole
from .plugin import Plugin, load_data, plugin_of


class Refusal(Exception):
    """An action (or set-up) that changed nothing. ``str(exc)`` says why, in a player's words.
    (The web side answers 400 for an ``InvalidAction``, 422 for the others: web_ui/errors.py.)"""

    def __init__(self, rule: str):
        super().__init__(rule)
        self.rule = rule


class IllegalAction(Refusal):
    """A well-formed action the rules forbid now."""


class InvalidAction(Refusal):
    """An action that is not an action of this game at all: no type, unknown type,
    a field of the wrong kind."""


class BadSetup(IllegalAction):
    """Set-up arguments the game cannot start with (player count, options)."""


@dataclass(frozen=True)
class Placing:
    """One seat's place in the final ranking (1 = first; ties share a place)."""

    seat: int
    place: int
    score: Any = None


@dataclass(frozen=True)
class Outcome:
    """How a game ended: winners, the full ranking, a reason code and a sentence.

    ``details`` carries what only this game reports (turns played, points per round);
    it is merged into the JSON so older tablets keep finding their keys.
    """

    winners: tuple[int, ...]
    reason: str                       # a code: "left_the_cave", "magic_bolt", "stop", ...
    message: str                      # the same in a sentence for the table
    ranking: tuple[Placing, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)

    @staticmethod
    def rank(scores: Iterable[Any], *, higher_is_better: bool = True) -> tuple[Placing, ...]:
        """Placings from one score per seat (ties share a place, the next place skips)."""
        scored = list(enumerate(scores))
        ordered = sorted(scored, key=lambda p: p[1], reverse=higher_is_better)
        out: list[Placing] = []
        for i, (seat, score) in enumerate(ordered):
            place = out[-1].place if out and out[-1].score == score else i + 1
            out.append(Placing(seat, place, score))
        return tuple(out)

    def to_json(self, players: list[str] | None = None) -> dict[str, Any]:
        data: dict[str, Any] = dict(self.details)
        data.update({
            "winners": list(self.winners),
            "reason": self.reason,
            "message": self.message,
            "ranking": [{"seat": p.seat, "place": p.place, "score": p.score} for p in self.ranking],
        })
        if players is not None:
            data["winner_names"] = [players[w] for w in self.winners]
        return data


@dataclass(frozen=True)
class Score:
    """One running score of every seat, as the whole table may see it (``Game.scores``):
    the tablet's score panel during the game and beside the ranking at its end."""

    key: str                           # "potions": what it counts, for the chart and the tests
    label: str                         # "Magic potions", in the table's words
    values: tuple[int | None, ...]     # one per seat, in seat order; None: the table cannot know it (yet)
    better: str = "higher"             # "higher" or "lower": which way is ahead; "neither": a count, nobody ahead
    note: str = ""                     # a sentence: how it is counted, or why a value is missing

    def leaders(self) -> list[int]:
        """The seats ahead on this score (none while every known value is the same)."""
        known = [v for v in self.values if v is not None]
        if self.better == "neither" or len(set(known)) < 2:
            return []
        best = max(known) if self.better == "higher" else min(known)
        return [s for s, v in enumerate(self.values) if v == best]

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "values": list(self.values), "better": self.better,
                "leaders": self.leaders(), "note": self.note}


@dataclass(frozen=True)
class RoundScore:
    """The main score of every seat as one earlier round ended (a line of the score sheet)."""

    label: str                         # "Round 3 · 5/3/1/−2"
    values: tuple[int | None, ...]


@dataclass(frozen=True)
class Scores:
    """A game's running score (``Game.scores``): its lines, the first the main one, and for a
    game played in scored rounds every round so far (Zaubercocktail's magic path)."""

    lines: tuple[Score, ...]
    rounds: tuple[RoundScore, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"lines": [line.to_json() for line in self.lines],
                "rounds": [{"label": r.label, "values": list(r.values)} for r in self.rounds]}


def rng_from(state: State) -> random.Random:
    """The game's RNG, restored from the state (so replays are identical)."""
    rng = random.Random()
    version, internal, gauss = state["rng"]
    rng.setstate((version, tuple(internal), gauss))
    return rng


def rng_store(state: State, rng: random.Random) -> None:
    """Keep ``rng`` in the state. A new list each time: states share it, never mutate it."""
    version, internal, gauss = rng.getstate()
    state["rng"] = [version, list(internal), gauss]


def new_rng_state(seed: int) -> list[Any]:
    version, internal, gauss = random.Random(seed).getstate()
    return [version, list(internal), gauss]


def clone(value: Any) -> Any:
    """A deep copy of plain JSON data (dicts, lists, scalars): ~10x faster than deepcopy."""
    kind = type(value)
    if kind is dict:
        return {k: clone(v) for k, v in value.items()}
    if kind is list:
        return [clone(v) for v in value]
    return value


_ACTION_TYPES: dict[type, frozenset[str]] = {}


def _action_types(cls: type[Game]) -> frozenset[str]:
    """The ``_do_<type>`` handlers of ``cls`` (and "undo" if it has an undo policy), once
    per class: ``dir()`` on every ``apply`` cost a third of ``is_legal``."""
    kinds = _ACTION_TYPES.get(cls)
    if kinds is None:
        found = {name[4:] for name in dir(cls) if name.startswith("_do_")}
        if cls.undoable:
            found.add("undo")
        kinds = _ACTION_TYPES[cls] = frozenset(found)
    return kinds


#: the seat an action names: the field most actions have
SEAT = Seat()


class Handler(Protocol):
    def __call__(self, state: State, action: Action, /) -> list[Effect] | None: ...


_PLUGINS: dict[type, Plugin] = {}


class _FromPlugin:
    """An engine's ``id``, ``name`` or ``data_package``: its plug-in's (``Game.plugin``), so a
    game says who it is once. An engine outside a plug-in (a test's) sets them itself."""

    def __init__(self, attr: str):
        self.attr = attr

    def __get__(self, obj: object, owner: type[Game]) -> str:
        plugin = owner.plugin()
        return str(getattr(plugin, self.attr)) if plugin is not None else ""


class Game:
    """Base class of every engine. Subclasses set the class attributes below and write
    ``setup``, ``actions``, ``view``, ``outcome``, ``prompt`` and one ``_do_<type>`` per
    action. Who the game is comes from its plug-in (``Plugin``) and its ``data.toml``."""

    id = _FromPlugin("id")                  # "mix-it"
    name = _FromPlugin("name")              # "Mix It"
    data_package = _FromPlugin("package")   # the plug-in package holding data.toml
    #: fewest and most players: the ``[players]`` table of the engine's data
    min_players: int = 2
    max_players: int = 4

    # --- the undo policy ------------------------------------------------------------
    #: action types a player may take back with {"type": "undo"}
    undoable: ClassVar[frozenset[str]] = frozenset()
    #: action types that are facts (a drop fell, a card was revealed): nothing before
    #: them can be undone any more
    undo_barrier: ClassVar[frozenset[str]] = frozenset()
    #: state keys an undo leaves as they are (warnings raised meanwhile stay raised)
    undo_keeps: ClassVar[tuple[str, ...]] = ()
    #: at most this many steps back are kept
    undo_depth: ClassVar[int] = 64
    nothing_to_undo: ClassVar[str] = "there is nothing to undo"

    # --- copying --------------------------------------------------------------------
    #: state keys whose values are replaced, never changed in place, so states may share them
    #: (``told`` is replaced by ``apply`` before the handler runs; the seats' names and the
    #: set-up options never change)
    shared_keys: ClassVar[frozenset[str]] = frozenset({"rng", "undo", "told", "players", "options"})

    # --- secrets: what only a seat's own phone may send (docs/security.md) -------------
    #: action types that name or depend on the acting seat's hidden information (a hand
    #: card, a secret goal, a pencil note): they come only from that seat's own phone,
    #: never through the table's PIN, which every player knows (its refusals alone, "Ann
    #: has no super soda", would read a hand)
    secret_types: ClassVar[frozenset[str]] = frozenset()
    #: True: a seat no phone holds may enter its secret actions at the tablet, passed
    #: round while the others look away (a Zaubercocktail lay-down); False: its phone only
    secrets_at_the_tablet: ClassVar[bool] = False

    #: False when ``legal_actions`` returns a sample (too many to list): ``is_legal`` decides
    legal_actions_complete: ClassVar[bool] = True
    #: action types still accepted once the game is over (none by default)
    after_game_over: ClassVar[frozenset[str]] = frozenset()

    #: the set-up options and what each may hold (``read_options``: one message for all)
    options: ClassVar[Mapping[str, Field]] = {}

    def __init__(self, data: dict[str, Any] | None = None):
        self.data: dict[str, Any] = data if data is not None else self.default_data()
        players = self.data.get("players")
        if players is not None:
            self.min_players, self.max_players = int(players["min"]), int(players["max"])

    @classmethod
    def plugin(cls) -> Plugin | None:
        """The plug-in of the package this engine (or the engine it extends) lives in;
        None outside one."""
        found = _PLUGINS.get(cls)
        if found is None:
            for klass in cls.__mro__:
                found = plugin_of(klass.__module__.rpartition(".")[0])
                if found is not None:
                    _PLUGINS[cls] = found
                    break
        return found

    @classmethod
    def default_data(cls) -> dict[str, Any]:
        return load_data(cls.data_package) if cls.data_package else {}

    # --- what each game writes ------------------------------------------------------
    def fields(self) -> Mapping[str, Fields]:
        """The fields of each action type and what they may hold, e.g. ``{"place":
        {"seat": Seat(), "monster": Whole(0, 1)}}``; read once per engine. ``apply`` checks
        them before the handler runs and hands it the action with them filled in."""
        return {}

    def setup(self, players: list[str], seed: int, options: dict[str, Any] | None = None) -> State:
        raise NotImplementedError

    def actions(self, state: State) -> list[Action]:
        """What the rules allow now, while the game runs (a sample if
        ``legal_actions_complete`` is False). Never the undo: ``legal_actions`` adds it."""
        raise NotImplementedError

    def prompt(self, state: State) -> str:
        """What the table does next, in a sentence for the top of the tablet (the session's
        ``prompt``; the tablet cues "next" when it changes). By default the outcome's
        message once the game is over, else nothing."""
        over = self.outcome(state)
        return over.message if over is not None else ""

    def view(self, state: State, seat: int | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def outcome(self, state: State) -> Outcome | None:
        raise NotImplementedError

    def scores(self, state: State) -> Scores | None:
        """The running score the table follows, for the tablet's score panel and the end
        screen (the session's ``scores``): one ``Score`` line per thing counted, the first the
        game's main score, and the earlier rounds where the game is scored round by round.
        Public information only, like ``view``: a value the table cannot know (a card held
        face down) is None. None: the game keeps no score."""
        return None

    # --- seats: what only one player may see and do (docs/seats.md) -----------------
    def private_view(self, state: State, seat: int) -> dict[str, Any]:
        """That seat's secrets (``{"hand": [...], "goal": ...}``), sent only on its own
        stream as ``session["private"]``. ``view(state)`` must carry none of them."""
        return {}

    def seat_actions(self, state: State, seat: int) -> list[Action]:
        """What ``seat`` may do now, secrets included (a hand card to place). By default
        the public actions naming this seat."""
        return [a for a in self.legal_actions(state) if a.get("seat") == seat]

    def is_secret(self, state: State, action: Action) -> bool:
        """True if ``action`` names or depends on its seat's hidden information, so only
        that seat's phone may send it (``secret_types``). Decided from the action and the
        public part of ``state`` alone: whether an action counts as secret tells nothing."""
        return action.get("type") in self.secret_types

    def settle(self, state: State, kind: str) -> list[Effect] | None:
        """Advance whatever needs no decision after an action of type ``kind`` (in place)."""
        return None

    def device_sync(self, state: State) -> list[Effect]:
        """Effects that put the devices in step with ``state`` (a new game, a restart).
        By default every device starts afresh (all drops back in the cauldron)."""
        return [{"device": "*", "op": "reset"}]

    # --- the core -------------------------------------------------------------------
    def legal_actions(self, state: State) -> list[Action]:
        """Every legal action now (a sample unless ``legal_actions_complete``): the game's
        ``actions`` while it runs (once it is over, only those of ``after_game_over``
        types), then ``{"type": "undo"}`` whenever an undo would be taken."""
        if self.outcome(state) is None:
            out = list(self.actions(state))
        elif self.after_game_over:
            out = [a for a in self.actions(state) if a.get("type") in self.after_game_over]
        else:
            out = []
        if self.can_undo(state):
            out.append({"type": "undo"})
        return out

    def action_types(self) -> frozenset[str]:
        """Every action type this game understands."""
        return _action_types(type(self))

    def handles(self, kind: str) -> bool:
        return kind in self.action_types()

    @cached_property
    def _fields(self) -> Mapping[str, Fields]:
        return self.fields()

    def read_fields(self, state: State, action: Action) -> Action:
        """``action`` with its declared fields checked and filled in (InvalidAction: the
        first wrong one, in one sentence)."""
        declared = self._fields.get(action["type"])
        return F.read(action, declared, state, InvalidAction) if declared else action

    def invalid(self, state: State, kind: str, key: str) -> InvalidAction:
        """The refusal of a declared field that this moment needs and the action left out
        (a printed recipe deck needs the ``card`` revealed)."""
        return InvalidAction(self._fields[kind][key].sentence(key, state))

    def read_options(self, options: Mapping[str, Any] | None, players: list[str]) -> dict[str, Any]:
        """The set-up options with every one declared in ``options`` filled in (its default
        if left out); BadSetup for one the game does not have or a value it does not take."""
        given = dict(options or {})
        unknown = sorted(set(given) - set(self.options))
        if unknown:
            knows = ", ".join(self.options) or "none"
            raise BadSetup(f"{self.name} has no option {unknown[0]!r}; it knows: {knows}")
        return F.read(given, self.options, {"players": players}, lambda said: BadSetup(f"the option {said}"))

    def check_action(self, action: Any) -> str:
        """The action's type, or InvalidAction if it is not an action of this game."""
        if not isinstance(action, dict):
            raise InvalidAction("an action must be a JSON object with a \"type\"")
        kind = action.get("type")
        if not isinstance(kind, str) or not kind:
            raise InvalidAction("an action needs a \"type\"")
        if not self.handles(kind):
            raise InvalidAction(f"{self.name} has no action called {kind!r}; it knows: "
                                + ", ".join(sorted(self.action_types())))
        return kind

    def apply(self, state: State, action: Action) -> tuple[State, list[Effect]]:
        """Return a *new* state and the effects for the devices. The argument is never
        changed, so a refusal (an exception) changes nothing."""
        kind = self.check_action(action)
        if kind == "undo":
            # allowed after the game is over too: the action that ended it (a mistyped
            # final lay-down, a wrong last move) is undone like any other undoable action
            return self._undo(state)
        action = self.read_fields(state, action)
        if kind not in self.after_game_over:
            over = self.outcome(state)
            if over is not None:
                raise IllegalAction(f"the game is over ({over.message}); start a new one")
        new = self.fork(state)
        told = new["told"] = {"action": dict(action), "by": self.actor(state, action), "events": []}
        handler: Handler = getattr(self, "_do_" + kind)
        effects = list(handler(new, action) or [])
        effects += self.settle(new, kind) or []
        if self.undo_barrier_reached(state, new, kind):
            new["undo"] = []
        elif kind in self.undoable:
            snapshot = {k: v for k, v in state.items() if k != "undo"}
            new["undo"] = [*state.get("undo", ())[-(self.undo_depth - 1):],
                           {"action": kind, "state": snapshot, "told": told}]
        return new, effects

    # --- what the table is told ------------------------------------------------------
    def announce(self, state: State, event: str, **fields: Any) -> None:
        """Tell the table what the action being applied did, beyond the action itself ("the
        red potion is complete: Ann wins its card", "Cleo rolled 5"): one event for the game
        log and the tablet's "what just happened" line, in the words of the ``[events]``
        table of the game's ``log.toml`` (``{player}`` is the ``seat`` given here, else who
        acted; every other field is the event's own). Everyone at the table hears it: never
        pass a secret. Called by handlers, ``settle`` and (for the first line) ``setup``."""
        told = state.get("told")
        if told is None:
            told = state["told"] = {"action": None, "by": None, "events": []}
        told["events"] = [*told["events"], {"event": event, **fields}]

    def undo_barrier_reached(self, before: State, after: State, kind: str) -> bool:
        """True if this action made a fact nothing earlier can be undone across. By type
        (``undo_barrier``); a game overrides it where one action type is sometimes a fact
        (the basket that completes a check)."""
        return kind in self.undo_barrier

    def is_legal(self, state: State, action: Action) -> bool:
        """True if ``apply`` would accept ``action`` now (the truth, whatever
        ``legal_actions`` lists)."""
        try:
            self.apply(state, action)
        except Refusal:
            return False
        return True

    def fork(self, state: State) -> State:
        """A copy ``apply`` may change. States are never changed once returned, so what
        ``shared_keys`` names (the RNG, the undo snapshots) is shared, not copied."""
        return {k: (v if k in self.shared_keys else clone(v)) for k, v in state.items()}

    def can_undo(self, state: State) -> bool:
        """True if ``{"type": "undo"}`` would be taken now: the one guard ``legal_actions``,
        ``apply`` and the session's ``can_undo`` share (also after the game is over: the
        action that ended it is taken back like any other)."""
        return bool(state.get("undo"))

    def undo_kind(self, state: State) -> str | None:
        """The type of the action an undo would take back, if any."""
        stack = state.get("undo") or []
        return stack[-1]["action"] if stack else None

    def undo_label(self, state: State) -> str | None:
        """What an undo would take back, in the table's words, for the undo button
        ("Linus's basket"; the session's ``undo_label``). None: the button says only
        "Undo". Asked only while ``can_undo``."""
        return None

    def on_undo(self, undone: State, restored: State, kind: str) -> list[Effect]:
        """Called when an action of type ``kind`` is taken back: return the effects that
        take it back on the devices. ``restored`` is a fresh dict: a game may set its
        top-level keys (never change nested values: they are shared with old states)."""
        return []

    def _undo(self, state: State) -> tuple[State, list[Effect]]:
        if not self.can_undo(state):
            raise IllegalAction(self.nothing_to_undo)
        stack = state["undo"]
        restored = dict(stack[-1]["state"])
        for key in self.undo_keeps:
            if key in state:
                restored[key] = state[key]
        restored["undo"] = stack[:-1]
        # the story's last step is the undo, telling what it took back (a snapshot stored
        # before the story was kept has no "told": the undo is then told on its own)
        restored["told"] = {"action": {"type": "undo"}, "by": None, "events": [],
                            "undone": stack[-1].get("told")}
        return restored, self.on_undo(state, restored, stack[-1]["action"])

    # --- helpers shared by engines --------------------------------------------------
    def check_players(self, players: list[str]) -> None:
        if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
            raise BadSetup("players must be a list of names")
        if not self.min_players <= len(players) <= self.max_players:
            raise BadSetup(f"{self.name} is played by {self.min_players} to {self.max_players} "
                           f"players, not {len(players)}")
        if len({p.strip().casefold() for p in players}) != len(players):
            raise BadSetup("every player needs a different name")

    def actor(self, state: State, action: Action) -> int | None:
        """The seat of the player who takes ``action`` in ``state``, for the game log
        ("Ben put a disk on…"): the action's own seat if it names one. A game whose
        actions name no seat (the player whose turn it is acts) says so by overriding."""
        seat = action.get("seat")
        return seat if F.whole(seat) else None

    def seat_of(self, state: State, action: Action, key: str = "seat") -> int:
        """The seat an action names; InvalidAction unless it is a seat at this table."""
        seat: int = F.read(action, {key: SEAT}, state, InvalidAction)[key]
        return seat

    def info(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name,
                "min_players": self.min_players, "max_players": self.max_players}


__all__ = ["BadSetup", "Choice", "Counts", "Field", "Fields", "Flag", "Game", "IllegalAction",
           "InvalidAction", "ListOf", "Outcome", "Placing", "Refusal", "RoundScore", "SEAT", "Score", "Scores",
           "Seat", "Text", "Whole",
           "clone", "load_data", "new_rng_state", "rng_from", "rng_store"]
