"""The one place where actions meet a game: lock, apply, persist, publish.

Every change — a tap on the tablet, a drop seen by the beam — goes through
``Table.act`` under one lock, so two tablets and a sensor can never interleave
half an update:

1. ``engine.apply(state, action)`` → new state + effects (a refusal changes nothing)
2. ``store.append(action)`` — committed before anyone hears of it
3. publish the new version to every subscriber (SSE)
4. hand the effects to the devices (e.g. turn the forest floor 3 ants)
"""
from __future__ import annotations

import logging
import random
import threading
from collections import deque
from typing import Any, Callable, cast

from . import games
from .contracts import Action, Effect, Notice, OutcomeJSON, SeatSession, Session, State
from .games import BadSetup, Refusal
from .store import Store

log = logging.getLogger(__name__)

EffectHandler = Callable[[Effect], None]
Permit = Callable[[games.Game, State, Action], None]


class NoGame(Exception):
    """No game is running on the table."""

    def __str__(self) -> str:
        return "no game is running; start one first"


class VersionConflict(Exception):
    """The client acted on an old version; ``session`` is the current one."""

    def __init__(self, given: int, session: Session):
        super().__init__(f"the table is at version {session['version']}, not {given}; "
                         "look again and retry")
        self.session = session


class Table:
    """Holds the running game and is its only writer."""

    def __init__(self, store: Store, *, load_game: Callable[[str], games.Game] = games.load):
        self.store = store
        self._load_game = load_game
        self._lock = threading.RLock()        # re-entrant: an effect may report back at once
        self._changed = threading.Condition(self._lock)
        self._effect_handlers: list[EffectHandler] = []
        self._notices: deque[tuple[int, Notice]] = deque(maxlen=32)
        self._notice_seq = 0
        self._game_id: int | None = None
        self._engine: games.Game | None = None
        self._meta: dict[str, Any] = {}
        self._state: State | None = None
        self._version = 0
        self._session: Session | None = None   # cached public session of _version
        self.closed = False

    # --- life cycle -------------------------------------------------------------
    def resume(self) -> Session | None:
        """Rebuild the running game from the log (state = replay(setup, actions))."""
        with self._lock:
            row = self.store.running_game()
            if row is None:
                return None
            engine = self._load_game(row["game"])
            state = engine.setup(row["players"], row["seed"], row["options"])
            version = 0
            for entry in self.store.actions(row["id"]):
                state, _effects = engine.apply(state, entry["action"])  # devices are not replayed
                version = entry["version"]
            self._install(row["id"], engine, row, state, version)
            log.info("resumed %s game %d at version %d", row["game"], row["id"], version)
            return self._session

    def start(self, game_id: str, players: list[str], seed: int | None = None,
              options: dict[str, Any] | None = None) -> Session:
        """Start a new game (any running one is closed and stays in history)."""
        engine = self._load_game(game_id)           # KeyError: unknown game
        options = dict(options or {})
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise BadSetup("seed must be a whole number")
        state = engine.setup(list(players), seed, options)   # BadSetup: refused, nothing changed
        with self._lock:
            game_row_id = self.store.new_game(game_id, list(players), seed, options)
            meta = {"game": game_id, "players": list(players), "seed": seed, "options": options}
            session = self._install(game_row_id, engine, meta, state, 0)
            self._publish()
            # devices put themselves in step with the new game (e.g. all drops back in)
            self.device_sync()
            return session

    # --- the one writer ----------------------------------------------------------
    def act(self, action: Action, *, version: int | None = None,
            source: str = "player", permit: Permit | None = None) -> Session:
        """Apply one action. Raises NoGame, VersionConflict, InvalidAction (malformed) or
        IllegalAction (the rules, the game is over); then nothing changed. ``permit``
        (engine, state, action), called under the lock, may refuse by raising (a phone
        acts only as its seat may)."""
        with self._lock:
            if self._engine is None or self._state is None or self._game_id is None \
                    or self._session is None:
                raise NoGame()
            if version is not None and version != self._version:
                raise VersionConflict(version, self._session)
            if permit is not None:
                permit(self._engine, self._state, action)
            # the engine refuses what a finished game no longer takes (Game.apply)
            new_state, effects = self._engine.apply(self._state, action)
            new_version = self._version + 1
            outcome = self._engine.outcome(new_state)
            self.store.append(self._game_id, new_version, action, source,
                              None if outcome is None else dict(outcome.to_json(self._meta["players"])))
            self._state, self._version = new_state, new_version
            session = self._session = self._build_session()
            self._publish()
            for effect in effects:
                self._dispatch(effect)
            return session

    def sensor(self, action: Action) -> None:
        """An action from a device. A refusal becomes a visible notice, never a silent change."""
        try:
            self.act(action, source="sensor")
        except NoGame:
            self.notice({"kind": "sensor", "message": "a sensor reported something but no game is running"})
        except Refusal as exc:
            self.notice({"kind": "sensor", "message": f"sensor event not used: {exc}"})

    def accepts(self, kind: str) -> bool:
        """True if the running game has an action of this type (a device asks before it
        reports, e.g. "floor_turned" means nothing to a game without a forest floor)."""
        with self._lock:
            return self._engine is not None and self._engine.handles(kind)

    def is_legal(self, action: Action) -> bool:
        """True if the running game would take ``action`` now (nothing changes)."""
        with self._lock:
            return (self._engine is not None and self._state is not None
                    and self._engine.is_legal(self._state, action))

    def device_sync(self) -> None:
        """Tell the devices where the running game says things are (a new game, a restart)."""
        with self._lock:
            if self._engine is None or self._state is None:
                return
            for effect in self._engine.device_sync(self._state):
                self._dispatch(effect)

    def notice(self, notice: Notice) -> None:
        """Publish a passing message (e.g. "turn gently") that does not change the game."""
        with self._lock:
            self._notice_seq += 1
            self._notices.append((self._notice_seq, notice.copy()))
            self._changed.notify_all()

    def close(self) -> None:
        """Wake and end every subscriber (shutdown); the store is closed by its owner."""
        with self._lock:
            self.closed = True
            self._changed.notify_all()

    # --- reading -----------------------------------------------------------------
    @property
    def version(self) -> int:
        return self._version

    def session(self, seat: int | None = None) -> Session | None:
        """The running game as a client sees it: the public session, or with ``seat`` the
        public session plus that seat's ``private`` part (its phone's view)."""
        with self._lock:
            if self._engine is None:
                return None
            if seat is None:
                return self._session
            return self._seat_session(seat)

    def history(self, limit: int = 50) -> list[dict[str, Any]]:
        return self.store.history(limit)

    def subscribe(self, seat: int | None = None) -> "Subscription":
        """A live subscriber: the public session, or one seat's (see ``session``)."""
        return Subscription(self, seat)

    def on_effect(self, handler: EffectHandler) -> None:
        self._effect_handlers.append(handler)

    # --- internals ---------------------------------------------------------------
    def _install(self, game_row_id: int, engine: games.Game, meta: dict[str, Any],
                 state: State, version: int) -> Session:
        self._game_id, self._engine, self._state, self._version = game_row_id, engine, state, version
        self._meta = {"game": meta["game"], "players": list(meta["players"])}
        session = self._session = self._build_session()
        return session

    def _seat_session(self, seat: int) -> SeatSession:
        engine, state, public = self._engine, self._state, self._session
        assert engine is not None and state is not None and public is not None
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(state["players"]):
            raise ValueError(f"seat must be 0 to {len(state['players']) - 1}")
        private = dict(engine.private_view(state, seat))
        private["legal_actions"] = engine.seat_actions(state, seat)
        return cast(SeatSession, {**public, "seat": seat, "private": private})

    def _build_session(self) -> Session:
        engine, state, game_id = self._engine, self._state, self._game_id
        assert engine is not None and state is not None and game_id is not None
        outcome = engine.outcome(state)
        players: list[str] = self._meta["players"]
        return {"id": game_id, "game": self._meta["game"], "version": self._version,
                "players": players, "state": engine.view(state),
                # once the game is over the engine lists at most the undo of its last action
                "legal_actions": engine.legal_actions(state),
                "legal_actions_complete": engine.legal_actions_complete,
                "outcome": None if outcome is None else cast(OutcomeJSON, outcome.to_json(players))}

    def _publish(self) -> None:
        self._changed.notify_all()

    def _dispatch(self, effect: Effect) -> None:
        for handler in self._effect_handlers:
            try:
                handler(effect)
            except Exception as exc:   # a device failure must not undo a committed action
                log.exception("device could not carry out %s", effect)
                self.notice({"kind": "device", "message": f"a device could not do that: {exc}"})


class Subscription:
    """One SSE client's view of the table: newest session, coalesced, plus notices."""

    def __init__(self, table: Table, seat: int | None = None):
        self.table = table
        self.seat = seat              # None: the public table; else this seat's own session
        self.game = table._game_id    # a seat belongs to this game: a new one ends the stream
        self.seen_version: int | None = None
        self.seen_game: int | None = None
        with table._lock:
            self.seen_notice = table._notice_seq
        self.closed = False

    def mark_seen(self, version: int | None) -> None:
        """The client already has ``version`` (from Last-Event-ID); send only what is newer."""
        with self.table._lock:
            self.seen_version = version
            self.seen_game = self.table._game_id

    def get(self, timeout: float) -> Session | dict[str, Notice] | None:
        """Block up to ``timeout`` s; return a session newer than seen, a {"notice"}, or None."""
        t = self.table
        with t._lock:
            t._changed.wait_for(lambda: self.closed or t.closed or self._pending(), timeout)
            if self.closed or t.closed:
                return None
            for seq, notice in t._notices:
                if seq > self.seen_notice:
                    self.seen_notice = seq
                    return {"notice": notice}
            if self._has_new_session():
                self.seen_version, self.seen_game = t._version, t._game_id
                if self.seat is None or t._session is None:
                    return t._session
                if t._game_id != self.game:
                    # a new game revoked the seat: the public session once (its id tells
                    # the stream so), then this subscription ends
                    self.closed = True
                    return t._session
                return t._seat_session(self.seat)
            return None

    @property
    def ended(self) -> bool:
        """True once this subscriber or the whole table closed: the stream should end."""
        return self.closed or self.table.closed

    def close(self) -> None:
        with self.table._lock:
            self.closed = True
            self.table._changed.notify_all()

    def _pending(self) -> bool:
        t = self.table
        return (bool(t._notices) and t._notices[-1][0] > self.seen_notice) or self._has_new_session()

    def _has_new_session(self) -> bool:
        t = self.table
        if t._session is None:
            return False
        return self.seen_game != t._game_id or self.seen_version is None or t._version > self.seen_version
