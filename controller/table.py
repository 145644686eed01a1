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

import json
import logging
import queue
import random
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterator, cast

from . import games, records
from .contracts import Action, Effect, Notice, OutcomeJSON, ScoresJSON, SeatSession, Session, State
from .games import BadSetup, Refusal
from .games.fields import whole
from .store import DamagedRow, Store, StoreWriteError

log = logging.getLogger(__name__)

EffectHandler = Callable[[Effect], None]
Permit = Callable[[games.Game, State, Action], None]

#: a state snapshot goes into the store every this many actions (restart replays fewer)
SNAPSHOT_EVERY = 100
#: ... at a moment when the undo stack holds at most this many steps
SNAPSHOT_UNDO = 4
#: ... and after this many actions in any case
SNAPSHOT_LATEST = 400


class NoGame(Exception):
    """No game is running on the table."""

    def __str__(self) -> str:
        return "no game is running; start one first"


class VersionConflict(Exception):
    """The client acted on an old version; ``session`` is the current one (as the client
    sees it: the public session, or a seat's own)."""

    def __init__(self, given: int, session: Session, message: str | None = None):
        super().__init__(message or f"the table is at version {session['version']}, not {given}; "
                                    "look again and retry")
        self.given, self.session = given, session


class ReplayFailed(Exception):
    """A logged game no longer replays; ``reason`` says where and why, in words."""

    def __init__(self, reason: str, game: str | None = None, version: int | None = None):
        super().__init__(reason)
        self.reason, self.game, self.version = reason, game, version


def replay(store: Store, game_row_id: int, load_game: Callable[[str], games.Game] = games.load,
           snapshot: tuple[int, State] | None = None) -> tuple[dict[str, Any], games.Game, State, int]:
    """(row, engine, state, version) of a logged game, or ReplayFailed saying what broke.

    With ``snapshot`` (version, state) only the actions after it are replayed: restart cost
    does not grow with the game's length (tests check it equals the full replay).
    Storage errors (sqlite3.Error, OSError) pass through: they say nothing about the game.
    """
    row, engine, state, version = replay_start(store, game_row_id, load_game, snapshot)
    for entry, state in replay_steps(store, row, engine, state, version):
        version = entry["version"]
    return row, engine, state, version


def replay_start(store: Store, game_row_id: int, load_game: Callable[[str], games.Game] = games.load,
                 snapshot: tuple[int, State] | None = None) -> tuple[dict[str, Any], games.Game, State, int]:
    """(row, engine, state, version) where a replay of the logged game begins: its set-up
    (version 0) or ``snapshot``; ReplayFailed if the row, the game or its set-up is gone."""
    try:
        row = store.game(game_row_id)
    except ValueError as exc:                     # the row's JSON was changed
        raise ReplayFailed(f"its entry in the games table is unreadable ({exc})") from None
    if row is None:
        raise ReplayFailed(f"there is no game #{game_row_id}")
    try:
        engine = load_game(row["game"])
    except Exception as exc:
        raise ReplayFailed(f"the game {row['game']!r} is not installed ({exc})", row["game"]) from None
    if snapshot is not None:
        return row, engine, snapshot[1], snapshot[0]
    try:
        state = engine.setup(row["players"], row["seed"], row["options"])
    except Exception as exc:
        raise ReplayFailed(f"its set-up is no longer accepted ({exc})", row["game"], 0) from None
    return row, engine, state, 0


def replay_steps(store: Store, row: dict[str, Any], engine: games.Game, state: State,
                 version: int = 0) -> Iterator[tuple[dict[str, Any], State]]:
    """Each logged action after ``version`` (its store entry) with the state it led to, in
    order: the one replay the restart, ``potionpi replay`` and the tablet's replay of a
    finished game share. ReplayFailed where the log no longer replays."""
    try:
        entries = store.actions(row["id"], after=version)
    except DamagedRow as exc:
        raise ReplayFailed(f"{exc}", row["game"], exc.version) from None
    for entry in entries:
        if entry["version"] != version + 1:       # a row was deleted: the rest would replay wrong
            raise ReplayFailed(f"action {version + 1} is missing from the log", row["game"], version + 1)
        try:
            state, _effects = engine.apply(state, entry["action"])   # devices are not replayed
        except MemoryError:
            raise
        except Exception as exc:                  # Refusal from the rules, or any engine error
            raise ReplayFailed(f"action {entry['version']} ({json.dumps(entry['action'])}) no longer "
                               f"replays: {exc}", row["game"], entry["version"]) from None
        version = entry["version"]
        yield entry, state


def build_session(engine: games.Game, state: State, *, game_id: int, game: str, version: int,
                  players: list[str], actions: bool = True) -> Session:
    """The public session of ``state``: what GET /api/v1/session answers and the public
    stream sends (docs/api.md; the secret-leak tests build theirs with it too). ``actions=False``:
    nothing on offer, not even the undo (a replayed step)."""
    outcome = engine.outcome(state)
    can_undo = actions and engine.can_undo(state)
    scores = engine.scores(state)
    over = None if outcome is None else cast(OutcomeJSON, outcome.to_json(players))
    if over is not None:
        said = records.results(game, dict(over), players)
        if said is not None:
            over["results"] = said        # each seat's score in words: the phones' end screen
    return {"id": game_id, "game": game, "version": version, "players": players,
            "state": engine.view(state),
            # once the game is over the engine lists at most the undo of its last action
            "legal_actions": engine.legal_actions(state) if actions else [],
            "legal_actions_complete": engine.legal_actions_complete,
            "prompt": engine.prompt(state),
            # what the last action did, sentence by sentence: the game log's words
            "told": records.told(game, state.get("told"), players),
            "can_undo": can_undo,
            "undo_label": engine.undo_label(state) if can_undo else None,
            "scores": None if scores is None else cast(ScoresJSON, scores.to_json()),
            "outcome": over}


def build_seat_session(engine: games.Game, state: State, public: Session, seat: int) -> SeatSession:
    """One seat's session: ``public`` plus that seat's ``private`` part (its phone's view);
    a ValueError for a seat that is not at the table."""
    if not whole(seat) or not 0 <= seat < len(state["players"]):
        raise ValueError(f"seat must be 0 to {len(state['players']) - 1}")
    private = dict(engine.private_view(state, seat))
    private["legal_actions"] = engine.seat_actions(state, seat)
    return cast(SeatSession, {**public, "seat": seat, "private": private})


class GameChanged(VersionConflict):
    """The client acted on a game that is no longer on the table (versions restart at 0
    with every game, so the version alone cannot tell an old game's tap from a new one's)."""

    def __init__(self, given: int, session: Session):
        super().__init__(given, session, f"that was meant for game #{given}, but game #{session['id']} "
                                         f"({session['game']}) is on the table now; look again and retry")


class Table:
    """Holds the running game and is its only writer."""

    def __init__(self, store: Store, *, load_game: Callable[[str], games.Game] = games.load):
        self.store = store
        self._load_game = load_game
        self._lock = threading.RLock()        # re-entrant: an effect may report back at once
        # Subscribers have their own lock: handing a change to 64 streams never makes them
        # queue for the table's lock (each takes its session from its own mailbox).
        self._subscribers: set[Subscription] = set()
        self._subscribers_lock = threading.Lock()
        self._effect_handlers: list[EffectHandler] = []
        self._prepare: list[Callable[[Session], Any]] = []
        self._notices: deque[tuple[int, Notice]] = deque(maxlen=32)
        self._notice_seq = 0
        self._game_id: int | None = None
        self._engine: games.Game | None = None
        self._meta: dict[str, Any] = {}
        self._state: State | None = None
        self._version = 0
        self._session: Session | None = None   # cached public session of _version
        self._snapshot_version = 0             # version of the newest stored snapshot
        self.closed = False
        # the game resume() had to close as damaged ({"id", "game", "reason", "message"})
        self.damaged: dict[str, Any] | None = None

    # --- life cycle -------------------------------------------------------------
    def resume(self) -> Session | None:
        """Rebuild the running game from the log (state = replay(setup, actions)).

        A game that no longer replays (a row edited by hand, a rule changed by an upgrade)
        is closed as damaged, with the reason, and the table starts without a game: the
        players can start a new one, ``potionpi doctor`` explains, ``potionpi repair`` acts.
        """
        with self._lock:
            lost = self.store.lost
            if lost is not None:
                self._lost(lost)
                return None
            game_row_id = self.store.running_game_id()
            if game_row_id is None:
                return None
            # the newest snapshot, then only the actions after it; a snapshot that does not
            # replay is ignored (the log is the truth) and the whole game is replayed
            snapshot = self.store.latest_snapshot(game_row_id)
            try:
                try:
                    row, engine, state, version = replay(self.store, game_row_id, self._load_game,
                                                         snapshot)
                except ReplayFailed:
                    if snapshot is None:
                        raise
                    snapshot = None
                    row, engine, state, version = replay(self.store, game_row_id, self._load_game)
            except ReplayFailed as exc:
                self.store.close_damaged(game_row_id, exc.reason)
                self.damaged = {"id": game_row_id, "game": exc.game, "reason": exc.reason,
                                "message": f"game #{game_row_id} could not be resumed and was closed "
                                           f"as damaged: {exc.reason}. Start a new game; "
                                           "`potionpi doctor` on the Pi explains more"}
                log.error("%s", self.damaged["message"])
                return None
            self._install(row["id"], engine, row, state, version)
            self._snapshot_version = snapshot[0] if snapshot is not None else 0
            log.info("resumed %s game %d at version %d", row["game"], row["id"], version)
            return self._session

    def _lost(self, lost: dict[str, Any]) -> None:
        """The database holds less than the store acknowledged (its -wal file was lost):
        resume nothing (what is left may be a game the lost part had replaced), keep the
        lost game in the history as damaged if its row survived, and say so everywhere."""
        game = self.store.game(lost["id"]) if lost["id"] is not None else None
        if game is not None and game["status"] != "damaged":
            self.store.close_damaged(lost["id"], lost["reason"])
        self.damaged = {"id": lost["id"], "game": lost["game"], "reason": lost["reason"],
                        "message": f"the game database holds less than the table had saved: {lost['reason']}. "
                                   "Restore a copy made with `potionpi backup`, or start a new game; "
                                   "`potionpi doctor` on the Pi explains more"}
        log.error("%s", self.damaged["message"])

    def start(self, game_id: str, players: list[str], seed: int | None = None,
              options: dict[str, Any] | None = None) -> Session:
        """Start a new game (any running one is closed and stays in history)."""
        engine = self._load_game(game_id)           # KeyError: unknown game
        options = dict(options or {})
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        if not whole(seed):
            raise BadSetup("seed must be a whole number")
        state = engine.setup(list(players), seed, options)   # BadSetup: refused, nothing changed
        with self._lock:
            game_row_id = self.store.new_game(game_id, list(players), seed, options)
            meta = {"game": game_id, "players": list(players), "seed": seed, "options": options}
            session = self._install(game_row_id, engine, meta, state, 0)
            self.damaged = None          # a new game: the damaged one is only history now
            self._publish()
            # devices put themselves in step with the new game (e.g. all drops back in)
            self.device_sync()
            return session

    # --- the one writer ----------------------------------------------------------
    def act(self, action: Action, *, version: int | None = None, game_id: int | None = None,
            source: str = "player", permit: Permit | None = None, seat: int | None = None) -> Session:
        """Apply one action. Raises NoGame, VersionConflict (GameChanged when ``game_id``
        is not the running game), InvalidAction (malformed) or IllegalAction (the rules,
        the game is over); then nothing changed. ``permit`` (engine, state, action), called
        under the lock, may refuse by raising (a phone acts only as its seat may). ``seat``:
        the acting phone's seat, whose own session a VersionConflict then carries."""
        with self._lock:
            if self._engine is None or self._state is None or self._game_id is None \
                    or self._session is None:
                raise NoGame()
            if game_id is not None and game_id != self._game_id:
                raise GameChanged(game_id, self._session)
            if version is not None and version != self._version:
                raise VersionConflict(version, self._session if seat is None else self._seat_session(seat))
            if permit is not None:
                permit(self._engine, self._state, action)
            # the engine refuses what a finished game no longer takes (Game.apply)
            new_state, effects = self._engine.apply(self._state, action)
            new_version = self._version + 1
            outcome = self._engine.outcome(new_state)
            snapshot = new_state if self._snapshot_due(new_state, new_version) else None
            self.store.append(self._game_id, new_version, action, source,
                              None if outcome is None else dict(outcome.to_json(self._meta["players"])),
                              snapshot=snapshot)
            if snapshot is not None:
                self._snapshot_version = new_version
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
        except StoreWriteError as exc:        # e.g. the card is full: the tablet says so
            self.notice({"kind": "sensor", "message": f"sensor event not saved: {exc}"})

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
            told = notice.copy()            # one copy for all: no stream changes it
            self._notices.append((self._notice_seq, told))
            for sub in self._subscribers_now():
                sub.offer_notice(told)

    def close(self) -> None:
        """Wake and end every subscriber (shutdown); the store is closed by its owner."""
        with self._lock:
            self.closed = True
            for sub in self._subscribers_now():
                sub.close()

    def responsive(self, timeout: float) -> bool:
        """True if the table's lock comes free within ``timeout``: its one writer is not
        hung (the service's watchdog asks before each ping)."""
        if not self._lock.acquire(timeout=timeout):
            return False
        self._lock.release()
        return True

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

    def inspect(self, read: Callable[[games.Game, State], Any]) -> Any:
        """``read(engine, state)`` of the running game under the lock (None if no game);
        for a game's own read-only endpoints. ``read`` must not change the state."""
        with self._lock:
            if self._engine is None or self._state is None:
                return None
            return read(self._engine, self._state)

    def history(self, limit: int = 50) -> list[dict[str, Any]]:
        return self.store.history(limit)

    def subscribe(self, seat: int | None = None) -> "Subscription":
        """A live subscriber: the public session, or one seat's (see ``session``). It
        gets the current version at once, then every newer one until it is closed."""
        with self._lock:
            sub = Subscription(seat, self._game_id, seat_session=self._seat_session,
                               release=self._unsubscribe, table_closed=lambda: self.closed)
            if self._session is not None:
                sub.offer(self._session)
            with self._subscribers_lock:
                self._subscribers.add(sub)
            return sub

    def on_effect(self, handler: EffectHandler) -> None:
        self._effect_handlers.append(handler)

    def on_publish(self, prepare: Callable[[Session], Any]) -> None:
        """``prepare(session)`` runs for every new version before the subscribers wake
        (the web side encodes the stream message once there, not in 64 woken threads)."""
        self._prepare.append(prepare)

    # --- internals ---------------------------------------------------------------
    def _snapshot_due(self, state: State, version: int) -> bool:
        """Every ``SNAPSHOT_EVERY`` actions, at a moment with little to undo (the undo
        snapshots are stored whole, unshared, so a short stack keeps it small); after
        ``SNAPSHOT_LATEST`` actions whatever the stack holds."""
        since = version - self._snapshot_version
        if since >= SNAPSHOT_LATEST:
            return True
        return since >= SNAPSHOT_EVERY and len(state.get("undo") or ()) <= SNAPSHOT_UNDO

    def _install(self, game_row_id: int, engine: games.Game, meta: dict[str, Any],
                 state: State, version: int) -> Session:
        self._game_id, self._engine, self._state, self._version = game_row_id, engine, state, version
        self._meta = {"game": meta["game"], "players": list(meta["players"])}
        self._snapshot_version = 0
        session = self._session = self._build_session()
        return session

    def _seat_session(self, seat: int) -> SeatSession:
        engine, state, public = self._engine, self._state, self._session
        assert engine is not None and state is not None and public is not None
        return build_seat_session(engine, state, public, seat)

    def _build_session(self) -> Session:
        engine, state, game_id = self._engine, self._state, self._game_id
        assert engine is not None and state is not None and game_id is not None
        return build_session(engine, state, game_id=game_id, game=self._meta["game"],
                             version=self._version, players=self._meta["players"])

    def _publish(self) -> None:
        """One wake-up per change for each stream: the new session into every mailbox."""
        session = self._session
        if session is None:
            return
        for prepare in self._prepare:
            prepare(session)
        for sub in self._subscribers_now():
            sub.offer(session)

    def _unsubscribe(self, sub: "Subscription") -> None:
        with self._subscribers_lock:
            self._subscribers.discard(sub)

    def _subscribers_now(self) -> list[Subscription]:
        with self._subscribers_lock:
            return list(self._subscribers)

    def _dispatch(self, effect: Effect) -> None:
        for handler in self._effect_handlers:
            try:
                handler(effect)
            except Exception as exc:   # a device failure must not undo a committed action
                log.exception("device could not carry out %s", effect)
                self.notice({"kind": "device", "message": f"a device could not do that: {exc}"})


@dataclass(frozen=True, slots=True)
class NewVersion:
    """A mailbox item: the table's newest version, as this subscriber sees it (the
    public session, or one seat's)."""

    session: Session


@dataclass(frozen=True, slots=True)
class Told:
    """A mailbox item: a passing notice (``"turn gently"``) that changes no game."""

    notice: Notice


MailItem = NewVersion | Told


class Subscription:
    """One live stream's mailbox: the newest version not yet taken (a newer one replaces
    it) and the last few notices.

    One writer, one reader, no lock: only the table writes (under its lock, once per
    change, from ``_publish``), only this stream's thread reads. The newest version is a
    single slot the writer replaces and the reader never clears (it remembers which
    version it took), notices go through a bounded deque, and the reader sleeps on a
    ``SimpleQueue`` the writer drops one token into when the reader may have something
    new: a C-level hand-off, no ``Condition`` per stream. A stream that does not read
    holds one pending version, eight notices and at most one token.
    """

    NOTICES = 8     # a client that does not read keeps only the newest few notices

    def __init__(self, seat: int | None, game: int | None, *, seat_session: Callable[[int], SeatSession],
                 release: Callable[["Subscription"], None], table_closed: Callable[[], bool]):
        self.seat = seat              # None: the public table; else this seat's own session
        self.game = game              # a seat belongs to this game: a new one ends the stream
        self.seen_version: int | None = None
        self.seen_game: int | None = None
        self.closed = False
        self._seat_session = seat_session
        self._release = release
        self._table_closed = table_closed
        self._wake: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._signalled = False
        self._newest: Session | None = None          # replaced by the writer, read by the reader
        self._taken: Session | None = None           # the one the reader took last
        self._notices: deque[Notice] = deque(maxlen=self.NOTICES)
        self._revoked = False

    # --- the writer's side (the table, under its lock) ----------------------------------
    def offer(self, session: Session) -> None:
        """The table has a new version: it replaces any version not yet taken. A seat's
        mailbox gets that seat's own session; once a new game is on the table the seat is
        revoked: the public session (its id tells the stream so), then the stream ends."""
        if self.seat is not None:
            if session["id"] != self.game:
                self._revoked = True
            else:
                session = self._seat_session(self.seat)
        self._newest = session
        self._signal()

    def offer_notice(self, notice: Notice) -> None:
        self._notices.append(notice)
        self._signal()

    def _signal(self) -> None:
        # The reader clears the flag before it looks, so whatever was stored before a
        # skipped token is seen by that look; a token too many only wakes it for nothing.
        if not self._signalled:
            self._signalled = True
            self._wake.put(None)

    # --- the reader's side (the stream's thread) ----------------------------------------
    def get(self, timeout: float) -> MailItem | None:
        """Block up to ``timeout`` s; a notice, the newest version not yet sent, or None."""
        # Whatever was stored after the last look dropped a token (the look cleared the
        # flag first), so the token comes first: one look per wake-up, none before it.
        deadline = time.monotonic() + timeout
        while not self.ended:
            try:
                self._wake.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            item = self._take()
            if item is not None:
                return item
        return None

    def _take(self) -> MailItem | None:
        self._signalled = False
        if self.ended:
            return None
        if self._notices:
            notice = self._notices.popleft()
            if self._notices or self._newest is not self._taken:
                self._signal()                # more is waiting: the next get() returns at once
            return Told(notice)
        session = self._newest
        if session is None or session is self._taken or not self._newer(session):
            return None
        self._taken = session
        self.seen_version, self.seen_game = session["version"], session["id"]
        if self._revoked:
            self.closed = True                # the public session once, then the stream ends
        return NewVersion(session)

    @property
    def ended(self) -> bool:
        """True once this subscriber or the whole table closed: the stream should end."""
        return self.closed or self._table_closed()

    def close(self) -> None:
        """End the stream (from its own thread, a shutdown, or a newer stream of the device)."""
        self.closed = True
        self._release(self)
        self._wake.put(None)

    def _newer(self, session: Session) -> bool:
        return (self.seen_game != session["id"] or self.seen_version is None
                or session["version"] > self.seen_version)
